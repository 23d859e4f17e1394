package claudecode_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/fakeclaude"
)

// hostileText is user text a shell would choke on: lines that end the
// heredocs cairn's commands used (CAIRN_QUERY, CAIRN_MEMORY,
// CAIRN_SUMMARY, EOF), a brace followed by a quote (Claude Code's Bash
// check refuses it), command substitutions that would create pwned files,
// $VARs, quotes and backslashes.
func hostileText(pwned string) string {
	return "why does `mix test` hang with express.raw({type: \"application/json\"}) and {'k': 1}\n" +
		"CAIRN_QUERY\nCAIRN_MEMORY\nCAIRN_SUMMARY\nEOF\n" +
		"touch " + pwned + "0\n" +
		"$(touch " + pwned + "1) `touch " + pwned + "2` $HOME ${PATH} 'single' \"double\" \\ backslash; rm -rf " + pwned + "x # end"
}

// bigText is hostileText grown past 100 KB. (It ends without blanks:
// Claude Code trims the prompt's, before any command sees it.)
func bigText(pwned string) string {
	return hostileText(pwned) + "\n" + strings.TrimSpace(strings.Repeat("and the sandbox database stays locked between runs; ", 2000))
}

// noPwned fails the test if any of the files hostileText would create
// exists.
func noPwned(t *testing.T, pwned string) {
	t.Helper()
	for _, suffix := range []string{"0", "1", "2"} {
		if _, err := os.Stat(pwned + suffix); err == nil {
			t.Errorf("the user's text was executed: %s exists", pwned+suffix)
		}
	}
}

// between returns the text between open and close in s.
func between(s, open, close string) (string, bool) {
	_, rest, ok := strings.Cut(s, open)
	if !ok {
		return "", false
	}
	i := strings.LastIndex(rest, close)
	if i < 0 {
		return "", false
	}
	return rest[:i], true
}

// toolResults are the tool_result blocks after the request's last
// assistant message.
func toolResults(r *fakeclaude.Request) []fakeclaude.ContentBlock {
	var out []fakeclaude.ContentBlock
	for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role != "assistant"; i-- {
		for _, b := range r.Messages[i].Blocks() {
			if b.Type == "tool_result" {
				out = append(out, b)
			}
		}
	}
	return out
}

// commandModel answers like a model following one of cairn's commands:
// the first request that holds marker (the command's expansion) gets the
// tool calls calls builds from it; the request with their results gets a
// text, and is kept (results).
type commandModel struct {
	marker  string
	calls   func(r *fakeclaude.Request) []fakeclaude.Block
	called  bool
	results []fakeclaude.ContentBlock
	saw     string // the text of the request the calls were built from
}

func (m *commandModel) respond(_ int, r *fakeclaude.Request) fakeclaude.Reply {
	if rs := toolResults(r); len(rs) > 0 && m.called && m.results == nil {
		m.results = rs
		return fakeclaude.Text("done")
	}
	if !m.called && strings.Contains(r.AllText(), m.marker) {
		m.called, m.saw = true, r.AllText()
		return fakeclaude.Reply{Blocks: m.calls(r)}
	}
	return fakeclaude.Text("ok")
}

// check fails the test unless every call got a result that is not an
// error (a refused permission is an error result).
func (m *commandModel) check(t *testing.T, w *world) {
	t.Helper()
	var results []fakeclaude.ContentBlock
	var called bool
	w.api.Locked(func() { results, called = m.results, m.called })
	if !called {
		t.Fatalf("the command's expansion (%q) never reached the model", m.marker)
	}
	if len(results) == 0 {
		t.Fatal("the model's tool calls got no results")
	}
	for _, b := range results {
		if b.IsError {
			t.Errorf("a tool call was refused or failed: %s", fakeclaude.ResultText(b))
		}
	}
}

func toolCall(name string, input any) fakeclaude.Block {
	return fakeclaude.Block{Type: "tool_use", Name: name, Input: input}
}

var sessionArg = regexp.MustCompile("`session_id` set to `([0-9a-f-]{36})`")

