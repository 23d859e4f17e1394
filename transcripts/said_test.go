package transcripts

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// TestParseAnswers reads the answers of real AskUserQuestion results: two
// questions at once, and a question holding quotes of its own.
func TestParseAnswers(t *testing.T) {
	for _, c := range []struct {
		text string
		want []Answer
	}{
		{`User has answered your questions: "Should tar archives found in the filesystem (not just embedded) also be processed recursively like ZIP files are?"="Yes, both filesystem and embedded", "Which tar formats should be supported?"="Also .tgz". You can now continue with the user's answers in mind.`,
			[]Answer{{"Should tar archives found in the filesystem (not just embedded) also be processed recursively like ZIP files are?", "Yes, both filesystem and embedded"}, {"Which tar formats should be supported?", "Also .tgz"}}},
		{`User has answered your questions: "Which rig do these beads belong to? (This is a single-app project — should I use 'spotter'?)"="No rig", "Which tools should we set up?"="Credo + Dialyxir + mix_audit". You can now continue with the user's answers in mind.`,
			[]Answer{{"Which rig do these beads belong to? (This is a single-app project — should I use 'spotter'?)", "No rig"}, {"Which tools should we set up?", "Credo + Dialyxir + mix_audit"}}},
		{`<tool_use_error>Error: No such tool available: AskUserQuestion</tool_use_error>`, nil},
	} {
		if got := ParseAnswers(c.text); !slices.Equal(got, c.want) {
			t.Errorf("ParseAnswers(%.60q…) = %q, want %q", c.text, got, c.want)
		}
	}
	s, ok := BlockSaid(&Block{Type: BlockToolResult, ToolUseID: "t", Text: `User has answered your questions: "A?"="yes", "B?"="no". You can now continue with the user's answers in mind.`})
	if !ok || s.Source != SaidAnswer || s.Text != "yes\nno" || s.ToolUseID != "t" {
		t.Errorf("BlockSaid of an answer = %+v, %v", s, ok)
	}
	if _, ok := BlockSaid(&Block{Type: BlockToolResult, IsError: true, Text: "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file)."}); ok {
		t.Error("a rejection without a reason carries no words of the person")
	}
}

// TestQueuedPrompts reads queue-operation lines: blocks with IDE context
// and a plain string are the typed prompt; Claude Code's own notes and
// the other operations are none.
func TestQueuedPrompts(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`{"type":"queue-operation","operation":"enqueue","timestamp":"2025-11-17T23:57:17.571Z","sessionId":"s","content":[{"type":"text","text":"<ide_opened_file>The user opened the file /a/index.html in the IDE. This may or may not be related to the current task.</ide_opened_file>"},{"type":"text","text":"make it work offline"}]}`, "make it work offline"},
		{`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-02-11T20:51:12.726Z","sessionId":"s","content":"check again"}`, "check again"},
		{`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-02-11T20:51:12.726Z","sessionId":"s","content":"<task-notification>\n<task-id>b0be39e</task-id>\n</task-notification>"}`, ""},
		{`{"type":"queue-operation","operation":"remove","timestamp":"2026-02-11T20:51:19.419Z","sessionId":"s"}`, ""},
		{`{"type":"system","subtype":"local_command","content":"<command-name>/mcp</command-name>","timestamp":"2026-02-11T20:51:19.419Z"}`, ""},
	} {
		e, err := ParseLine([]byte(c.line))
		if err != nil {
			t.Fatal(err)
		}
		if got := QueuedText(&e); got != c.want {
			t.Errorf("QueuedText(%.50s…) = %q, want %q", c.line, got, c.want)
		}
		if e.Type == "system" && e.Text != "<command-name>/mcp</command-name>" {
			t.Errorf("a system line's content is %q", e.Text)
		}
	}
}

// TestUserSaidCountsAndConversation reads testdata/usersaid (real lines)
// without a store: prompts queued and later sent count once, prompts only
// queued count and are shown, and a VS Code prompt written again block by
// block is one prompt.
func TestUserSaidCountsAndConversation(t *testing.T) {
	dir := filepath.Join(testutil.RepoRoot(), "testdata", "usersaid")
	tree, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Scan(context.Background(), tree, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"7acd37a8": 2, "4d5611e5": 1, "258c7280": 4, "9e953218": 1}
	for _, s := range res.Sessions {
		if n, ok := want[s.ID[:8]]; ok && s.Prompts != n {
			t.Errorf("session %s: %d prompts, want %d", s.ID[:8], s.Prompts, n)
		}
	}
	turns := func(id string) []string {
		c, err := LoadConversation(context.Background(), tree, id)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range c.Entries {
			if q := QueuedText(&e); q != "" {
				out = append(out, "queued: "+q)
			} else if IsRealPrompt(&e) {
				out = append(out, OneLine(e.PromptText(), 30))
			}
			for _, s := range EntrySaid(&e) {
				if s.Source != SaidQueued {
					out = append(out, s.Source+": "+s.Text)
				}
			}
		}
		return out
	}
	for id, w := range map[string]string{
		"7acd37a8": "I have both Node and Python, …|ok, fine, let's do vite|rejection: use pnpm",
		"4d5611e5": "Work on bead spotter-dov. Run…|answer: main was clean; fix the issues",
		"258c7280": "Implement spotter-gqc|queued: check again|queued: new beads for the epic were added. tackle them|did you push?",
		"9e953218": "I have @public/tokenizer.css,…",
	} {
		if got := strings.Join(turns(id), "|"); got != w {
			t.Errorf("%s: the person's turns are\n%s\nwant\n%s", id, got, w)
		}
	}
}

// TestRepeatsPrompt: only the blocks of the last prompt, at its time, are
// a repeat; the same words at another time are a new prompt.
func TestRepeatsPrompt(t *testing.T) {
	f := &File{Kind: MainFile, SessionID: "s"}
	line := func(uuid, ts, content string) *Entry {
		e, err := ParseLine([]byte(`{"type":"user","uuid":"` + uuid + `","sessionId":"s","timestamp":"` + ts + `","message":{"role":"user","content":` + content + `}}`))
		if err != nil {
			t.Fatal(err)
		}
		return &e
	}
	const ide = `{"type":"text","text":"<ide_opened_file>The user opened the file /a.go in the IDE.</ide_opened_file>"}`
	st := NewSessionState("s", "p")
	for _, c := range []struct {
		e      *Entry
		repeat bool
	}{
		{line("u1", "2025-10-03T23:51:53.000Z", `[`+ide+`,{"type":"text","text":"fix it"}]`), false},
		{line("u2", "2025-10-03T23:51:53.000Z", `[`+ide+`]`), true},
		{line("u3", "2025-10-03T23:51:53.000Z", `"fix it"`), true},
		{line("u4", "2025-10-03T23:52:10.000Z", `"fix it"`), false},
		{line("u5", "2025-10-03T23:52:10.000Z", `"and the tests"`), false},
	} {
		if got := st.IsReplay(f, c.e); got != c.repeat {
			t.Errorf("%s: IsReplay %v, want %v", c.e.UUID, got, c.repeat)
		}
		st.Add(f, c.e)
	}
	if st.Session.Prompts != 3 {
		t.Errorf("%d prompts, want 3", st.Session.Prompts)
	}
}
