package tui

import (
	"strings"
	"testing"
)

func TestProjectsPane(t *testing.T) {
	st := testStore(t)
	goldenSizes(t, "projects", st, nil, func(m *Model) {
		if m.focus != paneProjects {
			t.Fatalf("starts on pane %d, want projects", m.focus)
		}
		if n := len(m.projects.shown); n != 3 { // four folders, two of them worktrees of one repository
			t.Fatalf("%d projects, want 3", n)
		}
	})
	m := newTestModel(t, 80, 24, st, nil)
	first := m.projects.selected().Path
	press(t, m, "j")
	if m.projects.list.cursor != 1 || m.projects.selected().Path == first {
		t.Fatalf("j did not move down: cursor %d", m.projects.list.cursor)
	}
	press(t, m, "k", "f")
	if !m.projects.typing() {
		t.Fatal("f did not open the filter")
	}
	typeText(t, m, "demo")
	if n := len(m.projects.shown); n != 1 || !strings.Contains(m.projects.shown[0].Path, "Demo") {
		t.Fatalf("filter demo kept %d projects", n)
	}
	// q is text while filtering, not quit.
	quitSeen = false
	typeText(t, m, "q")
	if quitSeen || m.projects.list.filter.value() != "demoq" {
		t.Fatalf("q while filtering: quit=%v value=%q", quitSeen, m.projects.list.filter.value())
	}
	press(t, m, "esc")
	if m.projects.typing() || len(m.projects.shown) != 3 {
		t.Fatal("esc did not clear the filter")
	}
	press(t, m, "enter")
	if m.focus != paneTimeline || m.timeline.project == nil || len(m.timeline.all) == 0 {
		t.Fatalf("enter did not open the timeline: focus %d", m.focus)
	}
	for _, s := range m.timeline.all {
		if s.ProjectPath != m.timeline.project.Path {
			t.Errorf("timeline shows session of %s", s.ProjectPath)
		}
	}
	press(t, m, "esc")
	if m.focus != paneProjects {
		t.Fatalf("esc went to pane %d, want back to projects", m.focus)
	}
}

func TestTimelinePane(t *testing.T) {
	st := testStore(t)
	goldenSizes(t, "timeline", st, nil, func(m *Model) {
		// The spotter project has three sessions.
		for i, p := range m.projects.shown {
			if strings.HasSuffix(p.Path, "/spotter") {
				m.projects.list.cursor = i
			}
		}
		press(t, m, "enter")
	})
	m := newTestModel(t, 80, 24, st, nil)
	press(t, m, "2") // all projects
	if m.focus != paneTimeline || len(m.timeline.all) != 8 {
		t.Fatalf("timeline of every project: focus %d, %d sessions", m.focus, len(m.timeline.all))
	}
	if m.timeline.rows[0].s != nil || m.timeline.selected() == nil {
		t.Fatal("rows must start with a day header and the cursor on a session")
	}
	press(t, m, "d") // today: nothing on the pinned clock
	if m.timeline.selected() != nil {
		t.Fatal("date filter 'today' still lists sessions")
	}
	mustContain(t, screen(m), "No sessions match")
	press(t, m, "esc")
	if m.timeline.dateIdx != 0 || m.timeline.selected() == nil {
		t.Fatal("esc did not clear the date filter")
	}
	press(t, m, "f")
	typeText(t, m, "spotter-4te")
	press(t, m, "enter")
	if s := m.timeline.selected(); s == nil || !strings.Contains(s.Title+s.FirstPrompt, "spotter-4te") {
		t.Fatalf("text filter selected %v", s)
	}
	id := m.timeline.selected().ID
	press(t, m, "r")
	if !strings.Contains(m.status.flash, "claude --resume "+id) {
		t.Fatalf("resume without claude should show the command, flash = %q", m.status.flash)
	}
	press(t, m, "enter")
	if m.focus != paneReader || m.reader.conv == nil || m.reader.conv.Session.ID != id {
		t.Fatal("enter did not open the session in the reader")
	}
}
