package tui

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"

	tea "charm.land/bubbletea/v2"
)

func TestSearchPane(t *testing.T) {
	st := testStore(t)
	goldenSizes(t, "search", st, nil, func(m *Model) {
		press(t, m, "F")
		typeQuery(t, m, "credo dialyxir")
		// The golden checks the layout; bleve's order of near-equal scores
		// moves between runs, so the hits are put in a fixed order.
		sort.Slice(m.search.results, func(i, j int) bool { return m.search.results[i].UUID < m.search.results[j].UUID })
		run(t, m, m.search.loadPreview())
	})
	m := newTestModel(t, 80, 24, st, nil)
	press(t, m, "3") // F works from any pane
	press(t, m, "F")
	if m.focus != paneSearch || !m.search.typing() {
		t.Fatal("F did not focus the search input")
	}
	// Digits and q are text in the input.
	typeText(t, m, "q1")
	if m.focus != paneSearch || m.search.input.Value() != "q1" {
		t.Fatalf("typing q1: focus %d value %q", m.focus, m.search.input.Value())
	}
	for range 2 {
		press(t, m, "backspace")
	}
	typeQuery(t, m, "dialyzer")
	p := m.search
	if len(p.results) == 0 || p.resp == nil || p.shown != p.seq {
		t.Fatalf("no results for dialyzer (err %v)", p.err)
	}
	for _, r := range p.results {
		if r.SessionID == "" && r.Kind == "message" {
			t.Errorf("message result without a session: %+v", r)
		}
	}
	// A stale result (older sequence number) is dropped.
	before := len(p.results)
	send(t, m, searchResultMsg{seq: p.seq - 1, resp: &index.SearchResponse{}})
	if len(p.results) != before {
		t.Fatal("stale results replaced newer ones")
	}
	// Debounce: a debounce tick of an older keystroke does not search.
	if cmd := p.data(searchDebounceMsg{seq: p.seq - 1}); cmd != nil {
		t.Fatal("an outdated debounce tick started a search")
	}
	// Scope, mode and kind cycle and search again.
	press(t, m, "ctrl+s")
	if pr := m.scopeProject(); pr == "" || pr != p.results[0].Project {
		t.Fatalf("ctrl+s limited search to %q, want the selected hit's project", pr)
	}
	press(t, m, "ctrl+s", "ctrl+t")
	if m.scopeProject() != "" {
		t.Fatal("a second ctrl+s did not go back to every project")
	}
	if searchModes[p.mode] != index.ModeText || p.resp.Mode != index.ModeText {
		t.Fatalf("ctrl+t: mode %s, searched %s", searchModes[p.mode], p.resp.Mode)
	}
	press(t, m, "ctrl+k")
	if searchKinds[p.kind] != "messages" {
		t.Fatalf("ctrl+k: kind %s", searchKinds[p.kind])
	}
	press(t, m, "ctrl+k", "ctrl+k", "ctrl+k", "ctrl+t", "ctrl+t")
	// Enter opens the third hit at its turn.
	press(t, m, "down", "down")
	want := p.results[2]
	press(t, m, "enter")
	if m.focus != paneReader || m.reader.conv == nil || m.reader.conv.Session.ID != want.SessionID {
		t.Fatalf("enter did not open %s", want.SessionID)
	}
	screen(m)
	if want.UUID != "" && m.reader.items[m.reader.cur].uuid != want.UUID {
		// A tool result lands on its call.
		if it := m.reader.items[m.reader.cur]; it.kind != kTool {
			t.Fatalf("reader at %s, want the turn %s", it.uuid, want.UUID)
		}
	}
	press(t, m, "esc")
	if m.focus != paneSearch {
		t.Fatalf("esc from the reader went to pane %d, want search", m.focus)
	}
	// Clearing the query clears the results.
	for range len("dialyzer") {
		press(t, m, "backspace")
	}
	if len(p.results) != 0 {
		t.Fatal("empty query kept results")
	}
	// esc clears the query, then goes back to where Search was opened
	// from (issue 26 item 2: it used to do nothing).
	typeQuery(t, m, "credo")
	press(t, m, "esc")
	if m.focus != paneSearch || p.input.Value() != "" || len(p.results) != 0 {
		t.Fatalf("esc in search: focus %d, query %q, %d results", m.focus, p.input.Value(), len(p.results))
	}
	press(t, m, "esc")
	if m.focus != paneReader {
		t.Fatalf("esc in an empty search went to %s, want the Reader (where F opened it)", paneName(m.focus))
	}
}

