package memories

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/internal/fakeclaude"
	"github.com/cairn-dev/cairn/internal/testutil/teststore"
)

// The Claude extractor end to end: the real Claude Code CLI (the pinned
// version, internal/fakeclaude) against a fake Messages API.

// claudeFixture is a service configured for the Claude extractor, a
// session in its store, and the scratch home the CLI runs with.
type claudeFixture struct {
	s       *Service
	tr      *transcript
	home    string
	pref    string // the uuid of the user's preference
	failure string // the uuid of the failing tool call
}

func newClaudeFixture(t *testing.T, cfgFn func(*config.Config)) *claudeFixture {
	t.Helper()
	cfg := config.Default()
	cfg.Memories.Extractor = "claude"
	cfg.Claude.Command = fakeclaude.RequireCLI(t).Path
	cfg.Claude.Timeout = config.Duration{Duration: time.Minute}
	if cfgFn != nil {
		cfgFn(&cfg)
	}
	f := &claudeFixture{s: New(teststore.Open(t), cfg), home: t.TempDir()}
	f.tr = newTranscript("51111111-2222-4333-8444-555555555555", "/work/proj")
	f.pref = f.tr.user("Always deploy with `fly deploy --remote-only`, never build the image on a laptop.")
	f.tr.assistant("Deploying now.")
	f.failure = f.tr.bash("fly deploy", "Error: failed to fetch an image or build from source: docker is not running", true)
	f.tr.bash("fly deploy --remote-only", "==> Monitoring deployment\nv12 deployed successfully", false)
	f.tr.assistant("Deployed v12 with the remote builder.")
	f.tr.write(t, f.s, t.TempDir())
	return f
}

// use points the service's Claude runs at api (nil: no API key at all).
func (f *claudeFixture) use(api *fakeclaude.Server) {
	m := &claudeModel{s: f.s.core, env: fakeclaude.Env(f.home, api, "ANTHROPIC_AUTH_TOKEN=", "CLAUDE_CONFIG_DIR="+filepath.Join(f.home, ".claude"))}
	if api == nil {
		m.env = append(m.env, "ANTHROPIC_API_KEY=", "ANTHROPIC_BASE_URL=http://127.0.0.1:9")
	}
	f.s.model = m
}

