// Package claudecode_test is cairn's end-to-end suite: it drives the real
// Claude Code CLI (the version pinned in internal/fakeclaude, installed by
// .ci/run or on first use) in print mode against a scripted fake Messages
// API, with cairn installed as a user would (cairn install, or the plugin
// from this repo's marketplace), and asserts on what Claude Code sent the
// model and on cairn's store.
//
// Every scenario has its own scratch HOME (so ~/.claude, ~/.claude.json
// and cairn's data dir are private to it) and runs in parallel with the
// others. Set CAIRN_SKIP_CLAUDE_E2E=1 to skip the suite outside CI.
package claudecode_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/fakeclaude"
	"github.com/cairn-dev/cairn/internal/hookspec"
	"github.com/cairn-dev/cairn/internal/testutil"
	"github.com/cairn-dev/cairn/transcripts"
)

// binDir holds the cairn and cairn-hook binaries built for the suite.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cairn-e2e-bin")
	if err != nil {
		panic(err)
	}
	binDir = dir
	cmd := exec.CommandContext(context.Background(), "go", "build", "-o", dir, ".", "./cmd/cairn-hook")
	cmd.Dir = testutil.RepoRoot()
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building cairn:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	start := time.Now()
	code := m.Run()
	report := fmt.Sprintf("Claude Code %s e2e: %s wall time\nhook latency (in Claude Code: stream-json hook_started → hook_response; in the hook process: CAIRN_HOOK_TRACE):\n%s",
		testedVersion(), time.Since(start).Round(time.Second), latencyReport())
	fmt.Fprint(os.Stderr, report)
	if p := os.Getenv("CAIRN_E2E_REPORT"); p != "" {
		_ = os.WriteFile(p, []byte(report), 0o644)
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// cliVersion is the version of the Claude Code the scenarios ran.
var cliVersion struct {
	sync.Mutex
	v string
}

func testedVersion() string {
	cliVersion.Lock()
	defer cliVersion.Unlock()
	if cliVersion.v == "" {
		return "(none run) " + fakeclaude.Version
	}
	return cliVersion.v
}

// world is one scenario's machine: a scratch HOME with a project folder,
// the fake API, and the pinned CLI.
type world struct {
	t      *testing.T
	cli    *fakeclaude.CLI
	api    *fakeclaude.Server
	home   string
	proj   string // the project Claude Code runs in
	claude string // Claude Code's config dir (~/.claude unless configDir)
	data   string // cairn's data dir
	// configDir, when set, is CLAUDE_CONFIG_DIR.
	configDir string
	// path is the PATH Claude Code and cairn run with.
	path string
	// runAs, when set, is the command that runs every process as another
	// user (setpriv …; see asUnprivileged).
	runAs []string
}

// command is name args… run as the world's user.
func (w *world) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	if len(w.runAs) > 0 {
		return exec.CommandContext(ctx, w.runAs[0], append(append(w.runAs[1:], name), args...)...)
	}
	return exec.CommandContext(ctx, name, args...)
}

func newWorld(t *testing.T, respond fakeclaude.Responder) *world {
	t.Helper()
	t.Parallel()
	cli := fakeclaude.RequireCLI(t)
	cliVersion.Lock()
	cliVersion.v = cli.Version
	cliVersion.Unlock()
	home := t.TempDir()
	w := &world{t: t, cli: cli, home: home, proj: filepath.Join(home, "work", "demo"),
		claude: filepath.Join(home, ".claude"), data: filepath.Join(home, ".local", "share", "cairn"),
		path: binDir + string(os.PathListSeparator) + os.Getenv("PATH")}
	if err := os.MkdirAll(w.proj, 0o755); err != nil {
		t.Fatal(err)
	}
	if respond != nil {
		w.api = fakeclaude.NewServer(t, respond)
	}
	t.Cleanup(func() {
		// Before the scratch HOME is removed: hooks may have left a
		// detached background process (extraction) writing in it.
		w.waitBackground(20 * time.Second)
		if t.Failed() {
			t.Logf("requests the model got:\n%s", w.api.Dump())
			if b, err := os.ReadFile(filepath.Join(w.data, hookspec.LogName)); err == nil {
				t.Logf("%s:\n%s", hookspec.LogName, b)
			}
		}
		// A process of Claude Code's or cairn's may still be writing in
		// HOME as it goes: empty it until it stays empty, before
		// t.TempDir's own removal (which fails on a write in between).
		removeAllRetry(home, 10*time.Second)
	})
	return w
}

