package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
)

// Issue 18 item 10: esc goes up one level (to the pane something was
// opened from) and does nothing at a root; it never walks the history of
// visited tabs.
func TestEscGoesToParent(t *testing.T) {
	st := testStore(t)
	svc := testService(t, st)
	seedMemories(t, st, svc)
	m := newTestModel(t, 80, 24, st, svc)
	expect := func(step string, pane int) {
		t.Helper()
		if m.focus != pane {
			t.Fatalf("%s: focus is %s, want %s", step, paneName(m.focus), paneName(pane))
		}
	}
	// Projects → a project's timeline → a session, and back up.
	press(t, m, "enter")
	expect("enter on a project", paneTimeline)
	press(t, m, "enter")
	expect("enter on a session", paneReader)
	press(t, m, "esc")
	expect("esc in the reader", paneTimeline)
	press(t, m, "esc")
	expect("esc in a project's timeline", paneProjects)
	press(t, m, "esc")
	expect("esc at the root", paneProjects)

	// Tabs visited one after another are not a path back.
	press(t, m, "2", "5", "6")
	press(t, m, "esc")
	expect("esc in drafts after 2 5 6", paneDrafts)
	press(t, m, "2")
	press(t, m, "esc")
	expect("esc in the timeline picked by its tab", paneTimeline)

	// A session opened from search: one esc, whether or not words are marked
	// or a find was made in it.
	press(t, m, "4")
	typeQuery(t, m, "dialyzer")
	press(t, m, "enter")
	expect("enter on a hit", paneReader)
	press(t, m, "esc")
	expect("esc in a session opened from search", paneSearch)
	press(t, m, "enter", "f")
	typeText(t, m, "mix")
	press(t, m, "enter")
	if m.reader.find.query != "mix" {
		t.Fatalf("find: query %q", m.reader.find.query)
	}
	press(t, m, "esc")
	expect("esc after a find", paneSearch)

	// The reader keeps its parent when picked by its tab.
	press(t, m, "tab", "3", "esc")
	expect("esc in the reader picked by its tab", paneSearch)

	// A memory's source opened from the memories (of every project).
	press(t, m, "tab", "p")
	if m.scopeProject() != "" {
		t.Fatal("p did not show every project's memories")
	}
	press(t, m, "enter")
	expect("enter on a memory", paneReader)
	press(t, m, "esc")
	expect("esc in a memory's source", paneMemories)
	press(t, m, "esc")
	expect("esc in memories", paneMemories)
}

// Issue 18 item 9: f starts an empty find; ↑ brings back earlier ones.
func TestFindStartsEmptyWithHistory(t *testing.T) {
	st := testStore(t)
	m := newTestModel(t, 80, 24, st, nil)
	press(t, m, "2", "enter")
	find := func(q string) {
		t.Helper()
		press(t, m, "f")
		if v := m.reader.find.box.Value(); v != "" {
			t.Fatalf("f opened the find box with %q, want it empty", v)
		}
		typeText(t, m, q)
		press(t, m, "enter")
		if m.reader.find.query != q {
			t.Fatalf("find %q searched %q", q, m.reader.find.query)
		}
	}
	find("phoenix")
	find("port")
	press(t, m, "f", "up")
	if v := m.reader.find.box.Value(); v != "port" {
		t.Fatalf("↑ in the find box: %q, want the last find", v)
	}
	press(t, m, "up")
	if v := m.reader.find.box.Value(); v != "phoenix" {
		t.Fatalf("↑↑ in the find box: %q", v)
	}
	press(t, m, "up")
	if v := m.reader.find.box.Value(); v != "phoenix" {
		t.Fatalf("↑ past the oldest: %q", v)
	}
	press(t, m, "down", "down")
	if v := m.reader.find.box.Value(); v != "" {
		t.Fatalf("↓ past the newest: %q, want the new (empty) find", v)
	}
	typeText(t, m, "mix")
	if v := m.reader.find.box.Value(); v != "mix" {
		t.Fatalf("typing after the history: %q", v)
	}
}

