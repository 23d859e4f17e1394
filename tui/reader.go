package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/transcripts"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

type convMsg struct {
	id, uuid string
	conv     *transcripts.Conversation
	keep     bool // a refresh: keep the reader's position
	err      error
}

type itemKind int

const (
	kHeader itemKind = iota
	kPrompt
	kText
	kThinking
	kTool
	kAgent // a subagent not linked to a call
	kCompact
	kSummary
)

// ritem is one block of the reader: a prompt, a reply, a tool call with its
// output, a compaction marker… Items render lazily, only when visible, and
// their lines are cached per width.
type ritem struct {
	kind    itemKind
	key     string // stable across rebuilds: expansion state and cache
	uuid    string // the transcript entry
	depth   int    // subagent nesting
	ts      time.Time
	text    string // sanitised text
	tool    *transcripts.Block
	result  *transcripts.Block
	agentID string
	label   string // one-line summary of tool calls and agents
	head    bool   // first block of a Claude turn: draw "◆ Claude"
	said    string // a prompt's source: transcripts.SaidQueued, or "" typed
}

// readerPane shows one session as a conversation.
type readerPane struct {
	c        *common
	conv     *transcripts.Conversation
	id       string
	loading  string // id being loaded
	err      error
	items    []ritem
	expanded map[string]bool
	thinking bool

	cur     int // cursor item
	topItem int // first visible item
	topLine int // lines of topItem scrolled off
	width   int // content width the cache is for
	cache   map[string][]string

	fullInputs  map[string]json.RawMessage // file changes' whole inputs, by tool id (diff.go)
	find        sessionFind                // / in the session, n/N (find.go)
	lastH       int
	carryQuery  string // search words to mark once the session is loaded
	lineItem    []int  // the item drawn on each line of the view, for clicks
	wantTop     bool   // the next scroll-into-view puts the cursor at the top
	needVisible bool   // the cursor moved: scroll it into view when drawing
	// sentence is a memory's text to show once drawn: the cursor's block
	// expanded, scrolled to the line that says it (sentence.go).
	sentence string
}

func newReaderPane(c *common) *readerPane {
	return &readerPane{c: c, expanded: map[string]bool{}, cache: map[string][]string{}, find: newSessionFind(c)}
}

func (p *readerPane) invalidate() {
	p.cache = map[string][]string{}
}

// open shows session id at entry uuid (may be ""), marking the words of
// find (a search's query; may be "") once it is loaded.
func (p *readerPane) open(id, uuid, find, sentence string) tea.Cmd {
	p.sentence = ""
	if uuid != "" {
		p.sentence = sentence
	}
	if p.conv != nil && p.conv.Session.ID == id && p.loading == "" {
		if find != "" {
			p.runFind(find, false, false)
		}
		if uuid != "" {
			p.jumpTo(uuid)
		}
		return nil
	}
	p.carryQuery = find
	p.loading = id
	p.err = nil
	st, ctx := p.c.store(), p.c.ctx
	return func() tea.Msg {
		c, err := st.Conversation(ctx, id)
		return convMsg{id: id, uuid: uuid, conv: c, err: err}
	}
}

// refresh reloads the open session when it has grown.
func (p *readerPane) refresh() tea.Cmd {
	if p.conv == nil || p.loading != "" {
		return nil
	}
	id := p.conv.Session.ID
	entries, end := p.conv.Session.Entries, p.conv.Session.End
	st, ctx := p.c.store(), p.c.ctx
	return func() tea.Msg {
		s, err := st.Session(ctx, id)
		if err != nil || (s.Entries == entries && s.End.Equal(end)) {
			return nil
		}
		c, err := st.Conversation(ctx, id)
		if err != nil {
			return nil
		}
		return convMsg{id: id, conv: c, keep: true}
	}
}

func (p *readerPane) loaded(msg convMsg) tea.Cmd {
	if msg.keep {
		p.reloaded(msg)
		return nil
	}
	if msg.id != p.loading {
		return nil
	}
	p.loading = ""
	if msg.err != nil {
		p.err = msg.err
		return nil
	}
	p.conv = msg.conv
	p.id = msg.conv.Session.ID
	p.expanded = map[string]bool{}
	p.cache = map[string][]string{}
	p.fullInputs = nil
	p.find.clear()
	p.cur, p.topItem, p.topLine = 0, 0, 0
	p.build()
	if p.carryQuery != "" {
		p.runFind(p.carryQuery, false, false) // search words: each on its own, as when already loaded
		p.carryQuery = ""
	}
	if msg.uuid != "" {
		p.jumpTo(msg.uuid)
	}
	return p.loadFullInputs(p.conv)
}

// fullLoaded keeps the whole inputs of the open session's file changes.
func (p *readerPane) fullLoaded(msg fullInputsMsg) {
	if p.conv == nil || p.conv.Session.ID != msg.session {
		return
	}
	p.fullInputs = msg.inputs
	p.cache = map[string][]string{}
}

