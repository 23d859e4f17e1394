package tui

import (
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
	c         *common
	drafts    []memories.Draft
	list      list
	filterIdx int
	loaded    bool
	err       error
	scrollOff int // lines of the selected draft scrolled off
	clicks    clickMap
}

var draftsPaneSpec = paneSpec{name: "Drafts", short: "Drafts",
	build: func(c *common) pane { return newDraftsPane(c) },
	keys: func(k *KeyMap, _ bool) []key.Binding {
		return append(k.List.bindings(), k.TextUp, k.TextDown, k.StatusFilter, k.Approve, k.Reject, k.Edit, k.Open)
	},
	helpKeys: func(k *KeyMap) []key.Binding {
		return []key.Binding{k.Approve, k.Reject, k.Edit, k.StatusFilter, k.TextDown, k.TextUp, k.Open}
	},
}

func newDraftsPane(c *common) *draftsPane { return &draftsPane{c: c} }

// loadData loads the list (dataLoader): at start and on refresh.
func (p *draftsPane) loadData() tea.Cmd { return p.load() }

// load asks for the drafts of the status filter.
func (p *draftsPane) load() tea.Cmd {
	svc, ctx := p.c.memories(), p.c.ctx
	if svc == nil {
		return nil
	}
	status := draftFilters[p.filterIdx]
	return func() tea.Msg {
		l, err := svc.Drafts.Drafts(ctx, status)
		return draftsMsg{list: l, err: err}
	}
}

func (p *draftsPane) data(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case draftsMsg:
		p.loaded, p.err = true, msg.err
		if msg.err == nil {
			p.setDrafts(msg.list)
		}
	case draftActionMsg:
		if msg.err != nil {
			p.c.flashError(msg.err)
		} else {
			p.c.flashf("%s", msg.text)
		}
		return tea.Batch(p.load(), msgCmd(memoriesChangedMsg{}))
	}
	return nil
}

// setDrafts shows a new list, the cursor staying on the same draft.
func (p *draftsPane) setDrafts(l []memories.Draft) {
	keep := ""
	if d := p.selected(); d != nil {
		keep = d.ID
	}
	p.drafts = l
	p.list.setLen(len(p.drafts))
	for i := range p.drafts {
		if p.drafts[i].ID == keep {
			p.list.set(i)
		}
	}
}

func (p *draftsPane) selected() *memories.Draft {
	if c := p.list.cursor; c >= 0 && c < len(p.drafts) {
		return &p.drafts[c]
	}
	return nil
}

func (p *draftsPane) typing() bool { return false }

func (p *draftsPane) key(k tea.KeyPressMsg) (bool, tea.Cmd) {
	km := p.c.keys
	switch {
	case p.list.navigate(k, km.List):
		p.scrollOff = 0
		return true, nil
	case key.Matches(k, km.TextDown):
		p.scrollOff += 10
		return true, nil
	case key.Matches(k, km.TextUp):
		p.scrollOff = max(0, p.scrollOff-10)
		return true, nil
	case key.Matches(k, km.StatusFilter):
		p.filterIdx = (p.filterIdx + 1) % len(draftFilters)
		return true, p.load()
	}
	d := p.selected()
	if d == nil || p.c.memories() == nil {
		return false, nil
	}
	return p.act(k, d)
}

// act applies a key to draft d.
func (p *draftsPane) act(k tea.KeyPressMsg, d *memories.Draft) (bool, tea.Cmd) {
	km, svc, ctx := p.c.keys, p.c.memories(), p.c.ctx
	id := d.ID
	switch {
	case key.Matches(k, km.Approve):
		return true, func() tea.Msg {
			_, res, err := svc.Drafts.ApproveDraft(ctx, id)
			if err != nil {
				return draftActionMsg{err: fmt.Errorf("approve draft %s: %w", id, err)}
			}
			return draftActionMsg{text: fmt.Sprintf("approved draft %s: stored as the session summary, %d memories proposed", id, len(res))}
		}
	case key.Matches(k, km.Reject):
		return true, func() tea.Msg {
			if err := svc.Drafts.RejectDraft(ctx, id); err != nil {
				return draftActionMsg{err: fmt.Errorf("reject draft %s: %w", id, err)}
			}
			return draftActionMsg{text: "rejected draft " + id}
		}
	case key.Matches(k, km.Edit):
		return true, msgCmd(openEditorMsg{target: editTarget{draftID: id}, title: "Editing draft " + id, text: d.Markdown})
	case key.Matches(k, km.Open):
		if d.SessionID != "" {
			return true, msgCmd(openSessionMsg{id: d.SessionID})
		}
	default:
		return false, nil
	}
	return true, nil
}

func (p *draftsPane) click(y int) tea.Cmd {
	if i := p.clicks.row(y); i >= 0 {
		p.list.set(i)
		p.scrollOff = 0
	}
	return nil
}

func (p *draftsPane) scroll(n int) { p.scrollOff = max(0, p.scrollOff+n) }

func (p *draftsPane) help() []key.Binding {
	k := p.c.keys
	return []key.Binding{k.Approve, k.Reject, k.Edit, k.Open, k.StatusFilter}
}

func (p *draftsPane) view() string {
	s, w, h := p.c.sty, p.c.lay.body.w, p.c.lay.body.h
	filt := draftFilters[p.filterIdx]
	if filt == "" {
		filt = "all"
	}
	lines := []string{s.Title.Render(fmt.Sprintf(" Drafts (%d %s)", len(p.drafts), filt))}
	if msg := p.state(filt); msg != nil {
		return strings.Join(append(lines, msg...), "\n")
	}
	listH := min(len(p.drafts), max(2, h/4))
	from, to := p.list.window(listH)
	p.clicks = clickMap{top: p.c.lay.body.y + len(lines), from: from, to: to, per: 1}
	for i := from; i < to; i++ {
		d := p.drafts[i]
		row := fmt.Sprintf(" %s  %s  %s  %s  %s", d.ID, d.Status, p.c.fmtTime(d.Created), lastElem(sanitizeLine(d.Project)),
			sanitizeLine(firstHeading(d.Markdown)))
		lines = append(lines, p.c.rowStyle(i == p.list.cursor, pad(row, w)))
	}
	lines = append(lines, s.Subtle.Render(strings.Repeat("─", w)))
	return strings.Join(append(lines, p.text(w, h-len(lines))...), "\n")
}

// state is what the pane shows instead of drafts: unavailable, an error,
// loading, none.
func (p *draftsPane) state(filt string) []string {
	if st := p.c.memLoadState("Drafts", "drafts", p.err, p.loaded); st != nil || len(p.drafts) > 0 {
		return st
	}
	s := p.c.sty
	return []string{"", s.Muted.Render(" No " + filt + " drafts."),
		s.Muted.Render(" /summarize in Claude Code sends a draft summary here (cairn drafts add); s changes the filter.")}
}

// text is the selected draft's Markdown, scrolled, in room lines.
func (p *draftsPane) text(w, room int) []string {
	d := p.selected()
	if d == nil {
		return nil
	}
	md := p.c.markdown(sanitize(d.Markdown), w-2)
	off := min(p.scrollOff, max(0, len(md)-room))
	p.scrollOff = off
	md = md[off:]
	if len(md) > room {
		md = md[:room]
	}
	return md
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
