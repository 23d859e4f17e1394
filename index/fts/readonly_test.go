package fts

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestOpenReadOnly: a read-only open searches what the writable one
// indexed, refuses writes, changes no file of the index (no snapshot
// bbolt commit, unlike a writable open on a real store), shares the index with another
// reader and keeps a writer out while it is open.
func TestOpenReadOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fts")
	w, err := Open(dir, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	mustIndex(t, w, Doc{ID: "m:1", Kind: "message", Text: "the websocket reconnect backoff"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	before := filesOf(t, dir)

	ro, err := OpenReadOnly(dir, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, ro, "reconnect", Filter{}); len(got) != 1 || got[0] != "m:1" {
		t.Errorf("read-only search: %v, want [m:1]", got)
	}
	if err := ro.Index([]Doc{{ID: "m:2", Kind: "message", Text: "x"}}); !errors.Is(err, errReadOnly) {
		t.Errorf("Index on a read-only index: %v, want errReadOnly", err)
	}
	if err := ro.Delete([]string{"m:1"}); !errors.Is(err, errReadOnly) {
		t.Errorf("Delete on a read-only index: %v, want errReadOnly", err)
	}
	if err := ro.Compact(); !errors.Is(err, errReadOnly) {
		t.Errorf("Compact on a read-only index: %v, want errReadOnly", err)
	}
	second, err := OpenReadOnly(dir, 100*time.Millisecond)
	if err != nil {
		t.Fatalf("a second reader: %v", err)
	}
	assertLockedWithin(t, dir, 100*time.Millisecond)
	for _, ix := range []*Index{second, ro} {
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if after := filesOf(t, dir); !equalState(before, after) {
		t.Errorf("a read-only open changed the index:\nbefore %v\nafter  %v", before, after)
	}
}

// TestOpenReadOnlyMissing: no index is created; the error says what to do.
func TestOpenReadOnlyMissing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fts")
	if _, err := OpenReadOnly(dir, 0); !errors.Is(err, ErrNeedsRebuild) {
		t.Fatalf("OpenReadOnly of a missing index: %v, want ErrNeedsRebuild", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("OpenReadOnly created %s (%v)", dir, err)
	}
}

type fileState struct {
	size  int64
	mtime time.Time
}

// filesOf is every file under dir with its size and modification time.
func filesOf(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			out[path] = fileState{fi.Size(), fi.ModTime()}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalState(a, b map[string]fileState) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !w.mtime.Equal(v.mtime) || w.size != v.size {
			return false
		}
	}
	return true
}
