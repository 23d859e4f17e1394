package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/transcripts"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

type projectsMsg struct {
	list   []transcripts.ProjectSummary
	cached bool // from the last run's list, while the store is asked
	err    error
}

// projectsCacheKey holds the project list of the last run, so the first
// frame can show it before the (slower, on a big store) query returns.
const projectsCacheKey = "tui.projects"

func (m *Model) loadCachedProjects() tea.Cmd {
	st := m.cfg.Store
	return func() tea.Msg {
		b, ok, err := st.Setting(projectsCacheKey)
		if err != nil || !ok {
			return nil
		}
		var l []transcripts.ProjectSummary
		if json.Unmarshal(b, &l) != nil {
			return nil
		}
		return projectsMsg{list: l, cached: true}
	}
}

// saveProjectsCache stores the project list for the next start.
func (m *Model) saveProjectsCache() {
	if !m.projects.fresh || m.projects.all == nil {
		return
	}
	if b, err := json.Marshal(m.projects.all); err == nil {
		_ = m.cfg.Store.SetSetting(projectsCacheKey, b)
	}
}

func (m *Model) loadProjects() tea.Cmd {
	st := m.cfg.Store
	return func() tea.Msg {
		l, err := st.Projects()
		return projectsMsg{list: l, err: err}
	}
}

// projectsPane lists projects, most recently used first.
type projectsPane struct {
	all, shown []transcripts.ProjectSummary
	list       listState
	filter     textinput.Model
	filtering  bool
	ready      bool
	fresh      bool // the list came from the store (not the cache)
	clicks     clickMap
	err        error
}

func newProjectsPane() *projectsPane {
	ti := newInput("filter: ", "part of a path")
	return &projectsPane{filter: ti}
}

func (p *projectsPane) loaded(m *Model, msg projectsMsg) tea.Cmd {
	if msg.cached && p.fresh {
		return nil // the store already answered
	}
	if !msg.cached && msg.err == nil {
		p.fresh = true
	}
	p.ready = true
	p.err = msg.err
	if msg.err != nil {
		return nil
	}
	var keep string
	if s := p.selected(); s != nil {
		keep = s.Name
	}
	p.all = msg.list
	p.apply()
	for i := range p.shown {
		if p.shown[i].Name == keep {
			p.list.cursor = i
		}
	}
	return nil
}

func (p *projectsPane) apply() {
	q := strings.ToLower(strings.TrimSpace(p.filter.Value()))
	p.shown = p.shown[:0:0]
	for _, ps := range p.all {
		if q == "" || strings.Contains(strings.ToLower(ps.Path), q) || strings.Contains(strings.ToLower(ps.Name), q) {
			p.shown = append(p.shown, ps)
		}
	}
	p.list.setLen(len(p.shown))
}

func (p *projectsPane) selected() *transcripts.ProjectSummary {
	if p.list.cursor < len(p.shown) && p.list.cursor >= 0 && len(p.shown) > 0 {
		return &p.shown[p.list.cursor]
	}
	return nil
}

func (p *projectsPane) typing() bool { return p.filtering }

func (p *projectsPane) key(m *Model, k tea.KeyPressMsg) (bool, tea.Cmd) {
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
			p.apply()
			return true, nil
		case k.String() == "up" || k.String() == "down":
			p.list.move(map[string]int{"up": -1, "down": 1}[k.String()])
			return true, nil
		}
		var cmd tea.Cmd
		p.filter, cmd = p.filter.Update(k)
		p.apply()
		return true, cmd
	}
	switch {
	case key.Matches(k, km.Up):
		p.list.move(-1)
	case key.Matches(k, km.Down):
		p.list.move(1)
	case key.Matches(k, km.PageUp):
		p.list.move(-max(1, m.h-6))
	case key.Matches(k, km.PageDown):
		p.list.move(max(1, m.h-6))
	case key.Matches(k, km.Top):
		p.list.cursor = 0
	case key.Matches(k, km.Bottom):
		p.list.cursor = p.list.n - 1
	case key.Matches(k, km.Filter):
		p.filtering = true
		return true, p.filter.Focus()
	case key.Matches(k, km.Open):
		if s := p.selected(); s != nil {
			return true, m.openProject(s)
		}
	case key.Matches(k, km.Back) && p.filter.Value() != "":
		p.filter.SetValue("")
		p.apply()
	default:
		return false, nil
	}
	return true, nil
}

