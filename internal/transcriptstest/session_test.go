package transcriptstest

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
	"github.com/cairn-dev/cairn/transcripts"
)

func scanDir(t *testing.T, dir string) *ScanResult {
	t.Helper()
	tree, err := transcripts.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Scan(context.Background(), tree, 0)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func byID(res *ScanResult) map[string]*transcripts.Session {
	m := map[string]*transcripts.Session{}
	for _, s := range res.Sessions {
		m[s.ID[:8]] = s
	}
	return m
}

func TestSampleSessions(t *testing.T) {
	res := scanDir(t, testutil.SampleClaudeDir())
	if len(res.Sessions) != 8 || res.BadLines != 0 {
		t.Fatalf("sessions %d bad lines %d", len(res.Sessions), res.BadLines)
	}
	ss := byID(res)
	// Title from a summary in another file, resolved through leafUuid.
	if s := ss["1af7fc5e"]; s.TitleSource != "summary" || s.Title != "Empty Repo Setup: CLAUDE.md Foundation Created" {
		t.Errorf("summary title: %q (%s)", s.Title, s.TitleSource)
	}
	// The only typed prompt is a slash command: it is the title of last resort.
	if s := ss["5c0375b4"]; s.TitleSource != "command" || !strings.HasPrefix(s.Title, "/orchestrator") {
		t.Errorf("command title: %q (%s)", s.Title, s.TitleSource)
	}
	// Known only through its subagent file.
	p := ss["6c2214d7"]
	if !p.Partial() || p.HasMainFile || p.Entries == 0 || p.TitleSource != "subagent-prompt" {
		t.Errorf("partial session: %+v", p)
	}
	big := ss["ae4a77f8"]
	if big.Partial() || big.Compactions != 1 || big.ProjectPath != "/home/USER/projects/spotter-worktrees/spotter-4te" {
		t.Errorf("big session: compactions %d path %q", big.Compactions, big.ProjectPath)
	}
	if len(big.Subagents) != 2 {
		t.Fatalf("subagents %+v", big.Subagents)
	}
	var spawned *transcripts.Subagent
	for i := range big.Subagents {
		if big.Subagents[i].AgentID == "aac57f5" {
			spawned = &big.Subagents[i]
		}
	}
	if spawned == nil || spawned.ToolUseID == "" || spawned.Description == "" || spawned.Entries != 28 {
		t.Errorf("spawned agent not linked to its call: %+v", spawned)
	}
	if big.ToolCalls == 0 || len(big.FilesRead) == 0 || len(big.FilesEdited) == 0 || len(big.Commands) == 0 {
		t.Errorf("tool facts: %d calls, %d read, %d edited, %d commands", big.ToolCalls, len(big.FilesRead), len(big.FilesEdited), len(big.Commands))
	}
	if ps := res.Projects; len(ps) != 4 {
		t.Errorf("projects %d", len(ps))
	}
	for i := 1; i < len(res.Sessions); i++ {
		if res.Sessions[i].Start.After(res.Sessions[i-1].Start) {
			t.Fatal("not newest first")
		}
	}
}

// The acceptance check of the transcripts issue: exactly the 12 sessions of
// the shared corpus that have user or assistant entries.
func TestSharedCorpusSessions(t *testing.T) {
	res := scanDir(t, testutil.SharedCorpus(t))
	if len(res.Sessions) != 12 {
		t.Fatalf("want 12 sessions, got %d", len(res.Sessions))
	}
	partial := 0
	for _, s := range res.Sessions {
		if s.Partial() {
			partial++
			if s.ID != "6c2214d7-b87e-4432-8e41-22ba294ea584" {
				t.Errorf("unexpected partial %s", s.ID)
			}
		}
		if s.Title == "" {
			t.Errorf("%s has no title", s.ID)
		}
	}
	if partial != 1 {
		t.Fatalf("partial sessions %d", partial)
	}
}

func assistantLine(uuid, sid, msgID, req string, in, out int) string {
	return `{"type":"assistant","uuid":"` + uuid + `","sessionId":"` + sid + `","requestId":"` + req + `","timestamp":"2026-01-02T03:04:06.000Z","message":{"id":"` + msgID + `","role":"assistant","model":"claude-x","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":` + itoa(in) + `,"output_tokens":` + itoa(out) + `}}}` + "\n"
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestDedupAndForeignLines(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "projects", "-w-app")
	// One response written as two lines sharing message id + request id:
	// tokens count once, turns count once.
	testutil.WriteFile(t, filepath.Join(p, "s1.jsonl"), testutil.UserLine("u1", "s1", "first prompt")+
		assistantLine("a1", "s1", "msg1", "req1", 10, 5)+assistantLine("a2", "s1", "msg1", "req1", 10, 5)+
		testutil.UserLine("f1", "s2", "a line of s2 written into s1's file"))
	// An older build replayed s1's lines into a new file with a new session id.
	testutil.WriteFile(t, filepath.Join(p, "s2.jsonl"), testutil.UserLine("u1", "s2", "first prompt")+assistantLine("a1", "s2", "msg1", "req1", 10, 5)+
		testutil.UserLine("v1", "s2", "the new question"))
	res := scanDir(t, dir)
	ss := map[string]*transcripts.Session{}
	for _, s := range res.Sessions {
		ss[s.ID] = s
	}
	s1, s2 := ss["s1"], ss["s2"]
	if s1 == nil || s2 == nil {
		t.Fatalf("sessions %v", res.Sessions)
	}
	if s1.Usage.Total() != 15 || s1.AssistantTurns != 1 || s1.Prompts != 1 {
		t.Errorf("s1: tokens %d turns %d prompts %d", s1.Usage.Total(), s1.AssistantTurns, s1.Prompts)
	}
	// s2 keeps only what it added: the foreign line and its new question.
	if s2.Prompts != 2 || s2.AssistantTurns != 0 || s2.Usage.Total() != 0 {
		t.Errorf("s2: prompts %d turns %d tokens %d", s2.Prompts, s2.AssistantTurns, s2.Usage.Total())
	}
}

func TestTitlePrecedenceAndMeta(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "projects", "-w-app")
	lines := `{"type":"user","uuid":"m0","sessionId":"s1","isMeta":true,"message":{"role":"user","content":"injected"}}` + "\n" +
		testutil.UserLine("u1", "s1", "<command-name>/clear</command-name>") +
		testutil.UserLine("u2", "s1", "the real first prompt") +
		`{"type":"last-prompt","lastPrompt":"the last prompt","sessionId":"s1"}` + "\n"
	testutil.WriteFile(t, filepath.Join(p, "s1.jsonl"), lines)
	s := scanDir(t, dir).Sessions[0]
	if s.Title != "the last prompt" || s.FirstPrompt != "the real first prompt" || s.Prompts != 2 {
		t.Fatalf("title %q first %q prompts %d", s.Title, s.FirstPrompt, s.Prompts)
	}
	testutil.WriteFile(t, filepath.Join(p, "s1.jsonl"), lines+`{"type":"ai-title","aiTitle":"AI title","sessionId":"s1"}`+"\n")
	if s := scanDir(t, dir).Sessions[0]; s.Title != "AI title" {
		t.Fatalf("ai title: %q", s.Title)
	}
	testutil.WriteFile(t, filepath.Join(p, "s1.jsonl"), lines+`{"type":"custom-title","customTitle":"Mine","sessionId":"s1"}`+"\n"+`{"type":"ai-title","aiTitle":"AI title","sessionId":"s1"}`+"\n")
	if s := scanDir(t, dir).Sessions[0]; s.Title != "Mine" || s.TitleSource != "custom" {
		t.Fatalf("custom title: %q", s.Title)
	}
}

