package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/transcripts"

	json "github.com/go-json-experiment/json"
)

// Projects lists projects, most recently used first: one per git
// repository (see ProjectOf), with the other folders its sessions ran in
// (worktrees, subfolders) as Folders, and the transcript folders no
// session of which has been read yet under their decoded path. Size is
// the bytes of their transcript files still on disk.
func (s *Store) Projects(ctx context.Context) ([]transcripts.ProjectSummary, error) {
	// One grouped pass per table: per-project subqueries scanned every
	// file row for every project (120 ms on a 1 GB store).
	pl := &projectList{byPath: map[string]*transcripts.ProjectSummary{}, picks: map[string]folderPick{}}
	for _, pass := range []struct {
		q   string
		row func(*sql.Rows) error
	}{
		{`SELECT s.project_path, p.name, s.cwd, count(*), max(s.end_ns), min(s.start_ns)
		FROM sessions s JOIN projects p ON p.id = s.project WHERE s.entries > 0
		GROUP BY s.project_path, p.name, s.cwd ORDER BY s.project_path, min(s.start_ns)`, pl.sessions},
		{`SELECT x.project_path, sum(max(f.size, 0)) FROM
		(SELECT DISTINCT s.project_path, sf.file FROM sessions s JOIN session_files sf ON sf.session = s.id WHERE s.entries > 0) x
		JOIN files f ON f.id = x.file WHERE f.present = 1 GROUP BY x.project_path`, pl.size},
		// Folders none of whose sessions has a conversation yet.
		{`SELECT p.name, p.decoded_path, coalesce((SELECT sum(max(size, 0)) FROM files WHERE project = p.id AND present = 1), 0)
		FROM projects p WHERE NOT EXISTS (SELECT 1 FROM sessions WHERE project = p.id AND entries > 0)`, pl.unread},
	} {
		if err := s.eachRow(ctx, pass.q, nil, pass.row); err != nil {
			return nil, err
		}
	}
	res := make([]transcripts.ProjectSummary, len(pl.out))
	for i, ps := range pl.out {
		res[i] = *ps
	}
	sort.SliceStable(res, func(i, j int) bool { return res[i].LastUsed.After(res[j].LastUsed) })
	return res, nil
}

// projectList is Projects' result as its passes build it.
type projectList struct {
	byPath map[string]*transcripts.ProjectSummary
	out    []*transcripts.ProjectSummary
	picks  map[string]folderPick
}

// folderPick is the transcript folder a project is named by so far.
type folderPick struct {
	start int64
	exact bool
}

// sessions reads one (project, folder, cwd) group of sessions.
func (pl *projectList) sessions(rows *sql.Rows) error {
	var path, folder, cwd string
	var n int
	var last, first int64
	if err := rows.Scan(&path, &folder, &cwd, &n, &last, &first); err != nil {
		return err
	}
	ps := pl.byPath[path]
	if ps == nil {
		ps = &transcripts.ProjectSummary{Path: path}
		pl.byPath[path] = ps
		pl.out = append(pl.out, ps)
	}
	ps.Sessions += n
	if t := fromUnixNano(last); t.After(ps.LastUsed) {
		ps.LastUsed = t
	}
	if cwd != "" && cwd != path && !slices.Contains(ps.Folders, cwd) {
		ps.Folders = append(ps.Folders, cwd)
	}
	pl.pickName(ps, folder, first)
	return nil
}

// pickName names the project ps by the folder named after the repository
// itself, else the one of its oldest session; folder's oldest session
// started at first.
func (pl *projectList) pickName(ps *transcripts.ProjectSummary, folder string, first int64) {
	exact := folder == transcripts.EncodeProjectPath(ps.Path)
	if pk, ok := pl.picks[ps.Path]; !ok || (exact && !pk.exact) || (exact == pk.exact && first < pk.start) {
		pl.picks[ps.Path] = folderPick{first, exact}
		ps.Name = folder
	}
}

// size reads a project's bytes of transcripts still on disk.
func (pl *projectList) size(rows *sql.Rows) error {
	var path string
	var size int64
	if err := rows.Scan(&path, &size); err != nil {
		return err
	}
	if ps := pl.byPath[path]; ps != nil {
		ps.Size = size
	}
	return nil
}