// Issue 18 item 2: back from a result, the query has the keyboard again:
// typing "sqlite" searches for it instead of quitting at the q, and e is
// text (in the reader it would export).
func TestSearchKeepsFocusAfterReader(t *testing.T) {
	st := testStore(t)
	m := newTestModel(t, 80, 24, st, nil)
	press(t, m, "F")
	typeQuery(t, m, "dialyzer")
	press(t, m, "enter")
	if m.focus != paneReader {
		t.Fatal("enter did not open the hit")
	}
	press(t, m, "esc")
	if m.focus != paneSearch || !m.search.typing() || !m.search.input.Focused() {
		t.Fatalf("back in search: focus %d, input focused %v", m.focus, m.search.input.Focused())
	}
	for range len("dialyzer") {
		press(t, m, "backspace")
	}
	quitSeen = false
	typeQuery(t, m, "sqlite e")
	if quitSeen || m.focus != paneSearch || m.search.input.Value() != "sqlite e" {
		t.Fatalf("typing after esc: quit %v, focus %d, query %q", quitSeen, m.focus, m.search.input.Value())
	}
	if !strings.Contains(screen(m), "› sqlite e") {
		t.Fatalf("the query is not shown:\n%s", screen(m))
	}
}

// TestSearchMarksMatches (issues 18.3, 18.4): the Search pane shows only
// results above the relevance floor and says how many matched by words; a
// query matching nothing says so; a half-typed last word already matches
// as the start of a longer one; meaning-only results are marked.
func TestSearchMarksMatches(t *testing.T) {
	st := testStore(t)
	m := newTestModel(t, 100, 30, st, nil)
	press(t, m, "F")
	typeQuery(t, m, "zzzzqqqq-nothing-matches")
	if n := len(m.search.results); n != 0 {
		t.Fatalf("nonsense query: %d results", n)
	}
	mustContain(t, screen(m), "No matches by words or meaning; try")
	for range len("zzzzqqqq-nothing-matches") {
		press(t, m, "backspace")
	}
	typeQuery(t, m, "dialy")
	p := m.search
	if len(p.results) == 0 {
		t.Fatal(`"dialy" found nothing while typing`)
	}
	for _, r := range p.results {
		if r.Match != index.MatchPrefix {
			t.Errorf("dialy: a %s result", r.Match)
		}
	}
	mustContain(t, screen(m), fmt.Sprintf("%d matched by words", len(p.results)))

	// Meaning-only results carry the mark and are counted apart.
	p.results = []index.SearchResult{
		{Kind: "message", Role: "user", Snippet: "credo and dialyxir", Match: index.MatchWords},
		{Kind: "message", Role: "user", Snippet: "static analysis of elixir code", Match: index.MatchMeaning},
	}
	p.list.setLen(2)
	s := screen(m)
	mustContain(t, s, "1 matched by words · 1 by meaning (≈)", "≈ static analysis", "user · by meaning")
}

// Issue 18 item 5: on a wide screen the selected hit's turn is shown
// beside the results, with the turns around it, and follows the cursor.
func TestSearchPreview(t *testing.T) {
	st := testStore(t)
	m := newTestModel(t, 120, 40, st, nil)
	press(t, m, "F")
	typeQuery(t, m, "dialyxir")
	p := m.search
	if len(p.results) < 2 {
		t.Fatal("too few results")
	}
	check := func() {
		t.Helper()
		r := p.selected()
		right := rightOf(screen(m), 120*11/20+1)
		mustContain(t, right, p.c.fmtTime(r.Timestamp))
		if r.Kind != "memory" && !strings.Contains(right, "▌") {
			t.Fatalf("the preview does not mark the hit's turn:\n%s", right)
		}
	}
	check()
	press(t, m, "down")
	check()
	// Narrow screens keep the whole width for the results.
	send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if strings.Contains(screen(m), "│ ") && p.previewShown() {
		t.Fatal("a preview at 80 columns")
	}
}

// rightOf is the part of every line of s after column col.
func rightOf(s string, col int) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		r := []rune(l)
		if len(r) > col {
			out = append(out, string(r[col:]))
		}
	}
	return strings.Join(out, "\n")
}
