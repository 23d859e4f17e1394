// Package render prints a conversation for a person to read: the one
// renderer behind `cairn show` (plain text, optionally coloured) and the
// TUI's Markdown export (`cairn show --markdown` writes the same).
//
// Both formats walk the conversation the same way: prompts, replies, one
// line per tool call with its result under it (paired by
// transcripts.ToolResults: a duplicated result is shown once), subagents
// nested where they were spawned and the ones no call spawned at the end,
// compaction markers, and what the person said inside tool results.
// Transcript text is sanitised so it cannot drive a terminal.
package render

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/termtext"
	"github.com/cairn-dev/cairn/transcripts"

	"github.com/charmbracelet/x/ansi"
)

// Options control how a conversation is printed.
type Options struct {
	Markdown  bool // Markdown instead of plain text
	Thinking  bool // include thinking blocks
	Full      bool // do not shorten tool output
	ToolLines int  // lines of tool output kept when shortening (0: 6)
	Color     bool // plain text only: bold turn headers, dim tool calls and output
}

// maxToolLineCells is how wide a line of shortened tool output may be.
const maxToolLineCells = 200

// Conversation prints c to w.
func Conversation(w io.Writer, c *transcripts.Conversation, o Options) error {
	if o.ToolLines <= 0 {
		o.ToolLines = 6
	}
	o.Color = o.Color && !o.Markdown
	r := &renderer{w: w, c: c, o: o, shown: map[string]bool{}, results: c.PairToolResults(), printed: map[string]bool{}}
	r.header(c.Session)
	r.entries(c.Entries, "")
	// Subagents not linked to any call in the main thread (legacy files,
	// partial sessions, compaction agents).
	for _, ag := range c.Session.Subagents {
		if r.shown[ag.AgentID] || len(c.Agents[ag.AgentID]) == 0 {
			continue
		}
		head := fmt.Sprintf("subagent %s (%s) %s", ag.AgentID, human.OrDash(ag.Type), transcripts.OneLine(ag.Description, 80))
		r.shown[ag.AgentID] = true
		if o.Markdown {
			r.printf("\n**%s**\n", termtext.Line(head))
			r.entries(c.Agents[ag.AgentID], "> ")
		} else {
			r.printf("\n── %s\n", termtext.Line(head))
			r.entries(c.Agents[ag.AgentID], "│ ")
		}
	}
	return r.err
}

type renderer struct {
	w     io.Writer
	c     *transcripts.Conversation
	o     Options
	shown map[string]bool // subagents printed
	// results pairs each call with its result, printed under the call
	// (parallel calls are answered after the last of them); printed are
	// the calls whose result was printed.
	results *transcripts.ToolResults
	printed map[string]bool
	gapped  bool // the last line printed is a Markdown paragraph break
	err     error
}

// header prints the session's details: "Session <id>" lines in text, a
// title and a list in Markdown.
func (r *renderer) header(s *transcripts.Session) {
	code := termtext.Line
	if r.o.Markdown {
		r.printf("# %s\n\n", termtext.Line(transcripts.OneLine(cmp.Or(s.Title, s.FirstPrompt), 200)))
		code = func(v string) string { return "`" + strings.ReplaceAll(termtext.Line(v), "`", "'") + "`" }
	}
	for _, row := range r.details(s, code) {
		if r.o.Markdown {
			r.printf("- %s: %s\n", row[0], row[1])
		} else {
			r.printf("%-8s%s\n", row[0], row[1])
		}
	}
}

// details are the header's rows (name, value) for session s; code shows
// an id or a path.
func (r *renderer) details(s *transcripts.Session, code func(string) string) [][2]string {
	rows := [][2]string{{"Session", code(s.ID)}, {"Project", code(s.ProjectPath)}}
	if s.Title != "" && !r.o.Markdown {
		rows = append(rows, [2]string{"Title", termtext.Line(s.Title)})
	}
	rows = append(rows, [2]string{"When", fmt.Sprintf("%s → %s (%s)", r.when(s.Start), r.when(s.End), human.Duration(s.Duration()))})
	if len(s.Models) > 0 {
		rows = append(rows, [2]string{"Models", termtext.Line(strings.Join(s.Models, ", "))})
	}
	if len(s.Branches) > 0 {
		rows = append(rows, [2]string{"Branch", termtext.Line(strings.Join(s.Branches, ", "))})
	}
	rows = append(rows, [2]string{"Counts", fmt.Sprintf("%d prompts, %d replies, %d tool calls, %d errors, %d tokens",
		s.Prompts, s.AssistantTurns, s.ToolCalls, s.Errors, s.Usage.Total())})
	if note := s.SourceNote(); note != "" {
		rows = append(rows, [2]string{"Note", note})
	}
	return rows
}

