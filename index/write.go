package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/cairn-dev/cairn/transcripts"

	json "github.com/go-json-experiment/json"
)

// txWriter writes prepared files inside one transaction. Session states are
// loaded inside the transaction, never cached across transactions: another
// process may have added to them in between.
type txWriter struct {
	ctx context.Context
	tx  *sql.Tx
	y   *syncer

	insEntry, insFTS, insEmbed, insRedaction, upFile, selSession, insSession,
	updSession, insSessionFile, insSummary, insSummaryProject, upProject *sql.Stmt

	sessions map[string]*sessionRow
	dirty    []*sessionRow // in first-touched order

	added, dups, redactions, summaries, sessionsWritten int

	// fresh are the documents this transaction queued for the full-text
	// index, handed to the process's own drainer once it commits (see
	// SyncOptions.handoff) so it need not read them back from the store.
	fresh []DocRow
	// queuedHere are the queued prompts' rows written in this
	// transaction (echoQueued).
	queuedHere map[int64]bool
	flushed    []*sessionRow // sessions written by this transaction
	// afterDup marks, per session and file, that a line was a duplicate
	// (not stored): the next row stored keeps its whole context and
	// model, which the duplicate may have been the one to note
	// (storedEntry.Ctx).
	afterDup map[dupKey]uint8
}

type dupKey struct {
	sid  string
	file int64
}

const (
	dupCtx   = 1 << iota // the next row keeps its context
	dupModel             // the next assistant row keeps its model
)

// sessionRow is a session being updated in this transaction.
type sessionRow struct {
	id      int64
	sid     string
	project string // folder name
	st      *transcripts.SessionState
	dirty   bool
	files   map[int64]bool // files that gave it entries in this transaction
	// what the search index last saw, to re-queue the session's document
	// only when it changes (path: its entries' documents)
	title, firstPrompt, path string
	// the title and project path as written by this transaction
	curTitle, curPath string
}

// sessionDetail is sessions.detail: the lists of a finished Session.
type sessionDetail struct {
	Branches    []string               `json:"branches,omitempty"`
	Models      []string               `json:"models,omitempty"`
	Versions    []string               `json:"versions,omitempty"`
	FilesRead   []string               `json:"files_read,omitempty"`
	FilesEdited []string               `json:"files_edited,omitempty"`
	Commands    []string               `json:"commands,omitempty"`
	Subagents   []transcripts.Subagent `json:"subagents,omitempty"`
	MainModel   string                 `json:"main_model,omitempty"`
	HostSession string                 `json:"host_session,omitempty"`
}

// strip clears from s the lists detail holds, so the state blob does not
// store them twice.
func (d *sessionDetail) strip(s *transcripts.Session) {
	s.Branches, s.Models, s.Versions, s.FilesRead, s.FilesEdited, s.Commands, s.Subagents = nil, nil, nil, nil, nil, nil, nil
}

// restore puts detail's lists back into a decoded state's Session. The
// state's own Subagents list is always empty (Finish derives it).
func (d *sessionDetail) restore(s *transcripts.Session) {
	s.Branches, s.Models, s.Versions, s.FilesRead, s.FilesEdited, s.Commands =
		d.Branches, d.Models, d.Versions, d.FilesRead, d.FilesEdited, d.Commands
}