// unread reads a transcript folder none of whose sessions is read yet.
func (pl *projectList) unread(rows *sql.Rows) error {
	ps := &transcripts.ProjectSummary{}
	if err := rows.Scan(&ps.Name, &ps.Path, &ps.Size); err != nil {
		return err
	}
	if pl.byPath[ps.Path] == nil {
		pl.byPath[ps.Path] = ps
		pl.out = append(pl.out, ps)
	}
	return nil
}

// SessionFilter selects sessions.
type SessionFilter struct {
	Project string    // text contained in the project path or folder name; "" = all
	Since   time.Time // only sessions active (ending) at or after Since; zero = all
	Limit   int       // 0 = no limit
}

const sessionCols = `s.id, s.sid, p.name, s.project_path, s.title, s.title_source, s.first_prompt, s.start_ns, s.end_ns,
	s.prompts, s.turns, s.tool_calls, s.errors, s.entries, s.compactions,
	s.input_tokens, s.output_tokens, s.cache_creation_tokens, s.cache_read_tokens,
	s.has_main_file, s.archived, cairn_unz(s.detail),
	s.has_main_file = 0 AND EXISTS (SELECT 1 FROM files mf WHERE mf.session_id = s.sid AND mf.kind = 0),
	s.cwd`

// Sessions lists sessions newest first (by start), as transcriptstest.Scan does.
// Sessions without a user or assistant entry are not listed.
func (s *Store) Sessions(ctx context.Context, f SessionFilter) ([]*transcripts.Session, error) {
	q := `SELECT ` + sessionCols + ` FROM sessions s JOIN projects p ON p.id = s.project WHERE s.entries > 0`
	var args []any
	if f.Project != "" {
		q += ` AND (instr(s.project_path, ?) > 0 OR instr(s.cwd, ?) > 0 OR instr(p.name, ?) > 0)`
		args = append(args, f.Project, f.Project, f.Project)
	}
	if !f.Since.IsZero() {
		q += ` AND s.end_ns >= ?`
		args = append(args, f.Since.UnixNano())
	}
	q += ` ORDER BY s.start_ns DESC, s.sid`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	return s.querySessions(ctx, q, args...)
}

func (s *Store) querySessions(ctx context.Context, q string, args ...any) ([]*transcripts.Session, error) {
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, s.wrap(err)
	}
	var out []*transcripts.Session
	byID := map[int64]*transcripts.Session{}
	var ids []int64
	for rows.Next() {
		id, ss, err := scanSession(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, ss)
		byID[id] = ss
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.wrap(err)
	}
	// Source files, in the order they were first read.
	for len(ids) > 0 {
		n := min(len(ids), 500)
		if err := s.addSourceFiles(ctx, ids[:n], byID); err != nil {
			return nil, err
		}
		ids = ids[n:]
	}
	return out, nil
}

// scanSession reads a session row of querySessions: its row id and the
// session.
func scanSession(rows *sql.Rows) (int64, *transcripts.Session, error) {
	var ss transcripts.Session
	var id, start, end int64
	var archived bool
	var detail []byte
	u := &ss.Usage
	if err := rows.Scan(&id, &ss.ID, &ss.Project, &ss.ProjectPath, &ss.Title, &ss.TitleSource, &ss.FirstPrompt, &start, &end,
		&ss.Prompts, &ss.AssistantTurns, &ss.ToolCalls, &ss.Errors, &ss.Entries, &ss.Compactions,
		&u.InputTokens, &u.OutputTokens, &u.CacheCreationInputTokens, &u.CacheReadInputTokens,
		&ss.HasMainFile, &archived, &detail, &ss.MainFileEmpty, &ss.CWD); err != nil {
		return 0, nil, err
	}
	ss.Start, ss.End = fromUnixNano(start), fromUnixNano(end)
	ss.SourceExists = !archived
	var d sessionDetail
	if err := json.Unmarshal(detail, &d); err != nil {
		return 0, nil, fmt.Errorf("%w: session %s: detail: %w", ErrCorrupt, ss.ID, err)
	}
	ss.Branches, ss.Models, ss.Versions, ss.FilesRead, ss.FilesEdited, ss.Commands, ss.Subagents =
		d.Branches, d.Models, d.Versions, d.FilesRead, d.FilesEdited, d.Commands, d.Subagents
	ss.MainModel, ss.HostSession = d.MainModel, d.HostSession
	if ss.MainModel == "" && len(ss.Models) > 0 {
		ss.MainModel = ss.Models[0] // stored before the main model was kept
	}
	ss.Models = transcripts.MainFirst(ss.Models, ss.MainModel) // stored before Finish put it first
	return id, &ss, nil
}

