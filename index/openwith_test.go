package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenWithReadOnly: a reader never creates a store (a missing one is an
// error naming `cairn index`, and the folder stays absent), and opens the
// one a writer made, without write connections.
func TestOpenWithReadOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if _, err := OpenWith(dir, OpenOptions{ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "cairn index") {
		t.Fatalf("read-only open of no store: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("read-only open made %s: %v", dir, err)
	}
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	r, err := OpenWith(dir, OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.w != nil || r.r == nil {
		t.Fatalf("read-only store: writer %v, readers %v", r.w != nil, r.r != nil)
	}
}
