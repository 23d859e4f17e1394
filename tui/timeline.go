package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/transcripts"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

type sessionsMsg struct {
	project string // folder name asked for ("" = all)
	list    []*transcripts.Session
	err     error
}

func (m *Model) loadSessions() tea.Cmd {
	st := m.cfg.Store
	var name string
	if p := m.timeline.project; p != nil {
		name = p.Name
	}
	m.timeline.loading = true
	return func() tea.Msg {
		f := index.SessionFilter{Project: name}
		if name == "" {
			f.Limit = 2000
		}
		l, err := st.Sessions(f)
		if name != "" {
			// The filter matches text in paths: keep this project only.
			out := l[:0]
			for _, s := range l {
				if s.Project == name {
					out = append(out, s)
				}
			}
			l = out
		}
		return sessionsMsg{project: name, list: l, err: err}
	}
}

var dateRanges = []struct {
	name string
	d    time.Duration
}{{"any time", 0}, {"today", 24 * time.Hour}, {"last 7 days", 7 * 24 * time.Hour}, {"last 30 days", 30 * 24 * time.Hour}}

type tlRow struct {
	day string               // a day header when sess is nil
	s   *transcripts.Session // a session row
}

// timelinePane lists a project's sessions grouped by day.
type timelinePane struct {
	project   *transcripts.ProjectSummary // nil = every project
	all       []*transcripts.Session
	rows      []tlRow
	list      listState
	filter    textinput.Model
	filtering bool
	dateIdx   int
	loaded    bool
	loading   bool
	err       error
	clicks    clickMap
}

func newTimelinePane() *timelinePane {
	ti := newInput("filter: ", "words in titles, prompts or branches")
	return &timelinePane{filter: ti}
}

func (p *timelinePane) loadedSessions(m *Model, msg sessionsMsg) tea.Cmd {
	cur := ""
	if p.project != nil {
		cur = p.project.Name
	}
	if msg.project != cur {
		return nil // an older request
	}
	p.loaded, p.loading, p.err = true, false, msg.err
	if msg.err != nil {
		return nil
	}
	keep := ""
	if s := p.selected(); s != nil {
		keep = s.ID
	}
	p.all = msg.list
	p.apply(m)
	if keep != "" {
		for i, r := range p.rows {
			if r.s != nil && r.s.ID == keep {
				p.list.cursor = i
			}
		}
	}
	return nil
}

func (p *timelinePane) apply(m *Model) {
	q := strings.ToLower(strings.TrimSpace(p.filter.Value()))
	var since time.Time
	if d := dateRanges[p.dateIdx].d; d > 0 {
		now := m.cfg.Now().In(m.cfg.Location)
		if d == 24*time.Hour {
			since = time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, m.cfg.Location)
		} else {
			since = now.Add(-d)
		}
	}
	p.rows = p.rows[:0:0]
	lastDay := ""
	for _, s := range p.all {
		if !since.IsZero() && s.End.Before(since) {
			continue
		}
		if q != "" && !strings.Contains(strings.ToLower(s.Title+" "+s.FirstPrompt+" "+strings.Join(s.Branches, " ")+" "+s.ID), q) {
			continue
		}
		day := s.Start.In(m.cfg.Location).Format("Monday 2 January 2006")
		if day != lastDay {
			p.rows = append(p.rows, tlRow{day: day})
			lastDay = day
		}
		p.rows = append(p.rows, tlRow{s: s})
	}
	p.list.setLen(len(p.rows))
	p.skipHeader(1)
}

// skipHeader moves the cursor off day headers in direction d.
func (p *timelinePane) skipHeader(d int) {
	for p.list.cursor >= 0 && p.list.cursor < len(p.rows) && p.rows[p.list.cursor].s == nil {
		next := p.list.cursor + d
		if next < 0 || next >= len(p.rows) {
			d = -d
			next = p.list.cursor + d
			if next < 0 || next >= len(p.rows) {
				return
			}
		}
		p.list.cursor = next
	}
}