// Issue 18 item 8: the project chosen in Projects is one scope, shown in
// the timeline, search and memories, and p (ctrl+s in search) goes back to
// every project and to it again.
func TestScopeVisibleAndResettable(t *testing.T) {
	st := testStore(t)
	svc := testService(t, st)
	seedMemories(t, st, svc)
	m := newTestModel(t, 80, 24, st, svc)
	press(t, m, "enter") // the first project
	proj := m.scopeProject()
	if proj == "" {
		t.Fatal("opening a project did not make it the scope")
	}
	name := lastElem(proj)
	mustContain(t, screen(m), "Timeline · project ")
	press(t, m, "4")
	mustContain(t, screen(m), "scope: project "+name)
	press(t, m, "tab") // digits are text in search
	mustContain(t, screen(m), "project "+name+" + global")

	// Back to every project from the timeline.
	press(t, m, "2", "p")
	if m.scopeProject() != "" {
		t.Fatal("p in the timeline did not go back to every project")
	}
	if len(m.timeline.all) <= 1 || m.timeline.project != nil {
		t.Fatalf("every project's timeline shows %d sessions", len(m.timeline.all))
	}
	mustContain(t, screen(m), "Timeline · every project")
	press(t, m, "4")
	mustContain(t, screen(m), "scope: every project")
	press(t, m, "tab")
	mustContain(t, screen(m), "· every project")
	// p again: the project chosen before.
	press(t, m, "p")
	if m.scopeProject() != proj {
		t.Fatalf("p again: scope %q, want %q", m.scopeProject(), proj)
	}
	// And from search, where letters are text.
	press(t, m, "4", "ctrl+s")
	if m.scopeProject() != "" || !strings.Contains(screen(m), "scope: every project") {
		t.Fatal("ctrl+s in search did not go back to every project")
	}
}

// Issue 18 item 11: at 80 columns every pane's help line keeps "? all
// keys" and "q quit"; counts in tabs do not read like pane numbers;
// Search's tab says Search; ? shows the focused pane's keys first.
func TestHelpFits(t *testing.T) {
	st := testStore(t)
	svc := testService(t, st)
	seedMemories(t, st, svc)
	for _, w := range []int{80, 64} {
		m := newTestModel(t, w, 24, st, svc)
		for i := range numPanes {
			if i == paneSearch {
				continue // typing: its line ends with esc and tab
			}
			press(t, m, string(rune('1'+i)))
			lines := strings.Split(screen(m), "\n")
			mustContain(t, lines[len(lines)-2], "? all keys", "q quit")
			tabs := lines[0]
			if strings.Contains(tabs, "Memories 2 ") || strings.Contains(tabs, "Mem 2 ") || strings.Contains(tabs, "Find") {
				t.Errorf("%d columns: tab bar %q", w, tabs)
			}
			press(t, m, "?")
			sheet := strings.Split(screen(m), "\n")
			// A pane with keys of its own shows them first; one without
			// (Projects) starts with the keys that work everywhere.
			own := paneRegistry[i].helpKeys != nil && len(paneRegistry[i].helpKeys(&m.keys)) > 0
			if own && !strings.HasPrefix(strings.TrimSpace(sheet[2]), paneName(i)) || !own && !strings.Contains(sheet[2], "Everywhere") {
				t.Errorf("%d columns: ? in %s starts with %q", w, paneName(i), sheet[2])
			}
			press(t, m, "?")
		}
		press(t, m, "4")
		mustContain(t, strings.Split(screen(m), "\n")[0], "4 Search")
	}
}

// Issue 18 item 13: a stale index lag is re-read by itself, and a message
// too long for the status line is shown whole above it.
func TestStatusLagAndLongMessages(t *testing.T) {
	st := testStore(t)
	m := newTestModel(t, 80, 24, st, nil)
	real, err := st.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	send(t, m, statsMsg{stats: index.StoreStats{DBBytes: 5 << 20, Sessions: 8, FTSQueue: real.FTSQueue + 26}})
	mustContain(t, screen(m), "lag ")
	for range statsEveryPolls {
		send(t, m, pollMsg{})
	}
	if got, want := m.status.lag(), real.FTSQueue+real.EmbedQueue; got != want {
		t.Fatalf("lag after polls: %d, want the store's %d", got, want)
	}
	long := "claude is not on PATH; to resume, run: cd '/home/someone/projects/a rather long project folder name' && claude --resume 0d6e0bad-aaaa-4bbb-8ccc-123456789abc"
	m.c.flashf("%s", long)
	sc := screen(m)
	checkSize(t, sc, 80, 24)
	flat := strings.Join(strings.Fields(sc), " ")
	mustContain(t, flat, strings.Join(strings.Fields(long), " "))
}
