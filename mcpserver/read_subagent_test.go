package mcpserver

import (
	"context"
	"strings"
	"testing"
)

// memory_recall's best entry can be a subagent's (search covers every
// thread); session_read around it reads that subagent's thread, says so
// (agent_id), and pages on with it. It failed before: "entry … is not in
// session".
func TestReadAroundSubagentEntry(t *testing.T) {
	f := newFixture(t, nil)
	c, err := f.st.Conversation(context.Background(), "ae4a77f8")
	if err != nil {
		t.Fatal(err)
	}
	// A subagent's entry with words of its own, from the real transcript.
	var agent, uuid, words string
	for a, entries := range c.Agents {
		for _, e := range entries {
			if fs := strings.Fields(entryText(&e)); e.Type == "assistant" && len(fs) > 12 && agent == "" {
				agent, uuid, words = a, e.UUID, strings.Join(fs[:12], " ")
			}
		}
	}
	if agent == "" {
		t.Fatal("the sample's session ae4a77f8 has no subagent entry with text")
	}
	var rec RecallOut
	f.call(t, "memory_recall", map[string]any{"query": `"` + strings.ReplaceAll(words, `"`, ``) + `"`}, &rec, false)
	hit := false
	for _, r := range rec.Results {
		hit = hit || r.EntryUUID == uuid
	}
	if !hit {
		t.Logf("memory_recall for the entry's own words did not return it (%+v): reading around it anyway", rec.Results)
	}
	var rd ReadOut
	f.call(t, "session_read", map[string]any{"session_id": "ae4a77f8", "around_uuid": uuid}, &rd, false)
	if rd.AgentID != agent {
		t.Fatalf("agent_id %q, want %q", rd.AgentID, agent)
	}
	found := false
	for _, e := range rd.Entries {
		found = found || e.UUID == uuid
	}
	if !found || rd.TotalEntries != len(readEntries(c.Agents[agent])) {
		t.Fatalf("excerpt of %d entries (total %d) does not hold %s", len(rd.Entries), rd.TotalEntries, uuid)
	}
	// The main thread is still what a read without agent_id gives.
	var main ReadOut
	f.call(t, "session_read", map[string]any{"session_id": "ae4a77f8"}, &main, false)
	if main.AgentID != "" || main.TotalEntries != len(readEntries(c.Entries)) {
		t.Errorf("main thread: agent %q, %d entries", main.AgentID, main.TotalEntries)
	}
	if rd.NextOffset > 0 {
		var next ReadOut
		f.call(t, "session_read", map[string]any{"session_id": "ae4a77f8", "agent_id": agent, "offset": rd.NextOffset}, &next, false)
		if next.AgentID != agent || len(next.Entries) == 0 || next.Entries[0].Index != rd.NextOffset {
			t.Errorf("paging the subagent's thread: %+v", next.AgentID)
		}
	}
	f.call(t, "session_read", map[string]any{"session_id": "ae4a77f8", "agent_id": "nope"}, &rd, true)
}
