package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/transcripts"

	"charm.land/bubbles/v2/key"
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

// loadCached reads the last run's project list.
func (p *projectsPane) loadCached() tea.Cmd {
	st, ctx := p.c.store(), p.c.ctx
	return func() tea.Msg {
		b, ok, err := st.Setting(ctx, projectsCacheKey)
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

// saveCache stores the project list for the next start.
func (p *projectsPane) saveCache() {
	if !p.fresh || p.all == nil {
		return
	}
	if b, err := json.Marshal(p.all); err == nil {
		_ = p.c.store().SetSetting(context.WithoutCancel(p.c.ctx), projectsCacheKey, b) // saved at quit, after the context ends
	}
}

// load asks the store for the projects.
func (p *projectsPane) load() tea.Cmd {
	st, ctx := p.c.store(), p.c.ctx
	return func() tea.Msg {
		if ctx.Err() != nil {
			return nil
		}
		l, err := st.Projects(ctx)
		return projectsMsg{list: l, err: err}
	}
}

// projectsPane lists projects, most recently used first.
type projectsPane struct {
	c          *common
	all, shown []transcripts.ProjectSummary
	list       list
	ready      bool
	fresh      bool // the list came from the store (not the cache)
	clicks     clickMap
	err        error
}

var projectsPaneSpec = paneSpec{name: "Projects", short: "Proj",
	build: func(c *common) pane { return newProjectsPane(c) },
	keys: func(k *KeyMap, typing bool) []key.Binding {
		if typing {
			return append(k.TypingList.bindings(), k.Done)
		}
		return append(k.List.bindings(), k.Filter, k.Open, k.ProjectFilter)
	},
}

func newProjectsPane(c *common) *projectsPane {
	return &projectsPane{c: c, list: list{filter: newFilterBox("part of a path")}}
}

func (p *projectsPane) loaded(msg projectsMsg) tea.Cmd {
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
		keep = s.Path
	}
	p.all = msg.list
	p.apply()
	for i := range p.shown {
		if p.shown[i].Path == keep {
			p.list.set(i)
		}
	}
	return nil
}

func (p *projectsPane) apply() {
	keep := p.selected()
	q := strings.ToLower(strings.TrimSpace(p.list.filter.value()))
	p.shown = p.shown[:0:0]
	for _, ps := range p.all {
		if projectMatches(&ps, q) {
			p.shown = append(p.shown, ps)
		}
	}
	if len(p.shown) == 0 && q != "" {
		if near := p.nearMatches(q); len(near) > 0 {
			p.shown = near
		}
	}
	p.list.setLen(len(p.shown))
	// The cursor stays on its project when it is still shown.
	if keep != nil {
		for i := range p.shown {
			if p.shown[i].Name == keep.Name {
				p.list.set(i)
			}
		}
	}
}

// projectMatches reports whether the lower-case filter q is part of the
// project's path, name or one of its folders (always, for no filter).
func projectMatches(ps *transcripts.ProjectSummary, q string) bool {
	return q == "" || strings.Contains(strings.ToLower(ps.Path), q) || strings.Contains(strings.ToLower(ps.Name), q) ||
		strings.Contains(strings.ToLower(strings.Join(ps.Folders, "\n")), q)
}

// nearMatches is the typo-tolerant match, for a filter that matches no
// project: the filter's letters in order in a word of the project's name
// or path (subseq.go); it says so when some match.
func (p *projectsPane) nearMatches(q string) []transcripts.ProjectSummary {
	var near []transcripts.ProjectSummary
	for _, ps := range p.all {
		if subseqMatch(q, ps.Name+" "+ps.Path) {
			near = append(near, ps)
		}
	}
	if len(near) > 0 {
		p.c.flashf("%s", nearMatchNote(q, len(near)))
	}
	return near
}

func (p *projectsPane) selected() *transcripts.ProjectSummary {
	if p.list.cursor < len(p.shown) && p.list.cursor >= 0 && len(p.shown) > 0 {
		return &p.shown[p.list.cursor]
	}
	return nil
}

// byPath is the project at path (nil when the list has none).
func (p *projectsPane) byPath(path string) *transcripts.ProjectSummary {
	for i := range p.all {
		if p.all[i].Path == path {
			ps := p.all[i]
			return &ps
		}
	}
	return nil
}

func (p *projectsPane) typing() bool { return p.list.typing() }

func (p *projectsPane) key(k tea.KeyPressMsg) (bool, tea.Cmd) {
	switch res, cmd := p.list.update(k, p.c.keys); res {
	case listFiltered:
		p.apply()
		return true, cmd
	case listHandled:
		return true, cmd
	}
	switch {
	case key.Matches(k, p.c.keys.Open):
		return true, p.open()
	case key.Matches(k, p.c.keys.ProjectFilter):
		// The scope: the selected project, and back to every project.
		proj := ""
		if s := p.selected(); s != nil {
			proj = s.Path
		}
		return true, msgCmd(scopeMsg{project: proj})
	}
	return false, nil
}

// open shows the selected project's sessions.
func (p *projectsPane) open() tea.Cmd {
	if s := p.selected(); s != nil {
		return msgCmd(openProjectMsg{project: *s})
	}
	return nil
}

func (p *projectsPane) scroll(n int) { p.list.move(n) }

// click selects the row under the mouse; a click on the selected row opens it.
func (p *projectsPane) click(y int) tea.Cmd {
	return p.list.click(p.clicks.row(y), func(int) tea.Cmd { return p.open() })
}

func (p *projectsPane) paste(msg tea.PasteMsg) tea.Cmd { return p.list.paste(msg, p.apply) }

func (p *projectsPane) help() []key.Binding {
	k := p.c.keys
	if p.typing() {
		return []key.Binding{k.Done}
	}
	return []key.Binding{k.List.Down, k.Open, k.Filter}
}

func (p *projectsPane) view() string {
	s, w, h := p.c.sty, p.c.lay.body.w, p.c.lay.body.h
	title := fmt.Sprintf(" Projects (%d)", len(p.shown))
	if len(p.shown) != len(p.all) {
		title = fmt.Sprintf(" Projects (%d of %d)", len(p.shown), len(p.all))
	}
	lines := []string{s.Title.Render(title)}
	if p.list.filter.shown() {
		lines = append(lines, p.list.filter.view(w))
	}
	switch {
	case p.err != nil || !p.ready:
		return strings.Join(append(lines, p.c.loadState("projects", p.err, " Check the data folder (--data) is readable; ctrl+r retries.")...), "\n")
	case len(p.all) == 0:
		return strings.Join(append(lines, p.noProjects()...), "\n")
	}
	numW := 9
	lastW := 11
	sizeW := 9
	pathW := w - numW - lastW - sizeW - 4
	hdr := " " + pad("PATH", pathW) + padLeft("SESSIONS", numW) + padLeft("LAST USED", lastW) + padLeft("SIZE", sizeW)
	lines = append(lines, s.Muted.Render(pad(hdr, w)))
	rows := h - len(lines)
	from, to := p.list.window(rows)
	p.clicks = clickMap{top: p.c.lay.body.y + len(lines), from: from, to: to, per: 1}
	for i := from; i < to; i++ {
		ps := p.shown[i]
		row := " " + pad(truncLeft(sanitizeLine(human.Path(ps.Path)), pathW-1), pathW) +
			padLeft(fmt.Sprint(ps.Sessions), numW) + padLeft(p.c.fmtAgo(ps.LastUsed), lastW) + padLeft(projectSize(ps.Size), sizeW)
		lines = append(lines, p.c.rowStyle(i == p.list.cursor, pad(row, w)))
	}
	return strings.Join(lines, "\n")
}

// projectSize is the size of a project's transcripts; one whose
// transcripts are all gone from disk is "archived".
func projectSize(size int64) string {
	if size == 0 {
		return "archived"
	}
	return human.Bytes(size)
}

// noProjects is what the pane says before the first session: that
// indexing is reading them, or where cairn reads them from.
func (p *projectsPane) noProjects() []string {
	s := p.c.sty
	lines := []string{"", s.Muted.Render(" No sessions yet.")}
	if p.c.indexing() {
		return append(lines, s.Muted.Render(" Indexing is running: projects appear as they are read."))
	}
	return append(lines, s.Muted.Render(" cairn reads Claude Code transcripts from ~/.claude/projects (or --claude-dir)."),
		s.Muted.Render(" Try `cairn --demo` to see the bundled sample."))
}