func newTxWriter(ctx context.Context, tx *sql.Tx, y *syncer) (*txWriter, error) {
	w := &txWriter{ctx: ctx, tx: tx, y: y, sessions: map[string]*sessionRow{}}
	for _, p := range []struct {
		st  **sql.Stmt
		sql string
	}{
		{&w.insEntry, `INSERT OR IGNORE INTO entries_raw(uuid, session, file, line, agent, parent, type, subtype, role, block, ts, flags, text, data)
			VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`},
		{&w.insFTS, `INSERT OR IGNORE INTO fts_queue(doc) VALUES (?)`},
		{&w.insEmbed, `INSERT OR IGNORE INTO embed_queue(doc) VALUES (?)`},
		{&w.insRedaction, `INSERT OR IGNORE INTO redactions(session, entry, field, start, length, kind) VALUES (?,?,?,?,?,?)`},
		{&w.upFile, `INSERT INTO files(path, kind, project, session_id, agent_id, size, mtime, cur_offset, cur_line, cur_fp, present)
			VALUES (?,?,?,?,?,?,?,?,?,?,1)
			ON CONFLICT(path) DO UPDATE SET kind=excluded.kind, size=excluded.size, mtime=excluded.mtime,
				cur_offset=excluded.cur_offset, cur_line=excluded.cur_line, cur_fp=excluded.cur_fp, present=1
			RETURNING id`},
		{&w.selSession, `SELECT s.id, cairn_unz(s.state), cairn_unz(s.detail), s.state_version, p.name, s.title, s.first_prompt, s.project_path
			FROM sessions s JOIN projects p ON p.id = s.project WHERE s.sid = ?`},
		{&w.insSession, `INSERT INTO sessions(sid, project) VALUES (?, ?) RETURNING id`},
		{&w.updSession, `UPDATE sessions SET project_path=?, cwd=?, title=?, title_source=?, first_prompt=?, start_ns=?, end_ns=?,
			prompts=?, turns=?, tool_calls=?, errors=?, entries=?, compactions=?,
			input_tokens=?, output_tokens=?, cache_creation_tokens=?, cache_read_tokens=?,
			has_main_file=?, archived = CASE WHEN ? THEN 0 ELSE archived END, detail=?, state=?, state_version=? WHERE id=?`},
		{&w.insSessionFile, `INSERT OR IGNORE INTO session_files(session, file) VALUES (?, ?)`},
		{&w.insSummary, `INSERT OR IGNORE INTO summaries(leaf_uuid, text) VALUES (?, ?)`},
		{&w.insSummaryProject, `INSERT OR REPLACE INTO summary_projects(summary, project)
			SELECT id, ? FROM summaries WHERE leaf_uuid = ? AND text = ?`},
		{&w.upProject, `INSERT INTO projects(name, decoded_path, first_seen, last_seen) VALUES (?,?,?,?)
			ON CONFLICT(name) DO UPDATE SET last_seen=excluded.last_seen RETURNING id`},
	} {
		st, err := tx.PrepareContext(ctx, p.sql)
		if err != nil {
			w.close()
			return nil, err
		}
		*p.st = st
	}
	return w, nil
}

func (w *txWriter) close() {
	for _, st := range []*sql.Stmt{w.insEntry, w.insFTS, w.insEmbed, w.insRedaction, w.upFile, w.selSession,
		w.insSession, w.updSession, w.insSessionFile, w.insSummary, w.insSummaryProject, w.upProject} {
		if st != nil {
			st.Close()
		}
	}
}

// projectID returns the projects row of a folder, creating it; the first
// time per sync it also records the folder as seen now.
func (w *txWriter) projectID(name string) (int64, error) {
	if id, ok := w.y.projects[name]; ok {
		return id, nil
	}
	now := w.y.now.UnixMilli()
	var id int64
	if err := w.upProject.QueryRowContext(w.ctx, name, w.y.decodedPath(name), now, now).Scan(&id); err != nil {
		return 0, fmt.Errorf("recording project %s: %w", name, err)
	}
	w.y.projects[name] = id
	return id, nil
}

// file writes one file's entries and advances its cursor.
func (w *txWriter) file(pf *preparedFile) error {
	if pf.err != nil && len(pf.entries) == 0 && len(pf.summaries) == 0 {
		return nil // unreadable: reported, cursor untouched, retried next time
	}
	fid, err := w.fileRow(pf)
	if err != nil {
		return err
	}
	for i := range pf.entries {
		if err := w.entry(&pf.file, fid, &pf.entries[i]); err != nil {
			return err
		}
	}
	if len(pf.summaries) == 0 {
		return nil
	}
	return w.fileSummaries(pf)
}

