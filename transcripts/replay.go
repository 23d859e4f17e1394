package transcripts

import (
	"encoding/hex"
	"hash/fnv"
	"strconv"
)

// ReplayKey identifies a user or assistant line of file f by what it says
// and when, not by its uuid: a resumed session can have its history
// written again with new uuids but the same timestamps, message ids and
// tool-use ids, and such a line must be counted and shown once. It is ""
// when the line carries neither a timestamp nor a message id (nothing
// tells its copies apart from new lines then).
//
// The key covers the line's thread (agent), type, time (to the
// millisecond, as the store keeps it), message id and each block's kind,
// text and tool ids. A tool call's input and a tool result's output are
// left out: their tool-use id names them (and the store keeps them
// shortened).
func ReplayKey(f *File, e *Entry) string {
	return replayKey(firstNonEmpty(f.AgentID, e.AgentID), e)
}

func replayKey(agent string, e *Entry) string {
	if e.Timestamp.IsZero() && e.MessageID == "" {
		return ""
	}
	h := fnv.New128a()
	put := func(s string) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	put(agent)
	put(e.Type)
	put(strconv.FormatInt(e.Timestamp.UnixMilli(), 10))
	put(e.MessageID)
	put(strconv.FormatBool(e.IsMeta))
	for i := range e.Blocks {
		b := &e.Blocks[i]
		put(b.Type)
		put(b.ToolID)
		put(b.ToolName)
		put(b.ToolUseID)
		switch {
		case b.Type == BlockToolResult:
		case b.ToolID != "":
			// The call's id names it: its input's JSON may be written
			// with other key order or escaping by another build.
		default:
			put(b.Text)
			put(string(b.ToolInput))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// DropReplays removes from a thread's entries (in order) the user and
// assistant lines that repeat an earlier one (ReplayKey), keeping the
// first.
func DropReplays(entries []Entry) []Entry {
	seen := map[string]bool{}
	out := entries[:0]
	for i := range entries {
		e := &entries[i]
		if e.IsUserOrAssistant() {
			if k := replayKey("", e); k != "" {
				if seen[k] {
					continue
				}
				seen[k] = true
			}
		}
		out = append(out, *e)
	}
	return out
}

// DropReplays removes repeated history from every thread of c.
func (c *Conversation) DropReplays() {
	c.Entries = DropReplays(c.Entries)
	for id, es := range c.Agents {
		c.Agents[id] = DropReplays(es)
	}
}
