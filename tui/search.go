package tui

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/transcripts"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// Debounce is how long search waits after the last keystroke.
const Debounce = 80 * time.Millisecond

type (
	searchDebounceMsg struct{ seq int }
	searchResultMsg   struct {
		seq     int
		resp    *index.SearchResponse
		err     error
		elapsed time.Duration // from the query starting to results
	}
)

var (
	searchModes = []string{index.ModeHybrid, index.ModeText, index.ModeVector}
	searchKinds = []string{"all", "messages", "memories", "summaries"}
)

// Highlights travel through snippets as private-use characters and become
// styles only after the snippet is sanitised.
const markOn, markOff = "\uE000", "\uE001"

// searchPane is type-as-you-search over everything in the store.
type searchPane struct {
	c        *common
	input    textinput.Model
	seq      int // the latest query
	shown    int // the query whose results are shown
	results  []index.SearchResult
	resp     *index.SearchResponse
	list     list
	prev     preview
	mode     int
	kind     int
	err      error
	running  bool
	latency  time.Duration // search time of the shown results, after the debounce
	lastText string
	clicks   clickMap
	// partial shows the partial matches too (index.SearchQuery.Partial):
	// asked for with enter when nothing matches fully, until the text
	// changes.
	partial bool
}

var searchPaneSpec = paneSpec{name: "Search", short: "Search",
	build: func(c *common) pane { return newSearchPane(c) },
	// The query always has the keyboard: typing or not, the same keys.
	keys: func(k *KeyMap, _ bool) []key.Binding {
		return append(k.SearchTyping.bindings(), k.Scope, k.Mode, k.Kind, k.Open)
	},
	helpKeys: func(k *KeyMap) []key.Binding {
		return []key.Binding{k.SearchTyping.Up, k.SearchTyping.Down, k.Open, k.Scope, k.Mode, k.Kind, k.ClearQuery}
	},
}

func newSearchPane(c *common) *searchPane {
	ti := newInput("› ", "search every session, memory and summary")
	ti.CharLimit = 500
	return &searchPane{c: c, input: ti}
}

// focusInput gives the query the keyboard: whenever Search is shown, what
// is typed goes into the query (letters never run commands there).
func (p *searchPane) focusInput() tea.Cmd {
	hub, ctx := p.c.hub, p.c.ctx
	warm := func() tea.Msg {
		hub.Warm(ctx)
		return nil
	}
	return tea.Batch(p.input.Focus(), warm)
}

func (p *searchPane) typing() bool { return true }

// rerun searches again (the scope changed).
func (p *searchPane) rerun() tea.Cmd {
	if strings.TrimSpace(p.input.Value()) == "" {
		return nil
	}
	return p.changed()
}

func (p *searchPane) query() index.SearchQuery {
	q := index.SearchQuery{
		Text:      strings.TrimLeftFunc(p.input.Value(), unicode.IsSpace),
		Mode:      searchModes[p.mode],
		Limit:     20,
		Highlight: func(s string) string { return markOn + s + markOff },
		// Search as you type: the last word matches as the start of
		// longer words until a space ends it.
		Prefix:  true,
		Partial: p.partial,
	}
	if pr := p.c.scopeProject(); pr != "" {
		q.Projects = []string{pr}
	}
	if k := searchKinds[p.kind]; k != "all" {
		q.Kinds = []string{k}
	}
	return q
}

// changed schedules a search for the current text after the debounce.
func (p *searchPane) changed() tea.Cmd {
	p.seq++
	seq := p.seq
	return tea.Tick(Debounce, func(time.Time) tea.Msg { return searchDebounceMsg{seq: seq} })
}

// run searches now; results carry the sequence number so stale ones are
// dropped.
func (p *searchPane) run(seq int) tea.Cmd {
	q := p.query()
	if q.Text == "" {
		p.results, p.resp, p.err, p.running = nil, nil, nil, false
		p.shown = seq
		p.list.setLen(0)
		return nil
	}
	p.running = true
	hub, parent := p.c.hub, p.c.ctx
	return func() tea.Msg {
		start := time.Now()
		ctx, cancel := context.WithTimeout(parent, 10*time.Second)
		defer cancel()
		resp, err := hub.Search(ctx, q)
		return searchResultMsg{seq: seq, resp: resp, err: err, elapsed: time.Since(start)}
	}
}

