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
	// mergeOther: saving merges this memory into memoryID with the text
	// (memories.MergeWith).
	mergeOther string
}

// editor is a multi-line editor over the body of the screen.
type editor struct {
	c      *common
	target editTarget
	title  string
	ta     textarea.Model
	orig   string
	// discarding: esc was pressed with changes; a second esc discards them.
	discarding bool
}

type editorDoneMsg struct {
	target editTarget
	text   string
	err    error
}

func newEditor(c *common, t editTarget, title, text string) (*editor, tea.Cmd) {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = "┃ "
	ta.CharLimit = 0
	sty := textarea.DefaultStyles(c.dark)
	sty.Cursor.Blink = false
	ta.SetStyles(sty)
	ta.SetValue(text)
	ed := &editor{c: c, target: t, title: title, ta: ta, orig: text}
	ed.resize()
	return ed, ed.ta.Focus()
}

// resize fits the text area to the body under the editor's title.
func (e *editor) resize() {
	b := e.c.lay.body
	e.ta.SetWidth(max(20, b.w-2))
	e.ta.SetHeight(max(3, b.h-3))
}

// update handles a message; done reports that the editor closed (saved
// or cancelled).
func (e *editor) update(msg tea.Msg) (done bool, cmd tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		if done, cmd, ok := e.commandKey(k); ok {
			return done, cmd
		}
		if e.discarding {
			// The question is answered: the key goes back to editing
			// and is not typed.
			e.discarding = false
			return false, nil
		}
	}
	e.ta, cmd = e.ta.Update(msg)
	return false, cmd
}

// commandKey saves (ctrl+s) or cancels (esc, twice when the text
// changed); ok is false for any other key.
func (e *editor) commandKey(k tea.KeyPressMsg) (done bool, cmd tea.Cmd, ok bool) {
	switch {
	case key.Matches(k, e.c.keys.Save):
		text := e.ta.Value()
		if e.target.memoryID != "" && strings.TrimSpace(text) == "" {
			e.c.flashError(fmt.Errorf("a memory cannot be empty: type its content, or esc and d to delete it"))
			return false, nil, true
		}
		return true, e.save(text), true
	case key.Matches(k, e.c.keys.Cancel):
		return e.cancel(), nil, true
	}
	return false, nil, false
}

// cancel closes the editor (true) unless the text changed and this is
// the first esc: then it asks to discard the changes.
func (e *editor) cancel() bool {
	if e.ta.Value() != e.orig && !e.discarding {
		// Changes are not thrown away by one key.
		e.discarding = true
		return false
	}
	if e.target.mergeOther != "" {
		e.c.flashf("merge cancelled; nothing changed")
	} else {
		e.c.flashf("edit cancelled; nothing changed")
	}
	return true
}

func (e *editor) view() string {
	s := e.c.sty
	save := "saves"
	if e.target.mergeOther != "" {
		save = "merges"
	}
	head := s.Title.Render(" "+e.title) + s.Muted.Render("  ctrl+s "+save+" · esc cancels")
	ask := ""
	if e.discarding {
		ask = s.Warn.Render(" Discard your changes? esc again discards them, ctrl+s " + save + ", any other key goes back to editing.")
	}
	return strings.Join([]string{head, ask, e.ta.View()}, "\n")
}

func (e *editor) help() []key.Binding { return []key.Binding{e.c.keys.Save, e.c.keys.Cancel} }

// save writes text to the target; a memory's edit or merge is recorded
// in the memory journal (u undoes it).
func (e *editor) save(text string) tea.Cmd {
	svc, ctx, t := e.c.memories(), e.c.ctx, e.target
	if svc == nil {
		return nil
	}
	return func() tea.Msg {
		var err error
		switch {
		case t.memoryID != "":
			content := strings.TrimSpace(text)
			if content == "" {
				return editorDoneMsg{target: t, err: fmt.Errorf("a memory cannot be empty: nothing saved (d deletes it)")}
			}
			what, ids := "edit "+t.memoryID, []string{t.memoryID}
			fn := func(ctx context.Context) error {
				_, err := svc.Curator.Update(ctx, t.memoryID, memories.Update{Content: &content})
				return err
			}
			if t.mergeOther != "" {
				what, ids = "merge "+t.mergeOther+" into "+t.memoryID, []string{t.memoryID, t.mergeOther}
				fn = func(ctx context.Context) error {
					_, err := svc.Curator.MergeWith(ctx, t.memoryID, t.mergeOther, content)
					return err
				}
			}
			err = svc.Curator.Record(ctx, what, ids, fn)
		case t.draftID != "":
			_, err = svc.Drafts.EditDraft(ctx, t.draftID, text)
		}
		return editorDoneMsg{target: t, text: text, err: err}
	}
}

// openEditor opens the editor over the body.
func (m *Model) openEditor(t editTarget, title, text string) tea.Cmd {
	ed, cmd := newEditor(m.c, t, title, text)
	m.editor = ed
	return cmd
}

// editorDone reports a save and reloads what was edited.
func (m *Model) editorDone(msg editorDoneMsg) tea.Cmd {
	if msg.err != nil {
		m.c.flashError(fmt.Errorf("save failed: %w", msg.err))
		return nil
	}
	if t := msg.target; t.memoryID != "" {
		what, text := "edit "+t.memoryID, "saved "+t.memoryID
		if t.mergeOther != "" {
			what = "merge " + t.mergeOther + " into " + t.memoryID
			text = "merged " + t.mergeOther + " into " + t.memoryID
		}
		return m.mems.data(memActionMsg{text: text + " — u undoes", select_: t.memoryID, undo: &undoStep{what: what}})
	}
	m.c.flashf("saved draft %s", msg.target.draftID)
	return m.drafts.load()
}
