package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// View draws the screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "cairn"
	if m.firstFrame.IsZero() && m.projects.ready {
		m.firstFrame = time.Now()
		trace("first-frame-ms %.1f projects %d", float64(m.firstFrame.Sub(processStart).Microseconds())/1000, len(m.projects.all))
	}
	return v
}

// render is the whole screen as a string, exactly w×h cells: the regions
// of the layout top to bottom.
func (m *Model) render() string {
	lay := m.c.lay
	var body string
	switch {
	case m.editor != nil:
		body = m.editor.view()
	case m.showHelp:
		body = m.helpView(lay.body)
	default:
		body = m.panes[m.focus].view()
	}
	lines := strings.Split(body, "\n")
	if pop := m.status.popup(); pop != nil {
		// A long message, whole, over the bottom of the body.
		lines = strings.Split(fitLines(lines, lay.body.w, lay.body.h), "\n")
		lines = append(lines[:max(0, len(lines)-len(pop))], pop...)
	}
	body = fitLines(lines, lay.body.w, lay.body.h)
	return strings.Join([]string{m.tabBar(lay.tabs.w), body, m.helpLine(lay.help.w), m.status.view()}, "\n")
}

// tabLabels are the tab titles, shortened when they do not fit.
func (m *Model) tabLabels() []string {
	out := m.labels(false)
	total := lipgloss.Width(m.brand())
	if m.scopeSel != nil {
		// A project scope is always shown; every project only when
		// there is room (the panes' headings say it too).
		total += lipgloss.Width(m.scopeLabel()) + 2
	}
	for _, l := range out {
		total += lipgloss.Width(l) + 2
	}
	if total > m.c.lay.tabs.w {
		out = m.labels(true)
	}
	return out
}

// labels are the tabs' titles (short: their short titles).
func (m *Model) labels(short bool) []string {
	out := make([]string, numPanes)
	for i, s := range paneRegistry {
		n := s.name
		if short {
			n = s.short
		}
		l := fmt.Sprintf("%d %s", i+1, n)
		switch {
		case i == paneMemories && m.pending > 0:
			l += fmt.Sprintf(" (%d)", m.pending) // a count, not a pane number
		case i == paneDrafts && m.draftsN > 0:
			l += fmt.Sprintf(" (%d)", m.draftsN)
		}
		out[i] = l
	}
	return out
}

func (m *Model) brand() string {
	if m.cfg.Banner != "" {
		return " cairn " + m.cfg.Banner + " "
	}
	return " cairn "
}

func (m *Model) tabBar(w int) string {
	sty := m.c.sty
	var b strings.Builder
	b.WriteString(sty.Title.Render(m.brand()))
	for i, l := range m.tabLabels() {
		if i == m.focus {
			b.WriteString(sty.TabActive.Render("[" + l + "]"))
		} else {
			b.WriteString(sty.Tab.Render(" " + l + " "))
		}
	}
	// The scope, at the right: what every pane is limited to (every
	// project only when it fits whole).
	room := w - lipgloss.Width(b.String()) - 1
	if room >= 5 && (m.scopeSel != nil || lipgloss.Width(m.scopeLabel()) <= room) {
		scope := trunc(m.scopeLabel(), room)
		b.WriteString(strings.Repeat(" ", room-lipgloss.Width(scope)))
		b.WriteString(sty.Muted.Render(scope))
	}
	return pad(b.String(), w)
}

// tabAt maps a column of the tab bar to a pane (-1: none).
func (m *Model) tabAt(x int) int {
	pos := lipgloss.Width(m.brand())
	for i, l := range m.tabLabels() {
		wl := lipgloss.Width(l) + 2
		if x >= pos && x < pos+wl {
			return i
		}
		pos += wl
	}
	return -1
}

// helpBindings are the keys the help line shows: the pane's, then the
// trailing ones every pane ends with (kept when the pane's do not fit).
func (m *Model) helpBindings() (pane, tail []key.Binding) {
	k := &m.keys
	switch {
	case m.editor != nil:
		return m.editor.help(), nil
	case m.showHelp:
		return nil, []key.Binding{k.Help, k.Back}
	}
	p := m.panes[m.focus]
	switch {
	case m.focus == paneSearch:
		return p.help(), []key.Binding{k.ClearQuery, k.HelpAnywhere}
	case p.typing():
		return p.help(), []key.Binding{k.Back, k.HelpAnywhere}
	}
	return p.help(), []key.Binding{k.Help, k.Quit}
}

