package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// E exported over a file of the same name silently: a second export (or a
// file of the person's with that name) is now kept, the new one written
// beside it, and the status names the file written.
func TestExportNeverOverwrites(t *testing.T) {
	st := testStore(t)
	m := newTestModel(t, 80, 24, st, nil)
	openFirst(t, m, "spotter-4te")
	r := m.reader
	first := m.c.exportPath(r.conv.Session.ID)
	if err := os.WriteFile(first, []byte("my notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	press(t, m, "E")
	second := strings.TrimSuffix(first, ".md") + "-2.md"
	if b, _ := os.ReadFile(first); string(b) != "my notes\n" {
		t.Fatalf("the file there was overwritten: %q", b)
	}
	b, err := os.ReadFile(second)
	if err != nil || !strings.Contains(string(b), r.conv.Session.ID) {
		t.Fatalf("export not written beside it: %v (flash %q)", err, m.status.flash)
	}
	mustContain(t, m.status.flash, "exported to "+second)
	press(t, m, "E")
	if _, err := os.Stat(strings.TrimSuffix(first, ".md") + "-3.md"); err != nil {
		t.Fatalf("a third export: %v (flash %q)", err, m.status.flash)
	}
	if n, _ := filepath.Glob(filepath.Join(filepath.Dir(first), "cairn-session-*.md")); len(n) != 3 {
		t.Errorf("files: %v", n)
	}
}
