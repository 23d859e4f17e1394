package transcripts

import (
	"encoding/hex"
	"hash/fnv"
	"slices"
	"strconv"
	"time"
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
// first, and the lines that write a prompt's blocks again
// (SessionState.RepeatsPrompt); it puts queued prompts where they were
// typed (PlaceQueued).
func DropReplays(entries []Entry) []Entry {
	seen := map[string]bool{}
	var last SessionState // the last prompt, for RepeatsPrompt
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
			if last.RepeatsPrompt(e) {
				continue
			}
			if IsRealPrompt(e) {
				last.PromptAt, last.PromptBlocks = e.Timestamp, promptBlockHashes(e)
			}
		}
		out = append(out, *e)
	}
	return PlaceQueued(out)
}

// PlaceQueued keeps of a thread's queue lines the queued prompts that no
// later prompt repeats (QueuedText, PromptKey), and moves each before the
// first line written after it: a store that read the queue lines later
// than the rest of their file lists them last.
func PlaceQueued(entries []Entry) []Entry {
	queued, rest := splitQueued(entries)
	if len(queued) == 0 {
		return entries
	}
	echoed := promptEchoes(rest)
	for _, q := range queued {
		text := QueuedText(&q)
		if text == "" || echoed(&q, PromptKey(text)) {
			continue
		}
		rest = slices.Insert(rest, firstAfter(rest, q.Timestamp), q)
	}
	return rest
}

// splitQueued separates a thread's queue lines from the rest (nil, nil
// when it has none).
func splitQueued(entries []Entry) (queued, rest []Entry) {
	if !slices.ContainsFunc(entries, func(e Entry) bool { return e.Type == "queue-operation" }) {
		return nil, nil
	}
	rest = entries[:0:0]
	for i := range entries {
		if entries[i].Type == "queue-operation" {
			queued = append(queued, entries[i])
		} else {
			rest = append(rest, entries[i])
		}
	}
	return queued, rest
}

// promptEchoes says of a queued prompt (its PromptKey k) whether a real
// prompt of rest at or after its time repeats it, using each prompt once.
func promptEchoes(rest []Entry) func(q *Entry, k string) bool {
	prompts := map[string][]time.Time{}
	for i := range rest {
		if IsRealPrompt(&rest[i]) {
			k := PromptKey(rest[i].PromptText())
			prompts[k] = append(prompts[k], rest[i].Timestamp)
		}
	}
	return func(q *Entry, k string) bool {
		for i, t := range prompts[k] {
			if !t.Before(q.Timestamp) {
				prompts[k] = slices.Delete(prompts[k], i, i+1)
				return true
			}
		}
		return false
	}
}

// firstAfter is the index of the first of entries written after t (their
// length when none is, or t is zero).
func firstAfter(entries []Entry, t time.Time) int {
	if t.IsZero() {
		return len(entries)
	}
	for i := range entries {
		if entries[i].Timestamp.After(t) {
			return i
		}
	}
	return len(entries)
}

// DropReplays removes repeated history from every thread of c.
func (c *Conversation) DropReplays() {
	c.Entries = DropReplays(c.Entries)
	for id, es := range c.Agents {
		c.Agents[id] = DropReplays(es)
	}
}