// addSourceFiles appends to the sessions of row ids chunk (in byID) their
// source files, in the order they were first read.
func (s *Store) addSourceFiles(ctx context.Context, chunk []int64, byID map[int64]*transcripts.Session) error {
	args := make([]any, len(chunk))
	for i, id := range chunk {
		args[i] = id
	}
	rows, err := s.r.QueryContext(ctx, `SELECT sf.session, f.path FROM session_files sf JOIN files f ON f.id = sf.file
			WHERE sf.session IN (`+sqlList(len(chunk))+`) ORDER BY f.id`, args...)
	if err != nil {
		return s.wrap(err)
	}
	for rows.Next() {
		var id int64
		var path string
		if err := rows.Scan(&id, &path); err != nil {
			rows.Close()
			return err
		}
		ss := byID[id]
		ss.SourceFiles = append(ss.SourceFiles, path)
	}
	rows.Close()
	return rows.Err()
}

// resolve finds the one listed session whose id starts with prefix, with
// transcripts.ResolveSessionID's errors (too short, unknown, ambiguous).
func (s *Store) resolve(ctx context.Context, prefix string) (int64, string, error) {
	prefix = strings.TrimSpace(prefix)
	if len(prefix) < transcripts.MinIDPrefix {
		_, err := transcripts.ResolveSessionID(prefix, nil)
		return 0, "", err
	}
	rows, err := s.r.QueryContext(ctx, `SELECT id, sid FROM sessions WHERE entries > 0 AND substr(sid, 1, ?) = ?`, len(prefix), prefix)
	if err != nil {
		return 0, "", s.wrap(err)
	}
	defer rows.Close()
	byID := map[string]int64{}
	var ids []string
	for rows.Next() {
		var id int64
		var sid string
		if err := rows.Scan(&id, &sid); err != nil {
			return 0, "", err
		}
		byID[sid] = id
		ids = append(ids, sid)
	}
	if err := rows.Err(); err != nil {
		return 0, "", err
	}
	sid, err := transcripts.ResolveSessionID(prefix, ids)
	if err != nil {
		return 0, "", err
	}
	return byID[sid], sid, nil
}

// Session returns the session whose id starts with idPrefix (8+ characters).
func (s *Store) Session(ctx context.Context, idPrefix string) (*transcripts.Session, error) {
	return s.session(ctx, idPrefix)
}

