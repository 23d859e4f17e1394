//go:build !unix

package memories

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// tryLock takes a lock by creating path exclusively; ok is false when it
// exists. A crash leaves the file behind: it is removed when older than a
// minute.
func tryLock(path string) (unlock func(), ok bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		if fi, serr := os.Stat(path); serr == nil && time.Since(fi.ModTime()) > time.Minute {
			os.Remove(path)
		}
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("creating lock file %s: %w", path, err)
	}
	f.Close()
	return func() { os.Remove(path) }, true, nil
}
