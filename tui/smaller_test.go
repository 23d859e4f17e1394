package tui

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/transcripts"
)

// Issue 18 item 14, the smaller ones.
func TestSmallerOnes(t *testing.T) {
	st := testStore(t)
	m := newTestModel(t, 120, 40, st, nil)

	// A subagent's prompt is Claude's, not "You".
	send(t, m, openSessionMsg{id: "fe5e1c67-53e7-4862-81ae-d0e013e3270b"})
	press(t, m, "O")
	screen(m) // sets the reader's width
	found := false
	for i, it := range m.reader.items {
		if it.kind == kPrompt && it.depth > 0 {
			l := strings.Join(m.reader.lines(i), "\n")
			if strings.Contains(l, "▶ You") || !strings.Contains(l, "task for the subagent") {
				t.Fatalf("a subagent's prompt reads %q", l)
			}
			found = true
			break
		}
	}
	if !found {
		t.Fatal("no subagent prompt in the sample session")
	}
	// Compaction summaries and subagent prompts are not "You" in sources
	// and previews either.
	for _, c := range []struct {
		e    transcripts.Entry
		want string
	}{
		{transcripts.Entry{Type: "user", IsCompactSummary: true}, "Compaction summary"},
		{transcripts.Entry{Type: "user", IsSidechain: true}, "Claude (task for a subagent)"},
		{transcripts.Entry{Type: "user"}, "You"},
		{transcripts.Entry{Type: "assistant"}, "Claude"},
	} {
		if got := entryWho(&c.e); got != c.want {
			t.Errorf("entryWho(%+v) = %q, want %q", c.e, got, c.want)
		}
	}

	// A session over several days shows its end's date.
	send(t, m, openSessionMsg{id: "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"})
	head := strings.Join(m.reader.lines(0), "\n")
	if !strings.Contains(head, "→ 2025-09-") {
		t.Fatalf("a multi-day session's header has no end date:\n%s", head)
	}

	// Plurals.
	for n, want := range map[int]string{0: "0 sessions", 1: "1 session", 2: "2 sessions"} {
		if got := plural(n, "session"); got != want {
			t.Errorf("plural(%d) = %q", n, got)
		}
	}
	if got := plural(2, "memory"); got != "2 memories" {
		t.Errorf("plural(2, memory) = %q", got)
	}

	// MODEL and BRANCH keep a space between them.
	press(t, m, "2")
	cols := newTimelineCols(120)
	for i, r := range m.timeline.rows {
		if r.s == nil || len(r.s.Branches) == 0 {
			continue
		}
		row := m.timeline.row(i, cols, 120)
		br := strings.Join(r.s.Branches, ",")
		if j := strings.Index(row, br); j > 0 && row[j-1] != ' ' {
			t.Errorf("model and branch run together: %q", row)
		}
	}

	// The cursor keeps its session, not its row, when a filter changes.
	var third *transcripts.Session
	for i, r := range m.timeline.rows {
		if r.s != nil && strings.Contains(r.s.Title, "create the beads") {
			m.timeline.list.cursor = i
			third = r.s
		}
	}
	press(t, m, "f")
	typeText(t, m, "spotter")
	if s := m.timeline.selected(); s == nil || s.ID != third.ID {
		t.Fatalf("after filtering the cursor is on %v, want %s", s, third.Title)
	}
}
