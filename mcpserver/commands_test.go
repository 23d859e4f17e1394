package mcpserver

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/memories"
)

// hostile is text a shell would choke on: a heredoc terminator alone on a
// line, a brace followed by a quote, command substitutions, quotes.
const hostile = "## Request\n- parse `express.raw({type: \"application/json\"})` and {'a': 1}\nCAIRN_SUMMARY\nCAIRN_QUERY\nCAIRN_MEMORY\n" +
	"## Completed\n- ran $(touch /tmp/cairn-pwned) and `touch /tmp/cairn-pwned2` ${HOME} 'single' \"double\" \\ backslash <<EOF\nEOF"

// session_save_summary stores the Markdown it is given as a pending draft,
// byte for byte.
func TestSaveSummaryStoresDraftVerbatim(t *testing.T) {
	var mem *memories.Service
	f := newFixtureWith(t, func(st *index.Store) MemoryService { mem = memories.New(st, config.Default()); return mem })
	var tl TimelineOut
	f.call(t, "memory_timeline", map[string]any{"days": 365, "project": "/path/to/Demo"}, &tl, false)
	sid := tl.Sessions[0].SessionID
	var out SaveSummaryOut
	f.call(t, "session_save_summary", map[string]any{"session_id": sid, "summary": hostile}, &out, false)
	if out.Status != "pending" || out.SessionID != sid || !strings.Contains(out.Message, out.DraftID) {
		t.Fatalf("answer: %+v", out)
	}
	d, err := mem.Drafts.Draft(context.Background(), out.DraftID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Markdown != hostile+"\n" {
		t.Fatalf("stored draft differs:\n%q\nwant\n%q", d.Markdown, hostile+"\n")
	}
	// No session: the server's own, else an error that says what to pass.
	msg := f.call(t, "session_save_summary", map[string]any{"summary": hostile}, &out, true)
	if !strings.Contains(msg, "session_id") {
		t.Errorf("no session: %s", msg)
	}
	msg = f.call(t, "session_save_summary", map[string]any{"session_id": "ffffffff-0000-0000-0000-000000000000", "summary": hostile}, &out, true)
	if !strings.Contains(msg, "not in cairn's index") {
		t.Errorf("unknown session: %s", msg)
	}
	msg = f.call(t, "session_save_summary", map[string]any{"session_id": sid, "summary": "   "}, &out, true)
	if !strings.Contains(msg, "empty") {
		t.Errorf("empty summary: %s", msg)
	}
}

// memory_brief is the project's approved memories and latest summaries.
func TestBrief(t *testing.T) {
	var mem *memories.Service
	f := newFixtureWith(t, func(st *index.Store) MemoryService { mem = memories.New(st, config.Default()); return mem })
	var out BriefOut
	f.call(t, "memory_brief", map[string]any{}, &out, false)
	if out.Project != "/path/to/Demo" || len(out.Memories) != 0 || out.Note == "" {
		t.Fatalf("empty brief: %+v", out)
	}
	ctx := context.Background()
	if _, err := mem.Curator.Add(ctx, memories.NewMemory{Type: memories.Gotcha, Content: "The Demo build needs DEMO_FLAG=1 before make runs",
		Project: "/path/to/Demo", Status: memories.Approved}); err != nil {
		t.Fatal(err)
	}
	out = BriefOut{}
	f.call(t, "memory_brief", map[string]any{}, &out, false)
	if len(out.Memories) != 1 || !strings.Contains(out.Memories[0].Content, "DEMO_FLAG=1") || out.Note != "" {
		t.Fatalf("brief: %+v", out)
	}
	f.call(t, "memory_brief", map[string]any{"project": "no-such-project"}, &out, true)
}

// Out-of-range arguments are refused in words a person would write.
func TestArgumentErrorsReadable(t *testing.T) {
	f := newMemFixture(t)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"memory_remember", map[string]any{"content": "x", "type": "fact", "importance": 9}, "importance is 9, out of range: pass a whole number from 1 to 5."},
		{"memory_remember", map[string]any{"content": "x", "type": "fact", "importance": 0.5}, "importance is 0.5, out of range: pass a whole number from 1 to 5."},
		{"memory_timeline", map[string]any{"days": 5000}, "days is 5000, out of range: pass a whole number from 1 to 365."},
		{"memory_recall", map[string]any{"query": "x", "alternatives": []string{"a", "b", "c", "d", "e"}}, "alternatives has 5 items: pass at most 4."},
		{"session_read", map[string]any{"session_id": "abcdefgh", "offset": -1}, "offset is -1, out of range"},
		{"memory_timeline", map[string]any{"days": "seven"}, "days"},
	} {
		msg := f.call(t, c.tool, c.args, nil, true)
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s %v: %q, want %q", c.tool, c.args, msg, c.want)
		}
		if regexp.MustCompile(`\d+/\d+|\.000000|validating /properties`).MatchString(msg) {
			t.Errorf("%s %v: reads like a validator: %q", c.tool, c.args, msg)
		}
	}
}

// Every tool's description comes from toolDescriptions, and opens with
// the words a model searching the deferred tools (ToolSearch) would use
// for it: each word of the search is in the tool's name or the first
// clause of its description. e2e/claudecode's TestToolSearchFindsTools
// runs the real ToolSearch.
func TestToolDescriptionsFindable(t *testing.T) {
	f := newFixture(t, nil)
	if len(f.schemas) != len(toolDescriptions) {
		t.Errorf("%d tools listed, %d descriptions", len(f.schemas), len(toolDescriptions))
	}
	for name := range toolDescriptions {
		if f.schemas[name] == nil {
			t.Errorf("%s has a description but is not listed", name)
		}
		if toolSearchHints[name] == "" {
			t.Errorf("%s has no search hint", name)
		}
	}
	tools, err := f.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Meta["anthropic/searchHint"] != toolSearchHints[tl.Name] {
			t.Errorf("%s: _meta %v lacks its search hint", tl.Name, tl.Meta)
		}
	}
	words := regexp.MustCompile(`[a-z]+`)
	for _, c := range []struct{ query, tool string }{
		{"past sessions", "memory_recall"},
		{"conversation history", "memory_recall"},
		{"recall", "memory_recall"},
		{"remember", "memory_remember"},
		{"save memory", "memory_remember"},
		{"search memory", "memory_search"},
		{"memory", "memory_search"},
		{"save session summary", "session_save_summary"},
		{"project memory", "memory_brief"},
		{"recent sessions", "memory_timeline"},
		{"read session", "session_read"},
		{"correct memory", "memory_correct"},
		{"forget memory", "memory_forget"},
		{"ask question", "memory_ask"},
	} {
		d := strings.ToLower(toolDescriptions[c.tool])
		head, _, _ := strings.Cut(d, ": ")
		head, _, _ = strings.Cut(head, ". ")
		have := strings.Join(append(words.FindAllString(head, -1), words.FindAllString(c.tool, -1)...), " ")
		for _, w := range words.FindAllString(c.query, -1) {
			if !strings.Contains(have, strings.TrimSuffix(w, "s")) {
				t.Errorf("searching %q: %s's name and first clause (%q) lack %q", c.query, c.tool, head, w)
			}
		}
	}
}
