package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/termtext"
	"github.com/cairn-dev/cairn/transcripts"

	"github.com/spf13/cobra"
)

// ShowOptions control how a session is printed.
type ShowOptions struct {
	Thinking  bool // include thinking blocks
	Full      bool // do not shorten tool output
	ToolLines int  // lines of tool output kept when shortening
	Color     bool // bold turn headers, dim tool calls and output (--color)
}

func newShowCmd(o *Options) *cobra.Command {
	so := ShowOptions{ToolLines: 6}
	cmd := &cobra.Command{
		Use:   "show SESSION_ID",
		Short: "Print a session as readable text (an id prefix of 8+ characters is enough)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(strings.TrimSpace(args[0])) < transcripts.MinIDPrefix {
				_, err := transcripts.ResolveSessionID(args[0], nil) // the too-short error, before a store is opened
				return err
			}
			var c *transcripts.Conversation
			err := withStore(cmd.Context(), o, func(st *index.Store) error {
				var err error
				c, err = st.Conversation(cmd.Context(), args[0])
				return err
			})
			if err != nil {
				return err
			}
			if c.Unreadable > 0 {
				fmt.Fprintf(o.Stderr, "cairn: %d entr%s of this session could not be read from the damaged store and %s left out; run `cairn doctor --full`\n",
					c.Unreadable, plural(c.Unreadable, "y", "ies"), plural(c.Unreadable, "is", "are"))
			}
			if o.JSON {
				return writeJSON(o.Stdout, sessionJSON(c.Session))
			}
			return o.page(func() error {
				so.Color = o.colorFor(o.Stdout)
				return RenderConversation(o.Stdout, c, so)
			})
		},
	}
	cmd.Flags().BoolVar(&so.Thinking, "thinking", false, "include Claude's thinking")
	cmd.Flags().BoolVar(&so.Full, "full", false, "print tool output in full")
	cmd.Flags().IntVar(&so.ToolLines, "tool-lines", 6, "lines of tool output to keep when shortening")
	addJSONFlag(cmd, o)
	return cmd
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// RenderConversation prints a conversation as plain text: prompts, replies,
// one line per tool call with shortened output, subagents nested where they
// were spawned, and compaction markers. Transcript text is sanitised so it
// cannot drive the terminal.
func RenderConversation(w io.Writer, c *transcripts.Conversation, so ShowOptions) error {
	s := c.Session
	r := &renderer{w: w, c: c, so: so, shown: map[string]bool{}, results: toolResults(c), printed: map[string]bool{}}
	r.printf("Session %s\n", termtext.Line(s.ID))
	r.printf("Project %s\n", termtext.Line(s.ProjectPath))
	if s.Title != "" {
		r.printf("Title   %s\n", termtext.Line(s.Title))
	}
	r.printf("When    %s → %s (%s)\n", fmtTime(s.Start), fmtTime(s.End), human.Duration(s.Duration()))
	if len(s.Models) > 0 {
		r.printf("Models  %s\n", termtext.Line(strings.Join(s.Models, ", ")))
	}
	if len(s.Branches) > 0 {
		r.printf("Branch  %s\n", termtext.Line(strings.Join(s.Branches, ", ")))
	}
	r.printf("Counts  %d prompts, %d replies, %d tool calls, %d errors, %d tokens\n",
		s.Prompts, s.AssistantTurns, s.ToolCalls, s.Errors, s.Usage.Total())
	if note := s.SourceNote(); note != "" {
		r.printf("Note    %s\n", note)
	}
	r.entries(c.Entries, "")
	// Subagents not linked to any call in the main thread (legacy files,
	// partial sessions, compaction agents).
	for _, ag := range s.Subagents {
		if r.shown[ag.AgentID] || len(c.Agents[ag.AgentID]) == 0 {
			continue
		}
		r.printf("\n── subagent %s (%s) %s\n", ag.AgentID, ag.Type, termtext.Line(transcripts.OneLine(ag.Description, 80)))
		r.shown[ag.AgentID] = true
		r.entries(c.Agents[ag.AgentID], "│ ")
	}
	return r.err
}

type renderer struct {
	w     io.Writer
	c     *transcripts.Conversation
	so    ShowOptions
	shown map[string]bool
	// results are the tool results by tool-use id, so each prints under
	// its own call (parallel calls are answered after the last of them);
	// printed are the ones printed so far.
	results map[string]*transcripts.Block
	printed map[string]bool
	err     error
}

// toolResults indexes the tool results of every thread of c by the id of
// the call they answer.
func toolResults(c *transcripts.Conversation) map[string]*transcripts.Block {
	out := map[string]*transcripts.Block{}
	add := func(es []transcripts.Entry) {
		for i := range es {
			if es[i].Type != "user" {
				continue
			}
			for bi := range es[i].Blocks {
				if b := &es[i].Blocks[bi]; b.Type == transcripts.BlockToolResult && b.ToolUseID != "" {
					if _, dup := out[b.ToolUseID]; !dup {
						out[b.ToolUseID] = b
					}
				}
			}
		}
	}
	add(c.Entries)
	for _, es := range c.Agents {
		add(es)
	}
	return out
}

func (r *renderer) printf(format string, a ...any) {
	if r.err == nil {
		_, r.err = fmt.Fprintf(r.w, format, a...)
	}
}

// style wraps s (already terminal-safe) in SGR attrs when colour is on.
func (r *renderer) style(attrs, s string) string { return sgr(r.so.Color, attrs, s) }

// block prints text with every line prefixed.
func (r *renderer) block(prefix, text string) {
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		r.printf("%s%s\n", prefix, termtext.Safe(line))
	}
}

func (r *renderer) entries(es []transcripts.Entry, indent string) {
	lastRole := ""
	for i := range es {
		e := &es[i]
		lastRole = r.entry(e, entryIndent(e, indent), lastRole)
	}
}

// entryIndent is the indent of an entry in a thread indented by base: an
// inline sidechain of older builds is marked in the main thread.
func entryIndent(e *transcripts.Entry, base string) string {
	if e.IsSidechain && base == "" {
		return "│ "
	}
	return base
}

// entry prints one entry. lastRole is the role whose header was printed
// last ("" after a compaction); entry returns it as it leaves it.
func (r *renderer) entry(e *transcripts.Entry, indent, lastRole string) string {
	switch {
	case e.Type == "system" && e.Subtype == "compact_boundary":
		r.printf("\n%s── conversation compacted (%s, %d tokens before) ──\n", indent, termtext.Line(orDash(e.CompactTrigger)), e.PreTokens)
		return ""
	case e.IsCompactSummary:
		r.printf("%s[compaction summary: %d characters]\n", indent, len(e.JoinedText()))
	case e.Type == "user" && transcripts.IsRealPrompt(e):
		r.prompt(e, indent)
		return "user"
	case e.Type == "queue-operation":
		if text := transcripts.QueuedText(e); text != "" {
			r.printf("\n%s▶ You · %s\n", indent, fmtTime(e.Timestamp))
			r.said(indent+"  ", "queued: ", text)
			return "user"
		}
	case e.Type == "user":
		r.toolResults(e, indent)
	case e.Type == "assistant":
		return r.assistant(e, indent, lastRole)
	}
	return lastRole
}

// prompt prints what the person sent: the typed text, the images and
// documents pasted with it, and the IDE context the extension added (the
// file open or the lines selected), as a detail.
func (r *renderer) prompt(e *transcripts.Entry, indent string) {
	r.printf("\n%s%s\n", indent, r.style("1;36", "▶ You · "+fmtTime(e.Timestamp)))
	if text := transcripts.CleanPrompt(e.PromptText()); text != "" {
		r.block(indent+"  ", text)
	}
	for _, m := range e.Media() {
		r.printf("%s  %s\n", indent, termtext.Line(m))
	}
	for _, ctx := range e.IDEContext() {
		r.printf("%s  ⌁ IDE: %s\n", indent, termtext.Line(ctx))
	}
	// A prompt typed while rejecting a tool call comes with the result.
	r.toolResults(e, indent)
}