func (s *Store) session(ctx context.Context, idPrefix string) (*transcripts.Session, error) {
	id, sid, err := s.resolve(ctx, idPrefix)
	if err != nil {
		return nil, err
	}
	ss, err := s.querySessions(ctx, `SELECT `+sessionCols+` FROM sessions s JOIN projects p ON p.id = s.project WHERE s.id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(ss) == 0 {
		return nil, fmt.Errorf("session %s vanished while reading it", sid)
	}
	return ss[0], nil
}

// Conversation rebuilds a session's conversation from the store alone, so
// it can be shown after its transcript files are gone: the main thread in
// order, subagent threads by agent id, and which call spawned which agent.
// Tool output is the stored head and tail, not the full text.
func (s *Store) Conversation(ctx context.Context, idPrefix string) (*transcripts.Conversation, error) {
	sess, err := s.session(ctx, idPrefix)
	if err != nil {
		return nil, err
	}
	c, err := s.readConversation(ctx, sess, `s.sid = ?`, sess.ID)
	if err == nil || !isDamage(err) || ctx.Err() != nil {
		return c, s.wrap(err)
	}
	// A damaged row: read the entries one by one and leave out (and
	// count) those that cannot be read, instead of failing the session.
	ids, ierr := queryRows(ctx, s, `SELECT e.id FROM entries_raw e JOIN sessions s ON s.id = e.session WHERE s.sid = ? ORDER BY e.id`,
		[]any{sess.ID}, func(rows *sql.Rows) (int64, error) {
			var id int64
			return id, rows.Scan(&id)
		})
	if ierr != nil {
		return nil, s.wrap(err)
	}
	b := newConversation(sess)
	for _, id := range ids {
		if err := s.conversationRows(ctx, sess, b, `e.id = ?`, id); err != nil {
			if !isDamage(err) {
				return nil, s.wrap(err)
			}
			b.c.Unreadable++
		}
	}
	return b.finish(), nil
}

// readConversation reads the entries matching where into a conversation.
func (s *Store) readConversation(ctx context.Context, sess *transcripts.Session, where string, arg any) (*transcripts.Conversation, error) {
	b := newConversation(sess)
	if err := s.conversationRows(ctx, sess, b, where, arg); err != nil {
		return nil, err
	}
	return b.finish(), nil
}

// conversationRows adds the entries matching where to b.
func (s *Store) conversationRows(ctx context.Context, sess *transcripts.Session, b *conversation, where string, arg any) error {
	rows, err := s.r.QueryContext(ctx, `SELECT e.uuid, e.file, e.line, e.agent, e.parent, e.type, e.subtype, e.role, e.block,
		e.ts, e.flags, e.text, e.data FROM entries e JOIN sessions s ON s.id = e.session WHERE `+where+` ORDER BY e.id`, arg)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r entryRow
		var file int64
		var data sql.RawBytes
		if err := rows.Scan(&r.uuid, &file, &r.line, &r.agent, &r.parent, &r.typ, &r.subtype, &r.role, &r.block,
			&r.ts, &r.flags, &r.text, &data); err != nil {
			return err
		}
		if r.flags&flagHook != 0 {
			continue // no line of the conversation (hookrows.go)
		}
		r.data = data
		e, rc, err := decodeEntryCtx(sess.ID, &r)
		if err != nil {
			return fmt.Errorf("%w: entry %s of session %s: %w", ErrCorrupt, r.uuid, sess.ID, err)
		}
		b.context(&e, rc, file)
		b.add(e, &r, file)
	}
	return rows.Err()
}

// conversation collects a session's stored entries into its conversation.
type conversation struct {
	c     *transcripts.Conversation
	files map[int64]bool
	// starts are the assistant lines that began an API response
	// (flagResponseStart): finish names responses from them.
	starts map[string]bool
	// ctx and model are the line context and model last read per file
	// (storedEntry.Ctx, Model keep them only where they change); last*
	// are the session's latest, for a file whose first rows were
	// duplicates of lines another file holds (not stored again).
	ctx       map[int64]lineCtx
	model     map[int64]string
	lastCtx   *lineCtx
	lastModel *string
}

// context gives e its line's cwd, branch, version and model: its row's
// own, else carried from the file's rows before it.
func (b *conversation) context(e *transcripts.Entry, rc rowCtx, file int64) {
	if rc.ctx != nil {
		b.ctx[file] = *rc.ctx
		c := *rc.ctx
		b.lastCtx = &c
		b.c.LineContext = true
	}
	if c, ok := b.ctx[file]; ok {
		e.CWD, e.GitBranch, e.Version = c.CWD, c.Branch, c.Version
	} else if b.lastCtx != nil {
		e.CWD, e.GitBranch, e.Version = b.lastCtx.CWD, b.lastCtx.Branch, b.lastCtx.Version
	}
	if e.Type != "assistant" {
		return
	}
	if rc.model != nil {
		b.model[file] = *rc.model
		m := *rc.model
		b.lastModel = &m
	}
	if m, ok := b.model[file]; ok {
		e.Model = m
	} else if b.lastModel != nil {
		e.Model = *b.lastModel
	}
}

func newConversation(sess *transcripts.Session) *conversation {
	return &conversation{
		c:      &transcripts.Conversation{Session: sess, Agents: map[string][]transcripts.Entry{}, SpawnedBy: map[string]string{}},
		files:  map[int64]bool{},
		starts: map[string]bool{},
		ctx:    map[int64]lineCtx{},
		model:  map[int64]string{},
	}
}

// add files an entry under the main chain or its subagent's thread, and
// notes which agent a tool result spawned.
func (b *conversation) add(e transcripts.Entry, r *entryRow, file int64) {
	if r.flags&flagResponseStart != 0 {
		b.starts[e.UUID] = true
	}
	if r.flags&flagAgentThread != 0 {
		b.c.Agents[r.agent] = append(b.c.Agents[r.agent], e)
		return
	}
	b.files[file] = true
	b.c.Entries = append(b.c.Entries, e)
	if e.ResultAgentID == "" {
		return
	}
	for _, bl := range e.Blocks {
		if bl.Type == transcripts.BlockToolResult {
			b.c.SpawnedBy[bl.ToolUseID] = e.ResultAgentID
		}
	}
}

// finish orders the entries and links the session's known subagents.
func (b *conversation) finish() *transcripts.Conversation {
	c := b.c
	c.DropReplays()
	// Lines of one session from several files interleave by time, as in
	// transcriptstest.LoadConversation.
	if len(b.files) > 1 {
		sort.SliceStable(c.Entries, func(i, j int) bool {
			a, b := c.Entries[i].Timestamp, c.Entries[j].Timestamp
			return !a.IsZero() && !b.IsZero() && a.Before(b)
		})
	}
	for _, ag := range c.Session.Subagents {
		if ag.ToolUseID != "" && ag.AgentID != "" {
			c.SpawnedBy[ag.ToolUseID] = ag.AgentID
		}
	}
	b.nameResponses(c.Entries)
	for _, es := range c.Agents {
		b.nameResponses(es)
	}
	return c
}

// nameResponses gives a thread's assistant lines the id of the API
// response they belong to ("msg_" and the uuid of its first line): the
// store keeps where responses start, not Claude's message ids, and one
// response is written as a line per content block (tool results of
// parallel calls may sit between them).
func (b *conversation) nameResponses(es []transcripts.Entry) {
	id := ""
	for i := range es {
		e := &es[i]
		if e.Type != "assistant" || e.MessageID != "" {
			continue
		}
		if b.starts[e.UUID] || id == "" {
			id = "msg_" + e.UUID
		}
		e.MessageID = id
	}
}

// StoreStats are counts for status lines.
type StoreStats struct {
	Projects         int // as Projects lists them
	Sessions         int // with a conversation
	ArchivedSessions int // whose transcript files are all gone
	Entries          int
	Files            int
	MissingFiles     int
	Redactions       int
	FTSQueue         int // documents waiting for the full-text index
	EmbedQueue       int // documents waiting for an embedding
	Embeddings       int
	DBBytes          int64 // the database file plus its WAL and shared-memory files
	LastSync         time.Time
	SchemaVersion    int
}

// HasSessions reports whether the store holds a session with entries (a
// cheap Stats().Sessions > 0: Stats counts every table).
func (s *Store) HasSessions(ctx context.Context) (bool, error) {
	var one int
	err := s.r.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE entries > 0 LIMIT 1`).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, s.wrap(err)
}

