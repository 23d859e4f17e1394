package hook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/hook"
	"github.com/cairn-dev/cairn/index"
	_ "github.com/cairn-dev/cairn/index/fts" // the test holds the full-text index as another process would
	"github.com/cairn-dev/cairn/internal/hookspec"
	"github.com/cairn-dev/cairn/memories"

	"github.com/cairn-dev/cairn/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bin and hookBin are the cairn and cairn-hook binaries, built once for
// the subprocess tests.
var bin, hookBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cairn-hook-test")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "cairn")
	hookBin = filepath.Join(dir, "cairn-hook")
	cmd := exec.CommandContext(context.Background(), "go", "build", "-o", dir, ".", "./cmd/cairn-hook")
	cmd.Dir = testutil.RepoRoot()
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building cairn:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Sessions of the bundled sample used below.
const (
	demoProject = "/path/to/Demo"
	demoFolder  = "-path-to-Demo"
	demoSession = "fe5e1c67-53e7-4862-81ae-d0e013e3270b"
)

// env is a temporary Claude config dir (a copy of the sample) and data dir.
type env struct {
	claude, data string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{claude: filepath.Join(t.TempDir(), "claude"), data: filepath.Join(t.TempDir(), "data")}
	if err := testutil.CopyDir(filepath.Join(testutil.RepoRoot(), "testdata", "claude"), e.claude); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.awaitBackground)
	return e
}

// awaitBackground waits (up to 10 s) until the detached background runs
// the test's hooks started have ended, each logging "background <what>:
// done" after closing the store, so the test's data dir is not removed
// under one of them.
func (e *env) awaitBackground() {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		log := e.logText()
		if strings.Count(log, ": background ") <= strings.Count(log, ": done") {
			time.Sleep(50 * time.Millisecond) // its exit
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// newSyncedEnv is newEnv with the sample synced into the data dir: a copy
// of a store synced once for the package (ten tests each synced the
// sample in-process under the race detector), and a fresh copy of the
// sample at the path that store read (it knows its files by path, size
// and modification time, all kept), so the store and what the hooks find
// changed are those of a sync the test ran itself. The path is held by
// one test at a time, until its cleanup.
func newSyncedEnv(t *testing.T) *env {
	t.Helper()
	s := &syncedShared
	s.inUse.Lock()
	t.Cleanup(s.inUse.Unlock)
	root := filepath.Join(filepath.Dir(bin), "synced")
	e := &env{claude: filepath.Join(root, "claude"), data: filepath.Join(t.TempDir(), "data")}
	t.Cleanup(e.awaitBackground)
	if err := os.RemoveAll(e.claude); err != nil {
		t.Fatal(err)
	}
	if err := testutil.CopyDir(filepath.Join(testutil.RepoRoot(), "testdata", "claude"), e.claude); err != nil {
		t.Fatal(err)
	}
	tpl := filepath.Join(root, "data")
	s.once.Do(func() {
		(&env{claude: e.claude, data: tpl}).sync(t)
		s.ok = true
	})
	if !s.ok {
		t.Fatal("the shared synced store failed to build (see the first test that used it)")
	}
	if err := copyModes(tpl, e.data); err != nil {
		t.Fatal(err)
	}
	return e
}

var syncedShared struct {
	inUse sync.Mutex // the sample's copy at the shared store's path
	once  sync.Once
	ok    bool
}

// copyModes copies a closed data dir as `cp -a` would (modes and times
// kept).
func copyModes(src, dst string) error {
	return filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(target, fi.Mode().Perm())
		}
		b, err := os.ReadFile(p)
		if err == nil {
			err = os.WriteFile(target, b, fi.Mode().Perm())
		}
		if err == nil {
			err = os.Chtimes(target, fi.ModTime(), fi.ModTime())
		}
		return err
	})
}

func (e *env) transcript(folder, sid string) string {
	return filepath.Join(e.claude, "projects", folder, sid+".jsonl")
}

type result struct {
	code   int
	stdout string
	stderr string
	took   time.Duration
}

// run pipes stdin into `cairn-hook args...`.
func (e *env) run(t testing.TB, stdin string, extraEnv []string, args ...string) result {
	t.Helper()
	return e.runBin(t, hookBin, stdin, extraEnv, append([]string{"--data", e.data, "--claude-dir", e.claude}, args...)...)
}

// runMain pipes stdin into `cairn hook args...`.
func (e *env) runMain(t testing.TB, stdin string, extraEnv []string, args ...string) result {
	t.Helper()
	return e.runBin(t, bin, stdin, extraEnv, append([]string{"hook", "--data", e.data, "--claude-dir", e.claude}, args...)...)
}

func (e *env) runBin(t testing.TB, exe, stdin string, extraEnv []string, args ...string) result {
	t.Helper()
	cmd := exec.CommandContext(context.Background(), exe, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Env = append(os.Environ(), "CLAUDE_PROJECT_DIR="+demoProject, "CAIRN_DISABLE=", "CAIRN_CONFIG=")
	cmd.Env = append(cmd.Env, extraEnv...)
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running cairn hook: %v", err)
	}
	return r
}

func input(event, sid, transcript string, extra map[string]any) string {
	m := map[string]any{"hook_event_name": event, "session_id": sid, "transcript_path": transcript, "cwd": demoProject}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// context parses a context-injecting hook's stdout.
func parseOutput(t *testing.T, event, stdout string) string {
	t.Helper()
	var out struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
		Decision *string `json:"decision"`
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("stdout is not the hook JSON: %v\n%s", err, stdout)
	}
	if out.HookSpecificOutput.HookEventName != event || out.Decision != nil {
		t.Fatalf("bad output: %s", stdout)
	}
	return out.HookSpecificOutput.AdditionalContext
}

func (e *env) store(t testing.TB) *index.Store {
	t.Helper()
	st, err := index.Open(e.data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func (e *env) sync(t testing.TB) {
	t.Helper()
	st, err := index.Open(e.data)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Sync(context.Background(), e.claude, index.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
}

// addMemory stores an approved (or pending) memory.
func (e *env) addMemory(t testing.TB, project string, typ memories.Type, content string, status memories.Status, importance int) string {
	t.Helper()
	st, err := index.Open(e.data)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := memories.New(st, config.Default()).Curator.Add(context.Background(), memories.NewMemory{Project: project, Type: typ,
		Content: content, Importance: importance, Status: status, Origin: memories.OriginManual})
	if err != nil {
		t.Fatal(err)
	}
	return r.Memory.ID
}

func (e *env) memory(t testing.TB, id string) *memories.Memory {
	t.Helper()
	st, err := index.Open(e.data)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m, err := memories.New(st, config.Default()).Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (e *env) logText() string {
	b, _ := os.ReadFile(filepath.Join(e.data, hookspec.LogName))
	return string(b)
}

func TestSessionStartContext(t *testing.T) {
	e := newSyncedEnv(t)
	top := e.addMemory(t, demoProject, memories.Decision, "The TODO app keeps state in a React context, not Redux", memories.Approved, 5)
	e.addMemory(t, demoProject, memories.Gotcha, "npm test needs NODE_ENV=test or the jsdom setup is skipped", memories.Approved, 3)
	other := e.addMemory(t, "/somewhere/else", memories.Fact, "Unrelated project uses Postgres 16", memories.Approved, 5)
	e.addMemory(t, demoProject, memories.Preference, "User prefers table-driven tests", memories.Pending, 3)
	// Many long memories: the budget must hold.
	for i := range 80 {
		var words []string
		for j := range 40 {
			words = append(words, fmt.Sprintf("w%dx%d", i, j))
		}
		e.addMemory(t, demoProject, memories.Fact, fmt.Sprintf("Fact number %d: %s", i, strings.Join(words, " ")), memories.Approved, 2)
	}
	r := e.run(t, input("SessionStart", "11111111-2222-3333-4444-555555555555", e.transcript(demoFolder, "11111111-2222-3333-4444-555555555555"), map[string]any{"source": "startup"}), nil)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	ctx := parseOutput(t, "SessionStart", r.stdout)
	for _, want := range []string{"11111111-2222-3333-4444-555555555555", "React context", top, "1 memory awaits review", "Recent sessions"} {
		if !strings.Contains(ctx, want) {
			t.Errorf("context lacks %q:\n%s", want, ctx)
		}
	}
	if strings.Contains(ctx, other) || strings.Contains(ctx, "table-driven") {
		t.Errorf("context holds another project's or a pending memory:\n%s", ctx)
	}
	if strings.Index(ctx, top) > strings.Index(ctx, "Fact number") {
		t.Errorf("the most important memory is not first")
	}
	if n := hook.Tokens(ctx); n > 1500 || float64(len(ctx))/3.5 > 1500 {
		t.Fatalf("context is %d tokens (%d chars): over the 1,500 budget", n, len(ctx))
	}
	if n := hook.Tokens(ctx); n < 1000 {
		t.Errorf("context is only %d tokens with 80 memories available: the budget is not used", n)
	}
	// A smaller configured budget is honoured.
	if err := os.WriteFile(filepath.Join(e.data, "config.toml"), []byte("[hooks]\nsession_start_tokens = 200\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = e.run(t, input("SessionStart", "11111111-2222-3333-4444-555555555556", "", map[string]any{"source": "clear"}), nil)
	ctx = parseOutput(t, "SessionStart", r.stdout)
	if n := hook.Tokens(ctx); n > 200 {
		t.Fatalf("budget 200: %d tokens:\n%s", n, ctx)
	}
	// The review reminder was given in this project today: not again.
	if strings.Contains(ctx, "awaits review") {
		t.Errorf("the review reminder is repeated the same day:\n%s", ctx)
	}
}

func TestUserPromptInjectsOnceAndOnlyWhenRelevant(t *testing.T) {
	e := newSyncedEnv(t)
	id := e.addMemory(t, demoProject, memories.Gotcha, "The websocket reconnect test is flaky: await the open event before sending", memories.Approved, 4)
	e.addMemory(t, demoProject, memories.Fact, "Deploys go through the staging cluster first", memories.Approved, 3)
	sid := "22222222-3333-4444-5555-666666666666"
	tr := e.transcript(demoFolder, sid)
	prompt := input("UserPromptSubmit", sid, tr, map[string]any{"prompt": "the websocket reconnect test is flaky again, can you look?"})
	r := e.run(t, prompt, nil)
	if r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	ctx := parseOutput(t, "UserPromptSubmit", r.stdout)
	if !strings.Contains(ctx, id) || strings.Contains(ctx, "staging") {
		t.Fatalf("wrong injection:\n%s", ctx)
	}
	// It says why it was chosen: the prompt's words the memory holds.
	if !strings.Contains(ctx, "matched: websocket, reconnect, test, flaky") {
		t.Errorf("the injection does not say which words matched:\n%s", ctx)
	}
	if hook.Tokens(ctx) > 500 {
		t.Fatalf("%d tokens", hook.Tokens(ctx))
	}
	if m := e.memory(t, id); m.Injected < 1 {
		t.Errorf("injection not recorded: %+v", m)
	}
	// Never twice in a session.
	if r := e.run(t, prompt, nil); r.stdout != "" || r.code != 0 {
		t.Fatalf("repeated injection: %q", r.stdout)
	}
	// Another session gets it again.
	r = e.run(t, input("UserPromptSubmit", "33333333-3333-4444-5555-666666666666", tr, map[string]any{"prompt": "websocket reconnect flaky test"}), nil)
	if !strings.Contains(r.stdout, id) {
		t.Fatalf("another session should get it: %q", r.stdout)
	}
	// Irrelevant prompts inject nothing.
	for _, p := range []string{"rename the button to Save", "hi", "/recall websocket"} {
		r := e.run(t, input("UserPromptSubmit", "44444444-3333-4444-5555-666666666666", tr, map[string]any{"prompt": p}), nil)
		if r.stdout != "" || r.code != 0 {
			t.Errorf("prompt %q injected %q", p, r.stdout)
		}
	}
}

// jsonlLine builds a transcript line.
func jsonlLine(sid, uuid, parent, role, text string, ts time.Time) string {
	m := map[string]any{"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": demoProject,
		"sessionId": sid, "version": "2.1.38", "gitBranch": "main", "type": role, "uuid": uuid,
		"timestamp": ts.UTC().Format(time.RFC3339Nano)}
	if parent == "" {
		m["parentUuid"] = nil
	}
	if role == "user" {
		m["message"] = map[string]any{"role": "user", "content": text}
	} else {
		m["message"] = map[string]any{"id": "msg_" + uuid, "type": "message", "role": "assistant", "model": "claude-test",
			"content": []any{map[string]any{"type": "text", "text": text}}, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1}}
		m["requestId"] = "req_" + uuid
	}
	b, _ := json.Marshal(m)
	return string(b) + "\n"
}

func appendLine(t testing.TB, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func entryCount(t testing.TB, st *index.Store, sid string) int {
	t.Helper()
	s, err := st.Session(t.Context(), sid)
	if err != nil {
		return 0
	}
	return s.Entries
}

func TestStopIndexesProjectExtractsAndScoresUse(t *testing.T) {
	e := newEnv(t)
	tr := e.transcript(demoFolder, demoSession)
	r := e.run(t, input("Stop", demoSession, tr, map[string]any{"stop_hook_active": false}), nil)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("Stop: exit %d stdout %q", r.code, r.stdout)
	}
	st := e.store(t)
	before := entryCount(t, st, demoSession)
	if before == 0 {
		t.Fatalf("the session was not indexed; log: %s", e.logText())
	}
	ps, _ := st.Projects(t.Context())
	if len(ps) != 1 {
		t.Fatalf("Stop must index only the session's project folder, got %d projects", len(ps))
	}
	svc := memories.New(st, config.Default())
	c, err := svc.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c.PendingMemories == 0 {
		t.Fatalf("no memories extracted into pending")
	}
	// Inject a memory, then Claude uses it: the next Stop counts the use.
	id := e.addMemory(t, demoProject, memories.Gotcha, "Vite dev server needs --host 0.0.0.0 inside the devcontainer", memories.Approved, 4)
	r = e.run(t, input("UserPromptSubmit", demoSession, tr, map[string]any{"prompt": "the vite dev server is unreachable from the devcontainer"}), nil)
	if !strings.Contains(r.stdout, id) {
		t.Fatalf("not injected: %q (log %s)", r.stdout, e.logText())
	}
	now := time.Now()
	appendLine(t, tr, jsonlLine(demoSession, "aaaaaaaa-0000-0000-0000-000000000001", "", "user", "the vite dev server is unreachable from the devcontainer", now))
	appendLine(t, tr, jsonlLine(demoSession, "aaaaaaaa-0000-0000-0000-000000000002", "aaaaaaaa-0000-0000-0000-000000000001", "assistant",
		"Started the Vite dev server with --host 0.0.0.0 so it is reachable inside the devcontainer.", now.Add(time.Second)))
	r = e.run(t, input("Stop", demoSession, tr, nil), nil)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("Stop: exit %d stdout %q", r.code, r.stdout)
	}
	if got := entryCount(t, st, demoSession); got != before+2 {
		t.Fatalf("entries %d, want %d", got, before+2)
	}
	if m := e.memory(t, id); m.Used != 1 {
		t.Fatalf("use not scored: injected %d used %d; log %s", m.Injected, m.Used, e.logText())
	}
	// Stop again with nothing new: nothing changes, nothing is re-extracted.
	c1, _ := svc.Counts(context.Background())
	e.run(t, input("Stop", demoSession, tr, nil), nil)
	c2, _ := svc.Counts(context.Background())
	if got := entryCount(t, st, demoSession); got != before+2 || c1.PendingMemories != c2.PendingMemories {
		t.Fatalf("a Stop without new lines changed the store")
	}
	// SessionEnd hands the summary to a background process and returns
	// well inside its 1.5 s budget.
	r = e.run(t, input("SessionEnd", demoSession, tr, map[string]any{"reason": "prompt_input_exit"}), nil)
	if r.code != 0 || r.stdout != "" || r.took > 1500*time.Millisecond {
		t.Fatalf("SessionEnd: exit %d stdout %q took %s", r.code, r.stdout, r.took)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		sums, _ := svc.Drafts.Summaries(context.Background(), demoProject, 5)
		if len(sums) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background summary never arrived; log: %s", e.logText())
		}
		time.Sleep(100 * time.Millisecond)
	}
	waitBackground(t, e)
}

// waitBackground waits for the detached processes the hooks started to
// exit, so they do not write into a temporary dir being removed.
func waitBackground(t *testing.T, e *env) {
	t.Helper()
	for _, l := range strings.Split(e.logText(), "\n") {
		i := strings.Index(l, "started (pid ")
		if i < 0 {
			continue
		}
		var pid int
		fmt.Sscanf(l[i+len("started (pid "):], "%d", &pid)
		deadline := time.Now().Add(15 * time.Second)
		for pid > 0 && processAlive(pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// Every failure mode exits 0, prints nothing and (unless disabled) logs
// one line.
func TestFailOpen(t *testing.T) {
	e := newEnv(t)
	tr := e.transcript(demoFolder, demoSession)
	outside := filepath.Join(t.TempDir(), "evil.jsonl")
	if err := os.WriteFile(outside, []byte(jsonlLine(demoSession, "x", "", "user", "hi", time.Now())), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		stdin  string
		args   []string
		env    []string
		logged string
	}{
		{name: "empty stdin", stdin: "", logged: "empty stdin"},
		{name: "whitespace", stdin: " \n\t", logged: "empty stdin"},
		{name: "garbage", stdin: "\x1b[31mnot json", logged: "not a JSON object"},
		{name: "truncated json", stdin: `{"hook_event_name":"Stop","session_id":`, logged: "not valid JSON"},
		{name: "json array", stdin: `[1,2]`, logged: "not a JSON object"},
		{name: "unknown event", stdin: input("Bogus", demoSession, tr, nil), logged: "unknown event"},
		{name: "no event", stdin: `{"session_id":"` + demoSession + `"}`, logged: "no hook_event_name"},
		{name: "event from argument only, missing transcript", stdin: `{"session_id":"` + demoSession + `","transcript_path":"` + filepath.Join(e.claude, "projects", demoFolder, "gone.jsonl") + `"}`, args: []string{"PreCompact"}, logged: "gone.jsonl"},
		// `claude mcp list` ends a session that never wrote a transcript:
		// nothing to do, nothing for doctor to warn about.
		{name: "SessionEnd of a session with no transcript", stdin: input("SessionEnd", demoSession, filepath.Join(e.claude, "projects", demoFolder, "never.jsonl"), map[string]any{"reason": "other"})},
		{name: "missing transcript", stdin: input("PreCompact", demoSession, filepath.Join(e.claude, "projects", demoFolder, "nope.jsonl"), nil), logged: "nope.jsonl"},
		// Claude Code often runs Stop before it writes the transcript: a
		// harmless race, not a problem to report.
		{name: "Stop before the transcript exists", stdin: input("Stop", demoSession, filepath.Join(e.claude, "projects", demoFolder, "later.jsonl"), map[string]any{"last_assistant_message": "done"})},
		{name: "no transcript", stdin: input("Stop", demoSession, "", nil), logged: "no transcript_path"},
		{name: "transcript outside claude dir", stdin: input("Stop", demoSession, outside, nil), logged: hookspec.OutsideClaudeDir},
		{name: "dot-dot escape", stdin: input("Stop", demoSession, filepath.Join(e.claude, "projects", "..", "..", "evil.jsonl"), nil), logged: hookspec.OutsideClaudeDir},
		{name: "session start outside", stdin: input("SessionStart", demoSession, outside, nil), logged: hookspec.OutsideClaudeDir},
		{name: "relative transcript", stdin: input("Stop", demoSession, "projects/x/y.jsonl", nil), logged: "not absolute"},
		{name: "bad session id", stdin: input("UserPromptSubmit", "../../etc", tr, map[string]any{"prompt": "x y z"}), logged: "not a session id"},
		{name: "wrong field types", stdin: `{"hook_event_name":"UserPromptSubmit","session_id":42,"prompt":["x"]}`, logged: "not a session id"},
		{name: "unknown flag", stdin: input("Bogus2", demoSession, tr, nil), args: []string{"--bogus-flag"}, logged: "unknown event (a name of 6 bytes"},
		{name: "disabled", stdin: input("SessionStart", demoSession, tr, nil), env: []string{"CAIRN_DISABLE=1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.logText()
			r := e.run(t, c.stdin, c.env, c.args...)
			if r.code != 0 || r.stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			added := strings.TrimPrefix(e.logText(), before)
			if c.logged == "" {
				if added != "" {
					t.Fatalf("logged %q", added)
				}
				return
			}
			if strings.Count(added, "\n") != 1 || !strings.Contains(added, c.logged) {
				t.Fatalf("want one log line with %q, got %q", c.logged, added)
			}
			if strings.ContainsAny(added, "\x1b") {
				t.Fatalf("control characters reached the log: %q", added)
			}
			// A transcript_path outside the Claude directory is never
			// quoted: the log (which doctor prints) names no file of
			// elsewhere on the machine.
			if strings.Contains(added, "evil.jsonl") || strings.Contains(added, "projects/x/y.jsonl") {
				t.Fatalf("the log quotes an outside transcript_path: %q", added)
			}
		})
	}
	// A damaged store: context events fail open too.
	bad := &env{claude: e.claude, data: t.TempDir()}
	if err := os.WriteFile(filepath.Join(bad.data, index.DBName), bytes.Repeat([]byte("garbage!"), 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"} {
		r := bad.run(t, input(ev, demoSession, tr, map[string]any{"prompt": "hello there friend"}), nil)
		if r.code != 0 || r.stdout != "" {
			t.Fatalf("%s on a damaged store: exit %d stdout %q", ev, r.code, r.stdout)
		}
	}
	if !strings.Contains(bad.logText(), "failed open") {
		t.Fatalf("damaged store not logged: %q", bad.logText())
	}
	// A broken config file: one policy everywhere (app.ConfigError):
	// nothing runs on a guess. SessionStart tells the user through Claude
	// (and injects no memories), every event logs it, none fails.
	cfgEnv := &env{claude: e.claude, data: t.TempDir()}
	os.WriteFile(filepath.Join(cfgEnv.data, "config.toml"), []byte("[hooks\nnope"), 0o600)
	r := cfgEnv.run(t, input("SessionStart", demoSession, tr, nil), nil)
	if r.code != 0 || !strings.Contains(r.stdout, "config.toml:1") || !strings.Contains(r.stdout, "paused") ||
		strings.Contains(r.stdout, demoSession) || !strings.Contains(cfgEnv.logText(), "config") {
		t.Fatalf("broken config: exit %d stdout %q log %q", r.code, r.stdout, cfgEnv.logText())
	}
	for _, ev := range []string{"UserPromptSubmit", "Stop"} {
		r := cfgEnv.run(t, input(ev, demoSession, tr, map[string]any{"prompt": "hello there friend"}), nil)
		if r.code != 0 || r.stdout != "" {
			t.Fatalf("%s with a broken config: exit %d stdout %q", ev, r.code, r.stdout)
		}
	}
	if n := strings.Count(cfgEnv.logText(), "config.toml:1"); n < 3 {
		t.Fatalf("broken config logged %d times, want every event: %q", n, cfgEnv.logText())
	}
}

func TestLogRotates(t *testing.T) {
	dir := t.TempDir()
	l := hookspec.NewLogger(dir)
	line := strings.Repeat("x", 1000)
	for range 1100 {
		l.Printf("%s", line)
	}
	cur, err := os.Stat(filepath.Join(dir, hookspec.LogName))
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.Stat(filepath.Join(dir, hookspec.LogName+".1"))
	if err != nil {
		t.Fatal("no rotated log")
	}
	if cur.Size() > hookspec.LogMaxBytes || old.Size() > hookspec.LogMaxBytes {
		t.Fatalf("log sizes %d and %d", cur.Size(), old.Size())
	}
	if got := hookspec.LastLines(dir, 3); len(got) != 3 {
		t.Fatalf("last lines: %d", len(got))
	}
}

// Eight hook processes fire Stop and UserPromptSubmit for their own
// sessions, 200 times each, while this process holds the full-text index:
// every hook exits 0 with valid output, and no entry is lost or duplicated.
func TestConcurrentHooks(t *testing.T) {
	if testing.Short() {
		t.Skip("1,600 hook processes: skipped with -short")
	}
	const workers, rounds = 8, 200
	e := newEnv(t)
	folder := "-work-conc"
	if err := os.MkdirAll(filepath.Join(e.claude, "projects", folder), 0o755); err != nil {
		t.Fatal(err)
	}
	e.sync(t)
	e.addMemory(t, demoProject, memories.Gotcha, "The websocket reconnect test is flaky: await the open event before sending", memories.Approved, 4)
	st := e.store(t)
	ix, err := st.Derived().OpenFTS(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()

	var mu sync.Mutex
	var durs = map[string][]time.Duration{}
	var failures []string
	var wg sync.WaitGroup
	base := time.Now().Add(-time.Hour)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sid := fmt.Sprintf("c0ffee%02d-0000-4000-8000-000000000000", w)
			tr := e.transcript(folder, sid)
			parent := ""
			for i := range rounds {
				uuid := fmt.Sprintf("c0ffee%02d-%04d-4000-8000-000000000000", w, i)
				role := "user"
				if i%2 == 1 {
					role = "assistant"
				}
				appendLine(t, tr, jsonlLine(sid, uuid, parent, role, fmt.Sprintf("message %d of worker %d about the websocket reconnect", i, w), base.Add(time.Duration(i)*time.Second)))
				parent = uuid
				ev, extra := "Stop", map[string]any{}
				if i%2 == 0 {
					ev, extra = "UserPromptSubmit", map[string]any{"prompt": fmt.Sprintf("round %d: why is the websocket reconnect test flaky", i)}
				}
				r := e.run(t, input(ev, sid, tr, extra), nil)
				mu.Lock()
				durs[ev] = append(durs[ev], r.took)
				if r.code != 0 {
					failures = append(failures, fmt.Sprintf("%s %s round %d: exit %d: %s", ev, sid, i, r.code, r.stderr))
				} else if r.stdout != "" && (ev != "UserPromptSubmit" || !json.Valid([]byte(r.stdout))) {
					failures = append(failures, fmt.Sprintf("%s round %d: bad stdout %q", ev, i, r.stdout))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d failures, first: %s", len(failures), failures[0])
	}
	for ev, ds := range durs {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		t.Logf("%s under contention (%d runs, %d workers): p50 %s p99 %s max %s", ev, len(ds), workers,
			ds[len(ds)/2].Round(time.Millisecond), ds[len(ds)*99/100].Round(time.Millisecond), ds[len(ds)-1].Round(time.Millisecond))
		if ds[len(ds)-1] > 6*time.Second {
			t.Errorf("%s: a hook took %s", ev, ds[len(ds)-1])
		}
	}
	// What a busy moment left behind is picked up by the next hook (here
	// one more Stop per session): then every line is stored exactly once.
	for w := range workers {
		sid := fmt.Sprintf("c0ffee%02d-0000-4000-8000-000000000000", w)
		if r := e.run(t, input("Stop", sid, e.transcript(folder, sid), nil), nil); r.code != 0 {
			t.Fatal(r.stderr)
		}
	}
	for w := range workers {
		sid := fmt.Sprintf("c0ffee%02d-0000-4000-8000-000000000000", w)
		if got := entryCount(t, st, sid); got != rounds {
			t.Errorf("session %s: %d entries stored, want %d", sid, got, rounds)
		}
	}
	if busy := strings.Count(e.logText(), "left for later"); busy > 0 {
		t.Logf("%d hooks found the store busy and left their work to the next one", busy)
	}
}

// `cairn hook` (the subcommand of the full binary) behaves as cairn-hook.
func TestCairnHookSubcommand(t *testing.T) {
	e := newSyncedEnv(t)
	id := e.addMemory(t, demoProject, memories.Decision, "The TODO app keeps state in a React context, not Redux", memories.Approved, 5)
	in := input("SessionStart", "55555555-2222-3333-4444-555555555555", "", map[string]any{"source": "startup"})
	lean := e.run(t, in, nil)
	full := e.runMain(t, in, nil, "SessionStart")
	if full.code != 0 || lean.code != 0 || full.stdout != lean.stdout || !strings.Contains(full.stdout, id) {
		t.Fatalf("cairn hook and cairn-hook differ:\n%s\n%s", full.stdout, lean.stdout)
	}
	for _, stdin := range []string{"", "garbage"} {
		if r := e.runMain(t, stdin, nil, "--unknown-flag", "Stop"); r.code != 0 || r.stdout != "" {
			t.Fatalf("cairn hook with %q: exit %d stdout %q stderr %q", stdin, r.code, r.stdout, r.stderr)
		}
	}
}

func TestParseArgs(t *testing.T) {
	a := hook.ParseArgs([]string{"--data=/d", "Stop", "--x", "--claude-dir", "/c", "extra"})
	if a.Event != "Stop" || a.DataDir != "/d" || a.ClaudeDir != "/c" {
		t.Fatalf("%+v", a)
	}
}

// The MCP server as Claude Code runs it: `cairn mcp` as a subprocess over
// stdio, driven by the SDK's client.
func TestMCPOverStdio(t *testing.T) {
	e := newSyncedEnv(t)
	id := e.addMemory(t, demoProject, memories.Decision, "The TODO app keeps state in a React context, not Redux", memories.Approved, 5)
	cmd := exec.CommandContext(t.Context(), bin, "mcp", "--data", e.data, "--claude-dir", e.claude)
	cmd.Env = append(os.Environ(), "CLAUDE_PROJECT_DIR="+demoProject)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	sort.Strings(names)
	want := []string{"memory_ask", "memory_brief", "memory_correct", "memory_forget", "memory_projects", "memory_recall", "memory_related", "memory_remember", "memory_search", "memory_timeline", "session_read", "session_save_summary"}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("tools %v, want %v", names, want)
	}
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	res := call("memory_search", map[string]any{"query": "React context state"})
	b, _ := json.Marshal(res.StructuredContent)
	if res.IsError || !strings.Contains(string(b), id) {
		t.Fatalf("memory_search: %s", b)
	}
	res = call("memory_remember", map[string]any{"content": "Run npm test with NODE_ENV=test", "type": "gotcha"})
	b, _ = json.Marshal(res.StructuredContent)
	if res.IsError || !strings.Contains(string(b), `"pending"`) || !strings.Contains(string(b), demoProject) {
		t.Fatalf("memory_remember: %s", b)
	}
	res = call("memory_recall", map[string]any{"query": "CLAUDE.md"})
	b, _ = json.Marshal(res.StructuredContent)
	if res.IsError || !strings.Contains(string(b), demoSession[:8]) {
		t.Fatalf("memory_recall: %s", b)
	}
	if res := call("session_read", map[string]any{"session_id": "nope"}); !res.IsError {
		t.Fatal("session_read of an unknown id must be a tool error")
	}
}