// assistant prints an assistant entry's blocks, under a header unless the
// previous entry shown was Claude's too.
func (r *renderer) assistant(e *transcripts.Entry, indent, lastRole string) string {
	for bi := range e.Blocks {
		b := &e.Blocks[bi]
		if lastRole != "assistant" && r.headed(b) {
			r.printf("\n%s%s\n", indent, r.style("1;35", "◆ Claude · "+fmtTime(e.Timestamp)))
			lastRole = "assistant"
		}
		switch b.Type {
		case transcripts.BlockText:
			r.block(indent+"  ", b.Text)
		case transcripts.BlockThinking, transcripts.BlockRedactedThinking:
			if r.so.Thinking && strings.TrimSpace(b.Text) != "" {
				r.block(indent+"  ∴ ", b.Text)
			}
		case transcripts.BlockToolUse, transcripts.BlockServerToolUse:
			r.toolUse(b, indent)
		}
	}
	return lastRole
}

// headed reports whether a block opens Claude's turn with a header: text,
// tool calls, and thinking when shown.
func (r *renderer) headed(b *transcripts.Block) bool {
	return b.Type == transcripts.BlockText || b.Type == transcripts.BlockToolUse ||
		(b.Type == transcripts.BlockThinking && r.so.Thinking)
}

// toolUse prints a tool call, and the thread of the subagent it started
// the first time it is met.
func (r *renderer) toolUse(b *transcripts.Block, indent string) {
	r.printf("%s  %s\n", indent, r.style("2", "● "+termtext.Line(b.ToolName)+"("+termtext.Line(transcripts.ToolSummary(b))+")"))
	if transcripts.IsAgentTool(b.ToolName) {
		r.subagent(b, indent)
	}
	if res := r.results[b.ToolID]; res != nil && b.ToolID != "" && !r.printed[b.ToolID] {
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
	r.printf("%s  ┌ subagent %s\n", indent, termtext.Line(id))
	r.entries(r.c.Agents[id], indent+"  │ ")
	r.printf("%s  └ end of subagent %s\n", indent, termtext.Line(id))
}

// toolResults prints the results of a user entry that were not printed
// under their call already (a call not in the transcript).
func (r *renderer) toolResults(e *transcripts.Entry, indent string) {
	for bi := range e.Blocks {
		b := &e.Blocks[bi]
		if b.Type != transcripts.BlockToolResult || r.printed[b.ToolUseID] {
			continue
		}
		r.toolResult(b, nil, indent)
	}
}

// toolResult prints one tool result of call (nil when it is not in the
// transcript), shortened unless --full; what the person said in it (the
// reason typed when rejecting the call, the answers to Claude's
// questions) is printed whole, as their words.
func (r *renderer) toolResult(b, call *transcripts.Block, indent string) {
	if said, ok := transcripts.BlockSaid(b); ok {
		r.saidInResult(said, call, indent+"    ")
		return
	}
	mark := "⎿"
	if b.IsError {
		mark = "✗"
	}
	text := strings.TrimRight(b.Text, "\n")
	if text == "" {
		r.printf("%s    %s (no output)\n", indent, mark)
		return
	}
	lines := strings.Split(text, "\n")
	if !r.so.Full && len(lines) > r.so.ToolLines {
		more := len(lines) - r.so.ToolLines
		lines = append(lines[:r.so.ToolLines:r.so.ToolLines], fmt.Sprintf("… %d more lines", more))
	}
	for i, l := range lines {
		if !r.so.Full {
			l = truncate(l, 200)
		}
		if i == 0 {
			r.printf("%s    %s\n", indent, r.style("2", mark+" "+termtext.Safe(l)))
		} else {
			r.printf("%s      %s\n", indent, r.style("2", termtext.Safe(l)))
		}
	}
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

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
