package fakeclaude_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/fakeclaude"
)

// TestRealCLIThroughFakeAPI runs the pinned Claude Code in print mode
// against the fake API: a Bash tool call runs and its output comes back in
// the next request; the final text is printed.
func TestRealCLIThroughFakeAPI(t *testing.T) {
	t.Parallel()
	cli := fakeclaude.RequireCLI(t)
	api := fakeclaude.NewServer(t, fakeclaude.Script(
		fakeclaude.ToolUse("Bash", map[string]any{"command": "echo fake-$((40+2))", "description": "echo"}),
		fakeclaude.Text("all done: 42"),
	))
	home, dir := t.TempDir(), t.TempDir()
	cmd := cli.Command(t, api, home, dir, nil, "-p", "run the echo", "--allowedTools", "Bash(echo:*)")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude -p: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "all done: 42") {
		t.Fatalf("output %q lacks the scripted reply\n%s", out, api.Dump())
	}
	main := api.MainRequests()
	if len(main) != 2 {
		t.Fatalf("%d main requests, want 2\n%s", len(main), api.Dump())
	}
	if !strings.Contains(main[0].AllText(), "run the echo") {
		t.Errorf("first request lacks the prompt:\n%s", api.Dump())
	}
	res, ok := main[1].LastToolResult()
	if !ok || !strings.Contains(fakeclaude.ResultText(res), "fake-42") {
		t.Errorf("second request lacks the Bash output:\n%s", api.Dump())
	}
	if os.Getenv("FAKECLAUDE_DUMP") != "" {
		for _, r := range api.Requests() {
			t.Logf("%s main=%v model=%s tools=%v\n%s", r.Path, r.Main, r.Model, r.ToolNames(), r.Body)
		}
	}
}

// TestServerProtocol checks the fake's answers without the CLI: a streamed
// tool call, a plain JSON side reply, token counting, and the recording.
func TestServerProtocol(t *testing.T) {
	api := fakeclaude.NewServer(t, fakeclaude.Script(fakeclaude.TextAndTool("looking", "mcp__cairn__memory_search", map[string]any{"query": "x"})))
	post := func(path, body string) string {
		t.Helper()
		req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, api.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, b)
		}
		return string(b)
	}
	sse := post("/v1/messages", `{"model":"m","stream":true,"tools":[{"name":"mcp__cairn__memory_search"}],"messages":[{"role":"user","content":"hi"}]}`)
	for _, want := range []string{"event: message_start", `"text":"looking","type":"text_delta"`, `"type":"tool_use"`,
		`"name":"mcp__cairn__memory_search"`, `"type":"input_json_delta"`, `"stop_reason":"tool_use"`, "event: message_stop"} {
		if !strings.Contains(sse, want) {
			t.Errorf("stream lacks %s:\n%s", want, sse)
		}
	}
	// The two input_json_delta parts join to the tool input.
	var joined strings.Builder
	for _, line := range strings.Split(sse, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Delta struct {
				Type        string `json:"type"`
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("bad event data %q: %v", data, err)
		}
		if ev.Delta.Type == "input_json_delta" {
			joined.WriteString(ev.Delta.PartialJSON)
		}
	}
	if joined.String() != `{"query":"x"}` {
		t.Errorf("tool input streamed as %q", joined.String())
	}
	side := post("/v1/messages", `{"model":"haiku","messages":[{"role":"user","content":"title?"}]}`)
	if !strings.Contains(side, `"isNewTopic`) || !strings.Contains(side, `"stop_reason":"end_turn"`) {
		t.Errorf("side reply: %s", side)
	}
	if c := post("/v1/messages/count_tokens", `{"messages":[]}`); !strings.Contains(c, `"input_tokens"`) {
		t.Errorf("count_tokens: %s", c)
	}
	if n, m := len(api.Requests()), len(api.MainRequests()); n != 2 || m != 1 {
		t.Errorf("recorded %d requests, %d main; want 2, 1", n, m)
	}
	if got := api.MainRequests()[0].AllText(); got != "hi\n" {
		t.Errorf("recorded text %q", got)
	}
}

func TestEnvIsClean(t *testing.T) {
	t.Setenv("CLAUDECODE", "1")
	t.Setenv("ANTHROPIC_API_KEY", "real-key")
	env := fakeclaude.Env("/h", nil, "PATH=/x", "FOO=1")
	joined := strings.Join(env, "\n")
	for _, bad := range []string{"CLAUDECODE", "real-key"} {
		if strings.Contains(joined, bad) {
			t.Errorf("env leaks %s:\n%s", bad, joined)
		}
	}
	if !strings.Contains(joined, "HOME=/h") || !strings.Contains(joined, "FOO=1") || strings.Count(joined, "PATH=") != 1 || !strings.Contains(joined, "PATH=/x") {
		t.Errorf("env:\n%s", joined)
	}
}
