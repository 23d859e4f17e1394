package mcpserver

import (
	"strings"
	"testing"
)

// memory_ask returns ranked evidence (no model is configured here), cites
// nothing it did not find, and answers nonsense and bad input plainly.
func TestAskTool(t *testing.T) {
	f := newMemFixture(t)
	var out AskOut
	var rem map[string]any
	f.call(t, "memory_remember", map[string]any{"content": "The TODO app keeps its state in a React context, not Redux", "type": "decision"}, &rem, false)
	f.call(t, "memory_ask", map[string]any{"question": "where does the TODO app keep its state?"}, &out, false)
	if out.Answer != "" || !strings.Contains(out.Note, "no language model") || len(out.Evidence) == 0 {
		t.Fatalf("%+v", out)
	}
	for _, e := range out.Evidence {
		if e.Ref == "" || e.Text == "" || (e.Kind != "memory" && e.Kind != "summary" && e.Kind != "excerpt") {
			t.Fatalf("bad evidence %+v", e)
		}
	}
	out = AskOut{}
	f.call(t, "memory_ask", map[string]any{"question": "zzzzqqqq-nothing-matches"}, &out, false)
	if len(out.Evidence) != 0 || !strings.Contains(out.Note, "nothing") {
		t.Fatalf("nonsense: %+v", out)
	}
	f.call(t, "memory_ask", map[string]any{"question": "  "}, nil, true)
	f.call(t, "memory_ask", map[string]any{"question": "state", "project": "no-such-project-anywhere"}, nil, true)
}