func (p *searchPane) data(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case searchDebounceMsg:
		if msg.seq != p.seq {
			return nil // more typing came
		}
		return p.run(msg.seq)
	case searchResultMsg:
		return p.resultsLoaded(msg)
	case previewMsg:
		p.previewLoaded(msg)
	}
	return nil
}

// resultsLoaded shows the results of the latest query (older ones are
// dropped) and loads the first one's preview.
func (p *searchPane) resultsLoaded(msg searchResultMsg) tea.Cmd {
	if msg.seq != p.seq {
		return nil // stale: a newer query is on its way
	}
	p.running = false
	p.shown = msg.seq
	p.err = msg.err
	p.latency = msg.elapsed
	trace("search-ms %.1f results %d query %q", float64(msg.elapsed.Microseconds())/1000, resultsLen(msg.resp), p.input.Value())
	if msg.err != nil {
		return nil
	}
	p.resp = msg.resp
	p.results = msg.resp.Results
	sortResults(p.results)
	p.list.cursor, p.list.offset = 0, 0
	p.list.setLen(len(p.results))
	return p.loadPreview()
}

// sortResults orders results by score (rounded), then newest first, then
// by entry. Equal scores come back in the index's internal order, which
// moves as segments merge: ties are broken the same way every time.
func sortResults(rs []index.SearchResult) {
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if sa, sb := roundScore(a.Score), roundScore(b.Score); sa != sb {
			return sa > sb
		}
		if !a.Timestamp.Equal(b.Timestamp) {
			return a.Timestamp.After(b.Timestamp)
		}
		return a.UUID < b.UUID
	})
}

func (p *searchPane) key(k tea.KeyPressMsg) (bool, tea.Cmd) {
	km := p.c.keys
	switch {
	case key.Matches(k, km.Scope):
		proj := ""
		if r := p.selected(); r != nil {
			proj = r.Project
		}
		return true, msgCmd(scopeMsg{project: proj})
	case key.Matches(k, km.Mode):
		p.mode = (p.mode + 1) % len(searchModes)
		return true, p.changed()
	case key.Matches(k, km.Kind):
		p.kind = (p.kind + 1) % len(searchKinds)
		return true, p.changed()
	case key.Matches(k, km.Open):
		return true, p.enter()
	case key.Matches(k, km.Back):
		return p.clearQuery()
	case p.list.navigate(k, km.SearchTyping):
		return true, p.loadPreview()
	}
	return true, p.typeKey(k)
}

// clearQuery empties the query box (esc); false when it is empty already:
// the pane is a root, back goes on.
func (p *searchPane) clearQuery() (bool, tea.Cmd) {
	if p.input.Value() == "" {
		return false, nil
	}
	p.input.SetValue("")
	p.lastText, p.partial = "", false
	return true, p.changed()
}

// typeKey types k into the query box, and searches again when the text
// changed.
func (p *searchPane) typeKey(k tea.KeyPressMsg) tea.Cmd {
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(k)
	if v := p.input.Value(); v != p.lastText {
		p.lastText = v
		p.partial = false
		return tea.Batch(cmd, p.changed())
	}
	return cmd
}

// enter opens the selected result, or searches now: with the partial
// matches when nothing matched fully and some did in part.
func (p *searchPane) enter() tea.Cmd {
	if r := p.selected(); r != nil {
		return p.open(r)
	}
	if p.resp != nil && p.resp.Partial > 0 && !p.partial {
		p.partial = true
		p.seq++
	}
	return p.run(p.seq)
}

func (p *searchPane) paste(msg tea.PasteMsg) tea.Cmd {
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	p.lastText, p.partial = p.input.Value(), false
	return tea.Batch(cmd, p.changed())
}

func (p *searchPane) selected() *index.SearchResult {
	if c := p.list.cursor; c >= 0 && c < len(p.results) {
		return &p.results[c]
	}
	return nil
}

// open opens a hit: a message at its exact turn in the reader (with the
// searched words marked), a memory at the turn it came from (a memory
// without one in the memories pane), a summary at the top of its session.
func (p *searchPane) open(r *index.SearchResult) tea.Cmd {
	find := strings.TrimSpace(p.input.Value())
	if r.Kind == "memory" {
		return p.openMemory(r.UUID, find)
	}
	if r.SessionID == "" {
		return nil
	}
	return msgCmd(openSessionMsg{id: r.SessionID, uuid: r.UUID, find: find})
}

// openMemory looks the memory up and opens its source turn.
func (p *searchPane) openMemory(id, find string) tea.Cmd {
	svc, ctx := p.c.memories(), p.c.ctx
	if svc == nil {
		return msgCmd(openMemoryMsg{id: id})
	}
	return func() tea.Msg {
		mm, err := svc.Get(ctx, id)
		if err != nil || mm.SourceSession == "" {
			return openMemoryMsg{id: id}
		}
		uuid := ""
		if len(mm.SourceUUIDs) > 0 {
			uuid = mm.SourceUUIDs[0]
		}
		return openSessionMsg{id: mm.SourceSession, uuid: uuid, find: find, sentence: mm.Content}
	}
}

func (p *searchPane) click(y int) tea.Cmd {
	return p.list.click(p.clicks.row(y), func(i int) tea.Cmd { return p.open(&p.results[i]) })
}

func (p *searchPane) scroll(n int) { p.list.step(n) }

func (p *searchPane) help() []key.Binding {
	k := p.c.keys
	return []key.Binding{k.SearchTyping.Down, k.Open, k.Scope, k.Mode, k.Kind}
}

func (p *searchPane) view() string {
	w, h := p.c.lay.body.w, p.c.lay.body.h
	lines := p.heading(w)
	if p.foundNothing() {
		return strings.Join(append(lines, p.c.sty.Muted.Render(trunc(p.nothingNote(), w))), "\n")
	}
	// Two lines a result: the matching text first (what was looked for),
	// then where it is; on a wide screen the selected one's turn beside.
	listW := w
	if p.previewShown() && len(p.results) > 0 {
		listW = w * 11 / 20
	}
	per := 2
	rows := max(1, (h-len(lines))/per)
	from, to := p.list.window(rows)
	p.clicks = clickMap{top: p.c.lay.body.y + len(lines), from: from, to: to, per: per}
	var list []string
	for i := from; i < to; i++ {
		list = append(list, p.result(i, listW)...)
	}
	if listW == w {
		return strings.Join(append(lines, list...), "\n")
	}
	bodyH := h - len(lines)
	prevW := w - listW - 1
	left := fitLines(list, listW, bodyH)
	right := fitLines(p.previewLines(prevW, bodyH), prevW, bodyH)
	sep := strings.TrimRight(strings.Repeat(p.c.sty.Subtle.Render("│")+"\n", bodyH), "\n")
	return strings.Join(lines, "\n") + "\n" + lipgloss.JoinHorizontal(lipgloss.Top, left, sep, right)
}

// foundNothing reports a query that ran and found no result.
func (p *searchPane) foundNothing() bool {
	return p.resp != nil && len(p.results) == 0 && !p.running && p.err == nil
}

// nothingNote is what to try when a query found nothing: other words,
// scope or mode, or enter for its partial matches.
func (p *searchPane) nothingNote() string {
	if n := p.resp.Partial; n > 0 {
		return fmt.Sprintf(" No full matches; %d partial (only some of the words): enter shows them.", n)
	}
	return " No matches by words or meaning; try other words, ctrl+s for every project, or ctrl+t for another mode."
}

// heading is the title, the query box, the options and the status line.
func (p *searchPane) heading(w int) []string {
	s := p.c.sty
	p.input.SetWidth(w - 6)
	scope := "every project"
	if pr := p.c.scopeProject(); pr != "" {
		scope = "project " + lastElem(sanitizeLine(pr))
	}
	opts := fmt.Sprintf("scope: %s · mode: %s · kind: %s", scope, searchModes[p.mode], searchKinds[p.kind])
	lines := []string{s.Title.Render(" Search"), " " + p.input.View(), s.Muted.Render(trunc(" "+opts, w))}
	status := ""
	switch {
	case p.err != nil:
		lines = append(lines, s.Error.Render(trunc(" "+sanitizeLine(p.err.Error()), w)))
	case p.running:
		status = "searching…"
	case p.resp != nil:
		status = matchedLine(p.results)
		if p.resp.Partial > 0 {
			status += fmt.Sprintf(" · %d partial hidden", p.resp.Partial)
		}
		status += fmt.Sprintf(" · %s in %s", p.resp.Mode, fmtMs(p.latency))
		if p.resp.Notice != "" {
			lines = append(lines, s.Muted.Render(trunc(" "+sanitizeLine(p.resp.Notice), w)))
		}
	case strings.TrimSpace(p.input.Value()) == "":
		status = "type to search; ctrl+s scope, ctrl+t mode, ctrl+k kind; enter opens at that turn"
	}
	if status != "" {
		lines = append(lines, s.Muted.Render(trunc(" "+status, w)))
	}
	return append(lines, "")
}

