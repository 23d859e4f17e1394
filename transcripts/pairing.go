package transcripts

import "sort"

// ToolResults pairs the tool calls of a conversation with their results:
// the one rule every view of a conversation uses (`cairn show`, the TUI's
// reader and its Markdown export).
//
// A call is answered by the first result written for its id, the main
// thread read before the subagents (in agent id order) and each thread in
// order. A later result for the same id (a copy of the first: history
// written again by a resume with other timestamps, a sidechain kept inline
// and in its agent's file) is a duplicate, shown nowhere. A result with no
// id, or whose call is not in the conversation, is an orphan: it is shown
// where it was written.
type ToolResults struct {
	byCall map[string]*Block // call id -> its result
	calls  map[string]bool   // ids of the calls in the conversation
}

// PairToolResults pairs the tool calls of c with their results.
func (c *Conversation) PairToolResults() *ToolResults {
	p := &ToolResults{byCall: map[string]*Block{}, calls: map[string]bool{}}
	for _, es := range c.threads() {
		for i := range es {
			for bi := range es[i].Blocks {
				p.note(&es[i].Blocks[bi])
			}
		}
	}
	return p
}

// note records block b: a call, or the result of one (the first result
// of a call wins).
func (p *ToolResults) note(b *Block) {
	switch {
	case b.Type == BlockToolResult && b.ToolUseID != "":
		if _, dup := p.byCall[b.ToolUseID]; !dup {
			p.byCall[b.ToolUseID] = b
		}
	case (b.Type == BlockToolUse || b.Type == BlockServerToolUse) && b.ToolID != "":
		p.calls[b.ToolID] = true
	}
}

// threads is the main thread then the subagents' threads, by agent id.
func (c *Conversation) threads() [][]Entry {
	ids := make([]string, 0, len(c.Agents))
	for id := range c.Agents {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := [][]Entry{c.Entries}
	for _, id := range ids {
		out = append(out, c.Agents[id])
	}
	return out
}

// Of is the result of call (a tool_use block), nil when it has none.
func (p *ToolResults) Of(call *Block) *Block {
	if call == nil || call.ToolID == "" {
		return nil
	}
	return p.byCall[call.ToolID]
}

// Orphan reports whether result b (a tool_result block) answers no call
// of the conversation: it is shown where it was written. A duplicate is
// not an orphan.
func (p *ToolResults) Orphan(b *Block) bool {
	return b.ToolUseID == "" || (!p.calls[b.ToolUseID] && p.byCall[b.ToolUseID] == b)
}

// Duplicate reports whether result b repeats the result its call is
// paired with (and is shown nowhere).
func (p *ToolResults) Duplicate(b *Block) bool {
	first, ok := p.byCall[b.ToolUseID]
	return ok && b.ToolUseID != "" && first != b
}