// fileSummaries writes the summary lines of a file, with the file's
// project (a summary resolves only within it).
func (w *txWriter) fileSummaries(pf *preparedFile) error {
	pid, err := w.projectID(pf.file.Project)
	if err != nil {
		return err
	}
	for _, sm := range pf.summaries {
		res, err := w.insSummary.ExecContext(w.ctx, sm.leaf, sm.text)
		if err != nil {
			return err
		}
		if _, err := w.insSummaryProject.ExecContext(w.ctx, pid, sm.leaf, sm.text); err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			w.summaries++
		}
	}
	return nil
}

// fileRow records a file and its new cursor and returns its id.
func (w *txWriter) fileRow(pf *preparedFile) (int64, error) {
	f := &pf.file
	pid, err := w.projectID(f.Project)
	if err != nil {
		return 0, err
	}
	size := pf.cursor.Size
	if pf.err != nil {
		size = -1 // read only in part: make the next sync look again
	}
	var fid int64
	if err := w.upFile.QueryRowContext(w.ctx, f.Path, int(f.Kind), pid, f.SessionID, f.AgentID, size, f.ModTime.UnixNano(),
		pf.cursor.Offset, pf.cursor.Line, int64(pf.cursor.Fingerprint)).Scan(&fid); err != nil {
		return 0, fmt.Errorf("recording file %s: %w", f.Path, err)
	}
	return fid, nil
}

// entry writes one line of file fid: its row, unless its uuid is stored
// already (first seen wins), its redactions and its part of the session.
func (w *txWriter) entry(f *transcripts.File, fid int64, pe *preparedEntry) error {
	if w.y.tomb != nil && w.y.tomb.sessions[pe.sid] {
		return nil // forgotten: a file shared with other sessions still holds it
	}
	sr, err := w.session(pe.sid, f.Project)
	if err != nil {
		return err
	}
	if sr.st.IsReplay(f, pe.e) {
		w.replayed(fid, pe)
		return nil
	}
	if err := w.storeHookRows(sr, fid, pe); err != nil {
		return err
	}
	var entryID int64
	if pe.row != nil {
		var fate rowFate
		if entryID, fate, err = w.storeRow(f, sr, fid, pe); err != nil || fate == rowKnown {
			return err
		}
		if fate == rowRecounted {
			return w.addToSession(sr, f, fid, pe.e)
		}
	}
	if err := w.storeRedactions(sr, entryID, pe.finds); err != nil {
		return err
	}
	return w.addToSession(sr, f, fid, pe.e)
}

// replayed counts a line of file fid that is history a resume wrote
// again: stored, searched and counted once.
func (w *txWriter) replayed(fid int64, pe *preparedEntry) {
	w.dups++
	if pe.row != nil {
		w.markDup(dupKey{pe.sid, fid})
	}
}

// storeRedactions records where the secrets redacted from entry entryID
// of session sr were.
func (w *txWriter) storeRedactions(sr *sessionRow, entryID int64, finds []fieldFinding) error {
	for _, ff := range finds {
		if _, err := w.insRedaction.ExecContext(w.ctx, sr.id, entryID, ff.field, ff.f.Start, ff.f.End-ff.f.Start, ff.f.Kind); err != nil {
			return err
		}
		w.redactions++
	}
	return nil
}

// rowFate is what a line needs once storeRow has seen to its row.
type rowFate int

const (
	rowNew       rowFate = iota // stored now: its redactions and its part of the session follow
	rowKnown                    // stored before (or a second copy in a recount): nothing more
	rowRecounted                // stored before, met first by a recount: its part of the session only
)