func (f *claudeFixture) extract(t *testing.T) ExtractResult {
	t.Helper()
	res, err := f.s.Curator.ExtractSession(context.Background(), f.tr.sid, ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

var refOf = regexp.MustCompile(`#(\d+) user: Always deploy with`)

// answer is a well-formed structured answer to r: a good memory sourced
// from the user's line, one that does not stand alone, one without
// sources, and a summary.
func answer(r *fakeclaude.Request) fakeclaude.Reply {
	ref := "#1"
	if m := refOf.FindStringSubmatch(r.AllText()); m != nil {
		ref = "#" + m[1]
	}
	return fakeclaude.ToolUse("StructuredOutput", map[string]any{
		"memories": []any{
			map[string]any{"type": "decision", "content": "Deploy with `fly deploy --remote-only`: building the image locally needs Docker, which laptops may not run.",
				"importance": 4, "tags": []string{"deploy"}, "sources": []string{ref}},
			map[string]any{"type": "fact", "content": "This fixed it.", "sources": []string{ref}},
			map[string]any{"type": "fact", "content": "The deploy target is fly.io with the remote builder.", "sources": []string{}},
		},
		"summary": map[string]any{"request": []string{"Deploy the app"}, "investigated": []string{},
			"learned": []string{"`fly deploy` needs Docker; `--remote-only` builds remotely"}, "completed": []string{"Deployed v12"}, "next_steps": []string{}},
	})
}

// TestClaudeExtractorEndToEnd: what the run sends (the condensed turns,
// cairn's instructions, the schema as Claude Code's structured-output
// tool, a small model, no other tools), what it accepts (sourced memories
// that stand alone, pending, origin claude, and the summary), and that the
// run leaves no session of its own behind.
func TestClaudeExtractorEndToEnd(t *testing.T) {
	f := newClaudeFixture(t, nil)
	api := fakeclaude.NewServer(t, func(_ int, r *fakeclaude.Request) fakeclaude.Reply { return answer(r) })
	api.AllRequests = true
	f.use(api)
	// The user's Claude Code has hooks (cairn's, others'): none may run in
	// the extraction's own session.
	marker := filepath.Join(f.home, "hook-ran")
	hook := `{"hooks":[{"type":"command","command":"touch ` + marker + `"}]}`
	settings := `{"hooks":{"SessionStart":[` + hook + `],"UserPromptSubmit":[` + hook + `],"Stop":[` + hook + `],"SessionEnd":[` + hook + `]}}`
	if err := os.MkdirAll(filepath.Join(f.home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.home, ".claude", "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	res := f.extract(t)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a hook ran in the extraction's Claude Code session")
	}
	if res.Extractor != "claude" || res.Notice != "" {
		t.Fatalf("extractor %q, notice %q", res.Extractor, res.Notice)
	}
	reqs := api.MainRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests:\n%s", len(reqs), api.Dump())
	}
	r := reqs[0]
	if !strings.Contains(r.Model, "haiku") {
		t.Errorf("model %q, want the small default (haiku)", r.Model)
	}
	if tools := r.ToolNames(); !slices.Equal(tools, []string{"StructuredOutput"}) {
		t.Errorf("tools offered %v, want only the structured output", tools)
	}
	if tool := string(r.Tool("StructuredOutput")); !strings.Contains(tool, `"summary"`) || !strings.Contains(tool, `"sources"`) {
		t.Errorf("the schema is not the structured-output tool's: %s", tool)
	}
	if sys := r.SystemText(); !strings.Contains(sys, "stand alone") || strings.Contains(sys, "interactive agent") {
		t.Errorf("system prompt is not cairn's alone:\n%.600s", sys)
	}
	text := r.AllText()
	for _, want := range []string{"user: Always deploy with `fly deploy --remote-only`", "tool call: ", "tool error: Error: failed to fetch an image",
		"assistant: Deployed v12", "Existing memories:"} {
		if !strings.Contains(text, want) {
			t.Errorf("the request misses %q:\n%s", want, text)
		}
	}
	mems, err := f.s.List(context.Background(), Filter{Statuses: []Status{Pending}})
	if err != nil {
		t.Fatal(err)
	}
	if len(mems) != 1 {
		t.Fatalf("want the one memory that stands alone and is sourced, got %+v", mems)
	}
	m := mems[0]
	if m.Origin != OriginClaude || m.Type != Decision || !slices.Contains(m.SourceUUIDs, f.pref) || m.SourceSession != f.tr.sid || m.Project != "/work/proj" {
		t.Fatalf("memory %+v", m)
	}
	sum, err := f.s.Drafts.Summary(context.Background(), f.tr.sid)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Source != OriginClaude || !slices.Contains(sum.Sections["Completed"], "Deployed v12") || !strings.Contains(sum.Markdown, "remote") {
		t.Fatalf("summary %+v", sum)
	}
	// No session of the run on disk, in the scratch home's Claude dir.
	_ = filepath.WalkDir(f.home, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			t.Errorf("the run left a transcript: %s", p)
		}
		return nil
	})
	// The cursor moved: nothing is sent twice.
	if res := f.extract(t); res.Entries != 0 || len(api.MainRequests()) != 1 {
		t.Fatalf("second extraction read %d entries, %d requests", res.Entries, len(api.MainRequests()))
	}
}