// reloaded shows the open session grown, the cursor staying on its item
// (or at the end, following the new entries).
func (p *readerPane) reloaded(msg convMsg) {
	if p.conv == nil || p.conv.Session.ID != msg.id {
		return
	}
	keepKey := ""
	if p.cur < len(p.items) {
		keepKey = p.items[p.cur].key
	}
	atEnd := p.cur >= len(p.items)-1
	p.conv = msg.conv
	p.build()
	if atEnd {
		p.cur = len(p.items) - 1
		p.needVisible = true
		return
	}
	if i := p.indexOfKey(keepKey); i >= 0 {
		p.cur = i
	}
}

// jumpTo puts the cursor on the entry uuid, expanding the tool call or
// subagent that holds it.
func (p *readerPane) jumpTo(uuid string) {
	if p.conv == nil {
		return
	}
	if i := p.indexOf(uuid); i >= 0 {
		p.setCursor(i, true)
		return
	}
	// Inside a collapsed subagent or a tool result: expand what holds it.
	p.expandHolders(uuid)
	p.build()
	if i := p.indexOf(uuid); i >= 0 {
		p.setCursor(i, true)
		return
	}
	// A tool result lives in its call's item.
	if i := p.toolResultItem(uuid); i >= 0 {
		p.setCursor(i, true)
		return
	}
	// An entry the reader does not show (injected text, a command's
	// output): the nearest shown entry before it, else after it.
	if i := p.nearestShown(uuid); i >= 0 {
		p.setCursor(i, true)
	}
}

// expandHolders expands the subagent (and the call that spawned it) or
// the tool call whose result holds entry uuid.
func (p *readerPane) expandHolders(uuid string) {
	for agent, es := range p.conv.Agents {
		if !hasEntry(es, uuid) {
			continue
		}
		for tool, a := range p.conv.SpawnedBy {
			if a == agent {
				p.expanded["t:"+tool] = true
			}
		}
		p.expanded["agent:"+agent] = true
	}
	for _, id := range toolResultsOf(p.conv.Entries, uuid) {
		p.expanded["t:"+id] = true
	}
}

func hasEntry(es []transcripts.Entry, uuid string) bool {
	for i := range es {
		if es[i].UUID == uuid {
			return true
		}
	}
	return false
}

// toolResultsOf is the tool calls whose results entry uuid holds.
func toolResultsOf(es []transcripts.Entry, uuid string) []string {
	var ids []string
	for _, e := range es {
		if e.UUID != uuid {
			continue
		}
		for _, b := range e.Blocks {
			if b.Type == transcripts.BlockToolResult {
				ids = append(ids, b.ToolUseID)
			}
		}
	}
	return ids
}

// toolResultItem is the item of the tool call whose result is entry uuid.
func (p *readerPane) toolResultItem(uuid string) int {
	for _, id := range toolResultsOf(p.conv.Entries, uuid) {
		for i := range p.items {
			if p.items[i].tool != nil && p.items[i].tool.ToolID == id {
				return i
			}
		}
	}
	return -1
}

// nearestShown is the item of the nearest shown entry before entry uuid,
// else after it.
func (p *readerPane) nearestShown(uuid string) int {
	es := p.conv.Entries
	for i := range es {
		if es[i].UUID != uuid {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			if k := p.indexOf(es[j].UUID); k >= 0 {
				return k
			}
		}
		for j := i + 1; j < len(es); j++ {
			if k := p.indexOf(es[j].UUID); k >= 0 {
				return k
			}
		}
	}
	return -1
}

// indexOfKey is the item with key k, or -1.
func (p *readerPane) indexOfKey(k string) int {
	for i := range p.items {
		if p.items[i].key == k {
			return i
		}
	}
	return -1
}

func (p *readerPane) indexOf(uuid string) int {
	for i := range p.items {
		if p.items[i].uuid == uuid && p.items[i].kind != kThinking {
			return i
		}
	}
	return -1
}

// build flattens the conversation into items, honouring expansion.
func (p *readerPane) build() {
	b := itemBuilder{p: p, c: p.conv, results: p.conv.PairToolResults(), shown: map[string]bool{}, items: p.items[:0]}
	b.items = append(b.items, ritem{kind: kHeader, key: "header"})
	b.walk(p.conv.Entries, 0)
	b.unlinkedAgents()
	p.items = b.items
	if p.cur >= len(p.items) {
		p.cur = len(p.items) - 1
	}
	if p.topItem >= len(p.items) {
		p.topItem, p.topLine = max(0, len(p.items)-1), 0
	}
	p.find.rerun(p.items)
}

// itemBuilder turns entries into the reader's items.
type itemBuilder struct {
	p       *readerPane
	c       *transcripts.Conversation
	results *transcripts.ToolResults
	shown   map[string]bool // subagents placed
	items   []ritem
	inTurn  bool // inside a Claude turn: no new "◆ Claude" head
}