// storeRow stores the row of pe's line unless its uuid is stored already,
// and says what else the line needs. A recount redoes the aggregate of a
// line stored before (only its role may have changed) and counts a uuid
// once.
func (w *txWriter) storeRow(f *transcripts.File, sr *sessionRow, fid int64, pe *preparedEntry) (int64, rowFate, error) {
	r := pe.row
	entryID, stored, err := w.insertRow(f, sr, fid, pe)
	if err != nil {
		return 0, rowKnown, err
	}
	if rc := w.y.recount; rc != nil && rc.started[pe.sid] {
		if rc.seen[r.uuid] {
			return entryID, rowKnown, nil // a second copy of the line
		}
		rc.seen[r.uuid] = true
		if !stored {
			// Stored before (with its redactions): only its role may
			// have changed, and the aggregate is redone.
			return entryID, rowRecounted, w.recountRow(r)
		}
	}
	if !stored {
		return entryID, rowKnown, nil
	}
	return entryID, rowNew, nil
}

// addToSession adds the line of file fid to its session's state and
// marks the session to be written.
func (w *txWriter) addToSession(sr *sessionRow, f *transcripts.File, fid int64, e *transcripts.Entry) error {
	if err := w.add(sr, f, e); err != nil {
		return err
	}
	sr.files[fid] = true
	w.markDirty(sr)
	return nil
}

// add adds a line to its session's state, and takes the queued prompts
// it repeats out of the person's words (echoQueued).
func (w *txWriter) add(sr *sessionRow, f *transcripts.File, e *transcripts.Entry) error {
	sr.st.Add(f, e)
	for _, uuid := range sr.st.TakeEchoed() {
		if err := w.echoQueued(sr, uuid); err != nil {
			return err
		}
	}
	return nil
}

// echoQueued deletes the row of a queued prompt that a later prompt
// repeated (it was sent after all): the prompt's row holds those words,
// and they are shown, searched and extracted once. A row written in this
// transaction never reached the full-text index; an older one leaves it
// (its queue key now names a row that is gone).
func (w *txWriter) echoQueued(sr *sessionRow, uuid string) error {
	if uuid == "" {
		return nil
	}
	var id int64
	err := w.tx.QueryRowContext(w.ctx, `DELETE FROM entries_raw WHERE uuid = ? AND session = ? AND type = ? RETURNING id`,
		packUUID(uuid), sr.id, packKind("queue-operation")).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("dropping the queued prompt %s of session %s, sent as a prompt since: %w", uuid, sr.sid, err)
	}
	if _, err := w.tx.ExecContext(w.ctx, `DELETE FROM redactions WHERE session = ? AND entry = ?`, sr.id, id); err != nil {
		return err
	}
	key := entryQueueKey(id)
	if !w.queuedHere[id] {
		_, err = w.insFTS.ExecContext(w.ctx, key)
		return err
	}
	w.added-- // added and gone in this transaction
	w.fresh = slices.DeleteFunc(w.fresh, func(d DocRow) bool { return d.queueKey == key })
	_, err = w.tx.ExecContext(w.ctx, `DELETE FROM fts_queue WHERE doc = ?`, key)
	return err
}

// markDup notes that a line of a session in a file was not stored (a
// duplicate): the next row stored keeps its whole context (afterDup).
func (w *txWriter) markDup(k dupKey) {
	if w.afterDup == nil {
		w.afterDup = map[dupKey]uint8{}
	}
	w.afterDup[k] = dupCtx | dupModel
}