func TestSubagentMetaLinksSpawningCall(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "projects", "-w-app")
	testutil.WriteFile(t, filepath.Join(p, "s1.jsonl"), testutil.UserLine("u1", "s1", "go")+
		`{"type":"assistant","uuid":"a1","sessionId":"s1","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"toolu_9","name":"Agent","input":{"subagent_type":"Explore","description":"look around","prompt":"find x"}}]}}`+"\n")
	testutil.WriteFile(t, filepath.Join(p, "s1", "subagents", "agent-abc.jsonl"),
		`{"type":"user","uuid":"x1","sessionId":"s1","isSidechain":true,"agentId":"abc","message":{"role":"user","content":"find x"}}`+"\n")
	testutil.WriteFile(t, filepath.Join(p, "s1", "subagents", "agent-abc.meta.json"), `{"agentType":"Explore","description":"look around","toolUseId":"toolu_9"}`)
	s := scanDir(t, dir).Sessions[0]
	if len(s.Subagents) != 1 || s.Subagents[0].AgentID != "abc" || s.Subagents[0].ToolUseID != "toolu_9" || s.Subagents[0].Type != "Explore" || s.Subagents[0].Entries != 1 {
		t.Fatalf("%+v", s.Subagents)
	}
	if s.Prompts != 1 {
		t.Fatalf("subagent prompt counted as the session's: %d", s.Prompts)
	}
	tree, _ := transcripts.Discover(dir)
	c, err := LoadConversation(context.Background(), tree, "s1")
	if err == nil {
		t.Fatal("a 2-character prefix must be refused")
	}
	_ = c
}

func TestLoadConversationSample(t *testing.T) {
	tree, err := transcripts.Discover(testutil.SampleClaudeDir())
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadConversation(context.Background(), tree, "ae4a77f8")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Entries) == 0 || len(c.Agents["aac57f5"]) != 40 || c.SpawnedBy[c.Session.Subagents[0].ToolUseID] == "" {
		t.Fatalf("entries %d agents %v", len(c.Entries), len(c.Agents))
	}
	if _, err := LoadConversation(context.Background(), tree, "zzzzzzzz"); err == nil || !strings.Contains(err.Error(), "no session matches") {
		t.Fatalf("unknown id: %v", err)
	}
	// Legacy flat agent files name their session only inside.
	c, err = LoadConversation(context.Background(), tree, "5c0375b4-57a5")
	if err != nil || len(c.Agents["test-hash-123"]) != 2 {
		t.Fatalf("legacy agents: %v", err)
	}
}

func TestSubagentMetaBrokenIsReportedNotFatal(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "projects", "-w-app")
	testutil.WriteFile(t, filepath.Join(p, "s1.jsonl"), testutil.UserLine("u1", "s1", "go"))
	testutil.WriteFile(t, filepath.Join(p, "s1", "subagents", "agent-abc.jsonl"),
		`{"type":"user","uuid":"x1","sessionId":"s1","isSidechain":true,"agentId":"abc","message":{"role":"user","content":"find x"}}`+"\n")
	testutil.WriteFile(t, filepath.Join(p, "s1", "subagents", "agent-abc.meta.json"), `{"agentType":`)
	res := scanDir(t, dir)
	if len(res.Sessions) != 1 || len(res.Sessions[0].Subagents) != 1 || res.Sessions[0].Subagents[0].Entries != 1 {
		t.Fatalf("the subagent's entries must still be read: %+v", res.Sessions)
	}
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Error(), "agent-abc.meta.json: not valid JSON") {
		t.Fatalf("problems: %v", res.Problems)
	}
}
