package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The review of Claude's auto-memory files through the CLI: `cairn index`
// takes the first text as the baseline and reports a change; `memories
// files` lists it, `show` prints its diff, reject restores the file, undo
// puts Claude's text back, approve keeps it, history lists the versions
// and restore writes one back.
func TestMemoriesFilesCommands(t *testing.T) {
	data, claude := t.TempDir(), t.TempDir()
	memDir := filepath.Join(claude, "projects", "-home-dev-shop", "memory")
	if err := os.MkdirAll(memDir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(memDir, "MEMORY.md")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func() string {
		b, _ := os.ReadFile(file)
		return string(b)
	}
	cairn := func(args ...string) string {
		t.Helper()
		out, errOut, err := runWith(t, "", data, append(args, "--claude-dir", claude)...)
		if err != nil {
			t.Fatalf("cairn %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
		}
		return out
	}
	const v1, v2 = "- Tests run with `make test`.\n", "- Tests run with `make test`.\n- Use pnpm, never npm.\n"
	write(v1)
	if out := cairn("index", "--no-embed"); strings.Contains(out, "auto-memory") {
		t.Fatalf("a baseline is reported as a change: %s", out)
	}
	write(v2)
	if out := cairn("index", "--no-embed"); !strings.Contains(out, "1 new change(s) Claude made to its auto-memory files wait for review") {
		t.Fatalf("index does not report the change: %s", out)
	}
	out := cairn("memories", "files")
	if !strings.Contains(out, "MEMORY.md") || !strings.Contains(out, "+1 -0") || !strings.Contains(out, "shop") {
		t.Fatalf("files list: %s", out)
	}
	if out := cairn("memories", "list"); !strings.Contains(out, "1 change(s) Claude made to its auto-memory files wait for review") {
		t.Fatalf("memories list does not point at the files inbox: %s", out)
	}
	var cs []struct {
		Version int64  `json:"version"`
		Diff    string `json:"diff"`
	}
	if err := json.Unmarshal([]byte(cairn("memories", "files", "list", "--json")), &cs); err != nil || len(cs) != 1 {
		t.Fatalf("files list --json: %v %+v", err, cs)
	}
	v := "v" + jsonNumber(cs[0].Version)
	if out := cairn("memories", "files", "show", v); !strings.Contains(out, "+- Use pnpm, never npm.") || !strings.Contains(out, "approve "+v) {
		t.Fatalf("show: %s", out)
	}
	if out := cairn("memories", "files", "reject", v); !strings.Contains(out, "rejected") || read() != v1 {
		t.Fatalf("reject: %s; file %q", out, read())
	}
	if out := cairn("memories", "files", "undo"); !strings.Contains(out, "Claude's text back") || read() != v2 {
		t.Fatalf("undo: %s; file %q", out, read())
	}
	cairn("memories", "files", "approve", v)
	if out := cairn("memories", "files"); !strings.Contains(out, "no changes") {
		t.Fatalf("after approve: %s", out)
	}
	out = cairn("memories", "files", "history", "MEMORY.md")
	if !strings.Contains(out, "baseline") || !strings.Contains(out, "approved") || !strings.Contains(out, "reviewed, on disk") {
		t.Fatalf("history: %s", out)
	}
	if out := cairn("memories", "files", "restore", "v1"); !strings.Contains(out, "restored the text of v1") || read() != v1 {
		t.Fatalf("restore: %s; file %q", out, read())
	}
	if _, errOut, err := runWith(t, "", data, "memories", "files", "show", "v99", "--claude-dir", claude); err == nil {
		t.Fatalf("show of an unknown version: %s", errOut)
	}
}

func jsonNumber(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
