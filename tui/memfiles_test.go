package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A change Claude made to its auto-memory file is a row of the inbox
// with its diff beside it: a approves it, x rejects it (the file gets the
// reviewed text back), u undoes the reject (Claude's text is back); the
// memory-only keys say they do not apply.
func TestMemoryInboxFileChanges(t *testing.T) {
	ctx := context.Background()
	st := testStore(t)
	svc := testService(t, st)
	claude := t.TempDir()
	dir := filepath.Join(claude, "projects", "-home-dev-shop", "memory")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "MEMORY.md")
	observe := func(text string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Sync.ObserveMemoryFiles(ctx, claude, nil); err != nil {
			t.Fatal(err)
		}
	}
	read := func() string {
		b, _ := os.ReadFile(file)
		return string(b)
	}
	const v1, v2 = "- Tests run with make test.\n", "- Tests run with make test.\n- Use pnpm, never npm.\n"
	observe(v1)
	observe(v2)
	m := newTestModel(t, 120, 30, st, svc)
	p := m.mems
	press(t, m, "5")
	if len(p.mems) == 0 || p.fileChange(&p.mems[0]) == nil {
		t.Fatalf("the file change is not the first row: %+v", p.mems)
	}
	p.list.cursor = 0
	mustContain(t, screen(m), "MEMORY.md +1 -0: Claude changed", "+- Use pnpm, never npm.")
	press(t, m, "e")
	if m.editor != nil || !strings.Contains(m.status.flash, "a approves it") {
		t.Fatalf("e on a file change: editor %v, flash %q", m.editor != nil, m.status.flash)
	}
	press(t, m, "x")
	if read() != v1 {
		t.Fatalf("x left the file %q (flash %q)", read(), m.status.flash)
	}
	if len(p.mems) > 0 && p.fileChange(&p.mems[0]) != nil {
		t.Fatal("the rejected change is still listed")
	}
	press(t, m, "u")
	if read() != v2 {
		t.Fatalf("u after x left the file %q (flash %q)", read(), m.status.flash)
	}
	if len(p.mems) == 0 || p.fileChange(&p.mems[0]) == nil {
		t.Fatal("the change is not pending again after u")
	}
	p.list.cursor = 0
	press(t, m, "a")
	if cs, _ := svc.Sync.MemoryFileChanges(ctx, ""); len(cs) != 0 || read() != v2 {
		t.Fatalf("a: %+v, file %q", cs, read())
	}
}