func (p *timelinePane) move(n int) {
	p.list.move(n)
	d := 1
	if n < 0 {
		d = -1
	}
	p.skipHeader(d)
}

func (p *timelinePane) selected() *transcripts.Session {
	if c := p.list.cursor; c >= 0 && c < len(p.rows) {
		return p.rows[c].s
	}
	return nil
}

func (p *timelinePane) typing() bool { return p.filtering }

func (p *timelinePane) key(m *Model, k tea.KeyPressMsg) (bool, tea.Cmd) {
	km := &m.keys
	if p.filtering {
		switch {
		case k.String() == "enter":
			p.filtering = false
			p.filter.Blur()
			return true, nil
		case key.Matches(k, km.Back):
			p.filtering = false
			p.filter.Blur()
			p.filter.SetValue("")
			p.apply(m)
			return true, nil
		case k.String() == "up" || k.String() == "down":
			p.move(map[string]int{"up": -1, "down": 1}[k.String()])
			return true, nil
		}
		var cmd tea.Cmd
		p.filter, cmd = p.filter.Update(k)
		p.apply(m)
		return true, cmd
	}
	switch {
	case key.Matches(k, km.Up):
		p.move(-1)
	case key.Matches(k, km.Down):
		p.move(1)
	case key.Matches(k, km.PageUp):
		p.move(-max(1, m.h-6))
	case key.Matches(k, km.PageDown):
		p.move(max(1, m.h-6))
	case key.Matches(k, km.Top):
		p.list.cursor = 0
		p.skipHeader(1)
	case key.Matches(k, km.Bottom):
		p.list.cursor = p.list.n - 1
		p.skipHeader(-1)
	case key.Matches(k, km.Filter):
		p.filtering = true
		return true, p.filter.Focus()
	case key.Matches(k, km.DateFilter):
		p.dateIdx = (p.dateIdx + 1) % len(dateRanges)
		p.apply(m)
	case key.Matches(k, km.Open):
		if s := p.selected(); s != nil {
			return true, m.openSession(s.ID, "")
		}
	case key.Matches(k, km.Resume):
		return true, m.resume(p.selected())
	case key.Matches(k, km.Back) && (p.filter.Value() != "" || p.dateIdx != 0):
		p.filter.SetValue("")
		p.dateIdx = 0
		p.apply(m)
	default:
		return false, nil
	}
	return true, nil
}

func (p *timelinePane) scroll(m *Model, n int) { p.move(n) }

func (p *timelinePane) click(m *Model, y int) tea.Cmd {
	i := p.clicks.row(y)
	if i < 0 || p.rows[i].s == nil {
		return nil
	}
	if i == p.list.cursor {
		return m.openSession(p.rows[i].s.ID, "")
	}
	p.list.cursor = i
	return nil
}

func (p *timelinePane) paste(m *Model, msg tea.PasteMsg) tea.Cmd {
	var cmd tea.Cmd
	p.filter, cmd = p.filter.Update(msg)
	p.apply(m)
	return cmd
}

func (p *timelinePane) help(k *KeyMap) []key.Binding {
	if p.filtering {
		return []key.Binding{key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "done"))}
	}
	return []key.Binding{k.Open, k.Resume, k.Filter, k.DateFilter}
}

