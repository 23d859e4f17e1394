package hook_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/hook"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/memories"
)

// The real hook: a memory whose source turn edited billing/round.go is
// given before the next edit of that file, though its text does not name
// it (provenance), once per session; another session gets it again.
func TestPreToolUseProvenance(t *testing.T) {
	e := newEnv(t)
	const sid = "7d1c2b3a-0000-4000-8000-00000000abcd"
	tr := e.transcript("-path-to-Demo", sid)
	t0 := time.Now().Add(-time.Hour)
	appendLine(t, tr, jsonlLine(sid, "u1", "", "user", "fix the invoice rounding", t0))
	edit := map[string]any{"parentUuid": "u1", "isSidechain": false, "cwd": demoProject, "sessionId": sid, "type": "assistant", "uuid": "a1",
		"timestamp": t0.Add(time.Second).UTC().Format(time.RFC3339Nano), "requestId": "req_a1",
		"message": map[string]any{"id": "msg_a1", "type": "message", "role": "assistant", "model": "claude-test",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Edit",
				"input": map[string]any{"file_path": demoProject + "/billing/round.go", "old_string": "HalfUp", "new_string": "HalfEven"}}},
			"usage": map[string]any{"input_tokens": 1, "output_tokens": 1}}}
	b, _ := json.Marshal(edit)
	appendLine(t, tr, string(b)+"\n")
	e.sync(t)
	st, err := index.Open(e.data)
	if err != nil {
		t.Fatal(err)
	}
	r, err := memories.New(st, config.Default()).Curator.Add(context.Background(), memories.NewMemory{Project: demoProject, Type: memories.Decision,
		Content: "Invoice amounts round half-even, never half-up", Importance: 3, Status: memories.Approved, Origin: memories.OriginManual,
		SourceSession: sid, SourceUUIDs: []string{"a1"}})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	in := func(session, file string) string {
		return input(hook.PreToolUse, session, "", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": file}})
	}
	const other = "7d1c2b3a-0000-4000-8000-00000000ffff"
	if out := e.run(t, in(other, demoProject+"/billing/tax.go"), nil); out.stdout != "" {
		t.Errorf("another file got %q", out.stdout)
	}
	out := e.run(t, in(other, demoProject+"/billing/round.go"), nil)
	if ctx := parseOutput(t, hook.PreToolUse, out.stdout); !strings.Contains(ctx, r.Memory.ID) || !strings.Contains(ctx, "billing/round.go") {
		t.Fatalf("PreToolUse context: %q (log: %s)", ctx, e.logText())
	}
	if out := e.run(t, in(other, demoProject+"/billing/round.go"), nil); out.stdout != "" {
		t.Errorf("given twice in a session: %q", out.stdout)
	}
	if out := e.run(t, in("7d1c2b3a-0000-4000-8000-00000000eeee", demoProject+"/billing/round.go"), nil); !strings.Contains(out.stdout, r.Memory.ID) {
		t.Errorf("a new session did not get it: %q", out.stdout)
	}
}