// insertRow stores an entry's row and queues it; stored is false for a
// uuid already stored.
func (w *txWriter) insertRow(f *transcripts.File, sr *sessionRow, fid int64, pe *preparedEntry) (id int64, stored bool, err error) {
	r := pe.row
	dk := dupKey{pe.sid, fid}
	data := r.data
	if pending := w.afterDup[dk]; pending != 0 {
		data = r.withContext(pending&dupCtx != 0, pending&dupModel != 0)
	}
	res, err := w.insEntry.ExecContext(w.ctx, packUUID(r.uuid), sr.id, fid, r.line, r.agent, packUUID(r.parent), packKind(r.typ), r.subtype,
		packKind(r.role), packKind(r.block), r.ts, r.flags, packText(r.text), packData(data))
	if err != nil {
		return 0, false, fmt.Errorf("storing %s line %d: %w", f.Path, r.line, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		w.dups++
		w.markDup(dk)
		return 0, false, nil
	}
	if pending := w.afterDup[dk]; pending != 0 {
		pending &^= dupCtx
		if r.typ == "assistant" {
			pending &^= dupModel
		}
		if pending == 0 {
			delete(w.afterDup, dk)
		} else {
			w.afterDup[dk] = pending
		}
	}
	id, _ = res.LastInsertId()
	w.added++
	if r.typ == "queue-operation" {
		if w.queuedHere == nil {
			w.queuedHere = map[int64]bool{}
		}
		w.queuedHere[id] = true
	}
	return id, true, w.queue(r, pe.sid, id)
}

// recountRow corrects the role and searchable text of a row stored
// before, when this build reads the line otherwise (a VS Code prompt
// stored as system text, with its IDE tags), and queues it again for the
// full-text index and, if now embeddable, a vector.
func (w *txWriter) recountRow(r *entryRow) error {
	var id int64
	var text, data any = nil, nil // NULL: keep the stored text and blocks
	if r.data != nil {
		// The text is only the search text when the blocks are stored
		// beside it; a lone block's text is the row's text. The blocks
		// go with it: a rejection's row text became the person's words,
		// and its block keeps the tool output.
		text, data = packText(r.text), packData(r.data)
	}
	err := w.tx.QueryRowContext(w.ctx, `UPDATE entries_raw SET role = ?, block = ?, flags = (flags & ~?) | ?, text = coalesce(?, text), data = coalesce(?, data)
		WHERE uuid = ? AND (role != ? OR text IS NOT coalesce(?, text)) RETURNING id`,
		packKind(r.role), packKind(r.block), flagSaid, r.flags&flagSaid, text, data, packUUID(r.uuid), packKind(r.role), text).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := w.insFTS.ExecContext(w.ctx, entryQueueKey(id)); err != nil {
		return err
	}
	if r.embed {
		_, err = w.insEmbed.ExecContext(w.ctx, entryQueueKey(id))
	}
	return err
}

// queue queues a new entry for the full-text index when it has text
// (and hands it to the process's drainer) and for a vector when it is
// embeddable.
func (w *txWriter) queue(r *entryRow, sid string, id int64) error {
	key := entryQueueKey(id)
	if blankFree(r.text) {
		if _, err := w.insFTS.ExecContext(w.ctx, key); err != nil {
			return err
		}
		if w.y.opts.handoff != nil {
			d := r.doc(sid)
			d.queueKey = key
			w.fresh = append(w.fresh, d)
		}
	}
	if r.embed {
		if _, err := w.insEmbed.ExecContext(w.ctx, key); err != nil {
			return err
		}
	}
	return nil
}

// markDirty lists a session to be written by flushSessions.
func (w *txWriter) markDirty(sr *sessionRow) {
	if !sr.dirty {
		sr.dirty = true
		w.dirty = append(w.dirty, sr)
	}
}

// doc is the full-text document of an entry of session sid, without the
// session's title and project (handoff.label) or queue key. Only entries
// with text (blankFree) are indexed.
func (r *entryRow) doc(sid string) DocRow {
	return DocRow{ID: docEntryPrefix + r.uuid, Kind: DocMessage, Text: r.text, Session: sid, Role: r.role, Block: r.block,
		Subagent: r.flags&(flagSidechain|flagAgentThread) != 0, cairn: r.flags&flagCairn != 0, Time: docTime(r.ts), embed: r.embed}
}

// session loads (or creates) a session's row and state inside the
// transaction.
func (w *txWriter) session(sid, project string) (*sessionRow, error) {
	if sr := w.sessions[sid]; sr != nil {
		return sr, nil
	}
	sr := &sessionRow{sid: sid, project: project, files: map[int64]bool{}}
	stored, err := w.loadSession(sr)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if err := w.createSession(sr, project); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, fmt.Errorf("loading session %s: %w", sid, err)
	}
	if err := w.checkStored(sid, stored); err != nil {
		return nil, err
	}
	if err := w.restoreState(sr, stored); err != nil {
		return nil, err
	}
	w.sessions[sid] = sr
	return sr, nil
}