// removeAllRetry removes dir's contents until a removal succeeds or
// limit passes.
func removeAllRetry(dir string, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for {
		err := os.RemoveAll(dir)
		if err == nil || time.Now().After(deadline) {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// backgroundRe is how the hook log (hooks.log) records a detached background process.
var backgroundRe = regexp.MustCompile(`background \w+ started \(pid (\d+)\)`)

// waitBackground waits (up to limit) for the background processes the
// hooks started, by the hook log, to end.
func (w *world) waitBackground(limit time.Duration) {
	b, _ := os.ReadFile(filepath.Join(w.data, hookspec.LogName))
	deadline := time.Now().Add(limit)
	for _, m := range backgroundRe.FindAllStringSubmatch(string(b), -1) {
		pid, _ := strconv.Atoi(m[1])
		for time.Now().Before(deadline) && alive(pid) {
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// alive reports whether process pid still runs (false where a signal 0
// cannot tell).
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

// useConfigDir makes Claude Code and cairn use CLAUDE_CONFIG_DIR=dir.
func (w *world) useConfigDir(dir string) {
	w.configDir, w.claude = dir, dir
}

func (w *world) env(extra ...string) []string {
	// CAIRN_HOOK_TRACE: the hooks print their timings on stderr, which
	// Claude Code reports (the latency table).
	env := []string{"PATH=" + w.path, "CAIRN_CONFIG=", "CAIRN_DISABLE=", "CAIRN_HOME=", "CAIRN_HOOK_TRACE=1"}
	if w.configDir != "" {
		env = append(env, "CLAUDE_CONFIG_DIR="+w.configDir)
	}
	return fakeclaude.Env(w.home, w.api, append(env, extra...)...)
}

// result is a finished process.
type result struct {
	out, err string
	code     int
	took     time.Duration
}

func (w *world) run(dir string, env []string, stdin string, name string, args ...string) result {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := w.command(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.WaitDelay = 5 * time.Second
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	start := time.Now()
	err := cmd.Run()
	r := result{out: o.String(), err: e.String(), took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		w.t.Fatalf("running %s %v: %v", name, args, err)
	}
	return r
}

// cairn runs the cairn binary in the project folder.
func (w *world) cairn(args ...string) result {
	w.t.Helper()
	return w.run(w.proj, w.env(), "", filepath.Join(binDir, "cairn"), args...)
}

// mustCairn runs cairn and fails the test on a non-zero exit.
func (w *world) mustCairn(args ...string) string {
	w.t.Helper()
	r := w.cairn(args...)
	if r.code != 0 {
		w.t.Fatalf("cairn %v: exit %d\n%s%s", args, r.code, r.out, r.err)
	}
	return r.out
}

// claudeCmd runs the Claude Code CLI in the project folder.
func (w *world) claudeCmd(args ...string) result {
	w.t.Helper()
	return w.run(w.proj, w.env(), "", w.cli.Path, args...)
}

// ask runs `claude -p prompt` with args and the stream-json output that
// reports hook runs; it fails the test unless Claude Code exits 0.
func (w *world) ask(prompt string, args ...string) *streamRun {
	w.t.Helper()
	r := w.tryAsk(prompt, args...)
	if r.code != 0 {
		w.t.Fatalf("claude -p %q %v: exit %d\nstdout:\n%s\nstderr:\n%s", prompt, args, r.code, r.out, r.err)
	}
	return r
}

// tryAsk is ask without the exit code check. Each stdout line is stamped
// as it arrives: the time between a hook_started and its hook_response
// event is the hook's latency as Claude Code lives it.
func (w *world) tryAsk(prompt string, args ...string) *streamRun {
	w.t.Helper()
	all := append([]string{"-p", prompt, "--output-format", "stream-json", "--verbose", "--include-hook-events"}, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := w.command(ctx, w.cli.Path, all...)
	cmd.Dir, cmd.Env = w.proj, w.env()
	cmd.WaitDelay = 5 * time.Second
	var e bytes.Buffer
	cmd.Stderr = &e
	pipe, err := cmd.StdoutPipe()
	must(w.t, err)
	start := time.Now()
	must(w.t, cmd.Start())
	var lines []stampedLine
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		lines = append(lines, stampedLine{at: time.Now(), text: sc.Text()})
	}
	err = cmd.Wait()
	r := result{err: e.String(), took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		w.t.Fatalf("running claude: %v", err)
	}
	var out strings.Builder
	for _, l := range lines {
		out.WriteString(l.text + "\n")
	}
	r.out = out.String()
	s := parseStream(w.t, r, lines)
	recordLatencies(s)
	return s
}

type stampedLine struct {
	at   time.Time
	text string
}

// streamRun is a parsed stream-json run.
type streamRun struct {
	result
	events    []map[string]any
	sessionID string
	final     string // the result text
	hooks     []hookRun
}

// hookRun is one hook run Claude Code reported.
type hookRun struct {
	event, name, stdout string
	exitCode            int
	outcome             string
	latency             time.Duration
	// handled is the hook process's own time to handle the event, from
	// its CAIRN_HOOK_TRACE lines on stderr (as Claude Code captured it).
	handled time.Duration
}

func parseStream(t *testing.T, r result, lines []stampedLine) *streamRun {
	s := &streamRun{result: r}
	started := map[string]time.Time{}
	for _, l := range lines {
		line := strings.TrimSpace(l.text)
		if line == "" {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("stream-json line is not JSON: %v\n%s", err, line)
		}
		s.events = append(s.events, ev)
		if id, ok := ev["session_id"].(string); ok && s.sessionID == "" {
			s.sessionID = id
		}
		switch {
		case ev["type"] == "result":
			s.final, _ = ev["result"].(string)
		case ev["subtype"] == "hook_started":
			id, _ := ev["hook_id"].(string)
			started[id] = l.at
		case ev["subtype"] == "hook_response":
			id, _ := ev["hook_id"].(string)
			h := hookRun{}
			h.event, _ = ev["hook_event"].(string)
			h.name, _ = ev["hook_name"].(string)
			h.stdout, _ = ev["stdout"].(string)
			h.outcome, _ = ev["outcome"].(string)
			if c, ok := ev["exit_code"].(float64); ok {
				h.exitCode = int(c)
			}
			if t0, ok := started[id]; ok {
				h.latency = l.at.Sub(t0)
			}
			stderr, _ := ev["stderr"].(string)
			h.handled = traceTotal(stderr)
			s.hooks = append(s.hooks, h)
		}
	}
	return s
}

// init returns the run's init event (tools, MCP servers, commands, plugins).
func (s *streamRun) init() map[string]any {
	for _, ev := range s.events {
		if ev["type"] == "system" && ev["subtype"] == "init" {
			return ev
		}
	}
	return nil
}

// strings of an init field that is a list of strings.
func (s *streamRun) list(field string) []string {
	var out []string
	vs, _ := s.init()[field].([]any)
	for _, v := range vs {
		if str, ok := v.(string); ok {
			out = append(out, str)
		}
	}
	return out
}

// serverConnected reports whether the run's init shows the MCP server
// connected.
func serverConnected(s *streamRun, name string) bool {
	vs, _ := s.init()["mcp_servers"].([]any)
	for _, v := range vs {
		m, _ := v.(map[string]any)
		if m["name"] == name && m["status"] == "connected" {
			return true
		}
	}
	return false
}

// hooksOf returns the reported runs of an event's hooks.
func (s *streamRun) hooksOf(event string) []hookRun {
	var out []hookRun
	for _, h := range s.hooks {
		if h.event == event {
			out = append(out, h)
		}
	}
	return out
}

// Hook latencies seen across the suite, per event (only cairn's hooks run).
var (
	latMu     sync.Mutex
	latencies = map[string][]time.Duration{}
	handled   = map[string][]time.Duration{}
)

// traceTotal reads the time of the last CAIRN_HOOK_TRACE line
// ("cairn hook:   12.34 ms step") of a hook's stderr.
func traceTotal(stderr string) time.Duration {
	var last time.Duration
	for _, l := range strings.Split(stderr, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(l), "cairn hook:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 2 || f[1] != "ms" {
			continue
		}
		if ms, err := strconv.ParseFloat(f[0], 64); err == nil {
			last = time.Duration(ms * float64(time.Millisecond))
		}
	}
	return last
}

func recordLatencies(s *streamRun) {
	latMu.Lock()
	defer latMu.Unlock()
	for _, h := range s.hooks {
		// Claude Code emits SessionStart's hook_started together with its
		// hook_response: only the hook's own time is known for it.
		if h.latency > 0 && h.event != "SessionStart" {
			latencies[h.event] = append(latencies[h.event], h.latency)
		}
		if h.handled > 0 {
			handled[h.event] = append(handled[h.event], h.handled)
		}
	}
}

// latencyReport is a Markdown table of the hook latencies measured:
// median and maximum per event, as Claude Code saw them and inside the
// hook process.
func latencyReport() string {
	latMu.Lock()
	defer latMu.Unlock()
	stat := func(ds []time.Duration) string {
		if len(ds) == 0 {
			return "– | –"
		}
		ds = append([]time.Duration(nil), ds...)
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return fmt.Sprintf("%d ms | %d ms", ds[len(ds)/2].Milliseconds(), ds[len(ds)-1].Milliseconds())
	}
	var events []string
	for ev := range handled {
		events = append(events, ev)
	}
	for ev := range latencies {
		if _, ok := handled[ev]; !ok {
			events = append(events, ev)
		}
	}
	sort.Strings(events)
	var sb strings.Builder
	preToolHits.Lock()
	if preToolHits.runs > 0 {
		fmt.Fprintf(&sb, "PreToolUse: %d runs, %d gave Claude memories tied to the file or command\n", preToolHits.runs, preToolHits.hits)
	}
	preToolHits.Unlock()
	sb.WriteString("| hook | runs | in Claude Code: median | max | in the hook process: median | max |\n|---|---|---|---|---|---|\n")
	for _, ev := range events {
		fmt.Fprintf(&sb, "| %s | %d | %s | %s |\n", ev, max(len(latencies[ev]), len(handled[ev])), stat(latencies[ev]), stat(handled[ev]))
	}
	return sb.String()
}

// must fails the test on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var va, vb any
	if json.Unmarshal([]byte(a), &va) != nil || json.Unmarshal([]byte(b), &vb) != nil {
		return false
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return string(ja) == string(jb)
}

// store opens cairn's store read-only (as another process would).
func (w *world) store() *index.Store {
	w.t.Helper()
	st, err := index.OpenWith(w.data, index.OpenOptions{ReadOnly: true, BusyTimeout: 2 * time.Second})
	must(w.t, err)
	return st
}

// session returns what the store knows of a session (nil if nothing).
func (w *world) session(sid string) *transcripts.Session {
	w.t.Helper()
	if _, err := os.Stat(filepath.Join(w.data, index.DBName)); err != nil {
		return nil
	}
	st := w.store()
	defer st.Close()
	s, err := st.Session(context.Background(), sid)
	if err != nil {
		return nil
	}
	return s
}

// waitIndexed waits (a few seconds at most) until the hooks have indexed
// the session with at least one assistant turn, and returns it.
func (w *world) waitIndexed(sid string) *transcripts.Session {
	w.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if s := w.session(sid); s != nil && s.AssistantTurns > 0 {
			return s
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("session %s not indexed by the hooks", sid)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// assistantText is the main thread's assistant text the store holds.
func (w *world) assistantText(sid string) string {
	w.t.Helper()
	st := w.store()
	defer st.Close()
	texts, err := st.Mem().AssistantText(context.Background(), sid, time.Time{})
	must(w.t, err)
	return strings.Join(texts, "\n")
}

// addMemory stores a memory for the project (as the person would with
// cairn memories add) and returns its id.
func (w *world) addMemory(typ, status, content string) string {
	w.t.Helper()
	out := w.mustCairn("memories", "add", "--json", "--type", typ, "--status", status, content)
	var v struct {
		Memory struct {
			ID string `json:"id"`
		} `json:"memory"`
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		w.t.Fatalf("cairn memories add --json: %v\n%s", err, out)
	}
	if v.Memory.ID != "" {
		return v.Memory.ID
	}
	return v.ID
}

// config writes cairn's config.toml.
func (w *world) config(toml string) {
	w.t.Helper()
	writeFile(w.t, filepath.Join(w.data, "config.toml"), toml)
}

// commandHints asks Claude Code (the SDK's initialize control request)
// for its slash commands and their argument hints.
func (w *world) commandHints() map[string]string {
	w.t.Helper()
	r := w.run(w.proj, w.env(), `{"type":"control_request","request_id":"hints","request":{"subtype":"initialize"}}`+"\n", w.cli.Path,
		"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose")
	for _, line := range strings.Split(r.out, "\n") {
		var v struct {
			Type     string `json:"type"`
			Response struct {
				RequestID string `json:"request_id"`
				Response  struct {
					Commands []struct {
						Name         string `json:"name"`
						ArgumentHint string `json:"argumentHint"`
					} `json:"commands"`
				} `json:"response"`
			} `json:"response"`
		}
		if json.Unmarshal([]byte(line), &v) != nil || v.Type != "control_response" || v.Response.RequestID != "hints" {
			continue
		}
		out := map[string]string{}
		for _, c := range v.Response.Response.Commands {
			out[c.Name] = c.ArgumentHint
		}
		return out
	}
	w.t.Fatalf("no answer to the initialize control request:\n%s\n%s", r.out, r.err)
	return nil
}

// mainRequestsSince returns the main-loop requests after the first n.
func (w *world) mainRequestsSince(n int) []*fakeclaude.Request {
	all := w.api.MainRequests()
	if n > len(all) {
		return nil
	}
	return all[n:]
}