// walk adds the items of es at a nesting depth.
func (b *itemBuilder) walk(es []transcripts.Entry, depth int) {
	b.inTurn = false
	for i := range es {
		e := &es[i]
		d := depth
		if e.IsSidechain && depth == 0 {
			d = 1
		}
		if b.marker(e, d) || e.Type != "assistant" {
			continue
		}
		for bi := range e.Blocks {
			b.block(e, bi, d)
		}
	}
}

// marker adds the item of a non-assistant entry (a compaction, its
// summary, a prompt); false when e is none of those.
func (b *itemBuilder) marker(e *transcripts.Entry, d int) bool {
	switch {
	case e.Type == "system" && e.Subtype == "compact_boundary":
		b.items = append(b.items, ritem{kind: kCompact, key: "c:" + e.UUID, uuid: e.UUID, depth: d, ts: e.Timestamp,
			label: fmt.Sprintf("conversation compacted (%s, %s tokens before)", human.OrDash(e.CompactTrigger), fmtCount(e.PreTokens))})
		b.inTurn = false
	case e.IsCompactSummary:
		b.items = append(b.items, ritem{kind: kSummary, key: "s:" + e.UUID, uuid: e.UUID, depth: d, ts: e.Timestamp,
			text: sanitize(e.JoinedText()), label: fmt.Sprintf("compaction summary (%d characters)", len(e.JoinedText()))})
	case e.Type == "user" && transcripts.IsRealPrompt(e):
		b.items = append(b.items, ritem{kind: kPrompt, key: "p:" + e.UUID, uuid: e.UUID, depth: d, ts: e.Timestamp,
			text: sanitize(transcripts.CleanPrompt(e.PromptText()))})
		b.inTurn = false
	case transcripts.QueuedText(e) != "":
		// Typed while Claude worked, and never sent as a prompt of its own.
		text := transcripts.QueuedText(e)
		b.items = append(b.items, ritem{kind: kPrompt, key: fmt.Sprintf("q:%d:%s", e.Timestamp.UnixMilli(), transcripts.OneLine(text, 40)),
			uuid: e.UUID, depth: d, ts: e.Timestamp, text: sanitize(text), said: transcripts.SaidQueued})
		b.inTurn = false
	default:
		return false
	}
	return true
}

// block adds the item of block bi of an assistant entry, and the
// subagent it spawned when that is expanded.
func (b *itemBuilder) block(e *transcripts.Entry, bi, d int) {
	it, ok := b.blockItem(e, bi, d)
	if !ok {
		return
	}
	it.head = !b.inTurn
	b.inTurn = true
	b.items = append(b.items, it)
	agent := it.agentID
	if it.kind != kTool || agent == "" || len(b.c.Agents[agent]) == 0 || b.shown[agent] {
		return
	}
	b.shown[agent] = true
	if b.p.expanded[it.key] {
		b.walk(b.c.Agents[agent], d+1)
		b.inTurn = false
	}
}

// blockItem is the item of a text, thinking or tool block; false for
// blocks the reader does not show.
func (b *itemBuilder) blockItem(e *transcripts.Entry, bi, d int) (ritem, bool) {
	bl := &e.Blocks[bi]
	it := ritem{uuid: e.UUID, depth: d, ts: e.Timestamp, key: fmt.Sprintf("%s#%d", e.UUID, bi)}
	switch bl.Type {
	case transcripts.BlockText:
		if strings.TrimSpace(bl.Text) == "" {
			return it, false
		}
		it.kind, it.text = kText, sanitize(bl.Text)
		return it, true
	case transcripts.BlockThinking, transcripts.BlockRedactedThinking:
		if !b.p.thinking || strings.TrimSpace(bl.Text) == "" {
			return it, false
		}
		it.kind, it.text = kThinking, sanitize(bl.Text)
		return it, true
	case transcripts.BlockToolUse, transcripts.BlockServerToolUse:
		it.kind, it.tool, it.result = kTool, bl, b.results.Of(bl)
		it.key = "t:" + bl.ToolID
		it.label = sanitizeLine(bl.ToolName + "(" + transcripts.ToolSummary(bl) + ")")
		if transcripts.IsAgentTool(bl.ToolName) {
			it.agentID = b.c.SpawnedBy[bl.ToolID]
		}
		return it, true
	}
	return it, false
}

// unlinkedAgents adds the subagents no tool call spawned, at the end.
func (b *itemBuilder) unlinkedAgents() {
	for _, ag := range b.c.Session.Subagents {
		if b.shown[ag.AgentID] || len(b.c.Agents[ag.AgentID]) == 0 {
			continue
		}
		b.shown[ag.AgentID] = true
		k := "agent:" + ag.AgentID
		b.items = append(b.items, ritem{kind: kAgent, key: k, agentID: ag.AgentID,
			label: sanitizeLine(fmt.Sprintf("subagent %s (%s) %s", ag.AgentID, human.OrDash(ag.Type), transcripts.OneLine(ag.Description, 80)))})
		if b.p.expanded[k] {
			b.walk(b.c.Agents[ag.AgentID], 1)
		}
	}
}

