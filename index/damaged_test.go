package index

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDamagedStoreSaysWhatARebuildLoses: the message for a damaged
// database names the file, leaves it untouched, and does not advise a
// rebuild without saying what it keeps and loses and how to keep a copy.
func TestDamagedStoreSaysWhatARebuildLoses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, DBName)
	junk := []byte(strings.Repeat("not a database, ", 512))
	if err := os.WriteFile(path, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir)
	if err == nil {
		s.Close()
		t.Fatal("opened a damaged store")
	}
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("not ErrCorrupt: %v", err)
	}
	for _, want := range []string{path, "left untouched", "keeps their sessions", "loses",
		"memories and their reviews", "sessions whose transcripts Claude Code has deleted", "cairn backup", "cp -a " + dir} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q:\n%v", want, err)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != string(junk) {
		t.Error("the damaged file was changed")
	}
}
