package transcriptstest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
	"github.com/cairn-dev/cairn/transcripts"
)

// Real transcripts that nobody here wrote: testdata/reduced holds lines of
// the claude-code-log corpus (MIT), and testdata/claude-code-log.tar.gz the
// whole corpus (see testdata/reduced/README.md).

const vscodeProject = "-Users-dain-workspace-danieldemmel-me-next"

func reducedDir() string { return filepath.Join(testutil.RepoRoot(), "testdata", "reduced") }

// copyReduced copies testdata/reduced into a temporary Claude dir the test
// may change.
func copyReduced(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := testutil.CopyDir(reducedDir(), dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func corpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := testutil.ExtractClaudeCodeLog(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func loadConv(t *testing.T, claude, id string) *transcripts.Conversation {
	t.Helper()
	tree, err := transcripts.Discover(claude)
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadConversation(context.Background(), tree, id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestVSCodePromptsAreJudgedBlockByBlock: the VS Code extension writes the
// file the person had open as a first text block and the typed prompt as
// the next one. The entry is a prompt, its text is what was typed, and the
// IDE context is kept as a detail.
func TestVSCodePromptsAreJudgedBlockByBlock(t *testing.T) {
	res := scanDir(t, reducedDir())
	s := byID(res)["9e953218"]
	if s == nil {
		t.Fatal("session 9e953218 not found")
	}
	if s.Prompts != 4 {
		t.Errorf("%d prompts, want 4 (two typed in VS Code after an <ide_opened_file> block, two plain)", s.Prompts)
	}
	if !strings.HasPrefix(s.Title, "I have @public/tokenizer.css") || s.TitleSource != "first-prompt" {
		t.Errorf("title %q (%s), want the first typed prompt", s.Title, s.TitleSource)
	}
	c := loadConv(t, reducedDir(), "9e953218")
	first := &c.Entries[0]
	if !transcripts.IsRealPrompt(first) {
		t.Fatal("the VS Code prompt is not a prompt")
	}
	if p := first.PromptText(); strings.Contains(p, "ide_opened_file") || !strings.HasPrefix(p, "I have @public/tokenizer.css") {
		t.Errorf("prompt text %q", p)
	}
	ide := first.IDEContext()
	if len(ide) != 1 || !strings.HasPrefix(ide[0], "The user opened the file /Users/dain/workspace/danieldemmel.me-next/") {
		t.Errorf("IDE context %q", ide)
	}
	// A block holding only IDE context is no prompt; the same context
	// written in front of the typed text in one block is split off.
	only := transcripts.Entry{Type: "user", Blocks: []transcripts.Block{{Type: transcripts.BlockText, Text: "<ide_selection>The user selected the lines 1 to 2 from /a.go</ide_selection>"}}}
	if transcripts.IsRealPrompt(&only) {
		t.Error("IDE context alone counted as a prompt")
	}
	glued := transcripts.Entry{Type: "user", Blocks: []transcripts.Block{{Type: transcripts.BlockText, Text: "<ide_opened_file>The user opened the file /a.go in the IDE.</ide_opened_file>fix it"}}}
	if !transcripts.IsRealPrompt(&glued) || glued.PromptText() != "fix it" || len(glued.IDEContext()) != 1 {
		t.Errorf("glued: prompt %q context %q", glued.PromptText(), glued.IDEContext())
	}
}

// TestImagePastedWithoutTextIsAPrompt: a turn whose only content is a
// pasted image is the person's turn.
func TestImagePastedWithoutTextIsAPrompt(t *testing.T) {
	s := byID(scanDir(t, reducedDir()))["4379d1bf"]
	if s == nil || s.Prompts != 2 { // /clear, then the image
		t.Fatalf("session 4379d1bf: %+v", s)
	}
	c := loadConv(t, reducedDir(), "4379d1bf")
	var img *transcripts.Entry
	for i := range c.Entries {
		if len(c.Entries[i].Media()) > 0 {
			img = &c.Entries[i]
		}
	}
	if img == nil || !transcripts.IsRealPrompt(img) || img.PromptText() != "" || !strings.HasPrefix(img.Media()[0], "[image: image/png,") {
		t.Fatalf("image-only prompt: %+v", img)
	}
}

// TestProjectIsTheMainThreadsCWD: session ef958aa1's subagents ran in git
// worktrees of their own (.claude/worktrees/agent-…); their files are
// older than the main file and were read first, and must not decide the
// session's project.
func TestProjectIsTheMainThreadsCWD(t *testing.T) {
	s := byID(scanDir(t, corpus(t)))["ef958aa1"]
	if s == nil || s.ProjectPath != "-experiments/worktrees" {
		t.Fatalf("project %q, want the main thread's -experiments/worktrees", s.ProjectPath)
	}
}

// replay appends to path the lines from..to of src again as a resume
// re-records them: new uuids (and parent uuids), the same timestamps,
// message ids and tool-use ids.
func replay(t *testing.T, path string, lines []string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		var e struct{ UUID, ParentUUID string }
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		// The line as it was, but for its uuids.
		b := []byte(strings.Replace(l, `"uuid":"`+e.UUID+`"`, `"uuid":"r`+e.UUID[1:]+`"`, 1))
		if e.ParentUUID != "" {
			b = []byte(strings.Replace(string(b), `"parentUuid":"`+e.ParentUUID+`"`, `"parentUuid":"r`+e.ParentUUID[1:]+`"`, 1))
		}
		if _, err := f.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
}

// TestResumedHistoryCountsOnce: history written again by a resume (new
// uuids; same timestamps, message ids and tool-use ids) is counted and
// shown once.
func TestResumedHistoryCountsOnce(t *testing.T) {
	dir := copyReduced(t)
	path := filepath.Join(dir, "projects", vscodeProject, "9e953218-585f-4692-89df-9e0747a31c68.jsonl")
	before := *byID(scanDir(t, dir))["9e953218"]
	n := len(loadConv(t, dir, "9e953218").Entries)
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	replay(t, path, lines[6:]) // a prompt, parallel tool calls and their results
	after := byID(scanDir(t, dir))["9e953218"]
	if after.Prompts != before.Prompts || after.AssistantTurns != before.AssistantTurns ||
		after.ToolCalls != before.ToolCalls || after.Entries != before.Entries || after.Usage != before.Usage {
		t.Errorf("after a replay: prompts %d→%d turns %d→%d tools %d→%d entries %d→%d",
			before.Prompts, after.Prompts, before.AssistantTurns, after.AssistantTurns,
			before.ToolCalls, after.ToolCalls, before.Entries, after.Entries)
	}
	if m := len(loadConv(t, dir, "9e953218").Entries); m != n {
		t.Errorf("the conversation shows %d entries, %d before the replay", m, n)
	}
}

// TestSourceNotesSayWhatIsTrue: a session whose main file is empty, one
// whose main file is gone, and one whose lines are in another session's
// file are each labelled for what they are.
func TestSourceNotesSayWhatIsTrue(t *testing.T) {
	dir := corpus(t)
	// Session Y's lines written into session X's file (and Y has no file).
	src := filepath.Join(dir, "projects", "-src-experiments-claude_p", "94604a7b-062f-4369-bdf0-da948381c3e5.jsonl")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	host := filepath.Join(dir, "projects", "-src-experiments-claude_p", "256ba646-2c15-437a-98e9-4171aafd030e.jsonl")
	f, err := os.OpenFile(host, os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.Write(b)
	f.Close()
	if err := os.Remove(src); err != nil {
		t.Fatal(err)
	}
	ss := byID(scanDir(t, dir))
	for _, c := range []struct {
		id, note, label string
		partial         bool
	}{
		{"7864f562", "main transcript empty; only subagent files hold entries", "main file empty", true},
		{"58edcfae", "main transcript missing; only subagent files remain", "main file missing", true},
		{"94604a7b", "recorded in the file of session 256ba646-2c15-437a-98e9-4171aafd030e", "in 256ba646's file", false},
		{"256ba646", "", "", false},
	} {
		s := ss[c.id]
		if s == nil {
			t.Errorf("%s not found", c.id)
			continue
		}
		if s.SourceNote() != c.note || s.SourceLabel() != c.label || s.Partial() != c.partial {
			t.Errorf("%s: note %q label %q partial %v; want %q %q %v", c.id, s.SourceNote(), s.SourceLabel(), s.Partial(), c.note, c.label, c.partial)
		}
	}
}

// TestMainModelIsTheMainThreads: the session's model is the one most of its
// main thread's responses came from, not the last one seen (a subagent's).
func TestMainModelIsTheMainThreads(t *testing.T) {
	ss := byID(scanDir(t, corpus(t)))
	for id, want := range map[string]string{
		"29ccd257": "claude-opus-4-5-20251101",  // its Explore subagent ran on haiku
		"a7da6a22": "claude-opus-4-5-20251101",  // so did its agent file
		"7864f562": "claude-haiku-4-5-20251001", // no main thread: the first model seen
	} {
		if s := ss[id]; s == nil || s.MainModel != want {
			t.Errorf("%s: main model %q, want %q", id, s.MainModel, want)
		}
	}
}