// lines renders item i at the current width (cached).
func (p *readerPane) lines(i int) []string {
	it := &p.items[i]
	ck := it.key
	if p.expanded[it.key] {
		ck += "+"
	}
	if l, ok := p.cache[ck]; ok {
		return l
	}
	l := p.render(it)
	p.cache[ck] = l
	return l
}

// wrap hard-wraps plain text to w cells with an indent.
func wrap(text string, w int, indent string) []string {
	var out []string
	inner := max(10, w-lipgloss.Width(indent))
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if l == "" {
			out = append(out, "")
			continue
		}
		for _, wl := range strings.Split(ansi.Wrap(l, inner, ""), "\n") {
			out = append(out, indent+wl)
		}
	}
	return out
}

const maxToolLines = 400

func (p *readerPane) render(it *ritem) []string {
	w := p.width
	prefix := strings.Repeat("│ ", it.depth)
	cw := max(20, w-lipgloss.Width(prefix))
	out := p.renderKind(it, cw)
	if prefix != "" {
		ps := p.c.sty.Subtle.Render(prefix)
		for i := range out {
			out[i] = ps + out[i]
		}
	}
	for i := range out {
		out[i] = trunc(out[i], w)
	}
	return out
}

// renderKind draws an item in cw cells, by kind.
func (p *readerPane) renderKind(it *ritem, cw int) []string {
	if k := uint(it.kind); k < uint(len(kindRenderers)) {
		return kindRenderers[k](p, it, cw)
	}
	return nil
}

// kindRenderers draws each kind of item.
var kindRenderers = [...]func(p *readerPane, it *ritem, cw int) []string{
	kHeader: func(p *readerPane, _ *ritem, cw int) []string { return p.renderHeader(cw) },
	kPrompt: (*readerPane).renderPrompt,
	kText: func(p *readerPane, it *ritem, cw int) []string {
		return append(p.turnHead(it), p.c.markdown(it.text, cw)...)
	},
	kThinking: (*readerPane).renderThinking,
	kTool:     (*readerPane).renderTool,
	kAgent: func(p *readerPane, it *ritem, cw int) []string {
		return []string{"", p.c.sty.Muted.Render(trunc("── "+p.expandMark(it)+" "+it.label+" ──", cw))}
	},
	kCompact: func(p *readerPane, it *ritem, cw int) []string {
		return []string{"", p.c.sty.Warn.Render(trunc("── "+it.label+" ──", cw))}
	},
	kSummary: (*readerPane).renderSummary,
}

// renderPrompt is a prompt under its author (the user, queued or not,
// or Claude for a subagent) and time.
func (p *readerPane) renderPrompt(it *ritem, cw int) []string {
	s := p.c.sty
	who := "▶ You"
	if it.said == transcripts.SaidQueued {
		who += ", queued while Claude worked"
	}
	if it.depth > 0 {
		who = "▶ Claude's task for the subagent" // a subagent's prompt is written by Claude
	}
	return append([]string{"", s.User.Render(who) + s.Muted.Render(" · "+p.c.fmtTime(it.ts))}, wrap(it.text, cw, "  ")...)
}

// renderThinking is Claude's thinking, subtle, behind ∴.
func (p *readerPane) renderThinking(it *ritem, cw int) []string {
	out := p.turnHead(it)
	for _, l := range wrap(it.text, cw, "  ∴ ") {
		out = append(out, p.c.sty.Subtle.Render(l))
	}
	return out
}

// renderSummary is a summary's label, and its text when expanded.
func (p *readerPane) renderSummary(it *ritem, cw int) []string {
	out := []string{p.c.sty.Muted.Render(trunc("  "+p.expandMark(it)+" "+it.label, cw))}
	if p.expanded[it.key] {
		out = append(out, p.c.markdown(it.text, cw)...)
	}
	return out
}

// expandMark is ▾ for an expanded item, ▸ for a collapsed one.
func (p *readerPane) expandMark(it *ritem) string {
	if p.expanded[it.key] {
		return "▾"
	}
	return "▸"
}

// turnHead is the "◆ Claude" line that opens a turn (nothing inside one).
func (p *readerPane) turnHead(it *ritem) []string {
	if !it.head {
		return nil
	}
	s := p.c.sty
	return []string{"", s.Assistant.Render("◆ Claude") + s.Muted.Render(" · "+p.c.fmtClock(it.ts))}
}

