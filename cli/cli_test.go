package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// run executes cairn in-process and returns stdout, stderr and the error.
func run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	o := &Options{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader("")}
	root := NewRoot(o)
	hasData := false
	for _, a := range args {
		hasData = hasData || a == "--data"
	}
	if !hasData {
		args = append(args, "--data", t.TempDir())
	}
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), errb.String(), err
}

func sample() string { return filepath.Join(testutil.RepoRoot(), "testdata", "claude") }

func TestSessionsJSON(t *testing.T) {
	out, _, err := run(t, "sessions", "--claude-dir", sample(), "--json")
	if err != nil {
		t.Fatal(err)
	}
	var ss []SessionJSON
	if err := json.Unmarshal([]byte(out), &ss); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(ss) != 8 {
		t.Fatalf("want 8 sessions, got %d", len(ss))
	}
	partial := 0
	for _, s := range ss {
		if s.Partial {
			partial++
		}
		if s.Start == nil || s.Title == "" || s.Models == nil || s.Subagents == nil {
			t.Errorf("%s: incomplete %+v", s.ID, s)
		}
	}
	if partial != 1 {
		t.Fatalf("partial %d", partial)
	}
	out, _, _ = run(t, "sessions", "--claude-dir", sample(), "--json", "--project", "Demo")
	_ = json.Unmarshal([]byte(out), &ss)
	if len(ss) != 3 {
		t.Fatalf("project filter: %d", len(ss))
	}
}

func TestSharedCorpusTwelveSessions(t *testing.T) {
	dir := filepath.Join(testutil.RepoRoot(), "..", "shared", "corpus", "claude")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("shared corpus not present")
	}
	out, _, err := run(t, "sessions", "--claude-dir", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var ss []SessionJSON
	if err := json.Unmarshal([]byte(out), &ss); err != nil || len(ss) != 12 {
		t.Fatalf("want 12 sessions: %v %d", err, len(ss))
	}
}

func TestSessionsTableAndProjects(t *testing.T) {
	out, _, err := run(t, "sessions", "--claude-dir", sample())
	if err != nil || !strings.Contains(out, "TITLE") || !strings.Contains(out, "[main file missing]") || strings.Count(out, "\n") != 9 {
		t.Fatalf("%v\n%s", err, out)
	}
	out, _, err = run(t, "projects", "--claude-dir", sample(), "--json")
	var ps []ProjectJSON
	if err != nil || json.Unmarshal([]byte(out), &ps) != nil || len(ps) != 3 { // four folders: two worktrees of one repository
		t.Fatalf("projects: %v %s", err, out)
	}
	for _, p := range ps {
		if p.Sessions == 0 || p.SizeBytes == 0 || p.LastUsed == nil || !strings.HasPrefix(p.Path, "/") {
			t.Errorf("project %+v", p)
		}
	}
}

func TestShow(t *testing.T) {
	out, _, err := run(t, "show", "ae4a77f8", "--claude-dir", sample())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Session ae4a77f8-aedd-4bc1-888f-c94edc91af04", "▶ You", "◆ Claude", "● Bash(", "┌ subagent aac57f5", "conversation compacted", "more lines"} {
		if !strings.Contains(out, want) {
			t.Errorf("show output lacks %q", want)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Error("raw escape in output")
	}
	// Legacy flat agent files, and the session title of a summary.
	out, _, err = run(t, "show", "5c0375b4", "--claude-dir", sample())
	if err != nil || !strings.Contains(out, "subagent test-hash-123") {
		t.Fatalf("legacy agents: %v", err)
	}
}

func TestShowErrors(t *testing.T) {
	_, _, err := run(t, "show", "ae4a", "--claude-dir", sample())
	if err == nil || !strings.Contains(err.Error(), "at least 8") {
		t.Fatalf("short prefix: %v", err)
	}
	_, _, err = run(t, "show", "00000000", "--claude-dir", sample())
	if err == nil || !strings.Contains(err.Error(), "no session matches") {
		t.Fatalf("unknown: %v", err)
	}
	_, _, err = run(t, "sessions", "--claude-dir", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "no Claude Code transcripts") {
		t.Fatalf("missing dir: %v", err)
	}
}

func TestEscapeSequencesRenderInert(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "projects", "-w-app")
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	evil := `clear\u001b[2J osc52\u001b]52;c;ZXZpbA==\u0007 link\u001b]8;;http://x\u001b\\y\u001b]8;;\u001b\\ up\u001b[10A csi\u009b31m`
	line := `{"type":"user","uuid":"u1","sessionId":"11111111-2222","timestamp":"2026-01-01T00:00:00Z","cwd":"/w/app","message":{"role":"user","content":"` + evil + `"}}` + "\n"
	if err := os.WriteFile(filepath.Join(p, "11111111-2222.jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"show", "11111111"}, {"sessions"}} {
		out, _, err := run(t, append(args, "--claude-dir", dir)...)
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(out, "\x1b\x07\u009b") {
			t.Fatalf("%v: control characters reached the terminal: %q", args, out)
		}
		if !strings.Contains(out, `\x1b[2J`) {
			t.Fatalf("%v: escapes should stay visible as text: %q", args, out)
		}
	}
}

func TestDataDirResolution(t *testing.T) {
	t.Setenv("CAIRN_HOME", "")
	t.Setenv("XDG_DATA_HOME", "/xdg")
	o := &Options{}
	if d, _ := o.ResolveDataDir(); d != "/xdg/cairn" {
		t.Fatal(d)
	}
	t.Setenv("CAIRN_HOME", "/ch")
	if d, _ := o.ResolveDataDir(); d != "/ch" {
		t.Fatal(d)
	}
	o.DataDir = "/flag"
	if d, _ := o.ResolveDataDir(); d != "/flag" {
		t.Fatal(d)
	}
	t.Setenv("CLAUDE_CONFIG_DIR", "/cc")
	if d, _ := (&Options{}).ResolveClaudeDir(); d != "/cc" {
		t.Fatal(d)
	}
}

// `cairn --help` says how to open the terminal UI (issue 18 item 14).
func TestHelpMentionsTUI(t *testing.T) {
	out, _, err := run(t, "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"terminal UI", "cairn --demo"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help lacks %q:\n%s", want, out)
		}
	}
}
