package memories

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/index"
)

// The journal is the persistent record of what a person did to memories
// (approve, reject, archive, edit, delete, merge, one at a time or in
// bulk), each action with the memories as they were before it, so
// UndoLast takes the actions back one by one, newest first, from any
// process and after any restart: the TUI's u and `cairn memories undo` are
// the same undo. It lives in the store (kv key journalKey), bounded to the
// last journalMaxEntries actions and journalMaxBytes, and is written under a
// file lock beside the store so two processes do not lose each other's
// entries.

// JournalEntry is one recorded action.
type JournalEntry struct {
	Seq  int64     `json:"seq"`
	At   time.Time `json:"at"`
	What string    `json:"what"` // "approve m-1a2b3c4d", "merge m-… into m-…"
	// Before holds the memories the action touched (and those they link
	// to), as they were.
	Before []*index.MemRow `json:"before"`
	// Gone are the memories the action deleted: undo takes them out of
	// the trash.
	Gone []string `json:"gone,omitempty"`
}

// IDs are the memories the entry holds.
func (e *JournalEntry) IDs() []string {
	out := make([]string, len(e.Before))
	for i, r := range e.Before {
		out[i] = r.ID
	}
	return out
}

const (
	journalKey        = "memories.journal"
	journalMaxEntries = 200
	journalMaxBytes   = 4 << 20
)

// ErrNothingLogged is returned by UndoLast when the journal is empty.
var ErrNothingLogged = errors.New("nothing to undo: no recorded action on memories is left")

// Record runs fn, an action a person takes on memories ids, and records it
// with the memories as they were for UndoLast. The entry is recorded even
// when fn fails part-way (a bulk approval stopped after some), so what it
// did can be undone; it is not when fn failed before changing anything
// of ids.
func (s Curator) Record(ctx context.Context, what string, ids []string, fn func(ctx context.Context) error) error {
	sn, err := s.Snapshot(ctx, ids...)
	if err != nil {
		return err
	}
	fnErr := fn(ctx)
	e := JournalEntry{At: s.now().UTC(), What: what, Before: sn.rows}
	changed := false
	s.mu.Lock()
	for _, r := range sn.rows {
		now, err := s.row(ctx, r.ID)
		switch {
		case isNotFound(err):
			e.Gone = append(e.Gone, r.ID)
			changed = true
		case err == nil && !sameRow(now, r):
			changed = true
		}
	}
	s.mu.Unlock()
	if !changed {
		return fnErr
	}
	if err := s.appendJournal(ctx, e); err != nil {
		if fnErr != nil {
			return fnErr
		}
		return fmt.Errorf("%s was done, but could not be recorded for undo: %w", what, err)
	}
	return fnErr
}

// sameRow reports that a memory did not change (its update time aside).
func sameRow(a, b *index.MemRow) bool {
	ca, cb := *a, *b
	ca.Updated, cb.Updated = time.Time{}, time.Time{}
	ja, _ := json.Marshal(ca)
	jb, _ := json.Marshal(cb)
	return string(ja) == string(jb)
}

// Journal is the journal of recorded actions, oldest first.
func (s Curator) Journal(ctx context.Context) ([]JournalEntry, error) {
	b, ok, err := s.st.Setting(ctx, journalKey)
	if err != nil || !ok {
		return nil, err
	}
	var l []JournalEntry
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("the memory journal is unreadable (%w); `cairn memories undo` cannot use it", err)
	}
	return l, nil
}

func (s *core) saveJournal(ctx context.Context, l []JournalEntry) error {
	b, err := json.Marshal(l)
	for err == nil && len(l) > 1 && (len(l) > journalMaxEntries || len(b) > journalMaxBytes) {
		l = l[1:]
		b, err = json.Marshal(l)
	}
	if err != nil {
		return err
	}
	return s.st.SetSetting(ctx, journalKey, b)
}