// renderHeader is the session's title, path, times and counts.
func (p *readerPane) renderHeader(cw int) []string {
	s := p.c.sty
	ss := p.conv.Session
	title := ss.Title
	if title == "" {
		title = transcripts.OneLine(ss.FirstPrompt, 120)
	}
	// The end's date too when the session ran past midnight.
	end := p.c.fmtClock(ss.End)
	if loc := p.c.cfg.Location; !ss.End.IsZero() && ss.Start.In(loc).Format("2006-01-02") != ss.End.In(loc).Format("2006-01-02") {
		end = p.c.fmtTime(ss.End)
	}
	meta := fmt.Sprintf("%s → %s (%s) · %s · %s · %s tokens", p.c.fmtTime(ss.Start), end,
		human.Duration(ss.Duration()), plural(ss.Prompts, "prompt"), plural(ss.ToolCalls, "tool call"), fmtCount(ss.Usage.Total()))
	var more []string
	if len(ss.Models) > 0 {
		more = append(more, sanitizeLine(strings.Join(ss.Models, ", ")))
	}
	if len(ss.Branches) > 0 {
		more = append(more, "⎇ "+sanitizeLine(strings.Join(ss.Branches, ", ")))
	}
	more = append(more, "id "+sanitizeLine(ss.ID))
	if !ss.SourceExists {
		more = append(more, "archived (files deleted; kept by cairn)")
	}
	return []string{
		s.Title.Render(trunc(sanitizeLine(title), cw)),
		s.Muted.Render(trunc(sanitizeLine(human.Path(ss.ProjectPath)), cw)),
		s.Muted.Render(trunc(meta, cw)),
		s.Muted.Render(trunc(strings.Join(more, " · "), cw)),
	}
}

// renderTool is a tool call: its one-line label, its input when expanded,
// and its output (the first line, or all of it when expanded).
func (p *readerPane) renderTool(it *ritem, cw int) []string {
	s := p.c.sty
	out := p.turnHead(it)
	open := p.expanded[it.key]
	line := "  " + p.expandMark(it) + " " + s.Tool.Render("● ") + it.label
	if it.agentID != "" {
		n := len(p.conv.Agents[it.agentID])
		line += s.Muted.Render(fmt.Sprintf("  ⑂ subagent · %d entries", n))
	}
	out = append(out, trunc(line, cw))
	if open && it.tool != nil && len(it.tool.ToolInput) > 0 {
		if ls, ok := p.fileChange(it.tool, cw); ok {
			out = append(out, ls...)
		} else {
			out = append(out, p.toolInput(it.tool, cw)...)
		}
	}
	if it.result != nil {
		out = append(out, p.toolOutput(it.result, open, cw)...)
	}
	return out
}

// toolInput is a call's input, one field a line in the order Claude
// wrote them: a text value with its real line breaks (wrapped under its
// indentation), any other value as compact JSON.
func (p *readerPane) toolInput(tool *transcripts.Block, cw int) []string {
	st := p.c.sty.Muted
	fields, ok := shownFields(tool.ToolInput)
	if !ok {
		return nil
	}
	var out []string
	for _, f := range fields {
		out = append(out, fieldLines(f, cw, st)...)
		if len(out) > maxToolLines {
			return append(out[:maxToolLines], st.Render(fmt.Sprintf("      … %d more lines", len(out)-maxToolLines)))
		}
	}
	return out
}

// shownFields is what toolInput shows of an input: its fields, or, when
// it is not an object, one nameless field of indented JSON; ok is false
// for input that is not JSON.
func shownFields(input json.RawMessage) ([]inputField, bool) {
	if fields, ok := inputFields(input); ok {
		return fields, true
	}
	var buf bytes.Buffer
	if json.Indent(&buf, input, "", "  ") != nil {
		return nil, false
	}
	return []inputField{{value: buf.String()}}, true
}

// fieldLines is one input field, wrapped to cw: "key: value" for one
// line, the key above its lines for a text of several.
func fieldLines(f inputField, cw int, st lipgloss.Style) []string {
	var out []string
	lines := strings.Split(strings.TrimRight(sanitize(f.value), "\n"), "\n")
	lead := "      "
	switch {
	case f.key != "" && len(lines) == 1:
		lead += sanitizeLine(f.key) + ": "
	case f.key != "":
		out = append(out, st.Render(trunc(lead+sanitizeLine(f.key)+":", cw)))
		lead += "  "
	}
	for _, l := range lines {
		for _, wl := range wrapIndent(l, cw, lead, 0) {
			out = append(out, st.Render(wl))
		}
	}
	return out
}

type inputField struct{ key, value string }

// inputFields reads a JSON object's fields in order: strings as text,
// anything else as compact JSON. ok is false when input is not an object.
func inputFields(input json.RawMessage) ([]inputField, bool) {
	dec := json.NewDecoder(bytes.NewReader(input))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var out []inputField
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		k, _ := t.(string)
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return nil, false
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			var buf bytes.Buffer
			if json.Compact(&buf, raw) == nil {
				raw = buf.Bytes()
			}
			s = string(raw)
		}
		out = append(out, inputField{k, s})
	}
	return out, true
}

