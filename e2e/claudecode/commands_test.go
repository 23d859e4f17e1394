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

// bashThenText answers a request holding want with a Bash call (command
// built from the request), and the request with its result with a text.
func bashThenText(want string, command func(r *fakeclaude.Request) string) fakeclaude.Responder {
	return func(_ int, r *fakeclaude.Request) fakeclaude.Reply {
		if _, ok := r.LastToolResult(); ok {
			return fakeclaude.Text("done: " + want)
		}
		if strings.Contains(r.AllText(), want) {
			return fakeclaude.ToolUse("Bash", map[string]any{"command": command(r), "description": "cairn"})
		}
		return fakeclaude.Text("ok")
	}
}

// toolResult returns the text of the last tool result the model got, and
// whether it was an error.
func (w *world) toolResult() (string, bool) {
	w.t.Helper()
	reqs := w.api.MainRequests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if b, ok := reqs[i].LastToolResult(); ok {
			return fakeclaude.ResultText(b), b.IsError
		}
	}
	w.t.Fatal("the model never got a tool result")
	return "", false
}

var sessionArg = regexp.MustCompile(`cairn drafts add --session ([0-9a-f-]{36})`)

// /summarize expands to instructions with the session id; the model's Bash
// call (allowed by the command's allowed-tools, no prompt) stores a draft.
func TestSummarizeStoresDraft(t *testing.T) {
	w := newWorld(t, nil)
	w.api = fakeclaude.NewServer(t, bashThenText("cairn drafts add --session", func(r *fakeclaude.Request) string {
		m := sessionArg.FindStringSubmatch(r.AllText())
		if m == nil {
			return "false"
		}
		return "cairn drafts add --session " + m[1] + " <<'CAIRN_SUMMARY'\n## Request\n- e2e: summarize the session\n## Completed\n- fixed `make test` on CI\nCAIRN_SUMMARY"
	}))
	w.mustCairn("install")
	first := w.ask("fix make test on CI")
	w.waitIndexed(first.sessionID)
	run := w.ask("/summarize stress the CI fix", "--resume", first.sessionID)
	out, isErr := w.toolResult()
	if isErr {
		t.Fatalf("the Bash call failed: %s", out)
	}
	if !strings.Contains(w.api.MainRequests()[len(w.api.MainRequests())-2].AllText(), "stress the CI fix") {
		t.Errorf("the user's instructions did not reach the model")
	}
	list := w.mustCairn("drafts", "list", "--json")
	if !strings.Contains(list, run.sessionID) || !strings.Contains(list, "fixed `make test` on CI") {
		t.Fatalf("no draft for the session:\n%s\n(tool result %s)", list, out)
	}
}

// /remember: the model's Bash call stores a pending memory.
func TestRememberStoresPendingMemory(t *testing.T) {
	w := newWorld(t, nil)
	w.api = fakeclaude.NewServer(t, bashThenText("cairn remember --type", func(*fakeclaude.Request) string {
		return "cairn remember --type gotcha --importance 4 <<'CAIRN_MEMORY'\nThe payments sandbox needs STRIPE_MOCK=1 before `mix test` runs.\nCAIRN_MEMORY"
	}))
	w.mustCairn("install")
	w.ask("/remember the payments sandbox needs STRIPE_MOCK=1")
	if out, isErr := w.toolResult(); isErr || !strings.Contains(out, "m-") {
		t.Fatalf("cairn remember: %s", out)
	}
	list := w.mustCairn("memories", "list", "--status", "pending", "--json")
	if !strings.Contains(list, "STRIPE_MOCK=1 before `mix test` runs") || !strings.Contains(list, `"gotcha"`) {
		t.Fatalf("no pending memory:\n%s", list)
	}
}

// /recall with backticks, $VAR and $(…) in the query: cairn gets the text
// verbatim and answers; nothing in it is executed.
func TestRecallHostileQuery(t *testing.T) {
	w := newWorld(t, fakeclaude.Script(fakeclaude.Text("found it")))
	w.mustCairn("install")
	w.addMemory("gotcha", "approved", "mix test hangs when the sandbox database is locked: run mix ecto.reset first")
	pwned1, pwned2 := filepath.Join(w.home, "pwned1"), filepath.Join(w.home, "pwned2")
	w.ask("/recall why does `mix test` hang $HOME $(touch " + pwned1 + ") `touch " + pwned2 + "`")
	for _, p := range []string{pwned1, pwned2} {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("the query was executed: %s exists", p)
		}
	}
	reqs := w.api.MainRequests()
	if len(reqs) == 0 {
		t.Fatal("the run ended without asking the model (the command's shell step failed)")
	}
	text := reqs[0].AllText()
	if !strings.Contains(text, "ecto.reset") {
		t.Errorf("/recall's output lacks the matching memory:\n%s", text)
	}
	if strings.Contains(text, w.home+" ") && !strings.Contains(text, "$HOME") {
		t.Errorf("$HOME was expanded")
	}
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
	// Every tool was offered once, with the declared ranges.
	req := w.api.MainRequests()[0]
	var schema struct {
		InputSchema struct {
			Properties map[string]map[string]any `json:"properties"`
		} `json:"input_schema"`
	}
	must(t, json.Unmarshal(req.Tool("mcp__cairn__memory_remember"), &schema))
	if p := schema.InputSchema.Properties["importance"]; p["minimum"] != float64(1) || p["maximum"] != float64(5) {
		t.Errorf("importance range not declared to the model: %v", p)
	}
}