func (p *projectsPane) scroll(m *Model, n int) { p.list.move(n) }

// click selects the row under the mouse; a click on the selected row opens it.
func (p *projectsPane) click(m *Model, y int) tea.Cmd {
	i := p.clicks.row(y)
	if i < 0 {
		return nil
	}
	if i == p.list.cursor {
		if s := p.selected(); s != nil {
			return m.openProject(s)
		}
	}
	p.list.cursor = i
	return nil
}

func (p *projectsPane) paste(m *Model, msg tea.PasteMsg) tea.Cmd {
	var cmd tea.Cmd
	p.filter, cmd = p.filter.Update(msg)
	p.apply()
	return cmd
}

func (p *projectsPane) help(k *KeyMap) []key.Binding {
	if p.filtering {
		return []key.Binding{key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "done"))}
	}
	return []key.Binding{k.Down, k.Open, k.Filter}
}

func (p *projectsPane) view(m *Model, w, h int) string {
	s := m.sty
	title := fmt.Sprintf(" Projects (%d)", len(p.shown))
	if len(p.shown) != len(p.all) {
		title = fmt.Sprintf(" Projects (%d of %d)", len(p.shown), len(p.all))
	}
	lines := []string{s.Title.Render(title)}
	if p.filtering || p.filter.Value() != "" {
		p.filter.SetWidth(w - 12)
		lines = append(lines, " "+p.filter.View())
	}
	switch {
	case p.err != nil:
		lines = append(lines, "", s.Error.Render(" Could not list projects: "+sanitizeLine(p.err.Error())),
			s.Muted.Render(" Check the data folder (--data) is readable; ctrl+r retries."))
		return strings.Join(lines, "\n")
	case !p.ready:
		return strings.Join(append(lines, s.Muted.Render(" loading…")), "\n")
	case len(p.all) == 0:
		lines = append(lines, "", s.Muted.Render(" No sessions yet."))
		if m.indexing != nil {
			lines = append(lines, s.Muted.Render(" Indexing is running: projects appear as they are read."))
		} else {
			lines = append(lines, s.Muted.Render(" cairn reads Claude Code transcripts from ~/.claude/projects (or --claude-dir)."),
				s.Muted.Render(" Try `cairn --demo` to see the bundled sample."))
		}
		return strings.Join(lines, "\n")
	}
	numW := 9
	lastW := 11
	sizeW := 9
	pathW := w - numW - lastW - sizeW - 4
	hdr := " " + pad("PATH", pathW) + padLeft("SESSIONS", numW) + padLeft("LAST USED", lastW) + padLeft("SIZE", sizeW)
	lines = append(lines, s.Muted.Render(pad(hdr, w)))
	rows := h - len(lines)
	from, to := p.list.window(rows)
	p.clicks = clickMap{top: 1 + len(lines), from: from, to: to, per: 1}
	for i := from; i < to; i++ {
		ps := p.shown[i]
		size := fmtBytes(ps.Size)
		if ps.Size == 0 {
			size = "archived"
		}
		row := " " + pad(truncLeft(sanitizeLine(shortPath(ps.Path)), pathW-1), pathW) +
			padLeft(fmt.Sprint(ps.Sessions), numW) + padLeft(m.fmtAgo(ps.LastUsed), lastW) + padLeft(size, sizeW)
		lines = append(lines, m.rowStyle(i == p.list.cursor, pad(row, w)))
	}
	return strings.Join(lines, "\n")
}

// rowStyle marks the selected row: a ▌ in the gutter (visible without
// colour) plus the selection style.
func (m *Model) rowStyle(sel bool, row string) string {
	if !sel {
		return row
	}
	if strings.HasPrefix(row, " ") {
		row = "▌" + row[1:]
	}
	return m.sty.Selected.Render(row)
}

// openProject shows the project's sessions in the timeline.
func (m *Model) openProject(ps *transcripts.ProjectSummary) tea.Cmd {
	cp := *ps
	m.timeline.project = &cp
	m.timeline.list = listState{}
	m.back = append(m.back, m.focus)
	m.focus = paneTimeline
	return m.loadSessions()
}