// toolOutput is a call's result: its first line, or all of it when open.
func (p *readerPane) toolOutput(r *transcripts.Block, open bool, cw int) []string {
	s := p.c.sty
	if said, ok := transcripts.BlockSaid(r); ok {
		return p.saidOutput(said, cw)
	}
	markR := "⎿"
	st := s.Tool
	if r.IsError {
		markR, st = "✗", s.Error
	}
	text := strings.TrimRight(sanitize(r.Text), "\n")
	if text == "" {
		return []string{st.Render("    " + markR + " (no output)")}
	}
	ls := strings.Split(text, "\n")
	if !open {
		more := ""
		if len(ls) > 1 {
			more = fmt.Sprintf("  … +%d lines (enter)", len(ls)-1)
		}
		return []string{trunc(st.Render("    "+markR+" "+strings.TrimSpace(ls[0]))+s.Subtle.Render(more), cw)}
	}
	return outputLines(ls, markR, cw, st)
}

// outputLines is a whole result, at most maxToolLines lines, the first
// behind the mark; long lines wrap at word boundaries under their own
// indentation.
func outputLines(ls []string, markR string, cw int, st lipgloss.Style) []string {
	if len(ls) > maxToolLines {
		ls = append(ls[:maxToolLines], fmt.Sprintf("… %d more lines", len(ls)-maxToolLines))
	}
	var out []string
	for j, l := range ls {
		lead := "      "
		if j == 0 {
			lead = "    " + markR + " "
		}
		for _, wl := range wrapIndent(l, cw, lead, 0) {
			out = append(out, st.Render(wl))
		}
	}
	return out
}

// saidOutput is what the person said in a tool result, as their words:
// the reason they rejected the call, their answers to Claude's questions.
func (p *readerPane) saidOutput(said transcripts.Said, cw int) []string {
	st := p.c.sty.User
	var lines []string
	switch said.Source {
	case transcripts.SaidRejection:
		lines = []string{"↩ rejected by you: " + said.Text}
	case transcripts.SaidAnswer:
		for _, a := range said.Answers {
			lines = append(lines, "↩ answer: "+a.Question+" → "+a.Answer)
		}
	}
	var out []string
	for _, l := range lines {
		for j, ll := range strings.Split(sanitize(l), "\n") {
			lead := "      "
			if j == 0 {
				lead = "    "
			}
			for _, wl := range wrapIndent(ll, cw, lead, 0) {
				out = append(out, st.Render(wl))
			}
		}
	}
	return out
}

func (p *readerPane) setWidth(w int) {
	cw := max(20, w-2)
	if cw != p.width {
		p.width = cw
		p.cache = map[string][]string{}
	}
}

// height of item i in lines.
func (p *readerPane) height(i int) int { return len(p.lines(i)) }

// scrollLines moves the view by n lines, then keeps the cursor in view.
func (p *readerPane) scrollLines(n, h int) {
	if len(p.items) == 0 {
		return
	}
	if n > 0 {
		p.scrollDown(n)
	} else {
		p.scrollUp(-n)
	}
	p.clampBottom(h)
	p.followView(h)
}

// scrollDown moves the view down n lines, stopping at the last line.
func (p *readerPane) scrollDown(n int) {
	for n > 0 {
		hh := p.height(p.topItem)
		if p.topLine+n < hh {
			p.topLine += n
			return
		}
		if p.topItem >= len(p.items)-1 {
			p.topLine = max(0, hh-1)
			return
		}
		n -= hh - p.topLine
		p.topItem++
		p.topLine = 0
	}
}

// scrollUp moves the view up n lines, stopping at the top.
func (p *readerPane) scrollUp(n int) {
	for n > 0 {
		if p.topLine-n >= 0 {
			p.topLine -= n
			return
		}
		if p.topItem == 0 {
			p.topLine = 0
			return
		}
		n -= p.topLine + 1
		p.topItem--
		p.topLine = p.height(p.topItem) - 1
	}
}

// followView keeps the cursor on an item the view shows (mostly).
func (p *readerPane) followView(h int) {
	if p.cur < p.topItem || (p.cur == p.topItem && p.topMostlyGone(h)) {
		p.cur = p.topItem
		if p.cur < len(p.items)-1 && p.topMostlyGone(h) {
			p.cur++
		}
	} else if last := p.lastVisible(h); p.cur > last {
		p.cur = last
	}
}

// topMostlyGone reports that the view's top item is scrolled so far that
// less than half a view of it still shows.
func (p *readerPane) topMostlyGone(h int) bool {
	return p.topLine > 0 && p.height(p.topItem)-p.topLine < h/2
}

// clampBottom keeps the last item's end from scrolling above the bottom.
func (p *readerPane) clampBottom(h int) {
	// Lines from top to the end of the conversation, stopping once > h.
	total := -p.topLine
	for i := p.topItem; i < len(p.items) && total < h; i++ {
		total += p.height(i)
	}
	if total >= h {
		return
	}
	p.toBottom(h)
}

// toBottom scrolls so the last line is at the bottom of the view.
func (p *readerPane) toBottom(h int) {
	need := h
	i := len(p.items) - 1
	for i >= 0 {
		hh := p.height(i)
		if hh >= need {
			p.topItem, p.topLine = i, hh-need
			return
		}
		need -= hh
		i--
	}
	p.topItem, p.topLine = 0, 0
}