// Stats counts what the store holds.
func (s *Store) Stats(ctx context.Context) (StoreStats, error) {
	var st StoreStats
	var last sql.NullString
	err := s.r.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM sessions WHERE entries > 0),
		(SELECT count(*) FROM sessions WHERE entries > 0 AND archived = 1),
		(SELECT count(*) FROM entries),
		(SELECT count(*) FROM files),
		(SELECT count(*) FROM files WHERE present = 0),
		(SELECT count(*) FROM redactions),
		(SELECT count(*) FROM fts_queue),
		(SELECT count(*) FROM embed_queue),
		(SELECT count(*) FROM embeddings),
		(SELECT CAST(value AS TEXT) FROM kv WHERE key = 'last_sync')`).Scan(
		&st.Sessions, &st.ArchivedSessions, &st.Entries, &st.Files, &st.MissingFiles,
		&st.Redactions, &st.FTSQueue, &st.EmbedQueue, &st.Embeddings, &last)
	if err != nil {
		return st, s.wrap(err)
	}
	if last.Valid {
		if ms, err := strconv.ParseInt(last.String, 10, 64); err == nil {
			st.LastSync = unixMilli(ms)
		}
	}
	// Projects as `cairn projects` lists them (one per repository), not
	// the transcript folders (worktrees and subfolders are folders of one
	// project): one count everywhere.
	ps, err := s.Projects(ctx)
	if err != nil {
		return st, err
	}
	st.Projects = len(ps)
	st.SchemaVersion = SchemaVersion
	for _, p := range []string{s.path, s.path + "-wal", s.path + "-shm"} {
		if fi, err := os.Stat(p); err == nil {
			st.DBBytes += fi.Size()
		}
	}
	return st, nil
}

// sqlList is n comma-separated placeholders for an IN (...) list.
func sqlList(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }
