package tui

import (
	"sort"
	"testing"

	"github.com/cairn-dev/cairn/index"
)

func TestSearchPane(t *testing.T) {
	st := testStore(t)
	goldenSizes(t, "search", st, nil, func(m *Model) {
		press(t, m, "/")
		typeQuery(t, m, "credo dialyxir")
		// The golden checks the layout; bleve's order of near-equal scores
		// moves between runs, so the hits are put in a fixed order.
		sort.Slice(m.search.results, func(i, j int) bool { return m.search.results[i].UUID < m.search.results[j].UUID })
	})
	m := newTestModel(t, 80, 24, st, nil)
	press(t, m, "3") // / works from any pane
	press(t, m, "/")
	if m.focus != paneSearch || !m.search.typing() {
		t.Fatal("/ did not focus the search input")
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
	if p.scope != 0 {
		t.Fatal("ctrl+s did not switch the scope to this project")
	}
	press(t, m, "ctrl+s", "ctrl+t")
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
	press(t, m, "/")
	for range len("dialyzer") {
		press(t, m, "backspace")
	}
	if len(p.results) != 0 {
		t.Fatal("empty query kept results")
	}
	press(t, m, "esc", "esc")
	if m.focus == paneSearch {
		t.Fatal("esc twice with no results did not leave search")
	}
}