// storedSession is what the store holds of a session's aggregate.
type storedSession struct {
	blob, detail []byte // the packed state and its lists; nil for a new or damaged one
	version      int    // the state's format
	damaged      bool   // the state does not decompress
}

// loadSession reads session sr.sid's row into sr and returns its stored
// state (sql.ErrNoRows when the store has no such session).
func (w *txWriter) loadSession(sr *sessionRow) (storedSession, error) {
	var st storedSession
	err := w.selSession.QueryRowContext(w.ctx, sr.sid).Scan(&sr.id, &st.blob, &st.detail, &st.version, &sr.project, &sr.title, &sr.firstPrompt, &sr.path)
	if isDamage(err) && w.ctx.Err() == nil {
		// The session's stored state does not decompress: read the rest
		// of the row. A recount aggregates it afresh from its transcripts;
		// otherwise checkStored says to run one.
		st = storedSession{damaged: true}
		err = w.tx.QueryRowContext(w.ctx, `SELECT s.id, s.state_version, p.name, s.title, s.first_prompt, s.project_path
			FROM sessions s JOIN projects p ON p.id = s.project WHERE s.sid = ?`, sr.sid).Scan(&sr.id, &st.version, &sr.project, &sr.title, &sr.firstPrompt, &sr.path)
	}
	return st, err
}

// createSession inserts session sr.sid into project.
func (w *txWriter) createSession(sr *sessionRow, project string) error {
	pid, err := w.projectID(project)
	if err != nil {
		return err
	}
	if err := w.insSession.QueryRowContext(w.ctx, sr.sid, pid).Scan(&sr.id); err != nil {
		return fmt.Errorf("creating session %s: %w", sr.sid, err)
	}
	return nil
}

// keepsState reports whether this sync builds on session sid's stored
// state (anything but a recount that aggregates it afresh).
func (w *txWriter) keepsState(sid string) bool {
	return w.y.recount == nil || w.y.recount.keep[sid]
}

// checkStored refuses a stored state this sync would have to build on but
// cannot read: one of another format, or one that does not decompress.
func (w *txWriter) checkStored(sid string, st storedSession) error {
	if st.blob != nil && st.version != transcripts.StateVersion && w.keepsState(sid) {
		return fmt.Errorf("session %s was aggregated by another cairn version (state v%d, this one uses v%d). %s",
			sid, st.version, transcripts.StateVersion, RebuildAdvice(w.y.s.path))
	}
	if st.damaged && w.keepsState(sid) {
		return fmt.Errorf("%w: the stored state of session %s does not decompress; run `cairn index --recount` to aggregate it again from its transcripts (`cairn doctor --full` says what else is damaged)", ErrCorrupt, sid)
	}
	return nil
}

// restoreState gives sr its aggregate: afresh when a recount meets it
// first (keeping the summary resolved earlier) or it has none, else the
// stored one with its lists.
func (w *txWriter) restoreState(sr *sessionRow, st storedSession) error {
	switch {
	case w.y.recount.begin(sr.sid):
		// Aggregated afresh from the lines this sync reads again; the
		// summary resolved earlier is kept.
		summary := ""
		if st.blob != nil {
			if old, err := transcripts.UnmarshalState(st.blob); err == nil {
				summary = old.Summary
			}
		}
		sr.st = transcripts.NewSessionState(sr.sid, sr.project)
		sr.st.Summary = summary
	case st.blob == nil:
		sr.st = transcripts.NewSessionState(sr.sid, sr.project)
	default:
		var d sessionDetail
		var err error
		if sr.st, err = transcripts.UnmarshalState(st.blob); err == nil {
			err = json.Unmarshal(st.detail, &d)
		}
		if err != nil {
			return fmt.Errorf("%w: the stored state of session %s cannot be read (%w). %s", ErrCorrupt, sr.sid, err, RebuildAdvice(w.y.s.path))
		}
		d.restore(&sr.st.Session)
	}
	return nil
}