func (p *readerPane) lastVisible(h int) int {
	used := -p.topLine
	i := p.topItem
	for ; i < len(p.items); i++ {
		used += p.height(i)
		if used >= h {
			return i
		}
	}
	return len(p.items) - 1
}

// setCursor moves the cursor to item i and scrolls it into view; top puts
// it near the top (jumps), else the view moves as little as possible.
func (p *readerPane) setCursor(i int, top bool) {
	if i < 0 || i >= len(p.items) {
		return
	}
	p.cur = i
	p.wantTop = top
	p.needVisible = true
}

// applyVisible scrolls so the cursor is visible (needs the model to render).
func (p *readerPane) applyVisible(h int) {
	if !p.needVisible || len(p.items) == 0 {
		return
	}
	p.needVisible = false
	i := p.cur
	if p.wantTop || p.startsAboveView(i) {
		p.showAtTop(i, h)
		return
	}
	end, near := p.itemEndWithin(i, 4*h)
	switch {
	case !near: // far away: jump
		p.topItem, p.topLine = i, 0
		p.clampBottom(h)
	case end <= h: // already in view
	case p.height(i) >= h:
		p.topItem, p.topLine = i, 0
	default:
		p.scrollLinesRaw(end - h)
	}
}

// startsAboveView reports whether item i begins above the view's first
// line.
func (p *readerPane) startsAboveView(i int) bool {
	return i < p.topItem || (i == p.topItem && p.topLine > 0)
}

// showAtTop puts item i at the top of the view, past the blank line that
// opens a block.
func (p *readerPane) showAtTop(i, h int) {
	p.topItem, p.topLine = i, 0
	if ls := p.lines(i); len(ls) > 1 && ls[0] == "" {
		p.topLine = 1
	}
	p.wantTop = false
	p.clampBottom(h)
}

// itemEndWithin is the line (from the top of the view) where item i
// ends; near is false, and end meaningless, once the count passes limit
// lines on the way.
func (p *readerPane) itemEndWithin(i, limit int) (end int, near bool) {
	end = -p.topLine
	for j := p.topItem; j <= i; j++ {
		end += p.height(j)
		if end > limit {
			return end, false
		}
	}
	return end, true
}

func (p *readerPane) scrollLinesRaw(n int) {
	for n > 0 && p.topItem < len(p.items) {
		hh := p.height(p.topItem)
		if p.topLine+n < hh {
			p.topLine += n
			return
		}
		n -= hh - p.topLine
		p.topItem++
		p.topLine = 0
	}
}

// expandAll expands every tool call, or collapses them all when all are
// expanded.
func (p *readerPane) expandAll() {
	any := false
	for _, it := range p.items {
		if it.kind == kTool && !p.expanded[it.key] {
			any = true
		}
	}
	for _, it := range p.items {
		if it.kind == kTool && it.agentID == "" {
			p.expanded[it.key] = any
		}
	}
	p.rebuildKeep()
}

func (p *readerPane) toggleThinking() {
	p.thinking = !p.thinking
	p.rebuildKeep()
	if p.thinking {
		p.c.flashf("showing Claude's thinking")
	} else {
		p.c.flashf("thinking hidden")
	}
}

// itemEnd is the line (from the top of the view) where item i ends.
func (p *readerPane) itemEnd(i int) int {
	end := -p.topLine
	for j := p.topItem; j <= i && j < len(p.items); j++ {
		end += p.height(j)
	}
	return end
}

func (p *readerPane) rebuildKeep() {
	key := ""
	if p.cur < len(p.items) {
		key = p.items[p.cur].key
	}
	topKey := ""
	if p.topItem < len(p.items) {
		topKey = p.items[p.topItem].key
	}
	p.build()
	for i := range p.items {
		if p.items[i].key == key {
			p.cur = i
		}
		if p.items[i].key == topKey {
			p.topItem = i
		}
	}
	p.topLine = 0
	p.needVisible = true
}

func (p *readerPane) toggle(i int) {
	if i < 0 || i >= len(p.items) {
		return
	}
	it := p.items[i]
	switch it.kind {
	case kTool, kAgent, kSummary:
		p.expanded[it.key] = !p.expanded[it.key]
		p.rebuildKeep()
	}
}

func (p *readerPane) scroll(n int) { p.scrollLines(n, p.viewH()) }

// click moves the cursor to the item under the mouse; a click on the
// cursor's item expands or collapses it.
func (p *readerPane) click(y int) tea.Cmd {
	y -= p.c.lay.body.y
	if y < 0 || y >= len(p.lineItem) {
		return nil
	}
	i := p.lineItem[y]
	if i == p.cur {
		p.toggle(i)
		return nil
	}
	p.cur = i
	return nil
}

func (p *readerPane) viewH() int {
	h := p.c.lay.body.h - 1 // body minus the reader's status line
	if p.find.typing() {
		h--
	}
	return max(1, h)
}

