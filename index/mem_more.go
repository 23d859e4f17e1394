package index

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/transcripts"

	json "github.com/go-json-experiment/json"
)

// DraftRow is a summary draft waiting for review.
type DraftRow struct {
	ID, Session, Project, Markdown, Status string
	Created, Updated                       time.Time
}

const draftCols = `id, session, project, markdown, status, created, updated`

// DraftSave inserts or replaces a draft.
func (m MemStore) SaveDraft(ctx context.Context, d *DraftRow) error {
	s := m.s
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO drafts(`+draftCols+`) VALUES (?,?,?,?,?,?,?)
			ON CONFLICT(id) DO UPDATE SET session=excluded.session, project=excluded.project, markdown=excluded.markdown,
			status=excluded.status, created=excluded.created, updated=excluded.updated`,
			d.ID, d.Session, d.Project, d.Markdown, d.Status, msOf(d.Created), msOf(d.Updated))
		return err
	})
}

// Drafts lists drafts with the status ("" = all), newest first; ids that
// start with idPrefix when it is set.
func (m MemStore) Drafts(ctx context.Context, status, idPrefix string) ([]*DraftRow, error) {
	s := m.s
	q := `SELECT ` + draftCols + ` FROM drafts WHERE 1=1`
	var args []any
	if status != "" {
		q += ` AND status = ?`
		args = append(args, status)
	}
	if idPrefix != "" {
		q += ` AND substr(id, 1, ?) = ?`
		args = append(args, len(idPrefix), idPrefix)
	}
	q += ` ORDER BY created DESC, id`
	return queryRows(ctx, s, q, args, func(rows *sql.Rows) (*DraftRow, error) {
		d := &DraftRow{}
		var c, u int64
		err := rows.Scan(&d.ID, &d.Session, &d.Project, &d.Markdown, &d.Status, &c, &u)
		d.Created, d.Updated = timeOfMs(c), timeOfMs(u)
		return d, err
	})
}

// SummaryRow is a stored session summary.
type SummaryRow struct {
	Session, Project, Source, Markdown string
	Sections                           map[string][]string
	Created                            time.Time
}

// SummarySave stores a session's summary (replacing an older one) and
// queues it for search.
func (m MemStore) SaveSummary(ctx context.Context, r *SummaryRow) error {
	s := m.s
	sec, err := json.Marshal(r.Sections, json.Deterministic(true))
	if err != nil {
		return err
	}
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO session_summaries(session, project, source, markdown, sections, created) VALUES (?,?,?,?,?,?)
			ON CONFLICT(session) DO UPDATE SET project=excluded.project, source=excluded.source, markdown=excluded.markdown,
			sections=excluded.sections, created=excluded.created`,
			r.Session, r.Project, r.Source, r.Markdown, string(sec), msOf(r.Created)); err != nil {
			return err
		}
		return queueDoc(ctx, tx, docSummaryPrefix+r.Session)
	})
}

// Summaries lists stored summaries, newest first: of one session when
// session is set, else of the project ("" = all).
func (m MemStore) Summaries(ctx context.Context, session, project string, limit int) ([]*SummaryRow, error) {
	s := m.s
	q := `SELECT session, project, source, markdown, sections, created FROM session_summaries WHERE 1=1`
	var args []any
	if session != "" {
		q += ` AND session = ?`
		args = append(args, session)
	}
	if project != "" {
		q += ` AND project = ?`
		args = append(args, project)
	}
	q += ` ORDER BY created DESC, session`
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	return queryRows(ctx, s, q, args, func(rows *sql.Rows) (*SummaryRow, error) {
		r := &SummaryRow{}
		var sec string
		var c int64
		if err := rows.Scan(&r.Session, &r.Project, &r.Source, &r.Markdown, &sec, &c); err != nil {
			return nil, err
		}
		_ = json.Unmarshal([]byte(sec), &r.Sections)
		r.Created = timeOfMs(c)
		return r, nil
	})
}