// flushSessions writes the sessions changed in this transaction: their
// finished columns and their state.
func (w *txWriter) flushSessions() error {
	for _, sr := range w.dirty {
		if err := w.flushSession(sr); err != nil {
			return err
		}
	}
	w.dirty = w.dirty[:0]
	return nil
}

// flushSession writes session sr: its finished columns, its state, its
// files, and what its project or title changing moves in the full-text
// index.
func (w *txWriter) flushSession(sr *sessionRow) error {
	fin := sr.st.Finish(w.y.decodedPath(sr.project))
	project, err := w.y.projectRule(w.tx).of(w.ctx, fin.CWD, sr.project)
	if err != nil {
		return fmt.Errorf("finding the project of session %s: %w", sr.sid, err)
	}
	fin.ProjectPath = project
	detail, blob, err := packState(sr.st, fin)
	if err != nil {
		return err
	}
	sr.curTitle, sr.curPath = fin.Title, fin.ProjectPath
	if w.y.opts.handoff != nil {
		w.flushed = append(w.flushed, sr)
	}
	u := fin.Usage
	if _, err := w.updSession.ExecContext(w.ctx, fin.ProjectPath, fin.CWD, fin.Title, fin.TitleSource, fin.FirstPrompt,
		unixNano(fin.Start), unixNano(fin.End), fin.Prompts, fin.AssistantTurns, fin.ToolCalls, fin.Errors, fin.Entries,
		fin.Compactions, u.InputTokens, u.OutputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens,
		fin.HasMainFile, len(sr.files) > 0, packData(detail), packBlob(blob), transcripts.StateVersion, sr.id); err != nil {
		return fmt.Errorf("updating session %s: %w", sr.sid, err)
	}
	for fid := range sr.files {
		if _, err := w.insSessionFile.ExecContext(w.ctx, sr.id, fid); err != nil {
			return err
		}
	}
	if err := w.reindexSession(sr, fin); err != nil {
		return err
	}
	sr.dirty = false
	sr.files = map[int64]bool{}
	w.sessionsWritten++
	return nil
}

// packState is what sessions.detail and sessions.state store of st,
// finished as fin: the lists, and the state without them (session() puts
// them back).
func packState(st *transcripts.SessionState, fin *transcripts.Session) (detail, blob []byte, err error) {
	d := sessionDetail{Branches: fin.Branches, Models: fin.Models, Versions: fin.Versions,
		FilesRead: fin.FilesRead, FilesEdited: fin.FilesEdited, Commands: fin.Commands, Subagents: fin.Subagents,
		MainModel: fin.MainModel, HostSession: fin.HostSession}
	if detail, err = json.Marshal(d); err != nil {
		return nil, nil, err
	}
	bare := *st
	d.strip(&bare.Session)
	if blob, err = transcripts.MarshalState(&bare); err != nil {
		return nil, nil, err
	}
	return detail, blob, nil
}

// reindexSession queues again what the full-text index holds of session sr
// when it changed under fin: all its documents when its project did (a
// repository appeared above its folder), its own document when its title
// or first prompt did.
func (w *txWriter) reindexSession(sr *sessionRow, fin *transcripts.Session) error {
	if sr.path != "" && sr.path != fin.ProjectPath {
		if err := requeueSessionsWhere(w.ctx, w.tx, `id = ?`, sr.id); err != nil {
			return err
		}
	}
	sr.path = fin.ProjectPath
	if fin.Entries > 0 && (fin.Title != sr.title || fin.FirstPrompt != sr.firstPrompt) {
		if _, err := w.insFTS.ExecContext(w.ctx, docSessionPrefix+sr.sid); err != nil {
			return err
		}
		sr.title, sr.firstPrompt = fin.Title, fin.FirstPrompt
	}
	return nil
}

