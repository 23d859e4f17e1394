package transcripts

import (
	"slices"
	"testing"
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
