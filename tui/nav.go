package tui

import (
	"github.com/cairn-dev/cairn/transcripts"

	tea "charm.land/bubbletea/v2"
)

// Navigation is by message, as in soft-serve: a pane that wants another
// pane shown returns one of these as a command and the root acts on it.
// Panes never write another pane's fields or the root's.
type (
	// openSessionMsg opens a session in the reader at an entry (uuid may
	// be ""); find marks those words in it (from a search).
	openSessionMsg struct{ id, uuid, find string }
	// openProjectMsg shows a project's sessions in the timeline.
	openProjectMsg struct{ project transcripts.ProjectSummary }
	// openMemoryMsg shows one memory in the memories pane.
	openMemoryMsg struct{ id string }
	// openEditorMsg opens the multi-line editor over the body.
	openEditorMsg struct {
		target      editTarget
		title, text string
	}
	// focusPaneMsg shows a pane; push records where we came from for esc.
	focusPaneMsg struct {
		pane int
		push bool
	}
	// backMsg goes back to the pane we came from.
	backMsg struct{}
	// memoriesChangedMsg reloads the memories (a draft approved proposes some).
	memoriesChangedMsg struct{}
)

// msgCmd is a command that delivers msg.
func msgCmd(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// updateNav handles the navigation messages.
func (m *Model) updateNav(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case openSessionMsg:
		return m.openSessionFind(msg.id, msg.uuid, msg.find), true
	case openProjectMsg:
		return m.openProject(msg.project), true
	case openMemoryMsg:
		m.pushBack()
		m.focus = paneMemories
		return m.mems.selectID(msg.id), true
	case openEditorMsg:
		return m.openEditor(msg.target, msg.title, msg.text), true
	case focusPaneMsg:
		return m.focusPane(msg.pane, msg.push), true
	case backMsg:
		return m.goBack(), true
	case memoriesChangedMsg:
		return m.mems.load(), true
	}
	return nil, false
}

func (m *Model) pushBack() {
	m.back = append(m.back, m.focus)
	if len(m.back) > 50 {
		m.back = m.back[1:]
	}
}

// focusPane shows pane i; push records where we came from for esc.
func (m *Model) focusPane(i int, push bool) tea.Cmd {
	if i == m.focus {
		if i == paneSearch {
			return m.search.focusInput()
		}
		return nil
	}
	if push {
		m.pushBack()
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

func (m *Model) goBack() tea.Cmd {
	if n := len(m.back); n > 0 {
		m.focus = m.back[n-1]
		m.back = m.back[:n-1]
		return nil
	}
	m.focus = paneProjects
	return nil
}

// openSession opens a session in the reader at an entry (uuid may be "").
func (m *Model) openSession(id, uuid string) tea.Cmd { return m.openSessionFind(id, uuid, "") }

func (m *Model) openSessionFind(id, uuid, find string) tea.Cmd {
	if m.focus != paneReader {
		m.back = append(m.back, m.focus)
	}
	m.focus = paneReader
	return m.reader.open(id, uuid, find)
}

// openProject shows the project's sessions in the timeline.
func (m *Model) openProject(ps transcripts.ProjectSummary) tea.Cmd {
	m.timeline.setProject(&ps)
	m.back = append(m.back, m.focus)
	m.focus = paneTimeline
	return m.timeline.load()
}