// /summarize with hostile instructions (over 100 KB): they reach the
// model verbatim, nothing runs, and the summary the model writes (itself
// hostile) is stored as a pending draft byte for byte, through the MCP
// tool the command allows (no permission asked).
func TestSummarizeStoresDraft(t *testing.T) {
	w := newWorld(t, nil)
	pwned := filepath.Join(w.home, "pwned")
	summary := "## Request\n- e2e: summarize the session\n## Completed\n- fixed `make test` on CI\n" + hostileText(pwned)
	m := &commandModel{marker: "# cairn /summarize", calls: func(r *fakeclaude.Request) []fakeclaude.Block {
		sid := ""
		if s := sessionArg.FindStringSubmatch(r.AllText()); s != nil {
			sid = s[1]
		}
		return []fakeclaude.Block{toolCall("mcp__cairn__session_save_summary", map[string]any{"summary": summary, "session_id": sid})}
	}}
	w.api = fakeclaude.NewServer(t, m.respond)
	w.mustCairn("install")
	first := w.ask("fix make test on CI")
	w.waitIndexed(first.sessionID)
	stress := bigText(pwned)
	run := w.ask("/summarize "+stress, "--resume", first.sessionID)
	m.check(t, w)
	noPwned(t, pwned)
	var saw string
	w.api.Locked(func() { saw = m.saw })
	if got, ok := between(saw, "<instructions>\n", "\n</instructions>"); !ok || got != stress {
		t.Errorf("the user's instructions did not reach the model verbatim (%d bytes of %d)", len(got), len(stress))
	}
	var drafts []struct {
		SessionID string `json:"session_id"`
		Markdown  string `json:"markdown"`
	}
	must(t, json.Unmarshal([]byte(w.mustCairn("drafts", "list", "--json")), &drafts))
	if len(drafts) != 1 || drafts[0].SessionID != run.sessionID || drafts[0].Markdown != summary+"\n" {
		t.Fatalf("want one draft of session %s holding the summary verbatim, got %+v", run.sessionID, drafts)
	}
}

// /remember with hostile text (over 100 KB): it reaches the model
// verbatim, nothing runs, and the sentence the model writes (hostile too)
// is stored as a pending memory byte for byte.
func TestRememberStoresPendingMemory(t *testing.T) {
	w := newWorld(t, nil)
	pwned := filepath.Join(w.home, "pwned")
	sentence := "The payments sandbox needs STRIPE_MOCK=1 before `mix test`; parse webhooks with express.raw({type: \"application/json\"}), not $(touch " + pwned + "1) or `touch " + pwned + "2` or 'quotes' \\ ${HOME}"
	m := &commandModel{marker: "# cairn /remember", calls: func(*fakeclaude.Request) []fakeclaude.Block {
		return []fakeclaude.Block{toolCall("mcp__cairn__memory_remember", map[string]any{"content": sentence, "type": "gotcha", "importance": 4})}
	}}
	w.api = fakeclaude.NewServer(t, m.respond)
	w.mustCairn("install")
	text := bigText(pwned)
	w.ask("/remember " + text)
	m.check(t, w)
	noPwned(t, pwned)
	var saw string
	w.api.Locked(func() { saw = m.saw })
	if got, ok := between(saw, "<remember>\n", "\n</remember>"); !ok || got != text {
		t.Errorf("the user's text did not reach the model verbatim (%d bytes of %d)", len(got), len(text))
	}
	var list []struct {
		Content string `json:"content"`
		Type    string `json:"type"`
		Status  string `json:"status"`
	}
	must(t, json.Unmarshal([]byte(w.mustCairn("memories", "list", "--status", "pending", "--json")), &list))
	if len(list) != 1 || list[0].Content != sentence || list[0].Type != "gotcha" {
		t.Fatalf("want one pending gotcha holding the sentence verbatim, got %+v", list)
	}
}