// result draws result i on two lines: the snippet, then where it is.
func (p *searchPane) result(i, w int) []string {
	s := p.c.sty
	r := p.results[i]
	title := r.Title
	if title == "" {
		title = "(untitled)"
	}
	num := fmt.Sprintf("%2d. ", i+1)
	gutter := " "
	if i == p.list.cursor {
		gutter = s.Gutter.Render("▌")
		num = s.Selected.Render(num)
	} else {
		num = s.Bold.Render(num)
	}
	snip := p.snippet(r.Snippet, w-6)
	switch r.Match {
	case index.MatchMeaning: // no word of the query in it: say so
		snip = s.Muted.Render(meaningMark) + trunc(snip, w-6-2)
	case index.MatchPartial: // only some of them
		snip = s.Muted.Render(partialMark) + trunc(snip, w-6-2)
	}
	meta := "     " + lastElem(sanitizeLine(r.Project)) + " · " + p.c.fmtTime(r.Timestamp) + " · " + resultTag(&r) + " · " + sanitizeLine(transcripts.OneLine(title, 200))
	return []string{trunc(gutter+num+snip, w), s.Muted.Render(trunc(meta, w))}
}

// meaningMark starts the snippet of a result that shares no word with the
// query and is shown because it is close in meaning.
const meaningMark = "≈ "

// partialMark starts the snippet of a partial match (only some of the
// query's words), shown on request.
const partialMark = "½ "

// matchedLine counts the results by how they match: "12 matched by words ·
// 3 by meaning".
func matchedLine(rs []index.SearchResult) string {
	words, meaning := index.MatchCounts(rs)
	partial := 0
	for _, r := range rs {
		if r.Match == index.MatchPartial {
			partial++
		}
	}
	line := fmt.Sprintf("%d matched by words", words-partial)
	if partial > 0 {
		line += fmt.Sprintf(" · %d in part (%s)", partial, strings.TrimSpace(partialMark))
	}
	if meaning > 0 {
		line += fmt.Sprintf(" · %d by meaning (%s)", meaning, strings.TrimSpace(meaningMark))
	}
	return line
}

// resultTag says what a result is: a role and block, a memory, a summary.
func resultTag(r *index.SearchResult) string {
	tag := r.Kind
	if r.Role != "" && r.Kind == "message" {
		tag = r.Role
		if r.Block != "" && r.Block != "text" {
			tag += " " + r.Block
		}
	}
	if r.Subagent {
		tag += " · subagent"
	}
	if r.Archived {
		tag += " · archived"
	}
	return tag + matchTag(r)
}

// matchTag says how a result matched when not by all the words.
func matchTag(r *index.SearchResult) string {
	switch r.Match {
	case index.MatchMeaning:
		return " · by meaning"
	case index.MatchPartial:
		return fmt.Sprintf(" · partial %.2f", r.Relevance)
	case index.MatchTypo:
		return " · near spelling"
	}
	return ""
}

// snippet sanitises a snippet and turns its highlight marks into styles.
func (p *searchPane) snippet(snip string, w int) string {
	hl := p.c.sty.Highlight
	snip = sanitizeLine(snip)
	var b strings.Builder
	for {
		i := strings.Index(snip, markOn)
		if i < 0 {
			b.WriteString(strings.ReplaceAll(snip, markOff, ""))
			break
		}
		b.WriteString(strings.ReplaceAll(snip[:i], markOff, ""))
		rest := snip[i+len(markOn):]
		j := strings.Index(rest, markOff)
		if j < 0 {
			b.WriteString(hl.Render(rest))
			break
		}
		b.WriteString(hl.Render(rest[:j]))
		snip = rest[j+len(markOff):]
	}
	return trunc(b.String(), w)
}

func fmtMs(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}

func resultsLen(r *index.SearchResponse) int {
	if r == nil {
		return 0
	}
	return len(r.Results)
}

// roundScore drops float noise (sums in another order) before tie-breaks.
func roundScore(f float64) float64 {
	if f == 0 {
		return 0
	}
	e := math.Pow(10, math.Floor(math.Log10(math.Abs(f)))-5)
	return math.Round(f/e) * e
}
