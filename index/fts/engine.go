package fts

import (
	"time"

	"github.com/cairn-dev/cairn/index/ftsapi"
)

// Linking this package gives the store its full-text engine.
func init() {
	ftsapi.Register(ftsapi.Engine{
		Open: func(dir string, lockWait time.Duration) (ftsapi.Index, error) {
			ix, err := Open(dir, lockWait)
			if err != nil {
				return nil, err // never a typed nil in the interface
			}
			return ix, nil
		},
		OpenReadOnly: func(dir string, lockWait time.Duration) (ftsapi.Index, error) {
			ix, err := OpenReadOnly(dir, lockWait)
			if err != nil {
				return nil, err
			}
			return ix, nil
		},
		Remove:     Remove,
		Replace:    Replace,
		QueryTerms: QueryTerms,
		Snippet:    Snippet,
		PrefixLast: PrefixLast,
		PrefixOnly: PrefixOnly,
	})
}
