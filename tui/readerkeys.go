package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

var readerPaneSpec = paneSpec{name: "Reader", short: "Read",
	build: func(c *common) pane { return newReaderPane(c) },
	keys: func(k *KeyMap, typing bool) []key.Binding {
		if typing {
			return []key.Binding{k.FindDone, k.FindOlder, k.FindNewer}
		}
		return append(k.List.bindings(), k.NextPrompt, k.PrevPrompt, k.Expand, k.ExpandAll, k.Thinking, k.Find,
			k.FindNext, k.FindPrev, k.CopyID, k.Export, k.Resume, k.ProjectFilter)
	},
	helpKeys: func(k *KeyMap) []key.Binding {
		return []key.Binding{k.Expand, k.ExpandAll, k.Thinking, k.NextPrompt, k.PrevPrompt, k.Find, k.FindOlder, k.FindNext, k.FindPrev,
			k.CopyID, k.Export, k.Resume}
	},
}

// The reader's keys: what each does, and the find box's.

func (p *readerPane) typing() bool { return p.find.typing() }

func (p *readerPane) key(k tea.KeyPressMsg) (bool, tea.Cmd) {
	if p.find.typing() {
		return true, p.findKey(k)
	}
	if p.conv == nil {
		return false, nil
	}
	if p.moveKey(k) {
		return true, nil
	}
	return p.actionKey(k)
}

// findKey handles a key while the find box has the keyboard.
func (p *readerPane) findKey(k tea.KeyPressMsg) tea.Cmd {
	act, cmd := p.find.key(k)
	switch act {
	case findSubmit:
		p.runFind(p.find.query, true, true)
	case findCancel:
		// The view is where it was when / was pressed.
		if f := p.find.from; f.cur < len(p.items) && f.topItem < len(p.items) {
			p.cur, p.topItem, p.topLine = f.cur, f.topItem, f.topLine
			p.needVisible = false
		}
	}
	return cmd
}

// moveKey moves the cursor or the view; false when k does neither.
func (p *readerPane) moveKey(k tea.KeyPressMsg) bool {
	return p.stepKey(k) || p.jumpKey(k)
}

// stepKey moves by an item, a page, or to either end.
func (p *readerPane) stepKey(k tea.KeyPressMsg) bool {
	km, h := p.c.keys, p.viewH()
	switch {
	case key.Matches(k, km.List.Up):
		p.setCursor(max(0, p.cur-1), false)
	case key.Matches(k, km.List.Down):
		p.down(h)
	case key.Matches(k, km.List.PageDown):
		p.scrollLines(max(1, h-2), h)
	case key.Matches(k, km.List.PageUp):
		p.scrollLines(-max(1, h-2), h)
	case key.Matches(k, km.List.Top):
		p.cur, p.topItem, p.topLine = 0, 0, 0
	case key.Matches(k, km.List.Bottom):
		p.cur = len(p.items) - 1
		p.toBottom(h)
	default:
		return false
	}
	return true
}

// jumpKey jumps to the next or previous prompt, or find's match.
func (p *readerPane) jumpKey(k tea.KeyPressMsg) bool {
	km := p.c.keys
	switch {
	case key.Matches(k, km.NextPrompt):
		p.jumpPrompt(1)
	case key.Matches(k, km.PrevPrompt):
		p.jumpPrompt(-1)
	case key.Matches(k, km.FindNext):
		p.nextMatch(1)
	case key.Matches(k, km.FindPrev):
		p.nextMatch(-1)
	default:
		return false
	}
	return true
}

// down moves to the next item; a long item scrolls before the cursor
// leaves it, and the last one scrolls to its end.
func (p *readerPane) down(h int) {
	if p.cur >= len(p.items)-1 {
		p.scrollLines(h/2, h)
		return
	}
	p.applyVisible(h)
	if end := p.itemEnd(p.cur); end > h {
		p.scrollLines(min(h/2, end-h), h)
		return
	}
	p.setCursor(p.cur+1, false)
}

// jumpPrompt puts the cursor on the next (d=1) or previous (d=-1) prompt
// of the main session.
func (p *readerPane) jumpPrompt(d int) {
	for i := p.cur + d; i >= 0 && i < len(p.items); i += d {
		if p.items[i].kind == kPrompt && p.items[i].depth == 0 {
			p.setCursor(i, true)
			return
		}
	}
}

// actionKey expands, finds, copies, exports or resumes.
func (p *readerPane) actionKey(k tea.KeyPressMsg) (bool, tea.Cmd) {
	km := p.c.keys
	switch {
	case key.Matches(k, km.Expand):
		p.toggle(p.cur)
	case key.Matches(k, km.ExpandAll):
		p.expandAll()
	case key.Matches(k, km.Thinking):
		p.toggleThinking()
	case key.Matches(k, km.Find):
		return true, p.find.open(findPos{p.cur, p.topItem, p.topLine})
	case key.Matches(k, km.CopyID):
		id := p.conv.Session.ID
		p.c.flashf("copied session id %s to the clipboard (OSC 52)", id)
		return true, tea.SetClipboard(id)
	case key.Matches(k, km.Export):
		return true, p.export()
	case key.Matches(k, km.Resume):
		return true, p.c.resume(p.conv.Session)
	case key.Matches(k, km.ProjectFilter):
		return true, msgCmd(scopeMsg{project: p.conv.Session.ProjectPath})
	default:
		return false, nil
	}
	return true, nil
}

// runFind finds q in the session (user: typed in /, else a search's
// words) and, jump, moves to the first match from the cursor on.
func (p *readerPane) runFind(q string, user, jump bool) {
	p.find.search(q, user, p.items)
	if jump {
		p.find.seek(p.cur)
		p.nextMatch(1)
	}
}

// nextMatch moves to the next (d=1) or previous (d=-1) match, expanding a
// tool call whose output holds it.
func (p *readerPane) nextMatch(d int) {
	i, ok := p.find.step(d)
	if !ok {
		return
	}
	it := p.items[i]
	if it.kind == kTool && it.result != nil && !p.expanded[it.key] && !p.find.inText(it.label) {
		p.expanded[it.key] = true
		p.rebuildKeep()
		if j := p.indexOfKey(it.key); j >= 0 {
			i = j
		}
	}
	p.setCursor(i, true)
}

func (p *readerPane) paste(msg tea.PasteMsg) tea.Cmd { return p.find.paste(msg) }

func (p *readerPane) help() []key.Binding {
	k := p.c.keys
	if p.find.typing() {
		return []key.Binding{k.FindDone, k.FindOlder, k.Cancel}
	}
	return []key.Binding{k.List.Down, k.Expand, k.NextPrompt, k.Thinking, k.Find, k.CopyID, k.Export, k.Resume}
}