func (m *Model) helpLine(w int) string {
	sty := m.c.sty
	item := func(b key.Binding) (string, int) {
		hp := b.Help()
		return sty.HelpKey.Render(hp.Key) + " " + sty.HelpDesc.Render(hp.Desc), lipgloss.Width(hp.Key) + 1 + lipgloss.Width(hp.Desc)
	}
	pane, tail := m.helpBindings()
	var tails []string
	used := 0
	for _, b := range tail {
		s, iw := item(b)
		tails = append(tails, s)
		used += iw + 3
	}
	var parts []string
	for _, b := range pane {
		if !b.Enabled() {
			continue
		}
		s, iw := item(b)
		if used+iw+3 > w-1 {
			break
		}
		parts = append(parts, s)
		used += iw + 3
	}
	return pad(" "+strings.Join(append(parts, tails...), sty.Subtle.Render(" · ")), w)
}

// helpView is the full help screen: the focused pane's keys and those of
// every pane first, then the other panes', in columns wide enough for
// every label (helpColW); j/k scroll what does not fit.
func (m *Model) helpView(r rect) string {
	cols := max(1, r.w/helpColW)
	colW := r.w / cols
	avail := max(3, r.h-1)
	out := helpBands(m.helpColumns(colW, avail), cols, colW)
	hint := " Keys of " + paneName(m.focus) + " first, then every pane's — ? or esc closes"
	if len(out) > avail {
		m.helpOff = min(max(0, m.helpOff), len(out)-avail)
		out = out[m.helpOff : m.helpOff+avail]
		hint += " · j/k scroll"
	}
	return strings.Join(append([]string{m.c.sty.Muted.Render(trunc(hint, r.w))}, out...), "\n")
}

// helpColW is the width of a column of the help screen: the longest
// label of the keymap fits (keys_test.go).
const helpColW = 40

// helpColumns packs the key groups into columns of at most avail lines,
// top to bottom.
func (m *Model) helpColumns(colW, avail int) [][]string {
	sty := m.c.sty
	var columns [][]string
	var cur []string
	for _, g := range m.helpGroups() {
		lines := []string{sty.Title.Render(g.Title)}
		keyW := 0
		for _, b := range g.Keys {
			keyW = max(keyW, lipgloss.Width(b.Help().Key))
		}
		for _, b := range g.Keys {
			hp := b.Help()
			lines = append(lines, trunc(sty.HelpKey.Render(padLeft(hp.Key, keyW))+" "+sty.HelpDesc.Render(hp.Desc), colW-1))
		}
		if len(cur) > 0 && len(cur)+1+len(lines) > avail {
			columns = append(columns, cur)
			cur = nil
		}
		if len(cur) > 0 {
			cur = append(cur, "")
		}
		cur = append(cur, lines...)
	}
	return append(columns, cur)
}

// helpBands lays columns out side by side, cols at a time.
func helpBands(columns [][]string, cols, colW int) []string {
	var out []string
	for i := 0; i < len(columns); i += cols {
		band := columns[i:min(len(columns), i+cols)]
		height := 0
		for _, c := range band {
			height = max(height, len(c))
		}
		for r := 0; r < height; r++ {
			var row strings.Builder
			for _, c := range band {
				cell := ""
				if r < len(c) {
					cell = c[r]
				}
				row.WriteString(pad(cell, colW))
			}
			out = append(out, row.String())
		}
	}
	return out
}

// helpGroups are the keymap's groups for the ? sheet: the focused pane's
// first, with the keys of every pane (and the list keys it moves with),
// then the rest.
func (m *Model) helpGroups() []keyGroup {
	all := m.keys.FullHelp()
	own := paneName(m.focus)
	var first, common, rest []keyGroup
	for _, g := range all {
		switch {
		case g.Title == own:
			first = append(first, g)
		case g.Title == "Everywhere":
			common = append([]keyGroup{g}, common...)
		case g.Title == "Lists" && m.focus != paneReader && m.focus != paneSearch:
			common = append(common, g)
		default:
			rest = append(rest, g)
		}
	}
	return append(append(first, common...), rest...)
}
