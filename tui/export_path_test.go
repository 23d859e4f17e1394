package tui

import (
	"path/filepath"
	"strings"
	"testing"
)

// Two sessions sharing an 8-character prefix wrote the same export file,
// the second overwriting the first.
func TestExportPathsNeverCollide(t *testing.T) {
	st := testStore(t)
	m := newTestModel(t, 100, 30, st, nil)
	seen := map[string]string{}
	for _, id := range []string{
		"ae4a77f8-aedd-4bc1-888f-c94edc91af04", "ae4a77f8-0000-4000-8000-000000000000",
		"ae4a77f8", "../../etc/passwd", "a/b", "a_b",
	} {
		p := m.c.exportPath(id)
		if other, ok := seen[p]; ok {
			t.Errorf("%q and %q export to the same %s", id, other, p)
		}
		seen[p] = id
		if filepath.Dir(p) != m.c.cfg.ExportDir || strings.ContainsAny(filepath.Base(p), `/\`) {
			t.Errorf("%q exports outside the export dir: %s", id, p)
		}
	}
}