// /recall with a hostile query (heredoc terminators, {", $(…), backticks,
// quotes): the query reaches the model verbatim, nothing runs, and
// memory_search and memory_recall, called with it, answer without a
// permission prompt; the matching memory is found. (/remember and
// /summarize take over 100 KB of such text.)
func TestRecallHostileQuery(t *testing.T) {
	w := newWorld(t, nil)
	pwned := filepath.Join(w.home, "pwned")
	var query string
	m := &commandModel{marker: "# cairn /recall", calls: func(r *fakeclaude.Request) []fakeclaude.Block {
		query, _ = between(r.AllText(), "<query>\n", "\n</query>")
		return []fakeclaude.Block{
			toolCall("mcp__cairn__memory_search", map[string]any{"query": query}),
			toolCall("mcp__cairn__memory_recall", map[string]any{"query": query, "alternatives": []string{"mix test hangs"}}),
			// What a model adds when the query is mostly noise.
			toolCall("mcp__cairn__memory_search", map[string]any{"query": "mix test hang"}),
		}
	}}
	w.api = fakeclaude.NewServer(t, m.respond)
	w.mustCairn("install")
	w.addMemory("gotcha", "approved", "mix test hangs when the sandbox database is locked: run mix ecto.reset first")
	text := hostileText(pwned)
	w.ask("/recall " + text)
	m.check(t, w)
	noPwned(t, pwned)
	w.api.Locked(func() {
		if query != text {
			t.Errorf("the query did not reach the model verbatim (%d bytes of %d)", len(query), len(text))
		}
		found := false
		for _, b := range m.results {
			var v map[string]any
			if err := json.Unmarshal([]byte(fakeclaude.ResultText(b)), &v); err != nil {
				t.Errorf("a result is not cairn's structured answer: %v\n%.300s", err, fakeclaude.ResultText(b))
			}
			found = found || strings.Contains(fakeclaude.ResultText(b), "ecto.reset")
		}
		if len(m.results) != 3 || !found {
			t.Errorf("%d results, the matching memory found: %v", len(m.results), found)
		}
	})
}

// /recall with no query: the model is told to call memory_brief, which
// gives this project's approved memories.
func TestRecallWithoutQueryBrief(t *testing.T) {
	w := newWorld(t, nil)
	m := &commandModel{marker: "# cairn /recall", calls: func(r *fakeclaude.Request) []fakeclaude.Block {
		return []fakeclaude.Block{toolCall("mcp__cairn__memory_brief", map[string]any{})}
	}}
	w.api = fakeclaude.NewServer(t, m.respond)
	w.mustCairn("install")
	w.addMemory("gotcha", "approved", stripeGotcha)
	w.ask("/recall")
	m.check(t, w)
	w.api.Locked(func() {
		if q, _ := between(m.saw, "<query>\n", "\n</query>"); strings.TrimSpace(q) != "" {
			t.Errorf("an empty query reached the model as %q", q)
		}
		if !strings.Contains(fakeclaude.ResultText(m.results[0]), "STRIPE_MOCK=1") {
			t.Errorf("memory_brief lacks the project's memory: %s", fakeclaude.ResultText(m.results[0]))
		}
	})
}