// lockJournal holds the journal's lock (a file beside the store) for one
// read-modify-write.
func (s *core) lockJournal() (func(), error) {
	path := filepath.Join(s.st.Dir(), "memories-journal.lock")
	deadline := time.Now().Add(10 * time.Second)
	for {
		unlock, ok, err := tryLock(path)
		if err != nil {
			return nil, err
		}
		if ok {
			return unlock, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("another cairn has held the memory journal's lock (%s) for 10s; try again", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (s *core) appendJournal(ctx context.Context, e JournalEntry) error {
	unlock, err := s.lockJournal()
	if err != nil {
		return err
	}
	defer unlock()
	l, err := s.curator().Journal(ctx)
	if err != nil {
		l = nil // an unreadable log starts again rather than block every action
	}
	e.Seq = 1
	if n := len(l); n > 0 {
		e.Seq = l[n-1].Seq + 1
	}
	return s.saveJournal(ctx, append(l, e))
}

// UndoLast takes back the newest recorded action: the memories it
// touched are put back as they were and those it deleted are restored.
// Later changes to those memories that were not recorded (an access
// count) are overwritten. It returns the entry undone.
func (s Curator) UndoLast(ctx context.Context) (*JournalEntry, error) {
	unlock, err := s.lockJournal()
	if err != nil {
		return nil, err
	}
	defer unlock()
	l, err := s.Journal(ctx)
	if err != nil {
		return nil, err
	}
	if len(l) == 0 {
		return nil, ErrNothingLogged
	}
	e := l[len(l)-1]
	if err := s.restoreEntry(ctx, &e); err != nil {
		return nil, fmt.Errorf("undoing %q: %w", e.What, err)
	}
	if err := s.saveJournal(ctx, l[:len(l)-1]); err != nil {
		return nil, fmt.Errorf("%q was undone, but the journal could not be updated: %w", e.What, err)
	}
	return &e, nil
}

// restoreEntry puts e's memories back: the deleted ones from the trash
// (their row as recorded when the trash lost them), then every other as
// it was.
func (s *core) restoreEntry(ctx context.Context, e *JournalEntry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() { s.cache = nil }()
	gone := map[string]bool{}
	for _, id := range e.Gone {
		gone[id] = true
	}
	for _, r := range e.Before {
		cp := *r
		if gone[r.ID] {
			if _, err := s.row(ctx, r.ID); err == nil {
				// Back already (restored by hand): as it was.
				gone[r.ID] = false
			} else {
				_, err := s.st.Mem().UndeleteID(ctx, r.ID, func([]byte) (*index.MemRow, error) { return &cp, nil })
				if err == nil {
					continue
				}
				if !errors.Is(err, index.ErrNothingToUndo) {
					return err
				}
			}
		}
		cp.Updated = s.now().UTC()
		if err := s.st.Mem().Save(ctx, &cp); err != nil {
			return fmt.Errorf("restoring %s: %w", r.ID, err)
		}
	}
	return nil
}

// MergedContent is the text of a merge that loses neither memory: keep's,
// then what other says that keep does not already (a whole copy of one
// in the other keeps the longer). A person sees and edits it before the
// merge (the TUI's editor; `cairn memories merge --content`).
func MergedContent(keep, other string) string {
	k, o := strings.TrimSpace(keep), strings.TrimSpace(other)
	nk, no := strings.ToLower(strings.Join(strings.Fields(k), " ")), strings.ToLower(strings.Join(strings.Fields(o), " "))
	switch {
	case no == "" || strings.Contains(nk, no):
		return k
	case nk == "" || strings.Contains(no, nk):
		return o
	}
	return cut(k+"\n"+o, MaxContent)
}

// MergeWith merges other into keep (Merge) with content as keep's text
// ("" = MergedContent of both): one memory holds what both said.
func (s Curator) MergeWith(ctx context.Context, keepID, otherID, content string) (*Memory, error) {
	if strings.TrimSpace(content) == "" {
		k, err := s.Get(ctx, keepID)
		if err != nil {
			return nil, err
		}
		o, err := s.Get(ctx, otherID)
		if err != nil {
			return nil, err
		}
		content = MergedContent(k.Content, o.Content)
	}
	m, err := s.Merge(ctx, keepID, otherID)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(content) == strings.TrimSpace(m.Content) {
		return m, nil
	}
	return s.Update(ctx, m.ID, Update{Content: &content})
}
