package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// handleKey routes a key: ctrl+c, then the editor or the help screen when
// open, then the root's global keys, then the focused pane (a key it
// declares, or any while it types); a key the pane does not take and that
// means back goes back.
func (m *Model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	if key.Matches(k, m.keys.ForceQuit) {
		return m.quit()
	}
	if m.editor != nil {
		return m.editorUpdate(k)
	}
	if m.showHelp && m.helpKey(k) {
		return nil
	}
	p := m.panes[m.focus]
	if cmd, ok := m.globalKey(k, p.typing()); ok {
		return cmd
	}
	handled, cmd := m.paneKey(k, p)
	if handled {
		return cmd
	}
	if fallback, ok := m.untakenKey(k, p.typing()); ok {
		return fallback
	}
	return cmd
}

// paneKey gives k to the focused pane p when p takes it: any key while
// it types, back, or a key it declares. A key the pane did not declare
// (paneSpec.keys) never reaches it: what the clash test checks is what
// the pane handles.
func (m *Model) paneKey(k tea.KeyPressMsg, p pane) (bool, tea.Cmd) {
	if p.typing() || key.Matches(k, m.keys.Back) || key.Matches(k, paneRegistry[m.focus].keys(&m.keys, false)...) {
		return p.key(k)
	}
	return false, nil
}

// untakenKey is what a key no pane took does: back goes back, and (when
// not typing) / searches everything and p toggles the scope; ok is
// false for any other key.
func (m *Model) untakenKey(k tea.KeyPressMsg, typing bool) (tea.Cmd, bool) {
	switch {
	case key.Matches(k, m.keys.Back):
		return m.goBack(), true
	case !typing && key.Matches(k, m.keys.Filter):
		// A pane with nothing to find in: / searches everything.
		return m.focusPane(paneSearch), true
	case !typing && key.Matches(k, m.keys.ProjectFilter):
		// Every pane widens the scope and back with p; the panes that
		// offer a project of their own (the selected one) take it first.
		return m.toggleScope(""), true
	}
	return nil, false
}

// editorUpdate gives a message to the editor and closes it when done.
func (m *Model) editorUpdate(msg tea.Msg) tea.Cmd {
	done, cmd := m.editor.update(msg)
	if done {
		m.editor = nil
	}
	return cmd
}

// helpKey handles a key on the help screen: true when it was the help
// screen's; any other key closes the help and acts.
func (m *Model) helpKey(k tea.KeyPressMsg) bool {
	km := &m.keys
	switch {
	case key.Matches(k, km.Help, km.HelpAnywhere, km.Back, km.Quit):
		m.showHelp = false
	case key.Matches(k, km.List.Down):
		m.helpOff++
	case key.Matches(k, km.List.Up):
		m.helpOff--
	default:
		m.showHelp = false
		return false
	}
	return true
}

// globalKey applies the root's keys; while a pane is typing only those
// that cannot be text.
func (m *Model) globalKey(k tea.KeyPressMsg, typing bool) (tea.Cmd, bool) {
	if cmd, ok := m.anywhereKey(k); ok || typing {
		return cmd, ok
	}
	return m.commandKey(k)
}

// anywhereKey applies the root's keys that cannot be text: next and
// previous pane, help anywhere.
func (m *Model) anywhereKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	km := &m.keys
	switch {
	case key.Matches(k, km.NextPane):
		return m.focusPane((m.focus + 1) % numPanes), true
	case key.Matches(k, km.PrevPane):
		return m.focusPane((m.focus + numPanes - 1) % numPanes), true
	case key.Matches(k, km.HelpAnywhere):
		m.showHelp, m.helpOff = true, 0
		return nil, true
	}
	return nil, false
}

// commandKey applies the root's keys that are text while a pane types:
// quit, help, search, refresh and the pane digits.
func (m *Model) commandKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	km := &m.keys
	switch {
	case key.Matches(k, km.Quit):
		return m.quit(), true
	case key.Matches(k, km.Help):
		m.showHelp, m.helpOff = true, 0
		return nil, true
	case key.Matches(k, km.Search):
		return m.focusPane(paneSearch), true
	case key.Matches(k, km.Refresh):
		return m.reindex(), true
	}
	for i, b := range km.Panes {
		if key.Matches(k, b) {
			return m.focusPane(i), true
		}
	}
	return nil, false
}

// reindex indexes now (ctrl+r) and reloads every pane.
func (m *Model) reindex() tea.Cmd {
	if m.cfg.Index == nil {
		return m.refreshAll()
	}
	return tea.Batch(m.startIndex(false), m.refreshAll())
}
