package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/memories"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// memory_correct and memory_forget go through the memory service's rules:
// a pending memory is corrected in place, an approved one gets a pending
// replacement; forgetting rejects a pending one and sends an approved one
// back to review.
func TestCorrectAndForgetTools(t *testing.T) {
	f := newMemFixture(t)
	var rem RememberOut
	f.call(t, "memory_remember", map[string]any{"content": "The sandbox test needs SANDBOX_TIMEOUT=30 or it hangs on CI", "type": "gotcha"}, &rem, false)
	var ch ChangeOut
	f.call(t, "memory_correct", map[string]any{"memory_id": rem.Memory.ID, "content": "The sandbox test needs SANDBOX_TIMEOUT=90 or it hangs on CI", "reason": "it is 90"}, &ch, false)
	if ch.Action != "corrected" || !strings.Contains(ch.Memory.Content, "=90") || ch.Replacement != nil {
		t.Fatalf("correct pending: %+v", ch)
	}
	// Approve it, as the user would, then correct again.
	if _, err := memories.New(f.st, config.Default()).Curator.SetStatus(context.Background(), ch.Memory.ID, memories.Approved); err != nil {
		t.Fatal(err)
	}
	f.call(t, "memory_correct", map[string]any{"memory_id": ch.Memory.ID[:6], "content": "The sandbox test needs SANDBOX_TIMEOUT=120 on ARM runners"}, &ch, false)
	if ch.Action != "replacement-proposed" || ch.Replacement == nil || ch.Replacement.Status != "pending" || ch.Memory.Status != "approved" ||
		!strings.Contains(ch.Message, "review") {
		t.Fatalf("correct approved: %+v", ch)
	}
	f.call(t, "memory_forget", map[string]any{"memory_id": ch.Replacement.ID, "reason": "duplicate"}, &ch, false)
	if ch.Action != "rejected" || ch.Memory.Status != "rejected" {
		t.Fatalf("forget pending: %+v", ch)
	}
	msg := f.call(t, "memory_forget", map[string]any{"memory_id": ch.Memory.ID, "reason": "again"}, &ch, true)
	if !strings.Contains(msg, "memory_remember") {
		t.Errorf("forgetting a rejected memory: %s", msg)
	}
	msg = f.call(t, "memory_correct", map[string]any{"memory_id": "m-zzzzzzzz", "content": "x"}, &ch, true)
	if !strings.Contains(msg, "memory_search") {
		t.Errorf("unknown id: %s", msg)
	}
}

// The input schemas declare the ranges the tools enforce, and a value out
// of range is refused (not stored as a default).
func TestInputRangesDeclaredAndEnforced(t *testing.T) {
	f := newMemFixture(t)
	tools, err := f.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	props := map[string]map[string]any{}
	for _, tl := range tools.Tools {
		b, _ := json.Marshal(tl.InputSchema)
		var s struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		for k, v := range s.Properties {
			props[tl.Name+"."+k] = v
		}
	}
	for prop, want := range map[string]map[string]float64{
		"memory_remember.importance": {"minimum": 1, "maximum": 5},
		"memory_recall.alternatives": {"maxItems": 4},
		"memory_timeline.days":       {"minimum": 1, "maximum": 365},
	} {
		for k, v := range want {
			if got, _ := props[prop][k].(float64); got != v {
				t.Errorf("%s: %s = %v, want %v", prop, k, props[prop][k], v)
			}
		}
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"memory_remember", map[string]any{"content": "The deploy needs a tag", "type": "fact", "importance": 0}},
		{"memory_remember", map[string]any{"content": "The deploy needs a tag", "type": "fact", "importance": 6}},
		{"memory_recall", map[string]any{"query": "x", "alternatives": []string{"a", "b", "c", "d", "e"}}},
		{"memory_timeline", map[string]any{"days": 0}},
	} {
		res, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err == nil && !res.IsError {
			t.Errorf("%s %v accepted", c.tool, c.args)
		}
	}
	var s MemListOut
	f.call(t, "memory_search", map[string]any{"query": "deploy tag"}, &s, false)
	if s.Total != 0 {
		t.Errorf("an out-of-range memory was stored: %+v", s)
	}
}
