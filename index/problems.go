package index

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
)

// A problem with the transcripts (a file that cannot be read, a FIFO, a
// broken link, a folder without permission) is the same on every run until
// someone changes something. Reporting it on every command buries what is
// new, and counting an unreadable file as "1 new" on every run makes the
// counts lie. So the sync remembers, in the store, which problems it
// reported and which files it could not read (at which size and time):
// a problem is reported again only once it went away and came back, and a
// file that failed is tried again only once it changed.

const syncMemoKey = "sync.memo"

// syncMemo is what the last syncs reported and could not read.
type syncMemo struct {
	Reported []string          `json:"reported"` // problem messages, sorted
	Failed   map[string]string `json:"failed"`   // path -> size:mtime when reading it failed
}

// maxMemo bounds what is remembered (a tree full of broken links).
const maxMemo = 2000

func (s *Store) loadSyncMemo(ctx context.Context) syncMemo {
	var m syncMemo
	if b, ok, err := s.Setting(ctx, syncMemoKey); err == nil && ok {
		_ = json.Unmarshal(b, &m) // a bad memo only means reporting again
	}
	if m.Failed == nil {
		m.Failed = map[string]string{}
	}
	return m
}

func fileSig(size, mtime int64) string { return fmt.Sprintf("%d:%d", size, mtime) }

// settleProblems keeps in st.Problems only the problems not reported by an
// earlier sync, and remembers this sync's problems and failed files. A
// sync of some projects only adds to what is remembered; a sync of the
// whole tree replaces it.
func (s *Store) settleProblems(ctx context.Context, st *SyncStats, memo syncMemo, failed map[string]string, whole bool) {
	if s.readOnly {
		return
	}
	before := slices.Clone(memo.Reported)
	fresh, now := freshProblems(st.Problems, memo.Reported)
	st.Problems = fresh
	if !whole {
		now = append(now, memo.Reported...)
	}
	slices.Sort(now)
	now = slices.Compact(now)
	memo.Reported = now[:min(len(now), maxMemo)]
	changed := !slices.Equal(before, memo.Reported)
	changed = rememberFailed(memo.Failed, failed, whole) || changed
	if !changed {
		return
	}
	if b, err := json.Marshal(memo); err == nil {
		_ = s.SetSetting(ctx, syncMemoKey, b) // best effort: at worst a problem is reported again
	}
}

// freshProblems are the problems not in reported, and the messages of all
// of them.
func freshProblems(problems []error, reported []string) (fresh []error, msgs []string) {
	for _, p := range problems {
		msg := p.Error()
		msgs = append(msgs, msg)
		if !slices.Contains(reported, msg) {
			fresh = append(fresh, p)
		}
	}
	return fresh, msgs
}

// rememberFailed records this sync's failed files in memo (path -> sig),
// up to maxMemo; a sync of the whole tree (whole) also forgets the files
// that no longer fail. It reports whether memo changed.
func rememberFailed(memo, failed map[string]string, whole bool) bool {
	changed := false
	if whole {
		for path := range memo {
			if _, ok := failed[path]; !ok {
				delete(memo, path)
				changed = true
			}
		}
	}
	for path, sig := range failed {
		if len(memo) < maxMemo && memo[path] != sig {
			memo[path] = sig
			changed = true
		}
	}
	return changed
}