// The model calls each of cairn's MCP tools through Claude Code and gets a
// valid structured result.
func TestModelCallsEveryMCPTool(t *testing.T) {
	var memID, sessionID string
	step := 0
	calls := []func() (string, map[string]any){
		func() (string, map[string]any) {
			return "memory_remember", map[string]any{"content": "The billing service reads its config from BILLING_CONFIG_PATH", "type": "fact", "importance": 4}
		},
		func() (string, map[string]any) { return "memory_search", map[string]any{"query": "billing config"} },
		func() (string, map[string]any) { return "memory_related", map[string]any{"memory_id": memID} },
		func() (string, map[string]any) {
			return "memory_correct", map[string]any{"memory_id": memID, "content": "The billing service reads its config from BILLING_CONFIG (a path)", "reason": "the variable was renamed"}
		},
		func() (string, map[string]any) {
			return "memory_forget", map[string]any{"memory_id": memID, "reason": "the e2e test checks forgetting"}
		},
		func() (string, map[string]any) {
			return "memory_recall", map[string]any{"query": "billing config", "alternatives": []string{"BILLING_CONFIG"}}
		},
		func() (string, map[string]any) { return "memory_timeline", map[string]any{"days": 30} },
		func() (string, map[string]any) { return "memory_projects", map[string]any{} },
		func() (string, map[string]any) { return "session_read", map[string]any{"session_id": sessionID} },
		func() (string, map[string]any) {
			return "memory_ask", map[string]any{"question": "where does the billing service read its config?"}
		},
		func() (string, map[string]any) { return "memory_brief", map[string]any{} },
		func() (string, map[string]any) {
			return "session_save_summary", map[string]any{"summary": "## Request\n- e2e: call every cairn tool", "session_id": sessionID}
		},
	}
	var results []string
	w := newWorld(t, nil)
	w.api = fakeclaude.NewServer(t, func(_ int, r *fakeclaude.Request) fakeclaude.Reply {
		if m := regexp.MustCompile(`cairn: session id ([0-9a-f-]{36})`).FindStringSubmatch(r.AllText()); m != nil {
			sessionID = m[1]
		}
		if b, ok := r.LastToolResult(); ok {
			txt := fakeclaude.ResultText(b)
			if b.IsError {
				txt = "ERROR: " + txt
			}
			results = append(results, txt)
			if memID == "" {
				var v struct {
					Memory struct {
						ID string `json:"id"`
					} `json:"memory"`
				}
				_ = json.Unmarshal([]byte(txt), &v)
				memID = v.Memory.ID
			}
		}
		if step >= len(calls) {
			return fakeclaude.Text("all tools called")
		}
		name, args := calls[step]()
		step++
		return fakeclaude.ToolUse("mcp__cairn__"+name, args)
	})
	w.mustCairn("install")
	var allowed []string
	for _, n := range cairnTools {
		allowed = append(allowed, "mcp__cairn__"+n)
	}
	run := w.ask("use every cairn tool", "--allowedTools", strings.Join(allowed, ","))
	w.api.Locked(func() { results = append([]string(nil), results...) })
	if len(results) != len(calls) {
		for i, r := range w.api.Requests() {
			b, _ := r.LastToolResult()
			t.Logf("request %d main=%v tools=%d last result %.200s", i, r.Main, len(r.Tools), fakeclaude.ResultText(b))
		}
	}
	if run.final != "all tools called" || len(results) != len(calls) {
		t.Fatalf("%d of %d tool results; final %q", len(results), len(calls), run.final)
	}
	for i, res := range results {
		name, _ := calls[i]()
		var v map[string]any
		if err := json.Unmarshal([]byte(res), &v); err != nil {
			t.Errorf("%s: result is not the structured JSON: %v\n%s", name, err, res)
			continue
		}
		t.Logf("%s → %.120s", name, res)
	}
	for _, name := range cairnTools {
		called := false
		for _, c := range calls {
			n, _ := c()
			called = called || n == name
		}
		if !called {
			t.Errorf("the test does not call %s", name)
		}
	}
	// The memory was pending: corrected in place, then rejected.
	if !strings.Contains(results[3], `"action":"corrected"`) || !strings.Contains(results[4], `"action":"rejected"`) {
		t.Errorf("memory_correct / memory_forget of a pending memory:\n%s\n%s", results[3], results[4])
	}
	// The declared ranges reach the model (when Claude Code defers MCP
	// tools, TestToolSearchFindsCairnTools checks them once loaded).
	if def := toolDef(w.api.MainRequests(), "mcp__cairn__memory_remember"); def != nil {
		checkImportanceRange(t, def)
	} else {
		t.Logf("Claude Code %s defers the MCP tools: their schemas are checked through ToolSearch", w.cli.Version)
	}
}

// toolDef is the first definition of the named tool the requests offered.
func toolDef(reqs []*fakeclaude.Request, name string) json.RawMessage {
	for _, r := range reqs {
		if def := r.Tool(name); def != nil {
			return def
		}
	}
	return nil
}

// checkImportanceRange fails the test unless memory_remember's definition
// declares importance from 1 to 5.
func checkImportanceRange(t *testing.T, def json.RawMessage) {
	t.Helper()
	var schema struct {
		InputSchema struct {
			Properties map[string]map[string]any `json:"properties"`
		} `json:"input_schema"`
	}
	must(t, json.Unmarshal(def, &schema))
	if p := schema.InputSchema.Properties["importance"]; p["minimum"] != float64(1) || p["maximum"] != float64(5) {
		t.Errorf("importance range not declared to the model: %v", p)
	}
}