// finish settles what depends on the whole sync: files that disappeared,
// sessions left without files (when some file's presence changed), and
// summaries whose leaf has arrived.
func (w *txWriter) finish(missing []int64, presenceChanged bool) error {
	if err := w.markMissing(missing); err != nil {
		return err
	}
	if err := w.attachSummaries(); err != nil {
		return err
	}
	// A session is archived when none of its files is on disk (sessions
	// that got entries from a file present now were un-archived as they
	// were written). This visits every session, so only when needed.
	if !presenceChanged {
		return w.setLastSync()
	}
	if _, err := w.tx.ExecContext(w.ctx, `UPDATE sessions SET archived = NOT EXISTS (
			SELECT 1 FROM session_files sf JOIN files f ON f.id = sf.file WHERE sf.session = sessions.id AND f.present = 1)
		WHERE archived != NOT EXISTS (
			SELECT 1 FROM session_files sf JOIN files f ON f.id = sf.file WHERE sf.session = sessions.id AND f.present = 1)`); err != nil {
		return err
	}
	return w.setLastSync()
}

// markMissing marks the files that disappeared as not present.
func (w *txWriter) markMissing(missing []int64) error {
	for _, id := range missing {
		if _, err := w.tx.ExecContext(w.ctx, `UPDATE files SET present = 0 WHERE id = ?`, id); err != nil {
			return err
		}
	}
	if len(missing) > 0 {
		if _, err := w.tx.ExecContext(w.ctx, bumpFilesEpoch); err != nil {
			return err
		}
	}
	return nil
}

// pendingSummary is a summary whose leaf has arrived, in session sid of
// project.
type pendingSummary struct {
	id           int64
	text         string
	sid, project string
}

// attachSummaries gives the summaries whose leaf has arrived to its
// session.
func (w *txWriter) attachSummaries() error {
	todo, err := w.pendingSummaries()
	if err != nil {
		return err
	}
	for _, p := range todo {
		sr, err := w.session(p.sid, p.project)
		if err != nil {
			return err
		}
		sr.st.Summary = p.text
		w.markDirty(sr)
		if _, err := w.tx.ExecContext(w.ctx, `UPDATE summaries SET session = ? WHERE id = ?`, sr.id, p.id); err != nil {
			return err
		}
	}
	return nil
}

// pendingSummaries lists the summaries without a session whose leaf has
// arrived. Summaries resolve through their leaf uuid, possibly into another
// file's session (resume chains), but only within the summary's own
// project, as in the Builder. Later lines win.
func (w *txWriter) pendingSummaries() ([]pendingSummary, error) {
	rows, err := w.tx.QueryContext(w.ctx, `SELECT sm.id, sm.text, ss.sid, p.name
		FROM summaries sm JOIN entries_raw e ON e.uuid = cairn_pack(sm.leaf_uuid)
		JOIN sessions ss ON ss.id = e.session JOIN projects p ON p.id = ss.project
		LEFT JOIN summary_projects sp ON sp.summary = sm.id
		WHERE sm.session IS NULL AND (sp.project IS NULL OR sp.project = ss.project) ORDER BY sm.id`)
	if err != nil {
		return nil, err
	}
	var todo []pendingSummary
	for rows.Next() {
		var p pendingSummary
		if err := rows.Scan(&p.id, &p.text, &p.sid, &p.project); err != nil {
			rows.Close()
			return nil, err
		}
		todo = append(todo, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return todo, nil
}

func (w *txWriter) setLastSync() error {
	_, err := w.tx.ExecContext(w.ctx, `INSERT INTO kv(key, value) VALUES ('last_sync', ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, fmt.Appendf(nil, "%d", w.y.now.UnixMilli()))
	return err
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func unixMilli(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

func fromUnixNano(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}
