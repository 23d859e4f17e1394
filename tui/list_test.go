package tui

import (
	"testing"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/memories"
	"github.com/cairn-dev/cairn/transcripts"

	tea "charm.land/bubbletea/v2"
)

func TestListMoves(t *testing.T) {
	l := list{n: 30}
	l.window(10)
	for _, c := range []struct {
		move func()
		want int
	}{
		{func() { l.move(1) }, 1},
		{func() { l.move(l.page()) }, 11},
		{func() { l.bottom() }, 29},
		{func() { l.move(5) }, 29},
		{func() { l.move(-l.page()) }, 19},
		{func() { l.top() }, 0},
		{func() { l.move(-1) }, 0},
	} {
		c.move()
		if l.cursor != c.want {
			t.Fatalf("cursor %d, want %d", l.cursor, c.want)
		}
	}
	l.setLen(0)
	if l.cursor != 0 {
		t.Fatalf("empty list: cursor %d", l.cursor)
	}
}

// Rows the cursor cannot rest on are stepped over in the direction of the
// move, and at the ends it turns back.
func TestListSkips(t *testing.T) {
	header := map[int]bool{0: true, 3: true, 9: true}
	l := list{skip: func(i int) bool { return header[i] }}
	l.setLen(10)
	if l.cursor != 1 {
		t.Fatalf("first row %d, want 1 (0 is a header)", l.cursor)
	}
	l.move(2)
	if l.cursor != 4 {
		t.Fatalf("down over a header: %d, want 4", l.cursor)
	}
	l.move(-1)
	if l.cursor != 2 {
		t.Fatalf("up over a header: %d, want 2", l.cursor)
	}
	l.bottom()
	if l.cursor != 8 {
		t.Fatalf("bottom is a header: %d, want 8", l.cursor)
	}
	l.top()
	if l.cursor != 1 {
		t.Fatalf("top is a header: %d, want 1", l.cursor)
	}
}

// pgdown/pgup/home/end/g/G do the same in every list pane: a page is the
// rows the list shows.
func TestListKeysSameInEveryPane(t *testing.T) {
	st := testStore(t)
	m := newTestModel(t, 80, 24, st, nil)
	const n = 60
	fill := map[int]func() *list{
		paneProjects: func() *list {
			m.projects.shown = make([]transcripts.ProjectSummary, n)
			return &m.projects.list
		},
		paneTimeline: func() *list {
			m.timeline.rows = make([]tlRow, n)
			for i := range m.timeline.rows {
				m.timeline.rows[i].s = &transcripts.Session{ID: "s"}
			}
			return &m.timeline.list
		},
		paneSearch: func() *list {
			m.search.results = make([]index.SearchResult, n)
			return &m.search.list
		},
		paneMemories: func() *list {
			m.mems.mems = make([]memories.Memory, n)
			return &m.mems.list
		},
		paneDrafts: func() *list {
			m.drafts.drafts = make([]memories.Draft, n)
			return &m.drafts.list
		},
	}
	for pane, f := range fill {
		m.focus = pane
		l := f()
		l.setLen(n)
		l.cursor, l.offset = 0, 0
		l.window(7)
		type step struct {
			key  string
			want int
		}
		steps := []step{{"pgdown", 7}, {"space", 14}, {"pgup", 7}, {"end", n - 1}, {"home", 0}, {"G", n - 1}, {"g", 0}, {"j", 1}, {"k", 0}}
		if pane == paneSearch {
			// Search's query has the keyboard: letters, space and
			// home/end are text; the arrows and pages move.
			steps = []step{{"pgdown", 7}, {"pgdown", 14}, {"pgup", 7}, {"down", 8}, {"up", 7}}
		}
		for _, c := range steps {
			m.Update(keyMsg(c.key))
			if l.cursor != c.want {
				t.Fatalf("%s: %s put the cursor on %d, want %d", paneName(pane), c.key, l.cursor, c.want)
			}
		}
	}
}

// Panes navigate by message: the timeline's enter asks the root to open
// the session; nothing moves until the root handles it.
func TestNavigationByMessage(t *testing.T) {
	st := testStore(t)
	m := newTestModel(t, 80, 24, st, nil)
	press(t, m, "2")
	s := m.timeline.selected()
	_, cmd := m.Update(keyMsg("enter"))
	if m.focus != paneTimeline {
		t.Fatal("the timeline switched panes itself")
	}
	msg := cmd()
	om, ok := msg.(openSessionMsg)
	if !ok || om.id != s.ID {
		t.Fatalf("enter returned %#v, want openSessionMsg for %s", msg, s.ID)
	}
	send(t, m, msg)
	if m.focus != paneReader || m.reader.conv == nil || m.reader.conv.Session.ID != s.ID {
		t.Fatalf("openSessionMsg: focus %d", m.focus)
	}
	send(t, m, backMsg{})
	if m.focus != paneTimeline {
		t.Fatalf("backMsg went to %d, want the timeline", m.focus)
	}
	send(t, m, focusPaneMsg{pane: paneDrafts})
	if m.focus != paneDrafts {
		t.Fatalf("focusPaneMsg went to %d", m.focus)
	}
}

// The layout tiles the screen: tab bar, body, help line, status bar.
func TestLayoutTiles(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {20, 6}, {5, 2}, {200, 60}} {
		l := newLayout(sz[0], sz[1])
		y := 0
		for _, r := range []rect{l.tabs, l.body, l.help, l.status} {
			if r.y != y || r.w != l.w || r.h < 1 {
				t.Fatalf("%v: region %+v does not follow at line %d", sz, r, y)
			}
			y += r.h
		}
		if y != l.h {
			t.Fatalf("%v: regions cover %d lines of %d", sz, y, l.h)
		}
	}
	m := New(Config{NoIndex: true, Poll: -1, Resync: -1})
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	if m.c.lay.body != (rect{0, 1, 100, 27}) {
		t.Fatalf("body after a resize: %+v", m.c.lay.body)
	}
}
