package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cairn's own commands are never recalled: a session whose only prompt was
// `/recall zanzibarquux` (its wrapper, and the expansion cairn printed) is
// not found by a search for zanzibarquux, its prompt is no user prompt and
// not its first prompt; a session that worked on zanzibarquux is found.
func TestCairnCommandsNotRecalled(t *testing.T) {
	s, _, claude, _ := updatedSample(t, UpdateOptions{NoEmbed: true})
	ctx := context.Background()
	dir := filepath.Join(claude, "projects", "-path-to-Demo")
	const recallSID, workSID = "aaaaaaaa-1111-4000-8000-000000000001", "aaaaaaaa-2222-4000-8000-000000000002"
	line := func(sid, uuid, parent, typ string, meta bool, content string) string {
		return fmt.Sprintf(`{"type":%q,"uuid":%q,"parentUuid":%q,"isMeta":%v,"sessionId":%q,"timestamp":"2026-03-04T10:00:00.000Z","cwd":"/path/to/Demo","message":{"role":%q,"content":%q}}`+"\n",
			typ, uuid, parent, meta, sid, typ, content)
	}
	recall := line(recallSID, "c1", "", "user", false, "<command-message>recall</command-message>\n<command-name>/recall</command-name>\n<command-args>zanzibarquux</command-args>") +
		line(recallSID, "c2", "c1", "user", true, "# cairn /recall\n\nThe user's query is between the tags below.\n\n<query>\nzanzibarquux\n</query>\n") +
		line(recallSID, "c3", "c2", "user", true, "# cairn: recall \"zanzibarquux\" in /path/to/Demo\n\n## Matching approved memories\n- zanzibarquux parser needs a reset")
	// A /recall that called cairn's MCP tools: their results are cairn's
	// data (here, another session's words).
	recall += `{"type":"assistant","uuid":"c4","parentUuid":"c3","sessionId":"` + recallSID + `","timestamp":"2026-03-04T10:00:01.000Z","cwd":"/path/to/Demo","message":{"id":"msg_c4","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_c4","name":"mcp__plugin_cairn_cairn__memory_recall","input":{"query":"zanzibarquux"}}]}}` + "\n" +
		`{"type":"user","uuid":"c5","parentUuid":"c4","sessionId":"` + recallSID + `","timestamp":"2026-03-04T10:00:02.000Z","cwd":"/path/to/Demo","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_c4","content":"{\"results\":[{\"excerpt\":\"fix the zanzibarquux parser\"}]}"}]}}` + "\n"
	// Claude's reply to the /recall restates what cairn returned.
	recall += `{"type":"assistant","uuid":"c6","parentUuid":"c5","sessionId":"` + recallSID + `","timestamp":"2026-03-04T10:00:03.000Z","cwd":"/path/to/Demo","message":{"id":"msg_c6","role":"assistant","model":"claude-x","content":[{"type":"text","text":"cairn remembers that the zanzibarquux parser needed a fix."}]}}` + "\n"
	work := line(workSID, "w1", "", "user", false, "fix the zanzibarquux parser")
	if err := os.WriteFile(filepath.Join(dir, recallSID+".jsonl"), []byte(recall), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, workSID+".jsonl"), []byte(work), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, claude, UpdateOptions{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	sr, err := s.OpenSearcher(ctx, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	resp, err := sr.Search(ctx, SearchQuery{Text: "zanzibarquux", Mode: ModeText, Kinds: []string{"messages"}, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) != 1 || resp.Results[0].SessionID != workSID {
		t.Errorf("search found %+v, want only the working session", resp.Results)
	}
	found, _, err := sr.RecallSessions(ctx, []string{"zanzibarquux"}, nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range found {
		if r.SessionID == recallSID {
			t.Errorf("recall lists the /recall session: %+v", r)
		}
	}
	if n := count(t, s, `SELECT count(*) FROM entries e JOIN sessions s ON s.id = e.session WHERE s.sid = ? AND e.role = 'user'`, recallSID); n != 0 {
		t.Errorf("%d user prompts stored for the /recall session, want 0", n)
	}
	ss, err := s.Session(ctx, recallSID)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT count(*) FROM entries e JOIN sessions s ON s.id = e.session WHERE s.sid = ? AND e.role = 'assistant' AND e.flags & ? != 0`, recallSID, flagCairn); n != 2 {
		t.Errorf("%d lines of Claude's answer to /recall marked, want 2 (the call and the reply)", n)
	}
	if ss.FirstPrompt != "" || ss.Prompts != 1 {
		t.Errorf("the /recall session: first prompt %q, %d prompts (want none as first prompt, 1 counted)", ss.FirstPrompt, ss.Prompts)
	}
	// Extraction and summaries never read Claude's restatement of cairn's
	// data: it would propose the memories it quotes again.
	es, err := s.Mem().Entries(ctx, recallSID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if (e.Role == "assistant" || e.Role == "user" && !e.Meta) && strings.Contains(e.Text, "zanzibarquux") {
			t.Errorf("extraction reads cairn's data again: %s %s %q", e.UUID, e.Role, e.Text)
		}
	}
}