// when is a time as the format shows it: local to the minute in text,
// UTC in Markdown (a file read elsewhere).
func (r *renderer) when(t time.Time) string {
	switch {
	case t.IsZero():
		return "-"
	case r.o.Markdown:
		return t.UTC().Format("2006-01-02 15:04") + " UTC"
	}
	return t.Local().Format("2006-01-02 15:04")
}

func (r *renderer) printf(format string, a ...any) {
	if r.err == nil {
		_, r.err = fmt.Fprintf(r.w, format, a...)
	}
	r.gapped = false
}

// style wraps s (already terminal-safe) in SGR attrs when colour is on.
func (r *renderer) style(attrs, s string) string {
	if !r.o.Color {
		return s
	}
	return "\x1b[" + attrs + "m" + s + "\x1b[0m"
}

// block prints text with every line prefixed.
func (r *renderer) block(prefix, text string) {
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		r.printf("%s%s\n", prefix, termtext.Safe(line))
	}
}

// head prints the header of a turn of who's at t: "▶ You · 12:00" in
// text (mark and colour attrs), a heading "## You · 12:00 UTC" in
// Markdown (quoted as its thread is).
func (r *renderer) head(indent, attrs, mark, who string, t time.Time) {
	if r.o.Markdown {
		r.gap(indent)
		r.printf("%s## %s · %s\n", indent, who, r.when(t))
		r.gap(indent)
		return
	}
	r.printf("\n%s%s\n", indent, r.style(attrs, mark+" "+who+" · "+r.when(t)))
}

// gap is the empty line that separates Markdown paragraphs (none in
// text).
func (r *renderer) gap(indent string) {
	if r.o.Markdown && !r.gapped {
		r.printf("%s\n", strings.TrimRight(indent, " "))
		r.gapped = true
	}
}

// body is the prefix of the lines under a header in a thread indented by
// indent.
func (r *renderer) body(indent string) string {
	if r.o.Markdown {
		return indent
	}
	return indent + "  "
}

func (r *renderer) entries(es []transcripts.Entry, indent string) {
	lastRole := ""
	for i := range es {
		e := &es[i]
		lastRole = r.entry(e, r.entryIndent(e, indent), lastRole)
	}
}

// entryIndent is the indent of an entry in a thread indented by base: an
// inline sidechain of older builds is marked in the main thread.
func (r *renderer) entryIndent(e *transcripts.Entry, base string) string {
	if e.IsSidechain && base == "" {
		return r.nested("")
	}
	return base
}

// nested is the indent of a thread nested in one indented by indent.
func (r *renderer) nested(indent string) string {
	if r.o.Markdown {
		return indent + "> "
	}
	if indent == "" {
		return "│ "
	}
	return indent + "  │ "
}

// entry prints one entry. lastRole is the role whose header was printed
// last ("" after a compaction); entry returns it as it leaves it.
func (r *renderer) entry(e *transcripts.Entry, indent, lastRole string) string {
	switch {
	case e.Type == "system" && e.Subtype == "compact_boundary":
		r.compaction(e, indent)
		return ""
	case e.IsCompactSummary:
		r.printf("%s[compaction summary: %d characters]\n", indent, len(e.JoinedText()))
	case e.Type == "user" && transcripts.IsRealPrompt(e):
		r.prompt(e, indent)
		return "user"
	case e.Type == "queue-operation":
		if r.queued(e, indent) {
			return "user"
		}
	case e.Type == "user":
		r.orphanResults(e, indent)
	case e.Type == "assistant":
		return r.assistant(e, indent, lastRole)
	}
	return lastRole
}

// compaction prints the line that marks where the conversation was
// compacted.
func (r *renderer) compaction(e *transcripts.Entry, indent string) {
	what := fmt.Sprintf("conversation compacted (%s, %d tokens before)", termtext.Line(human.OrDash(e.CompactTrigger)), e.PreTokens)
	if r.o.Markdown {
		r.printf("%s\n%s---\n%s*%s*\n", strings.TrimRight(indent, " "), indent, indent, what)
	} else {
		r.printf("\n%s── %s ──\n", indent, what)
	}
}