func (p *readerPane) view() string {
	w, h := p.c.lay.body.w, p.c.lay.body.h
	if msg := p.state(); msg != "" {
		return msg
	}
	p.setWidth(w)
	vh := h - 1
	if p.find.typing() {
		vh--
	}
	p.lastH = vh
	p.applyVisible(vh)
	if p.sentence != "" {
		p.showSentence(p.sentence)
		p.sentence = ""
	}
	p.clampBottom(vh)
	out := p.visibleLines(vh)
	for len(out) < vh {
		out = append(out, "")
	}
	out = append(out, p.c.sty.Muted.Render(pad(" "+strings.Join(p.statusInfo(), " · "), w)))
	if p.find.typing() {
		out = append(out, p.find.view(w))
	}
	return strings.Join(out, "\n")
}

// state is what the reader shows instead of a session: loading, an
// error, none open ("" when a session is open).
func (p *readerPane) state() string {
	s := p.c.sty
	switch {
	case p.loading != "":
		return s.Muted.Render(" loading session " + p.loading + "…")
	case p.err != nil:
		return strings.Join([]string{"", s.Error.Render(" Could not open the session: " + sanitizeLine(p.err.Error())),
			s.Muted.Render(" esc goes back; if the store is damaged, `cairn index --rebuild` rebuilds the indexes.")}, "\n")
	case p.conv == nil:
		return strings.Join([]string{"", s.Muted.Render(" No session open."),
			s.Muted.Render(" Pick one in the timeline (2) or search (" + p.c.keys.Search.Help().Key + ") and press enter.")}, "\n")
	}
	return ""
}

// visibleLines draws up to vh lines from the top of the view, with the
// gutter marking the cursor's item and the matches, and remembers which
// item each line shows (for clicks).
func (p *readerPane) visibleLines(vh int) []string {
	s := p.c.sty
	gut, hit := s.Gutter.Render("▌"), s.Highlight.Render("›")
	matchSet := p.find.matchSet()
	var out []string
	p.lineItem = p.lineItem[:0]
	skip := p.topLine
	for i := p.topItem; i < len(p.items) && len(out) < vh; i++ {
		g := " "
		switch {
		case i == p.cur:
			g = gut
		case matchSet[i]:
			g = hit
		}
		out = p.appendItemLines(out, i, skip, vh, g, matchSet[i])
		skip = 0
	}
	return out
}

// appendItemLines appends item i's lines from skip on, until out holds
// vh lines, behind the gutter mark g (find's matches highlighted when
// matched). The gutter spans the item from its first text line on: blank
// lines between paragraphs are inside it, the one before is not.
func (p *readerPane) appendItemLines(out []string, i, skip, vh int, g string, matched bool) []string {
	ls := p.lines(i)
	first := 0
	for first < len(ls) && ls[first] == "" {
		first++
	}
	for j := skip; j < len(ls) && len(out) < vh; j++ {
		line := ls[j]
		if matched {
			line = p.find.highlight(line)
		}
		if j < first {
			out = append(out, "  "+line)
		} else {
			out = append(out, g+" "+line)
		}
		p.lineItem = append(p.lineItem, i)
	}
	return out
}

// statusInfo is the reader's status line: position, thinking, the find
// and the title.
func (p *readerPane) statusInfo() []string {
	info := []string{fmt.Sprintf("%d/%d", min(p.cur+1, len(p.items)), len(p.items))}
	if p.thinking {
		info = append(info, "thinking shown")
	}
	if f := p.find.status(); f != "" {
		info = append(info, f)
	}
	if t := p.conv.Session.Title; t != "" {
		info = append(info, sanitizeLine(transcripts.OneLine(t, 60)))
	}
	return info
}

// highlightPlain marks q in a line that has no styles of its own (lines
// with ANSI styles are left alone rather than risk breaking them).
func highlightPlain(line, q string, st lipgloss.Style) string {
	if strings.Contains(line, "\x1b") || q == "" {
		return line
	}
	lo, lq := strings.ToLower(line), strings.ToLower(q)
	if len(lo) != len(line) {
		return line
	}
	var b strings.Builder
	i := 0
	for {
		j := strings.Index(lo[i:], lq)
		if j < 0 {
			b.WriteString(line[i:])
			return b.String()
		}
		b.WriteString(line[i : i+j])
		b.WriteString(st.Render(line[i+j : i+j+len(q)]))
		i += j + len(q)
	}
}

// export writes the session as Markdown.
func (p *readerPane) export() tea.Cmd {
	c, thinking, exportPath := p.conv, p.thinking, p.c.exportPath
	return func() tea.Msg {
		md := ExportMarkdown(c, thinking)
		path, err := writeNewFile(exportPath(c.Session.ID), []byte(md))
		if err != nil {
			return flashMsg{text: fmt.Sprintf("could not export to %s: %v (is the folder writable?)", path, err), err: true}
		}
		return flashMsg{text: "exported to " + path}
	}
}
