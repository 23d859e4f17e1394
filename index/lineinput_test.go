package index

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/transcripts"
)

// The store keeps a long command or agent prompt once (in the searchable
// text) and a call reads back whole (issue 29: 56 long tool inputs were
// cut in an export); a file body (Write's content) stays a preview. Each
// line reads back with its own cwd, branch and model, also after a line
// that was a duplicate of one stored from another file.
func TestConversationKeepsInputsAndLineContext(t *testing.T) {
	claude := t.TempDir()
	dir := filepath.Join(claude, "projects", "-repo")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sid := "11111111-2222-3333-4444-555555555555"
	long := "for f in " + strings.Repeat("src/module_file.go ", 80) + "; do go vet $f; done"
	prompt := "Review the code: " + strings.Repeat("check every handler for missing error wrapping. ", 30)
	body := strings.Repeat("package main\n", 200)
	line := func(uuid, parent, cwd, branch, typ, model string, content any) string {
		msg := map[string]any{"role": typ, "content": content}
		if model != "" {
			msg["model"] = model
			msg["id"] = "msg_" + uuid
		}
		b, _ := json.Marshal(map[string]any{"uuid": uuid, "parentUuid": parent, "sessionId": sid, "cwd": cwd, "gitBranch": branch,
			"version": "2.1.0", "type": typ, "timestamp": "2026-03-01T10:00:0" + uuid[len(uuid)-1:] + ".000Z", "message": msg})
		return string(b) + "\n"
	}
	tool := func(id, name string, in map[string]any) []any {
		return []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": in}}
	}
	lines := line("u1", "", "/repo", "main", "user", "", "run vet on everything") +
		line("a2", "u1", "/repo", "main", "assistant", "claude-opus-4-6", tool("t1", "Bash", map[string]any{"command": long, "description": "vet all"})) +
		line("a3", "a2", "/repo/wt", "feature", "assistant", "claude-haiku-4-5", tool("t2", "Task", map[string]any{"prompt": prompt, "subagent_type": "general-purpose", "description": "review"})) +
		line("a4", "a3", "/repo/wt", "feature", "assistant", "claude-haiku-4-5", tool("t3", "Write", map[string]any{"file_path": "/repo/wt/main.go", "content": body})) +
		line("a5", "a4", "/repo", "main", "assistant", "claude-opus-4-6", "done")
	if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	s, _ := openStore(t)
	mustSync(t, s, claude, SyncOptions{})
	c, err := s.Conversation(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Entries) != 5 || !c.LineContext {
		t.Fatalf("%d entries, line context %v", len(c.Entries), c.LineContext)
	}
	in := func(i int) transcripts.ToolInput {
		return transcripts.DecodeToolInput(c.Entries[i].Blocks[0].ToolInput)
	}
	if got := in(1).Command; got != long {
		t.Errorf("the long command reads back cut: %d of %d bytes", len(got), len(long))
	}
	if got := in(2).Prompt; got != prompt {
		t.Errorf("the long agent prompt reads back cut: %d of %d bytes", len(got), len(prompt))
	}
	var w map[string]string
	if err := json.Unmarshal(c.Entries[3].Blocks[0].ToolInput, &w); err != nil || len(w["content"]) >= len(body) || w["file_path"] != "/repo/wt/main.go" {
		t.Errorf("Write's input: %d bytes of content (a preview of %d expected), %v", len(w["content"]), len(body), err)
	}
	for i, want := range []struct{ cwd, branch, model string }{
		{"/repo", "main", ""}, {"/repo", "main", "claude-opus-4-6"}, {"/repo/wt", "feature", "claude-haiku-4-5"}, {"/repo/wt", "feature", "claude-haiku-4-5"},
		{"/repo", "main", "claude-opus-4-6"},
	} {
		e := c.Entries[i]
		if e.CWD != want.cwd || e.GitBranch != want.branch || e.Model != want.model || e.Version != "2.1.0" {
			t.Errorf("entry %d: cwd %q branch %q model %q version %q, want %+v", i, e.CWD, e.GitBranch, e.Model, e.Version, want)
		}
	}

	// Another file repeats the first lines (not stored again: they are
	// stored from the first file) and goes on where its last repeated
	// line was: its first stored line keeps its own context and model,
	// which only the repeated lines noted.
	dup := strings.Join(strings.SplitAfter(lines, "\n")[:3], "") +
		line("b4", "a3", "/repo/wt", "feature", "assistant", "claude-haiku-4-5", "also done")
	if err := os.WriteFile(filepath.Join(dir, "22222222-2222-3333-4444-555555555555.jsonl"), []byte(dup), 0o600); err != nil {
		t.Fatal(err)
	}
	mustSync(t, s, claude, SyncOptions{})
	if c, err = s.Conversation(context.Background(), sid); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range c.Entries {
		if e.UUID == "b4" {
			found = true
			if e.CWD != "/repo/wt" || e.GitBranch != "feature" || e.Model != "claude-haiku-4-5" {
				t.Fatalf("the line after repeated ones: cwd %q branch %q model %q", e.CWD, e.GitBranch, e.Model)
			}
		}
	}
	if !found {
		t.Fatal("b4 not stored")
	}
}

// One rule for a session's model: the list of its models every surface
// prints (timeline, reader, show) starts with the model `sessions` names
// (issue 26: ae4a77f8 ran 133 haiku and 84 opus responses; sessions said
// haiku, the timeline opus).
func TestSessionModelsMainFirst(t *testing.T) {
	s, _ := openStore(t)
	mustSync(t, s, copyTree(t, sampleDir), SyncOptions{})
	checked := 0
	for _, ss := range storeSessions(t, s) {
		if len(ss.Models) == 0 {
			continue
		}
		if ss.Models[0] != ss.MainModel {
			t.Errorf("%s: models %v, main model %s", ss.ID[:8], ss.Models, ss.MainModel)
		}
		if strings.HasPrefix(ss.ID, "ae4a77f8") {
			checked++
			if !strings.Contains(ss.MainModel, "haiku") || len(ss.Models) < 2 {
				t.Errorf("ae4a77f8: main model %s of %v", ss.MainModel, ss.Models)
			}
		}
	}
	if checked != 1 {
		t.Fatal("ae4a77f8 not in the sample")
	}
}