func (p *timelinePane) view(m *Model, w, h int) string {
	s := m.sty
	scope := "all projects"
	if p.project != nil {
		scope = shortPath(sanitizeLine(p.project.Path))
	}
	n := 0
	for _, r := range p.rows {
		if r.s != nil {
			n++
		}
	}
	title := fmt.Sprintf(" Timeline · %s (%d sessions", truncLeft(scope, w-40), n)
	if p.dateIdx > 0 {
		title += ", " + dateRanges[p.dateIdx].name
	}
	title += ")"
	lines := []string{s.Title.Render(title)}
	if p.filtering || p.filter.Value() != "" {
		p.filter.SetWidth(w - 12)
		lines = append(lines, " "+p.filter.View())
	}
	switch {
	case p.err != nil:
		return strings.Join(append(lines, "", s.Error.Render(" Could not list sessions: "+sanitizeLine(p.err.Error())),
			s.Muted.Render(" ctrl+r retries; the store may be busy or damaged (cairn index --rebuild).")), "\n")
	case !p.loaded:
		return strings.Join(append(lines, s.Muted.Render(" loading…")), "\n")
	case len(p.rows) == 0:
		msg := " No sessions here."
		if p.filter.Value() != "" || p.dateIdx > 0 {
			msg = " No sessions match: esc clears the filters."
		}
		return strings.Join(append(lines, "", s.Muted.Render(msg)), "\n")
	}
	wide := w >= 110
	fixed := 1 + 7 + 8 + 5 + 8 + 4
	modelW, branchW := 0, 0
	if wide {
		modelW, branchW = 18, 16
		fixed += modelW + branchW
	}
	if p.project == nil {
		fixed += 0
	}
	titleW := w - fixed
	hdr := " " + pad("START", 7) + pad("TITLE", titleW) + padLeft("DUR", 8) + padLeft("PR", 5) + padLeft("TOKENS", 8)
	if wide {
		hdr += "  " + pad("MODEL", modelW-2) + pad("BRANCH", branchW)
	}
	hdr += pad("", 4)
	lines = append(lines, s.Muted.Render(pad(hdr, w)))
	rows := h - len(lines) - 1 // one line for the selected session's details
	from, to := p.list.window(rows)
	p.clicks = clickMap{top: 1 + len(lines), from: from, to: to, per: 1}
	for i := from; i < to; i++ {
		r := p.rows[i]
		if r.s == nil {
			lines = append(lines, s.Bold.Render(pad(" "+r.day, w)))
			continue
		}
		ss := r.s
		title := ss.Title
		if title == "" {
			title = transcripts.OneLine(ss.FirstPrompt, 200)
		}
		if title == "" {
			title = "(untitled)"
		}
		if p.project == nil {
			title = lastElem(ss.ProjectPath) + " · " + title
		}
		marks := ""
		if len(ss.Subagents) > 0 {
			marks += "⑂"
		}
		if !ss.SourceExists {
			marks += "⌫"
		}
		row := " " + pad(m.fmtClock(ss.Start), 7) + pad(sanitizeLine(title), titleW-1) + " " + padLeft(fmtDuration(ss.Duration()), 8) +
			padLeft(fmt.Sprint(ss.Prompts), 5) + padLeft(fmtCount(ss.Usage.Total()), 8)
		if wide {
			row += "  " + pad(strings.Join(ss.Models, ","), modelW-2) + pad(sanitizeLine(strings.Join(ss.Branches, ",")), branchW)
		}
		row += " " + pad(marks, 3)
		lines = append(lines, m.rowStyle(i == p.list.cursor, pad(row, w)))
	}
	for len(lines) < h-1 {
		lines = append(lines, "")
	}
	if ss := p.selected(); ss != nil {
		var d []string
		d = append(d, ss.ID[:min(8, len(ss.ID))])
		if len(ss.Models) > 0 {
			d = append(d, strings.Join(ss.Models, ","))
		}
		if len(ss.Branches) > 0 {
			d = append(d, "⎇ "+sanitizeLine(strings.Join(ss.Branches, ",")))
		}
		d = append(d, fmt.Sprintf("%d tools", ss.ToolCalls))
		if n := len(ss.Subagents); n > 0 {
			d = append(d, fmt.Sprintf("%d subagents", n))
		}
		if ss.Compactions > 0 {
			d = append(d, fmt.Sprintf("%d compactions", ss.Compactions))
		}
		if !ss.SourceExists {
			d = append(d, "archived: files deleted, kept by cairn")
		}
		lines = append(lines, s.Muted.Render(pad(" "+strings.Join(d, " · "), w)))
	}
	return strings.Join(lines, "\n")
}

func lastElem(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