// InjectionRow is one memory injected into a session.
type InjectionRow struct {
	Session, Memory, Event string
	Time                   time.Time
	Checked, Used          bool
}

// MemRecordInjection records that memories were injected into a session by
// a hook event, counting each memory's first injection per session and event.
func (m MemStore) RecordInjection(ctx context.Context, session, event string, ids []string, now time.Time) error {
	s := m.s
	if len(ids) == 0 {
		return nil
	}
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			if err := execCountingMem(ctx, tx, "injected", id, `INSERT OR IGNORE INTO memory_injections(session, memory, event, ts) VALUES (?,?,?,?)`,
				session, id, event, now.UnixMilli()); err != nil {
				return err
			}
		}
		return bumpMemGen(ctx, tx)
	})
}

// MemInjections lists what was injected into a session, oldest first.
func (m MemStore) Injections(ctx context.Context, session string) ([]InjectionRow, error) {
	s := m.s
	return queryRows(ctx, s, `SELECT session, memory, event, ts, checked, used FROM memory_injections
		WHERE session = ? ORDER BY ts, memory, event`, []any{session}, func(rows *sql.Rows) (InjectionRow, error) {
		var r InjectionRow
		var ts int64
		err := rows.Scan(&r.Session, &r.Memory, &r.Event, &ts, &r.Checked, &r.Used)
		r.Time = timeOfMs(ts)
		return r, err
	})
}

// MemMarkUsage marks a session's injections checked, and those of the used
// memories used (counting each memory once per session).
func (m MemStore) MarkUsage(ctx context.Context, session string, checked, used []string) error {
	s := m.s
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		for _, id := range checked {
			if _, err := tx.ExecContext(ctx, `UPDATE memory_injections SET checked = 1 WHERE session = ? AND memory = ?`, session, id); err != nil {
				return err
			}
		}
		for _, id := range used {
			if err := execCountingMem(ctx, tx, "used", id, `UPDATE memory_injections SET used = 1 WHERE session = ? AND memory = ? AND used = 0`, session, id); err != nil {
				return err
			}
		}
		return bumpMemGen(ctx, tx)
	})
}

// execCountingMem runs q and, when it changed a row, adds one to memory id's
// counter column (injected or used).
func execCountingMem(ctx context.Context, tx *sql.Tx, counter, id, q string, args ...any) error {
	res, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		_, err = tx.ExecContext(ctx, `UPDATE memories SET `+counter+` = `+counter+` + 1 WHERE id = ?`, id)
	}
	return err
}

// ExtractCursor returns the entries.id extraction has read a session up to.
func (m MemStore) ExtractCursor(ctx context.Context, session string) (int64, error) {
	s := m.s
	var n int64
	err := s.r.QueryRowContext(ctx, `SELECT last_entry FROM extract_cursors WHERE session = ?`, session).Scan(&n)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	return n, s.wrap(err)
}