// queued prints a prompt queued while Claude worked, and reports whether
// the entry held one.
func (r *renderer) queued(e *transcripts.Entry, indent string) bool {
	text := transcripts.QueuedText(e)
	if text == "" {
		return false
	}
	if r.o.Markdown {
		r.head(indent, "", "", "You, queued while Claude worked", e.Timestamp)
	} else {
		r.head(indent, "1;36", "▶", "You", e.Timestamp)
	}
	r.said(r.body(indent), "queued: ", text)
	return true
}

// prompt prints what the person sent: the typed text, the images and
// documents pasted with it, and the IDE context the extension added (the
// file open or the lines selected), as a detail.
func (r *renderer) prompt(e *transcripts.Entry, indent string) {
	r.head(indent, "1;36", "▶", "You", e.Timestamp)
	body := r.body(indent)
	if text := transcripts.CleanPrompt(e.PromptText()); text != "" {
		r.block(body, text)
	}
	for _, m := range e.Media() {
		r.printf("%s%s\n", body, termtext.Line(m))
	}
	for _, ctx := range e.IDEContext() {
		r.printf("%s⌁ IDE: %s\n", body, termtext.Line(ctx))
	}
	// A prompt typed while rejecting a tool call comes with the result.
	r.orphanResults(e, indent)
}

// assistant prints an assistant entry's blocks, under a header unless the
// previous entry shown was Claude's too.
func (r *renderer) assistant(e *transcripts.Entry, indent, lastRole string) string {
	for bi := range e.Blocks {
		b := &e.Blocks[bi]
		if lastRole != "assistant" && r.headed(b) {
			r.head(indent, "1;35", "◆", "Claude", e.Timestamp)
			lastRole = "assistant"
		}
		r.assistantBlock(b, indent)
	}
	return lastRole
}

// assistantBlock prints one block of Claude's: text (not blank),
// thinking when shown, a tool call.
func (r *renderer) assistantBlock(b *transcripts.Block, indent string) {
	switch b.Type {
	case transcripts.BlockText:
		if strings.TrimSpace(b.Text) != "" {
			r.gap(indent)
			r.block(r.body(indent), b.Text)
		}
	case transcripts.BlockThinking, transcripts.BlockRedactedThinking:
		if r.o.Thinking && strings.TrimSpace(b.Text) != "" {
			r.block(r.body(indent)+"∴ ", b.Text)
		}
	case transcripts.BlockToolUse, transcripts.BlockServerToolUse:
		r.toolUse(b, indent)
	}
}

// headed reports whether a block opens Claude's turn with a header: text
// (not blank), tool calls, and thinking when shown.
func (r *renderer) headed(b *transcripts.Block) bool {
	return (b.Type == transcripts.BlockText && strings.TrimSpace(b.Text) != "") || b.Type == transcripts.BlockToolUse ||
		(b.Type == transcripts.BlockThinking && r.o.Thinking)
}

// toolUse prints a tool call, the thread of the subagent it started the
// first time it is met, and its result.
func (r *renderer) toolUse(b *transcripts.Block, indent string) {
	name, summary := termtext.Line(b.ToolName), termtext.Line(transcripts.ToolSummary(b))
	if r.o.Markdown {
		r.gap(indent)
		r.printf("%s- **%s**(`%s`)\n", indent, name, strings.ReplaceAll(summary, "`", "'"))
	} else {
		r.printf("%s  %s\n", indent, r.style("2", "● "+name+"("+summary+")"))
	}
	if transcripts.IsAgentTool(b.ToolName) {
		r.subagent(b, indent)
	}
	if res := r.results.Of(b); res != nil && !r.printed[b.ToolID] {
		r.printed[b.ToolID] = true
		r.toolResult(res, b, indent)
	}
}

// subagent prints the thread of the agent a call started, the first time
// the call is met.
func (r *renderer) subagent(b *transcripts.Block, indent string) {
	id := r.c.SpawnedBy[b.ToolID]
	if id == "" || len(r.c.Agents[id]) == 0 || r.shown[id] {
		return
	}
	r.shown[id] = true
	if r.o.Markdown {
		r.printf("%s  *subagent %s:*\n", indent, termtext.Line(id))
		r.entries(r.c.Agents[id], indent+"> ")
		r.printf("%s\n", strings.TrimRight(indent, " "))
		return
	}
	r.printf("%s  ┌ subagent %s\n", indent, termtext.Line(id))
	r.entries(r.c.Agents[id], indent+"  │ ")
	r.printf("%s  └ end of subagent %s\n", indent, termtext.Line(id))
}

