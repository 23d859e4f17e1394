package tui

import (
	"fmt"

	"github.com/cairn-dev/cairn/transcripts"

	tea "charm.land/bubbletea/v2"
)

// Navigation is by message, as in soft-serve: a pane that wants another
// pane shown returns one of these as a command and the root acts on it.
// Panes never write another pane's fields or the root's.
type (
	// openSessionMsg opens a session in the reader at an entry (uuid may
	// be ""); find marks those words in it (from a search); sentence (a
	// memory's text) opens the entry's block at the line that says it.
	openSessionMsg struct{ id, uuid, find, sentence string }
	// openProjectMsg makes a project the scope and shows its sessions in
	// the timeline.
	openProjectMsg struct{ project transcripts.ProjectSummary }
	// openMemoryMsg shows one memory in the memories pane.
	openMemoryMsg struct{ id string }
	// openEditorMsg opens the multi-line editor over the body.
	openEditorMsg struct {
		target      editTarget
		title, text string
	}
	// focusPaneMsg shows a pane, as its tab would.
	focusPaneMsg struct{ pane int }
	// backMsg goes up to the pane's parent (nothing at a root).
	backMsg struct{}
	// scopeMsg toggles the scope between every project and one: the last
	// one chosen, else project (a path; "" when the pane has none to offer).
	scopeMsg struct{ project string }
	// memoriesChangedMsg reloads the memories (a draft approved proposes some).
	memoriesChangedMsg struct{}
)

// msgCmd is a command that delivers msg.
func msgCmd(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// updateNav handles the navigation messages.
func (m *Model) updateNav(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case openSessionMsg:
		m.show(paneReader, m.focus)
		return m.reader.open(msg.id, msg.uuid, msg.find, msg.sentence), true
	case openProjectMsg:
		return m.openProject(msg.project), true
	case openMemoryMsg:
		m.show(paneMemories, m.focus)
		return m.mems.selectID(msg.id), true
	case openEditorMsg:
		return m.openEditor(msg.target, msg.title, msg.text), true
	case focusPaneMsg:
		return m.focusPane(msg.pane), true
	case backMsg:
		return m.goBack(), true
	case scopeMsg:
		return m.toggleScope(msg.project), true
	case memoriesChangedMsg:
		return m.mems.load(), true
	}
	return nil, false
}

// Panes form a tree of one level: the tabs are roots, and a pane opened
// from another (a session from the timeline, search or a memory; a
// project's timeline from the projects; a memory from search) has that one
// as its parent until it is picked by its tab. esc goes to the parent and
// does nothing at a root.
const noParent = -1

// show focuses pane i with parent (noParent: a root).
func (m *Model) show(i, parent int) {
	if parent == i {
		parent = m.parent[i]
	}
	m.parent[i] = parent
	m.focus = i
}

// focusPane shows pane i as its tab does: the reader keeps the parent of
// the session it shows, every other pane becomes a root.
func (m *Model) focusPane(i int) tea.Cmd {
	switch {
	case i == paneSearch && m.focus != paneSearch:
		// Search is an input: esc on an empty query goes back to
		// where it was opened from.
		m.parent[i] = m.focus
	case i != paneReader && i != paneSearch:
		m.parent[i] = noParent
	}
	m.focus = i
	switch i {
	case paneSearch:
		return m.search.focusInput()
	case paneTimeline:
		if !m.timeline.loaded {
			return m.timeline.load()
		}
	}
	return nil
}

// goBack goes to the focused pane's parent; nothing at a root.
func (m *Model) goBack() tea.Cmd {
	p := m.parent[m.focus]
	if p == noParent {
		return nil
	}
	m.focus = p
	if p == paneSearch {
		return m.search.focusInput()
	}
	return nil
}

// openSession opens a session in the reader at an entry (uuid may be "").
func (m *Model) openSession(id, uuid string) tea.Cmd { return m.openSessionFind(id, uuid, "") }

func (m *Model) openSessionFind(id, uuid, find string) tea.Cmd {
	m.show(paneReader, m.focus)
	return m.reader.open(id, uuid, find, "")
}

// openProject makes ps the scope and shows its sessions in the timeline,
// under the projects.
func (m *Model) openProject(ps transcripts.ProjectSummary) tea.Cmd {
	cmd := m.setScope(&ps)
	m.show(paneTimeline, paneProjects)
	return tea.Batch(cmd, m.rememberScope())
}

// The scope (Model.scopeSel) is the project every pane is limited to (nil:
// every project): the timeline's sessions, search's results and the
// memories' project filter. It is chosen by opening a project (enter in
// Projects), shown in each of those panes and toggled with p (ctrl+s in
// Search).

// setScope changes the scope and reloads what depends on it.
func (m *Model) setScope(ps *transcripts.ProjectSummary) tea.Cmd {
	m.scopeSel = ps
	if ps != nil {
		m.lastScope = ps
	}
	m.timeline.setProject(ps)
	if ps == nil && m.parent[paneTimeline] == paneProjects {
		m.parent[paneTimeline] = noParent // every project's timeline is a root
	}
	return tea.Batch(m.timeline.load(), m.mems.load(), m.search.rerun())
}

// toggleScope switches between every project and one: the last chosen,
// else the path a pane offers (the selected session's project…).
func (m *Model) toggleScope(path string) tea.Cmd {
	// The key that toggles it where the person is (p is text in Search).
	toggle := m.keys.ProjectFilter.Help().Key
	if m.focus == paneSearch {
		toggle = m.keys.Scope.Help().Key
	}
	if m.scopeSel != nil {
		m.c.flashf("scope: every project (%s goes back to %s)", toggle, lastElem(m.scopeSel.Path))
		return tea.Batch(m.setScope(nil), m.rememberScope())
	}
	ps := m.lastScope
	if path != "" && (ps == nil || m.focus == paneReader) {
		ps = m.projects.byPath(path)
	}
	if ps == nil {
		m.c.flashError(fmt.Errorf("no project to limit to: pick one in Projects (1) and press enter"))
		return nil
	}
	m.c.flashf("scope: project %s (%s: every project)", lastElem(ps.Path), toggle)
	return tea.Batch(m.setScope(ps), m.rememberScope())
}

// scopeProject is the path of the scope's project ("" = every project).
func (m *Model) scopeProject() string {
	if s := m.scopeSel; s != nil {
		return s.Path
	}
	return ""
}
