package index

import (
	"encoding/hex"
	"hash/fnv"

	json "github.com/go-json-experiment/json"

	"github.com/cairn-dev/cairn/transcripts"
)

// The hook runs Claude Code 2.x records (transcripts.HookRun: a progress
// line per hook per tool call, the attachments of what hooks said, the
// Stop hooks of a stop_hook_summary) are none of them stored as lines:
// thousands a session, and nothing in them is the conversation. What
// extraction needs of them is what hooks the project runs and what they
// told Claude, so each session keeps one hook row per distinct run —
// event, matcher, command and what Claude was shown — however often it
// ran. A hook row has no text (nothing of it is searched or embedded) and
// is not part of the conversation (show, the TUI, export leave it out:
// export writes back what it wrote before); MemStore.Entries gives it to
// extraction (MemEntry.Hook).

// storedHook is a hook row's run (storedEntry.Hook).
type storedHook struct {
	Event   string `json:"e"`
	Matcher string `json:"m,omitzero"`
	Command string `json:"c,omitzero"`
	Said    string `json:"s,omitzero"`
}

// maxHookCommand is the longest command a hook row keeps.
const maxHookCommand = 500

// hookRows are the hook rows of line e of session sid that this read has
// not made yet (seen: the runs made, by row uuid). Only the main thread's
// hooks are kept: extraction reads no other.
func (p *preparer) hookRows(f *transcripts.File, e *transcripts.Entry, sid string, seen map[string]bool) []*entryRow {
	agent := f.AgentID
	if agent == "" {
		agent = e.AgentID
	}
	flags := entryFlags(f, e, agent)
	if flags&(flagAgentThread|flagSidechain) != 0 {
		return nil
	}
	var out []*entryRow
	for _, h := range e.Hooks {
		sh := storedHook{Event: h.Event, Matcher: h.Matcher, Command: h.Command, Said: transcripts.HeadTail(h.Said, p.head, p.tail)}
		if len(sh.Command) > maxHookCommand {
			sh.Command = transcripts.HeadTail(sh.Command, maxHookCommand/2, maxHookCommand/2)
		}
		uuid := hookUUID(sid, &sh)
		if seen[uuid] {
			continue
		}
		seen[uuid] = true
		// Typed system (a one-byte kind: kindpack.go); the subtype says
		// which line it came from.
		r := &entryRow{uuid: uuid, parent: e.ParentUUID, typ: "system", subtype: e.Subtype, line: e.Line,
			role: roleSystem, flags: flags | flagHook}
		if !e.Timestamp.IsZero() {
			r.ts = e.Timestamp.UnixMilli()
		}
		r.data, _ = json.Marshal(storedEntry{Hook: &sh})
		out = append(out, r)
	}
	return out
}

// hookUUID names the hook row of run h of session sid: the same run read
// again (a later read of the file, a resume) is the same row, stored
// once (INSERT OR IGNORE). It has a uuid's shape, so it is stored in 16
// bytes (packUUID).
func hookUUID(sid string, h *storedHook) string {
	hs := fnv.New128a()
	for _, s := range []string{"hook", sid, h.Event, h.Matcher, h.Command, h.Said} {
		hs.Write([]byte(s))
		hs.Write([]byte{0})
	}
	b := hs.Sum(nil)
	x := hex.EncodeToString(b)
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// storeHookRows stores the hook rows of a line (pe.hooks) not stored
// before. A row stored before is no duplicate line: the line itself was
// never stored.
func (w *txWriter) storeHookRows(sr *sessionRow, fid int64, pe *preparedEntry) error {
	for _, r := range pe.hooks {
		if _, err := w.insEntry.ExecContext(w.ctx, packUUID(r.uuid), sr.id, fid, r.line, r.agent, packUUID(r.parent), packKind(r.typ), r.subtype,
			packKind(r.role), packKind(r.block), r.ts, r.flags, packText(r.text), packData(r.data)); err != nil {
			return err
		}
	}
	return nil
}

// hookLine says run h in a line: "PostToolUse:Edit hook [cmd]: what
// Claude was shown".
func hookLine(h *transcripts.HookRun) string {
	s := h.Name() + " hook"
	if h.Command != "" {
		s += " [" + h.Command + "]"
	}
	if h.Said != "" {
		s += ": " + h.Said
	}
	return s
}