// TestClaudeExtractorFallsBack: whatever goes wrong, the built-in
// extractor proposes instead and the notice says why and what to do.
func TestClaudeExtractorFallsBack(t *testing.T) {
	cases := []struct {
		name    string
		cfg     func(*config.Config)
		reply   func(r *fakeclaude.Request) fakeclaude.Reply // nil: no API at all
		notice  string
		maxTime time.Duration
		hold    bool // the reply is held until the subtest ends
	}{
		{"text instead of JSON", nil, func(*fakeclaude.Request) fakeclaude.Reply { return fakeclaude.Text("Here are the memories: none.") },
			"did not answer in the requested JSON", 0, false},
		{"JSON that breaks the schema", nil, func(*fakeclaude.Request) fakeclaude.Reply {
			return fakeclaude.ToolUse("StructuredOutput", map[string]any{"memories": "none", "summary": 3})
		}, "answered with an error (error_max_structured_output_retries)", 0, false},
		// The answer is held until the subtest ends, long after
		// claude.timeout (a fixed 8 s sleep had made the fake API's close
		// wait for it whenever Claude Code asked in time).
		{"timeout", func(c *config.Config) { c.Claude.Timeout = config.Duration{Duration: 3 * time.Second} },
			answer, "did not answer within 3s (claude.timeout)", 7 * time.Second, true},
		{"missing binary", func(c *config.Config) { c.Claude.Command = filepath.Join(os.TempDir(), "no-such-dir", "claude") },
			func(r *fakeclaude.Request) fakeclaude.Reply { return answer(r) }, "was not found: install it", 0, false},
		{"not logged in", nil, nil, "Claude Code is not logged in", 0, false},
		{"no budget", func(c *config.Config) { c.Claude.DailyRuns = 0 }, func(r *fakeclaude.Request) fakeclaude.Reply { return answer(r) },
			"claude.daily_runs is 0", 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newClaudeFixture(t, c.cfg)
			var api *fakeclaude.Server
			if c.reply != nil {
				reply := c.reply
				release := make(chan struct{})
				api = fakeclaude.NewServer(t, func(_ int, r *fakeclaude.Request) fakeclaude.Reply {
					if c.hold {
						<-release
					}
					return reply(r)
				})
				// Before the server's close (cleanups run last registered
				// first), so the close does not wait for a held reply.
				t.Cleanup(func() { close(release) })
				api.AllRequests = true
			}
			f.use(api)
			start := time.Now()
			res := f.extract(t)
			if c.maxTime > 0 && time.Since(start) > c.maxTime {
				t.Errorf("took %s", time.Since(start))
			}
			if res.Extractor != "builtin" || !strings.Contains(res.Notice, c.notice) || !strings.Contains(res.Notice, "used the built-in extractor") {
				t.Fatalf("extractor %q, notice %q; want builtin and %q", res.Extractor, res.Notice, c.notice)
			}
			// The built-in rules still read the session: the user's rule
			// and the command that worked.
			if res.Added() == 0 || res.Entries == 0 {
				t.Fatalf("nothing proposed by the fallback: %+v", res)
			}
		})
	}
}

// TestClaudeExtractorBadOutput: a binary that prints a truncated or
// foreign answer, or fails, is reported as such.
func TestClaudeExtractorBadOutput(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts stand in for claude")
	}
	for _, c := range []struct{ name, script, notice string }{
		{"truncated", `printf '{"type":"result","subtype":"success","is_error":false,"structured_output":{"memories":[{"type":"fact","con'`, "not its JSON result"},
		{"crash", "echo 'panic: out of memory' >&2; exit 3", "Claude Code failed (exit status 3): panic: out of memory"},
		{"bad structured output", `printf '{"type":"result","subtype":"success","is_error":false,"structured_output":{"memories":"x"}}'`, "does not follow the requested JSON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "claude")
			if err := os.WriteFile(bin, []byte("#!/bin/sh\ncat >/dev/null\n"+c.script+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			f := newClaudeFixture(t, func(cfg *config.Config) { cfg.Claude.Command = bin })
			res := f.extract(t)
			if res.Extractor != "builtin" || !strings.Contains(res.Notice, c.notice) {
				t.Fatalf("extractor %q, notice %q; want %q", res.Extractor, res.Notice, c.notice)
			}
		})
	}
}

