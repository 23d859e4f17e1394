package tui

import (
	"strings"

	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/transcripts"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// The preview beside the results (fzf's --preview, atuin's inspector):
// the selected hit's turn with the turns around it, the searched words
// marked, without leaving Search. Sessions are read once and kept while
// the results show them.

// previewMinWidth is the narrowest Search that has room for a preview.
const previewMinWidth = 100

type previewMsg struct {
	id   string
	conv *transcripts.Conversation
	err  error
}

// preview is what the search pane keeps for its previews.
type preview struct {
	convs map[string]*previewMsg // by session id; nil entry: loading
}

// previewShown reports that the screen is wide enough for a preview.
func (p *searchPane) previewShown() bool { return p.c.lay.body.w >= previewMinWidth }

// loadPreview reads the selected hit's session if it is not read yet.
func (p *searchPane) loadPreview() tea.Cmd {
	r := p.selected()
	if r == nil || r.SessionID == "" || r.Kind == "memory" || !p.previewShown() {
		return nil
	}
	if p.prev.convs == nil {
		p.prev.convs = map[string]*previewMsg{}
	}
	if _, ok := p.prev.convs[r.SessionID]; ok {
		return nil
	}
	if len(p.prev.convs) > 16 { // a few sessions at a time
		p.prev.convs = map[string]*previewMsg{}
	}
	p.prev.convs[r.SessionID] = nil
	st, ctx, id := p.c.store(), p.c.ctx, r.SessionID
	return func() tea.Msg {
		c, err := st.Conversation(ctx, id)
		return previewMsg{id: id, conv: c, err: err}
	}
}

func (p *searchPane) previewLoaded(msg previewMsg) {
	if p.prev.convs != nil {
		if _, ok := p.prev.convs[msg.id]; ok {
			p.prev.convs[msg.id] = &msg
		}
	}
}

// previewLines draws the selected hit in w×h cells.
func (p *searchPane) previewLines(w, h int) []string {
	s := p.c.sty
	r := p.selected()
	if r == nil {
		return nil
	}
	out := p.previewHeader(r, w)
	terms := p.previewTerms()
	if r.SessionID == "" || r.Kind == "memory" {
		// A memory (or a hit without a session): its text is the preview.
		for _, l := range wrap(sanitize(stripMarks(r.Snippet)), w-1, " ") {
			out = append(out, markTerms(l, terms, s.Highlight))
		}
		return out
	}
	pm := p.prev.convs[r.SessionID]
	switch {
	case pm == nil:
		return append(out, s.Subtle.Render(" loading…"))
	case pm.err != nil:
		return append(out, s.Error.Render(trunc(" "+sanitizeLine(pm.err.Error()), w)))
	}
	body, hitLine := p.previewBody(pm, r.UUID, terms, w)
	return append(out, previewWindow(body, hitLine, h-len(out))...)
}

// previewHeader is the hit's title and its project and time.
func (p *searchPane) previewHeader(r *index.SearchResult, w int) []string {
	s := p.c.sty
	title := r.Title
	if title == "" {
		title = "(untitled)"
	}
	return []string{s.Bold.Render(trunc(" "+sanitizeLine(transcripts.OneLine(title, 200)), w)),
		s.Muted.Render(trunc(" "+human.Path(sanitizeLine(r.Project))+" · "+p.c.fmtTime(r.Timestamp), w))}
}

// previewBody draws the entries around the hit (entry uuid) and says on
// which of its lines the hit begins.
func (p *searchPane) previewBody(pm *previewMsg, uuid string, terms []string, w int) ([]string, int) {
	s := p.c.sty
	es, at := previewEntries(pm.conv, uuid)
	var body []string
	hitLine := 0
	for i := range es {
		e := &es[i]
		gut := " "
		if i == at {
			hitLine = len(body)
			gut = s.Gutter.Render("▌")
		}
		who := entryWho(e)
		body = append(body, "")
		body = append(body, gut+p.whoStyle(who).Render(who)+s.Muted.Render(" · "+p.c.fmtClock(e.Timestamp)))
		ls := wrap(sanitize(previewText(e)), w-2, " ")
		if len(ls) > 12 && i != at {
			ls = append(ls[:12], s.Subtle.Render("  …"))
		}
		for _, l := range ls {
			body = append(body, gut+markTerms(l, terms, s.Highlight))
		}
	}
	return body, hitLine
}

// whoStyle is the style of an entry's author in the preview.
func (p *searchPane) whoStyle(who string) lipgloss.Style {
	switch who {
	case "You":
		return p.c.sty.User
	case "Claude":
		return p.c.sty.Assistant
	}
	return p.c.sty.Muted
}

// previewWindow is room lines of body with the hit near the top, with a
// little of what came before.
func previewWindow(body []string, hitLine, room int) []string {
	from := max(0, min(hitLine-3, len(body)-room))
	body = body[from:]
	if len(body) > room {
		body = body[:room]
	}
	return body
}

// previewTerms are the query's words to mark (three letters or more).
func (p *searchPane) previewTerms() []string {
	var ts []string
	for _, w := range strings.Fields(strings.ToLower(p.input.Value())) {
		if len(w) >= 3 {
			ts = append(ts, w)
		}
	}
	return ts
}

func markTerms(line string, terms []string, st lipgloss.Style) string {
	for _, t := range terms {
		line = highlightPlain(line, t, st)
	}
	return line
}

func stripMarks(s string) string {
	return strings.NewReplacer(markOn, "", markOff, "").Replace(s)
}

// previewEntries are the entries around uuid (two before, three after) in
// the main session or the subagent that holds it, and the hit's index.
func previewEntries(c *transcripts.Conversation, uuid string) ([]transcripts.Entry, int) {
	pick := func(es []transcripts.Entry) ([]transcripts.Entry, int, bool) {
		for i := range es {
			if es[i].UUID == uuid {
				from, to := max(0, i-2), min(len(es), i+4)
				return es[from:to], i - from, true
			}
		}
		return nil, 0, false
	}
	if es, at, ok := pick(c.Entries); ok {
		return es, at
	}
	for _, as := range c.Agents {
		if es, at, ok := pick(as); ok {
			return es, at
		}
	}
	// A summary or an entry not found: the start of the session.
	return c.Entries[:min(len(c.Entries), 4)], -1
}

// entryWho names who wrote an entry: tool results and compaction
// summaries arrive as user entries, and a subagent's prompt is Claude's.
func entryWho(e *transcripts.Entry) string {
	switch {
	case e.Type == "user" && e.IsToolResultOnly():
		return "Output"
	case e.IsCompactSummary:
		return "Compaction summary"
	case e.Type == "user" && e.IsSidechain:
		return "Claude (task for a subagent)"
	case e.Type == "user":
		return "You"
	}
	return "Claude"
}

// previewText is an entry's text, or its tool calls and outputs.
func previewText(e *transcripts.Entry) string {
	if t := strings.TrimSpace(e.JoinedText()); t != "" {
		return t
	}
	var parts []string
	for i := range e.Blocks {
		b := &e.Blocks[i]
		switch b.Type {
		case transcripts.BlockToolUse:
			parts = append(parts, "● "+b.ToolName+"("+transcripts.ToolSummary(b)+")")
		case transcripts.BlockToolResult:
			parts = append(parts, "⎿ "+strings.TrimSpace(b.Text))
		}
	}
	return strings.Join(parts, "\n")
}
