package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/memories"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
)

// editTarget is what the editor saves to.
type editTarget struct {
	memoryID string
	draftID  string
}

// editor is a multi-line editor over the body of the screen.
type editor struct {
	target editTarget
	title  string
	ta     textarea.Model
	orig   string
}

type editorDoneMsg struct {
	target editTarget
	text   string
	err    error
}

func (m *Model) openEditor(t editTarget, title, text string) tea.Cmd {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = "┃ "
	ta.CharLimit = 0
	sty := textarea.DefaultStyles(m.dark)
	sty.Cursor.Blink = false
	ta.SetStyles(sty)
	ta.SetValue(text)
	ed := &editor{target: t, title: title, ta: ta, orig: text}
	m.editor = ed
	ed.resize(m)
	return ed.ta.Focus()
}

func (e *editor) resize(m *Model) {
	e.ta.SetWidth(max(20, m.w-2))
	e.ta.SetHeight(max(3, m.h-3-3))
}

func (e *editor) update(m *Model, msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, m.keys.Save):
			text := e.ta.Value()
			if e.target.memoryID != "" && strings.TrimSpace(text) == "" {
				m.flashError(fmt.Errorf("a memory cannot be empty: type its content, or esc and d to delete it"))
				return nil
			}
			m.editor = nil
			return m.saveEdit(e.target, text)
		case key.Matches(k, m.keys.Cancel):
			m.editor = nil
			m.flashf("edit cancelled; nothing changed")
			return nil
		}
	}
	var cmd tea.Cmd
	e.ta, cmd = e.ta.Update(msg)
	return cmd
}

func (e *editor) view(m *Model, w, h int) string {
	s := m.sty
	head := s.Title.Render(" "+e.title) + s.Muted.Render("  ctrl+s saves · esc cancels")
	return strings.Join([]string{head, "", e.ta.View()}, "\n")
}

func (m *Model) saveEdit(t editTarget, text string) tea.Cmd {
	svc := m.cfg.Memories
	if svc == nil {
		return nil
	}
	return func() tea.Msg {
		ctx := context.Background()
		var err error
		switch {
		case t.memoryID != "":
			content := strings.TrimSpace(text)
			if content == "" {
				return editorDoneMsg{target: t, err: fmt.Errorf("a memory cannot be empty: nothing saved (d deletes it)")}
			}
			_, err = svc.Update(ctx, t.memoryID, memories.Update{Content: &content})
		case t.draftID != "":
			_, err = svc.EditDraft(ctx, t.draftID, text)
		}
		return editorDoneMsg{target: t, text: text, err: err}
	}
}

func (m *Model) editorDone(msg editorDoneMsg) tea.Cmd {
	if msg.err != nil {
		m.flashError(fmt.Errorf("save failed: %w", msg.err))
		return nil
	}
	if msg.target.memoryID != "" {
		m.flashf("saved %s", msg.target.memoryID)
		return m.loadMemories()
	}
	m.flashf("saved draft %s", msg.target.draftID)
	return m.loadDrafts()
}
