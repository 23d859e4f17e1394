package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/transcripts"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

type sessionsMsg struct {
	project string // folder name asked for ("" = all)
	list    []*transcripts.Session
	origins map[string]string // session id -> the machine it was imported from
	err     error
}

// load asks the store for the sessions of the project shown (all when none).
func (p *timelinePane) load() tea.Cmd {
	st, ctx := p.c.store(), p.c.ctx
	var name string
	if p.project != nil {
		name = p.project.Path
	}
	p.loading = true
	return func() tea.Msg {
		if ctx.Err() != nil {
			return nil
		}
		f := index.SessionFilter{Project: name}
		if name == "" {
			f.Limit = 2000
		}
		l, err := st.Sessions(ctx, f)
		if name != "" {
			// The filter matches text in paths: keep this project (the
			// repository, with every worktree and subfolder) only.
			out := l[:0]
			for _, s := range l {
				if s.ProjectPath == name {
					out = append(out, s)
				}
			}
			l = out
		}
		// Sessions synced from another machine (cairn remote) are
		// marked with its name; a listing without them still shows.
		origins, _ := st.SessionOrigins(ctx)
		return sessionsMsg{project: name, list: l, origins: origins, err: err}
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
	c       *common
	project *transcripts.ProjectSummary // nil = every project
	all     []*transcripts.Session
	origins map[string]string // session id -> machine, for imported sessions
	rows    []tlRow
	list    list
	dateIdx int
	loaded  bool
	loading bool
	err     error
	clicks  clickMap
}

var timelinePaneSpec = paneSpec{name: "Timeline", short: "Time",
	build: func(c *common) pane { return newTimelinePane(c) },
	keys: func(k *KeyMap, typing bool) []key.Binding {
		if typing {
			return append(k.TypingList.bindings(), k.Done)
		}
		return append(k.List.bindings(), k.Filter, k.Open, k.DateFilter, k.Resume, k.ProjectFilter)
	},
	helpKeys: func(k *KeyMap) []key.Binding { return []key.Binding{k.DateFilter, k.ProjectFilter, k.Resume} },
}

func newTimelinePane(c *common) *timelinePane {
	p := &timelinePane{c: c, list: list{filter: newFilterBox("words in titles, prompts, branches or worktrees")}}
	p.list.skip = func(i int) bool { return p.rows[i].s == nil } // day headers
	return p
}

// setProject shows a project's sessions (nil: every project's).
func (p *timelinePane) setProject(ps *transcripts.ProjectSummary) {
	p.project = ps
	p.list.cursor, p.list.offset = 0, 0
}

func (p *timelinePane) loadedSessions(msg sessionsMsg) tea.Cmd {
	cur := ""
	if p.project != nil {
		cur = p.project.Path
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
	p.all, p.origins = msg.list, msg.origins
	p.apply()
	if keep != "" {
		p.selectSession(keep)
	}
	return nil
}

// since is the start of the date range shown (zero: any time).
func (p *timelinePane) since() time.Time {
	d := dateRanges[p.dateIdx].d
	if d == 0 {
		return time.Time{}
	}
	loc := p.c.cfg.Location
	now := p.c.now().In(loc)
	if d == 24*time.Hour {
		return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	}
	return now.Add(-d)
}

func (p *timelinePane) apply() {
	keep := p.selected()
	q := strings.ToLower(strings.TrimSpace(p.list.filter.value()))
	since := p.since()
	inRange := func(s *transcripts.Session) bool { return since.IsZero() || !s.End.Before(since) }
	near := p.onlyNear(q, inRange)
	var shown []*transcripts.Session
	for _, s := range p.all {
		if inRange(s) && timelineMatch(q, near, s) {
			shown = append(shown, s)
		}
	}
	p.rows = p.dayRows(shown)
	if near && len(shown) > 0 {
		p.c.flashf("%s", nearMatchNote(q, len(shown)))
	}
	p.list.setLen(len(p.rows))
	// The cursor stays on its session when it is still shown.
	if keep != nil {
		p.selectSession(keep.ID)
	}
}

// dayRows is the rows for sessions: each under a header for the day it
// started, when that differs from the previous session's.
func (p *timelinePane) dayRows(sessions []*transcripts.Session) []tlRow {
	rows := p.rows[:0:0]
	lastDay := ""
	for _, s := range sessions {
		day := s.Start.In(p.c.cfg.Location).Format("Monday 2 January 2006")
		if day != lastDay {
			rows = append(rows, tlRow{day: day})
			lastDay = day
		}
		rows = append(rows, tlRow{s: s})
	}
	return rows
}

// selectSession puts the cursor on session id's row (the last, if
// several).
func (p *timelinePane) selectSession(id string) {
	for i, r := range p.rows {
		if r.s != nil && r.s.ID == id {
			p.list.set(i)
		}
	}
}

// onlyNear says whether the filter q finds nothing as typed among the
// sessions in range, so the timeline falls back to typo tolerance: those
// holding its letters in order in a word of the title, a branch or the
// folder (subseq.go).
func (p *timelinePane) onlyNear(q string, inRange func(*transcripts.Session) bool) bool {
	if q == "" {
		return false
	}
	for _, s := range p.all {
		if inRange(s) && strings.Contains(timelineText(s), q) {
			return false
		}
	}
	return true
}

// timelineMatch says whether session s passes the filter q, typed or, when
// near, by its letters in order.
func timelineMatch(q string, near bool, s *transcripts.Session) bool {
	switch {
	case q == "":
		return true
	case near:
		return subseqMatch(q, s.Title+" "+strings.Join(s.Branches, " ")+" "+s.CWD)
	}
	return strings.Contains(timelineText(s), q)
}

func (p *timelinePane) selected() *transcripts.Session {
	if c := p.list.cursor; c >= 0 && c < len(p.rows) {
		return p.rows[c].s
	}
	return nil
}

func (p *timelinePane) typing() bool { return p.list.typing() }

func (p *timelinePane) key(k tea.KeyPressMsg) (bool, tea.Cmd) {
	km := p.c.keys
	if !p.typing() && key.Matches(k, km.Back) && p.dateIdx != 0 {
		// esc clears every filter at once.
		p.list.filter.input.SetValue("")
		p.dateIdx = 0
		p.apply()
		return true, nil
	}
	switch res, cmd := p.list.update(k, km); res {
	case listFiltered:
		p.apply()
		return true, cmd
	case listHandled:
		return true, cmd
	}
	return p.commandKey(k)
}

// commandKey applies the timeline's own keys: the date filter, open,
// resume and the scope.
func (p *timelinePane) commandKey(k tea.KeyPressMsg) (bool, tea.Cmd) {
	km := p.c.keys
	switch {
	case key.Matches(k, km.DateFilter):
		p.dateIdx = (p.dateIdx + 1) % len(dateRanges)
		p.apply()
	case key.Matches(k, km.Open):
		if s := p.selected(); s != nil {
			return true, msgCmd(openSessionMsg{id: s.ID})
		}
	case key.Matches(k, km.Resume):
		return true, p.c.resume(p.selected())
	case key.Matches(k, km.ProjectFilter):
		proj := ""
		if s := p.selected(); s != nil {
			proj = s.ProjectPath
		}
		return true, msgCmd(scopeMsg{project: proj})
	default:
		return false, nil
	}
	return true, nil
}

func (p *timelinePane) scroll(n int) { p.list.move(n) }

func (p *timelinePane) click(y int) tea.Cmd {
	i := p.clicks.row(y)
	if i >= 0 && p.rows[i].s == nil {
		return nil
	}
	return p.list.click(i, func(i int) tea.Cmd { return msgCmd(openSessionMsg{id: p.rows[i].s.ID}) })
}

func (p *timelinePane) paste(msg tea.PasteMsg) tea.Cmd { return p.list.paste(msg, p.apply) }

func (p *timelinePane) help() []key.Binding {
	k := p.c.keys
	if p.typing() {
		return []key.Binding{k.Done}
	}
	return []key.Binding{k.Open, k.Resume, k.Filter, k.DateFilter, k.ProjectFilter}
}

func (p *timelinePane) view() string {
	w, h := p.c.lay.body.w, p.c.lay.body.h
	lines := p.heading(w)
	if msg := p.state(); msg != nil {
		return strings.Join(append(lines, msg...), "\n")
	}
	cols := newTimelineCols(w)
	lines = append(lines, p.c.sty.Muted.Render(pad(cols.header(), w)))
	rows := h - len(lines) - 1 // one line for the selected session's details
	from, to := p.list.window(rows)
	p.clicks = clickMap{top: p.c.lay.body.y + len(lines), from: from, to: to, per: 1}
	for i := from; i < to; i++ {
		lines = append(lines, p.row(i, cols, w))
	}
	for len(lines) < h-1 {
		lines = append(lines, "")
	}
	if ss := p.selected(); ss != nil {
		lines = append(lines, p.c.sty.Muted.Render(pad(" "+sessionDetails(ss), w)))
	}
	return strings.Join(lines, "\n")
}

// heading is the title (scope, count, date range) and the filter box.
func (p *timelinePane) heading(w int) []string {
	scope := "every project"
	if p.project != nil {
		scope = "project " + truncLeft(human.Path(sanitizeLine(p.project.Path)), max(12, w-52))
	}
	n := 0
	for _, r := range p.rows {
		if r.s != nil {
			n++
		}
	}
	title := fmt.Sprintf(" Timeline · %s (%s", scope, plural(n, "session"))
	if p.dateIdx > 0 {
		title += ", " + dateRanges[p.dateIdx].name
	}
	title += ")"
	lines := []string{p.c.sty.Title.Render(title)}
	if p.list.filter.shown() {
		lines = append(lines, p.list.filter.view(w))
	}
	return lines
}

// state is what the pane shows instead of rows: an error, loading, none.
func (p *timelinePane) state() []string {
	s := p.c.sty
	switch {
	case p.err != nil || !p.loaded:
		return p.c.loadState("sessions", p.err, " ctrl+r retries; the store may be busy or damaged (cairn index --rebuild).")
	case len(p.rows) == 0:
		msg := " No sessions here."
		if p.list.filter.value() != "" || p.dateIdx > 0 {
			msg = " No sessions match: esc clears the filters."
		}
		return []string{"", s.Muted.Render(msg)}
	}
	return nil
}

// timelineCols are the widths of the timeline's columns; model and
// branch get columns on wide screens only.
type timelineCols struct {
	wide                 bool
	title, model, branch int
}

func newTimelineCols(w int) timelineCols {
	c := timelineCols{wide: w >= 110}
	fixed := 1 + 7 + 8 + 5 + 8 + 4
	if c.wide {
		c.model, c.branch = 18, 16
		fixed += c.model + c.branch
	}
	c.title = w - fixed
	return c
}

func (c timelineCols) header() string {
	hdr := " " + pad("START", 7) + pad("TITLE", c.title) + padLeft("DUR", 8) + padLeft("PR", 5) + padLeft("TOKENS", 8)
	if c.wide {
		hdr += "  " + pad("MODEL", c.model-2) + pad("BRANCH", c.branch)
	}
	return hdr + pad("", 4)
}

// rowTitle is a session's title (its first prompt, else "(untitled)")
// behind what tells it apart: its machine when another one's, its
// project when every project is shown, its folder when not the project's.
func (p *timelinePane) rowTitle(ss *transcripts.Session) string {
	title := ss.Title
	if title == "" {
		title = transcripts.OneLine(ss.FirstPrompt, 200)
	}
	if title == "" {
		title = "(untitled)"
	}
	if ss.CWD != "" && ss.CWD != ss.ProjectPath {
		// A worktree or subfolder of the project: which one is a detail
		// worth seeing.
		title = lastElem(ss.CWD) + " · " + title
	}
	if p.project == nil {
		title = lastElem(ss.ProjectPath) + " · " + title
	}
	if m := p.origins[ss.ID]; m != "" {
		// Another machine's session (cairn remote): searchable here,
		// never resumed as if it were local.
		title = "@" + m + " · " + title
	}
	return title
}

// row draws row i: a day header or a session.
func (p *timelinePane) row(i int, cols timelineCols, w int) string {
	r := p.rows[i]
	if r.s == nil {
		return p.c.sty.Bold.Render(pad(" "+r.day, w))
	}
	ss := r.s
	title := p.rowTitle(ss)
	marks := ""
	if len(ss.Subagents) > 0 {
		marks += "⑂"
	}
	if !ss.SourceExists {
		marks += "⌫"
	}
	row := " " + pad(p.c.fmtClock(ss.Start), 7) + pad(sanitizeLine(title), cols.title-1) + " " + padLeft(human.Duration(ss.Duration()), 8) +
		padLeft(fmt.Sprint(ss.Prompts), 5) + padLeft(fmtCount(ss.Usage.Total()), 8)
	if cols.wide {
		// A space after the model even when its name fills the column.
		row += "  " + pad(trunc(sanitizeLine(strings.Join(ss.Models, ",")), cols.model-3), cols.model-2) + pad(sanitizeLine(strings.Join(ss.Branches, ",")), cols.branch)
	}
	row += " " + pad(marks, 3)
	return p.c.rowStyle(i == p.list.cursor, pad(row, w))
}

// sessionDetails is the selected session's detail line.
func sessionDetails(ss *transcripts.Session) string {
	var d []string
	d = append(d, sanitizeLine(ss.ID[:min(8, len(ss.ID))]))
	if len(ss.Models) > 0 {
		d = append(d, sanitizeLine(strings.Join(ss.Models, ",")))
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
	return strings.Join(d, " · ")
}

func lastElem(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// timelineText is what the timeline's text filter looks in, lower case.
func timelineText(s *transcripts.Session) string {
	return strings.ToLower(s.Title + " " + s.FirstPrompt + " " + strings.Join(s.Branches, " ") + " " + s.ID + " " + s.CWD)
}