// SetExtractCursor records how far extraction has read a session.
func (m MemStore) SetExtractCursor(ctx context.Context, session string, last int64) error {
	s := m.s
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO extract_cursors(session, last_entry, updated) VALUES (?,?,?)
			ON CONFLICT(session) DO UPDATE SET last_entry = max(last_entry, excluded.last_entry), updated = excluded.updated`,
			session, last, time.Now().UnixMilli())
		if err != nil {
			return err
		}
		// Each cursor move is one extraction run over a session's new
		// entries (stats counts them).
		_, err = tx.ExecContext(ctx, `INSERT INTO kv(key, value) VALUES ('`+extractRunsKey+`', 1)
			ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`)
		return err
	})
}

// MemEntry is a stored transcript entry as extraction reads it.
type MemEntry struct {
	ID   int64 // entries.id: increases as entries are stored
	UUID string
	// Role is user (the person's words), assistant, tool or system.
	Role string
	// Source says where a user entry's words come from: "" a typed
	// prompt, "rejection" the reason typed when rejecting a tool call,
	// "answer" the answers to Claude's AskUserQuestion, "queued" a prompt
	// typed while Claude worked and never sent as one of its own
	// (transcripts.Said*).
	Source    string
	Block     string
	Time      time.Time
	Text      string // a rejection's, answer's or queued prompt's: only the person's words
	Sidechain bool
	Meta      bool   // injected text, hidden in a transcript view
	Compact   bool   // a compaction summary
	Input     []byte // a tool call's (shortened) input JSON
	IsError   bool   // a tool result that is an error
	ToolName  string // of a tool_use block
	ToolUse   string // tool_use id of a call, or the call a result (rejection, answer) answers
	// Hook is a hook row's run (Block "hook"; hookrows.go): a hook the
	// project ran in the session (Claude Code 2.x), once however often it
	// ran, with what Claude was shown of it. Text says it in a line.
	Hook *transcripts.HookRun

	synthetic bool // Claude Code's own line in Claude's place: left out
}

// MemEntries returns up to limit entries of a session's main thread stored
// after entry id after, in order, without what Claude Code wrote in
// Claude's place (transcripts.IsSyntheticReply: flagged since schema 10,
// judged by text in stores indexed before): nothing built from them
// (summaries, extraction, synthesis) takes those for Claude's work. Nor
// Claude's reply to one of cairn's own commands (flagCairn): it restates
// cairn's data, and extraction would propose it again.
//
// Every word the person said is a user entry, once (memEntries): a tool
// result that carries a rejection's reason or the answers to Claude's
// questions gives a user entry of those words (and a tool entry for its
// other results, if any), a queued prompt gives one unless a later prompt
// repeated it, and a prompt's blocks written again as lines of their own
// (the VS Code extension) are left out. Limit counts rows.
func (m MemStore) Entries(ctx context.Context, session string, after int64, limit int) ([]MemEntry, error) {
	s := m.s
	if limit <= 0 {
		limit = 1 << 30
	}
	var last MemEntry // the last typed prompt, for repeatedPrompt
	rows, err := queryRows(ctx, s, `SELECT e.id, e.uuid, e.type, e.subtype, e.role, e.block, e.ts, e.flags, e.text, e.data
		FROM entries e JOIN sessions s ON s.id = e.session
		WHERE s.sid = ? AND e.id > ? AND (e.flags & ?) = 0 ORDER BY e.id LIMIT ?`, []any{session, after, flagAgentThread | flagCairn, limit}, func(rows *sql.Rows) ([]MemEntry, error) {
		var r entryRow
		var id int64
		var data sql.NullString
		if err := rows.Scan(&id, &r.uuid, &r.typ, &r.subtype, &r.role, &r.block, &r.ts, &r.flags, &r.text, &data); err != nil {
			return nil, err
		}
		if data.Valid {
			r.data = []byte(data.String)
		}
		out := memEntries(session, id, &r)
		if len(out) == 1 && out[0].Role == roleUser && out[0].Source == transcripts.SaidPrompt {
			if repeatedPrompt(&last, &out[0]) {
				return nil, nil
			}
			last = out[0]
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return notSynthetic(rows), nil
}

// notSynthetic is the entries of rows, in order, but the synthetic ones.
func notSynthetic(rows [][]MemEntry) []MemEntry {
	var kept []MemEntry
	for _, es := range rows {
		for _, e := range es {
			if !e.synthetic {
				kept = append(kept, e)
			}
		}
	}
	return kept
}

// memEntries are the entries extraction reads of one stored row.
func memEntries(session string, id int64, r *entryRow) []MemEntry {
	e := rowMemEntry(id, r)
	if r.typ == "queue-operation" {
		// A queued prompt, unless a later prompt repeated it (echoed).
		if r.subtype != "enqueue" || strings.TrimSpace(r.text) == "" {
			return nil
		}
		e.Role, e.Source, e.Block = roleUser, transcripts.SaidQueued, transcripts.BlockText
		return []MemEntry{e}
	}
	if len(r.data) == 0 {
		return []MemEntry{e}
	}
	var se storedEntry
	if json.Unmarshal(r.data, &se) != nil {
		return []MemEntry{e}
	}
	if h := se.Hook; h != nil && r.flags&flagHook != 0 {
		e.Hook = &transcripts.HookRun{Event: h.Event, Matcher: h.Matcher, Command: h.Command, Said: h.Said}
		e.Block, e.Text = "hook", hookLine(e.Hook)
		return []MemEntry{e}
	}
	said, others := blocksSaid(&e, &se, r)
	return withSaid(e, said, others, len(se.Blocks))
}

// rowMemEntry is the entry of a stored row, before its blocks are read.
func rowMemEntry(id int64, r *entryRow) MemEntry {
	e := MemEntry{ID: id, UUID: r.uuid, Role: r.role, Block: r.block, Text: r.text}
	e.synthetic = r.flags&flagSynthetic != 0 || (e.Role == roleAssistant && e.Block == "text" && transcripts.IsSyntheticReplyText(e.Text))
	e.Sidechain = r.flags&flagSidechain != 0
	e.Meta = r.flags&flagMeta != 0
	e.Compact = r.flags&flagCompactSummary != 0
	if r.ts != 0 {
		e.Time = unixMilli(r.ts)
	}
	return e
}

// blocksSaid reads a row's blocks: the person's words in tool results (a
// rejection's reason, an answer) become entries of their own, the other
// blocks fill e's tool call and error; others counts the tool results
// without the person's words.
func blocksSaid(e *MemEntry, se *storedEntry, r *entryRow) (said []MemEntry, others int) {
	for _, b := range se.Blocks {
		if b.Type == transcripts.BlockToolResult {
			if s, ok := resultSaid(e, b, se, r); ok {
				said = append(said, s)
				continue
			}
			others++
		}
		e.noteBlock(b)
	}
	return said, others
}

// resultSaid is the entry of the person's words in tool result b of e's
// row r (its stored blocks se), if it carries any.
func resultSaid(e *MemEntry, b storedBlock, se *storedEntry, r *entryRow) (MemEntry, bool) {
	text := b.Text
	if text == "" && len(se.Blocks) == 1 {
		text = r.text // a lone block's text is the row's (stores written before rejections were the person's words)
	}
	s, ok := transcripts.BlockSaid(&transcripts.Block{Type: b.Type, Text: text, IsError: b.IsError, ToolUseID: b.ToolUseID})
	if !ok {
		return MemEntry{}, false
	}
	return MemEntry{ID: e.ID, UUID: e.UUID, Role: roleUser, Source: s.Source, Block: transcripts.BlockText,
		Time: e.Time, Text: s.Text, Sidechain: e.Sidechain, IsError: b.IsError, ToolUse: b.ToolUseID}, true
}

// noteBlock fills e's error, tool call and tool use from block b, where
// not set yet.
func (e *MemEntry) noteBlock(b storedBlock) {
	e.IsError = e.IsError || b.IsError
	if b.ToolName != "" && e.ToolName == "" {
		e.ToolName, e.ToolUse, e.Input = b.ToolName, b.ToolID, b.Input
	}
	if b.ToolUseID != "" && e.ToolUse == "" {
		e.ToolUse = b.ToolUseID
	}
}

// withSaid is a row's entries given the person's words found in its
// blocks (of blocks in all).
func withSaid(e MemEntry, said []MemEntry, others, blocks int) []MemEntry {
	switch {
	case len(said) == 0:
		return []MemEntry{e}
	case e.Role == roleUser && len(said) == blocks:
		return said // a row whose text is the words (stored since they are the person's)
	case e.Role == roleUser && strings.TrimSpace(e.Text) != "" && !allSaid(e.Text, said):
		return append([]MemEntry{e}, said...) // a typed prompt beside the rejection
	case others > 0:
		if e.Role == roleUser {
			e.Role = roleTool
		}
		return append([]MemEntry{e}, said...)
	}
	return said
}

// allSaid reports whether text is the words of said, one a line (the text
// of a row stored since they are the person's).
func allSaid(text string, said []MemEntry) bool {
	words := make([]string, len(said))
	for i, s := range said {
		words[i] = s.Text
	}
	return text == strings.Join(words, "\n")
}

// repeatedPrompt reports whether typed prompt e writes the last one (or a
// block of it) again at the same time, as the VS Code extension does
// (transcripts.SessionState.RepeatsPrompt; stores written before keep
// such rows).
func repeatedPrompt(last, e *MemEntry) bool {
	t := strings.TrimSpace(e.Text)
	return last.UUID != "" && !e.Time.IsZero() && e.Time.Equal(last.Time) && t != "" && strings.Contains(last.Text, t)
}

// MemSessionRef is a session as extraction needs it.
type MemSessionRef struct {
	ID, Project string
	End         time.Time
	MaxEntry    int64 // the highest entries.id of the session
	Cursor      int64 // extraction's cursor
}

// MemSessions lists sessions active since since (zero: all), with their
// extraction cursors; only sessions with entries past their cursor when
// pendingOnly is set.
func (m MemStore) Sessions(ctx context.Context, since time.Time, pendingOnly bool) ([]MemSessionRef, error) {
	s := m.s
	var out []MemSessionRef
	err := s.eachRow(ctx, `SELECT s.sid, s.project_path, s.end_ns,
		coalesce((SELECT max(e.id) FROM entries e WHERE e.session = s.id), 0),
		coalesce((SELECT c.last_entry FROM extract_cursors c WHERE c.session = s.sid), 0)
		FROM sessions s WHERE s.entries > 0 AND s.end_ns >= ? ORDER BY s.start_ns, s.sid`, []any{unixNano(since)}, func(rows *sql.Rows) error {
		var r MemSessionRef
		var end int64
		if err := rows.Scan(&r.ID, &r.Project, &end, &r.MaxEntry, &r.Cursor); err != nil {
			return err
		}
		r.End = fromUnixNano(end)
		if !pendingOnly || r.MaxEntry > r.Cursor {
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SynthesisState returns a project's last synthesis ("" when none).
func (m MemStore) SynthesisState(ctx context.Context, project string) (markdown, state string, updated time.Time, err error) {
	s := m.s
	var u int64
	err = s.r.QueryRowContext(ctx, `SELECT markdown, state, updated FROM synthesis WHERE project = ?`, project).Scan(&markdown, &state, &u)
	if err == sql.ErrNoRows {
		return "", "", time.Time{}, nil
	}
	return markdown, state, timeOfMs(u), s.wrap(err)
}

// SetSynthesis stores a project's synthesis.
func (m MemStore) SetSynthesis(ctx context.Context, project, markdown, state string) error {
	s := m.s
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO synthesis(project, markdown, state, updated) VALUES (?,?,?,?)
			ON CONFLICT(project) DO UPDATE SET markdown=excluded.markdown, state=excluded.state, updated=excluded.updated`,
			project, markdown, state, time.Now().UnixMilli())
		return err
	})
}

// MemAssistantText returns the text a session's assistant wrote (main
// thread) at or after since, in order.
func (m MemStore) AssistantText(ctx context.Context, session string, since time.Time) ([]string, error) {
	s := m.s
	return s.queryStrings(ctx, `SELECT e.text FROM entries e JOIN sessions s ON s.id = e.session
		WHERE s.sid = ? AND e.role = 'assistant' AND e.block = 'text' AND (e.flags & ?) = 0 AND e.ts >= ? ORDER BY e.id`,
		session, flagAgentThread, msOf(since))
}
