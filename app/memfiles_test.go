package app_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/memories"
)

// Claude Code's auto memory is a reviewed source, end to end through the
// one indexing pipeline: the first text is the baseline; a change Claude
// writes arrives in the inbox as a diff; approving keeps it; a later
// change rejected gives the file its reviewed text back (mode kept);
// undoing the reject puts Claude's text back; every version is in the
// history and any can be restored.
func TestAutoMemoryFileReview(t *testing.T) {
	ctx := context.Background()
	claude, data := t.TempDir(), t.TempDir()
	memDir := filepath.Join(claude, "projects", "-home-dev-shop", "memory")
	if err := os.MkdirAll(memDir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(memDir, "MEMORY.md")
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(text), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	read := func() string {
		t.Helper()
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	a := openAt(t, data, claude, "")
	defer a.Close()
	index := func() app.IndexResult {
		t.Helper()
		res, err := a.Index(ctx, app.IndexOptions{StoreOnly: true})
		if err != nil || res.MemoryFilesErr != nil {
			t.Fatal(err, res.MemoryFilesErr)
		}
		return res
	}
	svc := a.Memories
	pending := func() []memories.FileChange {
		t.Helper()
		cs, err := svc.Sync.MemoryFileChanges(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}

	const v1 = "# Memory\n\n- Tests run with `make test`.\n- The API lives in api/.\n"
	write(v1)
	if res := index(); res.MemoryFiles.Baselines != 1 || len(res.MemoryFiles.Changes) != 0 {
		t.Fatalf("first sight is the baseline, not a change: %+v", res.MemoryFiles)
	}
	if cs := pending(); len(cs) != 0 {
		t.Fatalf("a baseline is not pending: %+v", cs)
	}

	// Claude adds a line: one pending change, shown as a diff.
	const v2 = "# Memory\n\n- Tests run with `make test`.\n- The API lives in api/.\n- Use pnpm, never npm.\n"
	write(v2)
	if res := index(); len(res.MemoryFiles.Changes) != 1 {
		t.Fatalf("the change is not recorded: %+v", res.MemoryFiles)
	}
	cs := pending()
	if len(cs) != 1 || cs[0].Added != 1 || cs[0].Removed != 0 || !strings.Contains(cs[0].Diff, "\n+- Use pnpm, never npm.\n") ||
		cs[0].Old != v1 || cs[0].New != v2 || cs[0].Name != "MEMORY.md" {
		t.Fatalf("inbox: %+v", cs)
	}
	if res := index(); len(res.MemoryFiles.Changes) != 0 || len(pending()) != 1 {
		t.Fatalf("an unchanged file adds nothing: %+v", res.MemoryFiles)
	}
	if _, err := svc.Sync.RestoreMemoryFile(ctx, cs[0].Version); err == nil {
		t.Fatal("restore while a change waits for review")
	}

	// Approved: kept, the file untouched, nothing pending.
	c, err := svc.Sync.ApproveMemoryFile(ctx, cs[0].Version)
	if err != nil || c.Status != memories.FileApproved || !c.Current {
		t.Fatalf("approve: %+v %v", c, err)
	}
	if read() != v2 || len(pending()) != 0 {
		t.Fatal("approving changed the file or left it pending")
	}
	index()
	if len(pending()) != 0 {
		t.Fatal("the approved text came back as a change")
	}

	// Claude rewrites a line; rejected: the file has the approved text
	// back, with its mode.
	const v3 = "# Memory\n\n- Tests run with `go test ./...`.\n- The API lives in api/.\n- Use pnpm, never npm.\n"
	write(v3)
	index()
	cs = pending()
	if len(cs) != 1 || cs[0].Added != 1 || cs[0].Removed != 1 || !strings.Contains(cs[0].Diff, "-- Tests run with `make test`.") {
		t.Fatalf("second change: %+v", cs)
	}
	c, err = svc.Sync.RejectMemoryFile(ctx, cs[0].Version)
	if err != nil || c.Status != memories.FileRejected {
		t.Fatalf("reject: %+v %v", c, err)
	}
	if got := read(); got != v2 {
		t.Fatalf("after reject the file holds %q, want the approved text", got)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v after reject, want 0640", fi.Mode().Perm())
	}
	index()
	if len(pending()) != 0 {
		t.Fatal("the restored text came back as a change")
	}

	// Undo the reject: Claude's text is back, the change pending again.
	u, err := svc.Sync.UndoMemoryFileReview(ctx)
	if err != nil || u.Undid != "reject" || u.Change.Status != memories.FilePending {
		t.Fatalf("undo: %+v %v", u, err)
	}
	if got := read(); got != v3 {
		t.Fatalf("after undo the file holds %q, want Claude's text", got)
	}
	if cs = pending(); len(cs) != 1 || cs[0].New != v3 {
		t.Fatalf("after undo: %+v", cs)
	}

	// Undo of an approve: pending again, the file as it is.
	if _, err := svc.Sync.ApproveMemoryFile(ctx, cs[0].Version); err != nil {
		t.Fatal(err)
	}
	if u, err = svc.Sync.UndoMemoryFileReview(ctx); err != nil || u.Undid != "approve" || len(pending()) != 1 || read() != v3 {
		t.Fatalf("undo approve: %+v %v", u, err)
	}
	if _, err := svc.Sync.RejectMemoryFile(ctx, cs[0].Version); err != nil {
		t.Fatal(err)
	}

	// History: baseline, approved, rejected; restoring the baseline
	// writes it and makes it the reviewed text; undo takes that back.
	hist, err := svc.Sync.MemoryFileHistory(ctx, "MEMORY.md")
	if err != nil || len(hist) != 3 || hist[0].Status != memories.FileBaseline || hist[1].Status != memories.FileApproved ||
		hist[2].Status != memories.FileRejected || !hist[1].Current || !hist[1].OnDisk || hist[2].New != v3 {
		t.Fatalf("history: %+v %v", hist, err)
	}
	r, err := svc.Sync.RestoreMemoryFile(ctx, hist[0].Version)
	if err != nil || r.Status != memories.FileRestored || !r.Current || read() != v1 {
		t.Fatalf("restore: %+v %v", r, err)
	}
	index()
	if len(pending()) != 0 {
		t.Fatal("a restored text is reviewed, not a change")
	}
	if u, err = svc.Sync.UndoMemoryFileReview(ctx); err != nil || u.Undid != "restore" || read() != v2 {
		t.Fatalf("undo restore: %+v %v (file %q)", u, err, read())
	}
	// Any version can be restored, Claude's rejected text too.
	if _, err := svc.Sync.RestoreMemoryFile(ctx, hist[2].Version); err != nil || read() != v3 {
		t.Fatalf("restore a rejected text: %v", err)
	}
}

// A reject never overwrites text nobody reviewed, and its errors name the
// file and what to do: the file changed since cairn read it, or it is
// read-only.
func TestAutoMemoryFileRejectRefuses(t *testing.T) {
	ctx := context.Background()
	claude, data := t.TempDir(), t.TempDir()
	memDir := filepath.Join(claude, "projects", "-home-dev-shop", "memory")
	if err := os.MkdirAll(memDir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(memDir, "notes.md")
	write := func(text string, mode os.FileMode) {
		t.Helper()
		_ = os.Chmod(file, 0o644)
		if err := os.WriteFile(file, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(file, mode); err != nil {
			t.Fatal(err)
		}
	}
	a := openAt(t, data, claude, "")
	defer a.Close()
	index := func() {
		t.Helper()
		if res, err := a.Index(ctx, app.IndexOptions{StoreOnly: true}); err != nil || res.MemoryFilesErr != nil {
			t.Fatal(err, res.MemoryFilesErr)
		}
	}
	write("- one\n", 0o644)
	index()
	write("- one\n- two\n", 0o644)
	index()
	cs, err := a.Memories.Sync.MemoryFileChanges(ctx, "")
	if err != nil || len(cs) != 1 {
		t.Fatalf("%+v %v", cs, err)
	}
	// Changed again after the index run: refused, the file kept.
	write("- one\n- two\n- three\n", 0o644)
	_, err = a.Memories.Sync.RejectMemoryFile(ctx, cs[0].Version)
	if !errors.Is(err, memories.ErrFileChanged) || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "cairn index") {
		t.Fatalf("reject of a file changed since: %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "- one\n- two\n- three\n" {
		t.Fatalf("the file was changed: %q", b)
	}
	index()
	if cs, _ = a.Memories.Sync.MemoryFileChanges(ctx, ""); len(cs) != 1 || cs[0].New != "- one\n- two\n- three\n" {
		t.Fatalf("one pending change, with the newest text: %+v", cs)
	}
	// Read-only (by its mode, which cairn honours even as root): refused.
	write("- one\n- two\n- three\n", 0o444)
	_, err = a.Memories.Sync.RejectMemoryFile(ctx, cs[0].Version)
	if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "chmod u+w") {
		t.Fatalf("reject of a read-only file: %v", err)
	}
	write("- one\n- two\n- three\n", 0o644)
	// Claude deletes the file: a pending deletion; rejecting it writes the
	// reviewed text back.
	if _, err := a.Memories.Sync.ApproveMemoryFile(ctx, cs[0].Version); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	index()
	cs, _ = a.Memories.Sync.MemoryFileChanges(ctx, "")
	if len(cs) != 1 || !cs[0].Deleted || cs[0].Removed != 3 {
		t.Fatalf("deletion: %+v", cs)
	}
	if _, err := a.Memories.Sync.RejectMemoryFile(ctx, cs[0].Version); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "- one\n- two\n- three\n" {
		t.Fatalf("after rejecting the deletion: %q %v", b, err)
	}
}
