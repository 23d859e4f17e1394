package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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
		data := t.TempDir()
		if slices.Contains(args, sample()) {
			copyTree(t, sampleStore(t), data)
		}
		args = append(args, "--data", data)
	}
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), errb.String(), err
}

func sample() string { return filepath.Join(testutil.RepoRoot(), "testdata", "claude") }

// sampleStore is the data dir a first `cairn sessions` leaves for the
// bundled sample, made once for the package: run gives each command on
// the sample without --data a copy of it (each of ten indexed the sample
// into a fresh store).
// The tests of a first run on a fresh store pass --data themselves.
func sampleStore(t *testing.T) string {
	t.Helper()
	sampleShared.once.Do(func() {
		dir := filepath.Join(sharedDirRoot(t), "sample-data")
		if _, stderr, err := run(t, "sessions", "--claude-dir", sample(), "--data", dir); err != nil {
			t.Fatalf("indexing the sample: %v\n%s", err, stderr)
		}
		sampleShared.ok = true
	})
	if !sampleShared.ok {
		t.Fatal("the shared sample store failed to build (see the first test that used it)")
	}
	return filepath.Join(sharedDirRoot(t), "sample-data")
}

var sampleShared struct {
	once sync.Once
	ok   bool
}

// indexedSample is a copy of the data dir `cairn index` leaves for the
// bundled sample (the store, the full-text index, the built-in embedder
// trained and every vector), made once for the package: the tests that
// ran that index first only to work on what it leaves each built it under
// -race. The sample is the repository's, at the path the store read.
func indexedSample(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(sharedDirRoot(t), "indexed-data")
	indexedShared.once.Do(func() {
		if _, stderr, err := run(t, "index", "--claude-dir", sample(), "--data", dir); err != nil {
			t.Fatalf("indexing the sample: %v\n%s", err, stderr)
		}
		indexedShared.ok = true
	})
	if !indexedShared.ok {
		t.Fatal("the shared indexed sample failed to build (see the first test that used it)")
	}
	data := t.TempDir()
	copyTree(t, dir, data)
	return data
}

var indexedShared struct {
	once sync.Once
	ok   bool
}

// sharedDirRoot is the folder of what the package's tests share, made on
// first use and removed by TestMain.
func sharedDirRoot(t testing.TB) string {
	t.Helper()
	sharedRoot.mu.Lock()
	defer sharedRoot.mu.Unlock()
	if sharedRoot.dir == "" {
		d, err := os.MkdirTemp("", "cairn-cli-test-")
		if err != nil {
			t.Fatal(err)
		}
		sharedRoot.dir = d
	}
	return sharedRoot.dir
}

var sharedRoot struct {
	mu  sync.Mutex
	dir string
}

// TestMain removes the stores the package's tests share once they have
// all run.
func TestMain(m *testing.M) {
	code := m.Run()
	if sharedRoot.dir != "" {
		os.RemoveAll(sharedRoot.dir)
	}
	os.Exit(code)
}

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
	if withoutRace.RanWith(t, sharedCorpusTests...) {
		return
	}
	got := sharedCorpusSessions(t)
	if len(got.sessions) != 12 {
		t.Fatalf("want 12 sessions: %d", len(got.sessions))
	}
}

// sharedCorpusSessions is `cairn sessions --json` on a copy of the shared
// corpus (../shared/corpus/claude), run once for the two tests that read
// it (each indexed the corpus); it
// skips when the corpus is not there.
func sharedCorpusSessions(t *testing.T) *sharedCorpusRun {
	t.Helper()
	src := filepath.Join(testutil.RepoRoot(), "..", "shared", "corpus", "claude")
	if _, err := os.Stat(filepath.Join(src, "projects")); err != nil {
		t.Skip("shared corpus not present")
	}
	r := &sharedCorpus
	r.once.Do(func() {
		r.claude = filepath.Join(sharedDirRoot(t), "shared-corpus")
		if r.err = testutil.CopyDir(src, r.claude); r.err != nil {
			return
		}
		var out string
		out, _, r.err = run(t, "sessions", "--json", "--claude-dir", r.claude, "--data", filepath.Join(sharedDirRoot(t), "shared-corpus-data"))
		if r.err == nil {
			r.err = json.Unmarshal([]byte(out), &r.sessions)
		}
	})
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r
}

type sharedCorpusRun struct {
	once     sync.Once
	claude   string // the copy the sessions were read from
	sessions []SessionJSON
	err      error
}

var sharedCorpus sharedCorpusRun

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