// orphanResults prints the results of a user entry that answer no call of
// the conversation (the others print under their call, a duplicate
// nowhere).
func (r *renderer) orphanResults(e *transcripts.Entry, indent string) {
	for bi := range e.Blocks {
		if b := &e.Blocks[bi]; b.Type == transcripts.BlockToolResult && r.results.Orphan(b) {
			r.toolResult(b, nil, indent)
		}
	}
}

// toolResult prints one tool result of call (nil when it is not in the
// transcript), shortened unless Full; what the person said in it (the
// reason typed when rejecting the call, the answers to Claude's
// questions) is printed whole, as their words.
func (r *renderer) toolResult(b, call *transcripts.Block, indent string) {
	under := indent + "    " // under the call
	if r.o.Markdown {
		under = indent + "  " // in the call's list item
	}
	if said, ok := transcripts.BlockSaid(b); ok {
		r.saidInResult(said, call, under)
		return
	}
	mark := "⎿"
	if b.IsError {
		mark = "✗"
	}
	text := strings.TrimRight(b.Text, "\n")
	if text == "" {
		r.printf("%s%s (no output)\n", under, mark)
		return
	}
	lines := r.outputLines(text)
	if r.o.Markdown {
		r.fenced(under, mark, lines)
		return
	}
	for i, l := range lines {
		if i == 0 {
			r.printf("%s    %s\n", indent, r.style("2", mark+" "+l))
		} else {
			r.printf("%s      %s\n", indent, r.style("2", l))
		}
	}
}

// outputLines are a tool output's lines, made safe to print; unless Full,
// at most ToolLines of them (and a line that says how many more) and each
// cut at maxToolLineCells.
func (r *renderer) outputLines(text string) []string {
	lines := strings.Split(text, "\n")
	if !r.o.Full && len(lines) > r.o.ToolLines {
		more := len(lines) - r.o.ToolLines
		lines = append(lines[:r.o.ToolLines:r.o.ToolLines], fmt.Sprintf("… %d more lines", more))
	}
	for i, l := range lines {
		if !r.o.Full && ansi.StringWidth(l) > maxToolLineCells {
			l = ansi.Truncate(l, maxToolLineCells, "…")
		}
		lines[i] = termtext.Safe(l)
	}
	return lines
}

// fenced prints tool output as a Markdown code block under its call, its
// fence longer than any run of backticks in it; an error is marked above.
func (r *renderer) fenced(indent, mark string, lines []string) {
	fence := "```"
	for strings.Contains(strings.Join(lines, "\n"), fence) {
		fence += "`"
	}
	if mark != "⎿" {
		r.printf("%s%s error:\n", indent, mark)
	}
	r.printf("%s%s\n", indent, fence)
	for _, l := range lines {
		r.printf("%s%s\n", indent, l)
	}
	r.printf("%s%s\n", indent, fence)
}

// saidInResult prints what the person said in a tool result as a turn of
// theirs: "↩ rejected `npm install`: use pnpm", "↩ answer: Which
// tools? → Credo".
func (r *renderer) saidInResult(said transcripts.Said, call *transcripts.Block, indent string) {
	switch said.Source {
	case transcripts.SaidRejection:
		head := "↩ rejected: "
		if call != nil {
			head = "↩ rejected `" + termtext.Line(transcripts.OneLine(transcripts.CallName(call), 80)) + "`: "
		}
		r.said(indent, head, said.Text)
	case transcripts.SaidAnswer:
		for _, a := range said.Answers {
			text := a.Answer
			if a.Question != "" {
				text = a.Question + " → " + a.Answer
			}
			r.said(indent, "↩ answer: ", text)
		}
	}
}

// said prints the person's words after head, on as many lines as they
// take (the later ones indented under the first).
func (r *renderer) said(indent, head, text string) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	r.printf("%s%s%s\n", indent, head, termtext.Safe(lines[0]))
	for _, l := range lines[1:] {
		r.printf("%s  %s\n", indent, termtext.Safe(l))
	}
}