// Newer Claude Code defers MCP tools: the model sees their names only and
// finds them with ToolSearch, which matches words of the names and
// descriptions. A model that searches the words a user would use finds
// the right cairn tool among the results, and select: loads its schema
// (with its declared ranges). Skipped on a Claude Code that offers the
// tools directly.
func TestToolSearchFindsCairnTools(t *testing.T) {
	searches := []struct{ query, want string }{
		{"remember", "memory_remember"},
		{"past sessions", "memory_recall"},
		{"conversation history", "memory_recall"},
		{"memory", "memory_search"},
		{"save session summary", "session_save_summary"},
		{"project memory", "memory_brief"},
		{"select:mcp__cairn__memory_remember", "memory_remember"},
	}
	step := 0
	var found [][]string
	w := newWorld(t, func(_ int, r *fakeclaude.Request) fakeclaude.Reply {
		if b, ok := r.LastToolResult(); ok && step > 0 {
			var refs []struct {
				Type     string `json:"type"`
				ToolName string `json:"tool_name"`
			}
			_ = json.Unmarshal(b.Content, &refs)
			var names []string
			for _, ref := range refs {
				if ref.Type == "tool_reference" {
					names = append(names, ref.ToolName)
				}
			}
			found = append(found, names)
		}
		if step >= len(searches) {
			return fakeclaude.Text("searched")
		}
		step++
		return fakeclaude.ToolUse("ToolSearch", map[string]any{"query": searches[step-1].query, "max_results": 5})
	})
	w.mustCairn("install")
	w.ask("which tools are there?")
	first := w.api.MainRequests()[0]
	if first.Tool("ToolSearch") == nil || toolDef(w.api.MainRequests()[:1], "mcp__cairn__memory_search") != nil {
		t.Skipf("Claude Code %s offers MCP tools directly: nothing to search", w.cli.Version)
	}
	w.api.Locked(func() {
		if len(found) != len(searches) {
			t.Fatalf("%d ToolSearch results, want %d", len(found), len(searches))
		}
		for i, s := range searches {
			if !contains(found[i], "mcp__cairn__"+s.want) {
				t.Errorf("ToolSearch %q found %v, want mcp__cairn__%s among them", s.query, found[i], s.want)
			} else {
				t.Logf("ToolSearch %q → %v", s.query, found[i])
			}
		}
	})
	if def := toolDef(w.api.MainRequests(), "mcp__cairn__memory_remember"); def != nil {
		checkImportanceRange(t, def)
	} else {
		t.Error("memory_remember's schema never reached the model after ToolSearch select:")
	}
}

// With the plugin, /cairn:remember's call of the plugin's tool
// (mcp__plugin_cairn_cairn__memory_remember) is allowed by the command as
// well: no permission asked, the memory stored byte for byte.
func TestPluginRememberCallsPluginTool(t *testing.T) {
	w := newWorld(t, nil)
	pwned := filepath.Join(w.home, "pwned")
	sentence := "Parse webhooks with express.raw({type: \"application/json\"}), never $(touch " + pwned + "1)"
	m := &commandModel{marker: "# cairn /remember", calls: func(*fakeclaude.Request) []fakeclaude.Block {
		return []fakeclaude.Block{toolCall("mcp__plugin_cairn_cairn__memory_remember", map[string]any{"content": sentence, "type": "gotcha"})}
	}}
	w.api = fakeclaude.NewServer(t, m.respond)
	w.installPlugin()
	w.ask("/cairn:remember " + hostileText(pwned))
	m.check(t, w)
	noPwned(t, pwned)
	var list []struct {
		Content string `json:"content"`
	}
	must(t, json.Unmarshal([]byte(w.mustCairn("memories", "list", "--status", "pending", "--json")), &list))
	if len(list) != 1 || list[0].Content != sentence {
		t.Fatalf("want one pending memory holding the sentence verbatim, got %+v", list)
	}
}

// `claude mcp list` (and `claude plugin list`) end a session that never
// wrote a transcript: cairn's SessionEnd hook does nothing, logs nothing,
// and doctor finds no hook problem.
func TestMCPListLeavesDoctorQuiet(t *testing.T) {
	w := newWorld(t, fakeclaude.Script(fakeclaude.Text("hi")))
	w.mustCairn("install")
	w.mcpConnected("cairn")
	if r := w.claudeCmd("plugin", "list"); r.code != 0 {
		t.Fatalf("claude plugin list: exit %d\n%s%s", r.code, r.out, r.err)
	}
	var rep struct {
		Checks []struct {
			Name, Status, Detail string
		} `json:"checks"`
		HookLog []string `json:"hook_log_errors"`
	}
	r := w.cairn("doctor", "--json")
	must(t, json.Unmarshal([]byte(r.out), &rep))
	for _, c := range rep.Checks {
		if c.Name == "hook log" && c.Status != "ok" {
			t.Errorf("doctor: %s %s: %s %v", c.Name, c.Status, c.Detail, rep.HookLog)
		}
	}
}
