package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/memories"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

type (
	draftsMsg struct {
		list []memories.Draft
		err  error
	}
	draftActionMsg struct {
		text string
		err  error
	}
)

var draftFilters = []string{"pending", "approved", "rejected", ""}

// draftsPane lists /summarize drafts: read, edit, approve, reject.
type draftsPane struct {
	list      []memories.Draft
	ls        listState
	filterIdx int
	loaded    bool
	err       error
	scrollOff int // lines of the selected draft scrolled off
	clicks    clickMap
}

func newDraftsPane() *draftsPane { return &draftsPane{} }

func (m *Model) loadDrafts() tea.Cmd {
	svc := m.cfg.Memories
	if svc == nil {
		return nil
	}
	status := draftFilters[m.drafts.filterIdx]
	return func() tea.Msg {
		l, err := svc.Drafts(context.Background(), status)
		return draftsMsg{list: l, err: err}
	}
}

func (p *draftsPane) data(m *Model, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case draftsMsg:
		p.loaded, p.err = true, msg.err
		if msg.err == nil {
			keep := ""
			if d := p.selected(); d != nil {
				keep = d.ID
			}
			p.list = msg.list
			p.ls.setLen(len(p.list))
			for i := range p.list {
				if p.list[i].ID == keep {
					p.ls.cursor = i
				}
			}
		}
	case draftActionMsg:
		if msg.err != nil {
			m.flashError(msg.err)
		} else {
			m.flashf("%s", msg.text)
		}
		return tea.Batch(m.loadDrafts(), m.loadMemories())
	}
	return nil
}

func (p *draftsPane) selected() *memories.Draft {
	if c := p.ls.cursor; c >= 0 && c < len(p.list) {
		return &p.list[c]
	}
	return nil
}

func (p *draftsPane) typing() bool { return false }

func (p *draftsPane) key(m *Model, k tea.KeyPressMsg) (bool, tea.Cmd) {
	km := &m.keys
	svc := m.cfg.Memories
	switch {
	case key.Matches(k, km.Up):
		p.ls.move(-1)
		p.scrollOff = 0
		return true, nil
	case key.Matches(k, km.Down):
		p.ls.move(1)
		p.scrollOff = 0
		return true, nil
	case key.Matches(k, km.PageDown):
		p.scrollOff += 10
		return true, nil
	case key.Matches(k, km.PageUp):
		p.scrollOff = max(0, p.scrollOff-10)
		return true, nil
	case key.Matches(k, km.StatusFilter):
		p.filterIdx = (p.filterIdx + 1) % len(draftFilters)
		return true, m.loadDrafts()
	}
	d := p.selected()
	if d == nil || svc == nil {
		return false, nil
	}
	id := d.ID
	switch {
	case key.Matches(k, km.Approve):
		return true, func() tea.Msg {
			_, res, err := svc.ApproveDraft(context.Background(), id)
			if err != nil {
				return draftActionMsg{err: fmt.Errorf("approve draft %s: %w", id, err)}
			}
			return draftActionMsg{text: fmt.Sprintf("approved draft %s: stored as the session summary, %d memories proposed", id, len(res))}
		}
	case key.Matches(k, km.Reject):
		return true, func() tea.Msg {
			if err := svc.RejectDraft(context.Background(), id); err != nil {
				return draftActionMsg{err: fmt.Errorf("reject draft %s: %w", id, err)}
			}
			return draftActionMsg{text: "rejected draft " + id}
		}
	case key.Matches(k, km.Edit):
		return true, m.openEditor(editTarget{draftID: id}, "Editing draft "+id, d.Markdown)
	case key.Matches(k, km.Open):
		if d.SessionID != "" {
			return true, m.openSession(d.SessionID, "")
		}
	default:
		return false, nil
	}
	return true, nil
}

func (p *draftsPane) click(m *Model, y int) tea.Cmd {
	if i := p.clicks.row(y); i >= 0 {
		p.ls.cursor, p.scrollOff = i, 0
	}
	return nil
}

func (p *draftsPane) scroll(m *Model, n int) { p.scrollOff = max(0, p.scrollOff+n) }

func (p *draftsPane) help(k *KeyMap) []key.Binding {
	return []key.Binding{k.Approve, k.Reject, k.Edit, k.Open, k.StatusFilter}
}

func (p *draftsPane) view(m *Model, w, h int) string {
	s := m.sty
	filt := draftFilters[p.filterIdx]
	if filt == "" {
		filt = "all"
	}
	lines := []string{s.Title.Render(fmt.Sprintf(" Drafts (%d %s)", len(p.list), filt))}
	switch {
	case m.cfg.Memories == nil:
		return strings.Join(append(lines, "", s.Muted.Render(" Drafts are not available.")), "\n")
	case p.err != nil:
		return strings.Join(append(lines, "", s.Error.Render(" Could not list drafts: "+sanitizeLine(p.err.Error())),
			s.Muted.Render(" ctrl+r retries.")), "\n")
	case !p.loaded:
		return strings.Join(append(lines, s.Muted.Render(" loading…")), "\n")
	case len(p.list) == 0:
		return strings.Join(append(lines, "", s.Muted.Render(" No "+filt+" drafts."),
			s.Muted.Render(" /summarize in Claude Code sends a draft summary here (cairn drafts add); s changes the filter.")), "\n")
	}
	listH := min(len(p.list), max(2, h/4))
	from, to := p.ls.window(listH)
	p.clicks = clickMap{top: 1 + len(lines), from: from, to: to, per: 1}
	for i := from; i < to; i++ {
		d := p.list[i]
		row := fmt.Sprintf(" %s  %s  %s  %s  %s", d.ID, d.Status, m.fmtTime(d.Created), lastElem(sanitizeLine(d.Project)),
			sanitizeLine(firstHeading(d.Markdown)))
		lines = append(lines, m.rowStyle(i == p.ls.cursor, pad(row, w)))
	}
	lines = append(lines, s.Subtle.Render(strings.Repeat("─", w)))
	if d := p.selected(); d != nil {
		md := m.reader.markdown(m, sanitize(d.Markdown), w-2)
		room := h - len(lines)
		off := min(p.scrollOff, max(0, len(md)-room))
		p.scrollOff = off
		md = md[off:]
		if len(md) > room {
			md = md[:room]
		}
		lines = append(lines, md...)
	}
	return strings.Join(lines, "\n")
}

func firstHeading(md string) string {
	for _, l := range strings.Split(md, "\n") {
		l = strings.TrimSpace(strings.TrimLeft(l, "# "))
		if l != "" {
			return l
		}
	}
	return ""
}