// TestClaudeExtractorBudgetAndInputCap: one run a day at most as
// configured, and the turns that do not fit claude.max_input go to the
// built-in rules, not to Claude.
func TestClaudeExtractorBudgetAndInputCap(t *testing.T) {
	f := newClaudeFixture(t, func(c *config.Config) { c.Claude.DailyRuns = 1; c.Claude.MaxInput = 200 })
	api := fakeclaude.NewServer(t, func(_ int, r *fakeclaude.Request) fakeclaude.Reply { return answer(r) })
	api.AllRequests = true
	f.use(api)
	res := f.extract(t)
	if res.Extractor != "claude" {
		t.Fatalf("first run: %q %q", res.Extractor, res.Notice)
	}
	text := api.MainRequests()[0].AllText()
	if !strings.Contains(text, "earlier entries omitted]") || strings.Contains(text, "Always deploy with") || !strings.Contains(text, "Deployed v12") {
		t.Fatalf("the request holds more than the newest 200 characters:\n%s", text)
	}
	// The user's rule was too old for the request: the built-in rules
	// proposed it.
	var fromRules bool
	for _, p := range res.Proposed {
		fromRules = fromRules || (p.Memory.Origin == OriginExtractor && slices.Contains(p.Memory.SourceUUIDs, f.pref))
	}
	if !fromRules {
		t.Fatalf("the omitted turns were not extracted by the rules: %+v", res.Proposed)
	}
	f.tr.user("Never push to main directly; open a pull request.")
	f.tr.write(t, f.s, t.TempDir())
	res = f.extract(t)
	if res.Extractor != "builtin" || !strings.Contains(res.Notice, "daily budget of 1 Claude runs") || len(api.MainRequests()) != 1 {
		t.Fatalf("second run: %q %q, %d requests", res.Extractor, res.Notice, len(api.MainRequests()))
	}
}

// TestAskWithClaude: with memories.extractor = "claude", `cairn ask` has
// the user's Claude Code write the answer (the same isolated headless run,
// the ask schema), and falls back to the evidence when it cannot.
func TestAskWithClaude(t *testing.T) {
	cfg := config.Default()
	cfg.Memories.Extractor = "claude"
	cfg.Claude.Command = fakeclaude.RequireCLI(t).Path
	s, memID := askService(t, cfg)
	home := t.TempDir()
	api := fakeclaude.NewServer(t, func(_ int, r *fakeclaude.Request) fakeclaude.Reply {
		return fakeclaude.ToolUse("StructuredOutput", map[string]any{"answer": "Raise proxy_read_timeout and ping [" + memID + "].", "cited": []string{memID}})
	})
	api.AllRequests = true
	s.model = &claudeModel{s: s.core, env: fakeclaude.Env(home, api, "ANTHROPIC_AUTH_TOKEN=", "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"))}
	ans, err := s.Recall.Ask(context.Background(), "how did I fix the websocket reconnect loop?", AskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Model != "claude:haiku" || !strings.Contains(ans.Answer, "proxy_read_timeout") || len(ans.Cited) != 1 {
		t.Fatalf("answer %+v", ans)
	}
	r := api.MainRequests()[0]
	if !strings.Contains(r.AllText(), "websocket reconnect loop") || !strings.Contains(string(r.Tool("StructuredOutput")), `"cited"`) {
		t.Fatalf("request:\n%s", api.Dump())
	}
	s.cfg.Claude.Command = filepath.Join(home, "no-claude")
	ans, err = s.Recall.Ask(context.Background(), "how did I fix the websocket reconnect loop?", AskOptions{})
	if err != nil || ans.Answer != "" || !strings.Contains(ans.Note, "was not found") || len(ans.Evidence) == 0 {
		t.Fatalf("missing claude: %v %+v", err, ans)
	}
}
