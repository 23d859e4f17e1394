package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/transcripts"
)

// Tombstone kinds: what `cairn forget` removed and the sync must never
// bring back, although the transcript files stay on disk.
const (
	TombSession = "session" // a session id
	TombFolder  = "folder"  // a project folder under projects/
	TombPath    = "path"    // a project path (cwd), and everything under it
)

// ForgetTarget is what to forget: a project path (as MatchProjects gives
// it) or a session id.
type ForgetTarget struct {
	Project string
	Session string
}

// ForgetStats says what Forget removed.
type ForgetStats struct {
	Sessions  int `json:"sessions"`
	Entries   int `json:"entries"`
	Memories  int `json:"memories"`
	Summaries int `json:"summaries"`
	Drafts    int `json:"drafts"`
	// Pending is true when another process kept SQLite from folding the
	// deletion into the database file now (a reader held an old snapshot):
	// the deleted pages are zeroed when it lets go.
	Pending bool `json:"pending,omitempty"`
}

// Forget deletes a project's or a session's sessions, entries, redaction
// records, summaries, drafts, memories drawn from them (trash included),
// injections, vectors and queue rows, with SQLite's secure_delete (freed
// pages are zeroed, not left readable), and records tombstones so no later
// sync stores them again. The full-text index and the vector cache still
// hold the documents: the caller rebuilds them and calls FinishForget
// (app.Forget does; app.Open finishes a forget that was interrupted).
func (s *Store) Forget(ctx context.Context, t ForgetTarget) (ForgetStats, error) {
	if (t.Project == "") == (t.Session == "") {
		return ForgetStats{}, fmt.Errorf("forget needs a project or a session")
	}
	return s.forgetAll(ctx, []ForgetTarget{t})
}

// forgetAll forgets every target in one transaction with secure_delete.
func (s *Store) forgetAll(ctx context.Context, targets []ForgetTarget) (ForgetStats, error) {
	var st ForgetStats
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return st, s.wrap(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA secure_delete = ON"); err != nil {
		return st, s.wrap(err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA secure_delete = OFF") //nolint:errcheck
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return st, s.wrap(err)
	}
	for _, t := range targets {
		if err := forgetTx(ctx, tx, t, &st); err != nil {
			tx.Rollback()
			return st, s.wrap(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return st, s.wrap(err)
	}
	// Fold the WAL (which holds the zeroed pages, and older frames with
	// the old ones) into the database file and empty it.
	var busy, frames, copied int
	if err := conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &frames, &copied); err != nil || busy != 0 {
		st.Pending = true
	}
	return st, nil
}

// ForgetTargets are every forget the store recorded (its tombstones: the
// project paths and the session ids), to apply to copies of the store.
func (s *Store) ForgetTargets(ctx context.Context) ([]ForgetTarget, error) {
	t, err := s.loadTombstones(ctx)
	if err != nil {
		return nil, err
	}
	var out []ForgetTarget
	for _, p := range t.paths {
		out = append(out, ForgetTarget{Project: p})
	}
	sids := make([]string, 0, len(t.sessions))
	for sid := range t.sessions {
		sids = append(sids, sid)
	}
	sort.Strings(sids)
	for _, sid := range sids {
		out = append(out, ForgetTarget{Session: sid})
	}
	return out, nil
}

// ForgetInCopy applies targets to a copy of a store kept elsewhere (an
// automatic backup, or the cairn.db of a before-restore folder), so the
// forgotten text is not left in it: the copy is copied beside itself,
// opened (migrated), forgotten in with secure_delete, and renamed back in
// one step, whole. The derived files kept beside a before-restore store
// (full-text index, vectors, model) are deleted: they are rebuilt from it
// when it is restored.
func ForgetInCopy(ctx context.Context, path string, targets []ForgetTarget) error {
	if len(targets) == 0 {
		return nil
	}
	dir := filepath.Dir(path)
	work, err := os.MkdirTemp(dir, ".forgetting-")
	if err != nil {
		return fmt.Errorf("forgetting in the copy %s: %w", path, err)
	}
	defer os.RemoveAll(work) // only ever the folder made just above
	tmp := filepath.Join(work, DBName)
	if err := copyWithLog(path, tmp); err != nil {
		return fmt.Errorf("forgetting in the copy %s: %w", path, err)
	}
	if err := forgetInStoreAt(ctx, work, path, targets); err != nil {
		return err
	}
	if err := replaceWith(path, tmp); err != nil {
		return fmt.Errorf("forgetting in the copy %s: %w", path, err)
	}
	if filepath.Base(path) == DBName && strings.HasPrefix(filepath.Base(dir), asidePrefix) {
		if err := removeDerived(dir); err != nil {
			return err
		}
	}
	return syncDir(dir)
}

// removeDerived deletes the derived files kept in dir beside a store
// (full-text index, vectors, model), which may hold forgotten text.
func removeDerived(dir string) error {
	for _, n := range derivedNames {
		if err := os.RemoveAll(filepath.Join(dir, n)); err != nil {
			return fmt.Errorf("deleting %s, which may hold forgotten text: %w", filepath.Join(dir, n), err)
		}
	}
	return nil
}

// copyWithLog copies a SQLite file and its write-ahead log when it has one.
func copyWithLog(path, to string) error {
	if err := copyFile(path, to); err != nil {
		return err
	}
	if _, err := os.Stat(path + "-wal"); err != nil {
		return nil
	}
	return copyFile(path+"-wal", to+"-wal")
}

// forgetInStoreAt opens the store in dir (migrating it), forgets targets
// in it with nothing derived to rebuild, and leaves its file whole, in
// rollback-journal mode and synced; errors name the copy at path.
func forgetInStoreAt(ctx context.Context, dir, path string, targets []ForgetTarget) error {
	st, err := OpenWith(dir, OpenOptions{})
	if err != nil {
		return fmt.Errorf("opening the copy %s: %w", path, err)
	}
	_, err = st.forgetAll(ctx, targets)
	if err == nil {
		err = st.FinishForget(ctx) // nothing derived to rebuild in a copy
	}
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	tmp := filepath.Join(dir, DBName)
	if err == nil {
		err = journalDelete(ctx, tmp)
	}
	if err == nil {
		err = syncFile(tmp)
	}
	if err != nil {
		return fmt.Errorf("forgetting in the copy %s: %w", path, err)
	}
	return nil
}

// replaceWith renames tmp over path, removing path's own log first: it
// must not be read as the new file's.
func replaceWith(path, tmp string) error {
	for _, n := range []string{path + "-wal", path + "-shm"} {
		if err := os.Remove(n); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return os.Rename(tmp, path)
}

func forgetTx(ctx context.Context, tx *sql.Tx, t ForgetTarget, st *ForgetStats) error {
	now := time.Now().UnixMilli()
	if err := forgetSessionSet(ctx, tx, t, st); err != nil {
		return err
	}
	if err := forgetTombstones(ctx, tx, t, now); err != nil {
		return err
	}
	if err := forgetMemorySet(ctx, tx, t, st); err != nil {
		return err
	}
	for _, s := range forgetSteps(t, st) {
		res, err := tx.ExecContext(ctx, s.q, s.args...)
		if err != nil {
			return fmt.Errorf("forgetting (%s): %w", strings.Fields(s.q)[2], err)
		}
		if s.dst != nil {
			n, _ := res.RowsAffected()
			*s.dst += int(n)
		}
	}
	// The derived indexes still hold the text until the caller rebuilds
	// them: say so in the same transaction, for whoever opens the store
	// next if this process is killed first.
	_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO kv(key, value) VALUES (?, '1')`, forgetUnfinishedKey)
	return err
}

// execAll runs statements without arguments, in order.
func execAll(ctx context.Context, tx *sql.Tx, qs ...string) error {
	for _, q := range qs {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// forgetSessionSet fills temp.forget_s with the sessions t names (a
// session not stored yet is there too, so its tombstone keeps it out).
func forgetSessionSet(ctx context.Context, tx *sql.Tx, t ForgetTarget, st *ForgetStats) error {
	sel, arg := "sid = ?", t.Session
	if t.Project != "" {
		sel, arg = "project_path = ?", t.Project
	}
	if err := execAll(ctx, tx, `CREATE TEMP TABLE IF NOT EXISTS forget_s (id INTEGER PRIMARY KEY, sid TEXT NOT NULL)`, `DELETE FROM temp.forget_s`); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO temp.forget_s(id, sid) SELECT id, sid FROM sessions WHERE `+sel, arg)
	if err != nil {
		return err
	}
	n, _ := res.RowsAffected()
	st.Sessions = int(n)
	if t.Session != "" && n == 0 {
		// Not stored (yet): the tombstone alone keeps it out.
		if _, err := tx.ExecContext(ctx, `INSERT INTO temp.forget_s(id, sid) VALUES (-1, ?)`, t.Session); err != nil {
			return err
		}
	}
	return nil
}

// forgetTombstones records the tombstones first: the session ids, their
// folders, and the path.
func forgetTombstones(ctx context.Context, tx *sql.Tx, t ForgetTarget, now int64) error {
	tombs := []string{
		`INSERT OR IGNORE INTO tombstones(kind, key, created) SELECT 'session', sid, ? FROM temp.forget_s`,
	}
	if t.Project != "" {
		tombs = append(tombs,
			`INSERT OR IGNORE INTO tombstones(kind, key, created) SELECT DISTINCT 'folder', p.name, ? FROM sessions s JOIN projects p ON p.id = s.project WHERE s.id IN (SELECT id FROM temp.forget_s)`,
		)
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO tombstones(kind, key, created) VALUES ('path', ?, ?)`, t.Project, now); err != nil {
			return err
		}
	}
	for _, q := range tombs {
		if _, err := tx.ExecContext(ctx, q, now); err != nil {
			return err
		}
	}
	return nil
}

// forgetMemorySet fills temp.forget_m with the memories drawn from the
// sessions or filed under the project, and the corrections of them.
func forgetMemorySet(ctx context.Context, tx *sql.Tx, t ForgetTarget, st *ForgetStats) error {
	memSel := `source_session IN (SELECT sid FROM temp.forget_s)`
	memArgs := []any{}
	if t.Project != "" {
		memSel += ` OR project = ?`
		memArgs = append(memArgs, t.Project)
	}
	if err := execAll(ctx, tx, `CREATE TEMP TABLE IF NOT EXISTS forget_m (id TEXT PRIMARY KEY)`, `DELETE FROM temp.forget_m`); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO temp.forget_m(id) SELECT id FROM memories WHERE `+memSel, memArgs...)
	if err != nil {
		return err
	}
	n, _ := res.RowsAffected()
	st.Memories = int(n)
	// A correction's replacement (a memory superseding one forgotten)
	// carries the forgotten memory's text, corrected: it goes too, and its
	// own replacements.
	for range 20 {
		res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO temp.forget_m(id) SELECT l.src FROM memory_links l JOIN memories m ON m.id = l.src
			WHERE l.kind = 'supersedes' AND l.dst IN (SELECT id FROM temp.forget_m)`)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			break
		}
		st.Memories += int(n)
	}
	return nil
}

// forgetStep is one deletion of a forget, counted into dst when set.
type forgetStep struct {
	dst  *int
	q    string
	args []any
}

// forgetSteps are the deletions of everything the sessions of
// temp.forget_s and the memories of temp.forget_m left in the store.
func forgetSteps(t ForgetTarget, st *ForgetStats) []forgetStep {
	type step = forgetStep
	steps := []step{
		{nil, `DELETE FROM embeddings WHERE doc IN (SELECT printf('e:%013d', id) FROM entries_raw WHERE session IN (SELECT id FROM temp.forget_s))
			OR doc IN (SELECT 's:' || sid FROM temp.forget_s) OR doc IN (SELECT 'mem:' || id FROM temp.forget_m)`, nil},
		{nil, `DELETE FROM fts_queue WHERE doc IN (SELECT printf('e:%013d', id) FROM entries_raw WHERE session IN (SELECT id FROM temp.forget_s))`, nil},
		{nil, `DELETE FROM embed_queue WHERE doc IN (SELECT printf('e:%013d', id) FROM entries_raw WHERE session IN (SELECT id FROM temp.forget_s))`, nil},
		{&st.Entries, `DELETE FROM entries_raw WHERE session IN (SELECT id FROM temp.forget_s)`, nil},
		{nil, `DELETE FROM redactions WHERE session IN (SELECT id FROM temp.forget_s)`, nil},
		{nil, `DELETE FROM summaries WHERE session IN (SELECT id FROM temp.forget_s)`, nil},
		{nil, `DELETE FROM session_files WHERE session IN (SELECT id FROM temp.forget_s)`, nil},
		{nil, `DELETE FROM files WHERE session_id IN (SELECT sid FROM temp.forget_s)
			AND id NOT IN (SELECT file FROM session_files)`, nil},
		{nil, bumpFilesEpoch, nil},
		{nil, `DELETE FROM sessions WHERE id IN (SELECT id FROM temp.forget_s)`, nil},
		{nil, `DELETE FROM memory_links WHERE src IN (SELECT id FROM temp.forget_m) OR dst IN (SELECT id FROM temp.forget_m)`, nil},
		// Trashed memories are no longer in memories: their JSON says
		// where they came from.
		{nil, `DELETE FROM memory_trash WHERE id IN (SELECT id FROM temp.forget_m)
			OR json_extract(data, '$.source_session') IN (SELECT sid FROM temp.forget_s)
			OR (?1 != '' AND json_extract(data, '$.project') = ?1)`, []any{t.Project}},
		{nil, `DELETE FROM memory_fingerprints WHERE memory IN (SELECT id FROM temp.forget_m)`, nil},
		// Settings that quote what is forgotten: the audit trails of the
		// memories (content before and after a correction) and any trail
		// naming one of them or a forgotten session; the hooks' lists of a
		// project's recent sessions (titles); the last consolidation's undo
		// record (memories' content).
		{nil, `DELETE FROM kv WHERE key IN (SELECT '` + MemAuditKeyPrefix + `' || id FROM temp.forget_m)
			OR ((key LIKE '` + MemAuditKeyPrefix + `%' OR key LIKE '` + RecentSessionsKeyPrefix + `%' OR key = '` + ConsolidateUndoKey + `')
				AND (EXISTS (SELECT 1 FROM temp.forget_m m WHERE instr(CAST(kv.value AS TEXT), m.id) > 0)
					OR EXISTS (SELECT 1 FROM temp.forget_s s WHERE instr(CAST(kv.value AS TEXT), s.sid) > 0)))
			OR (?1 != '' AND key = '` + RecentSessionsKeyPrefix + `' || ?1)`, []any{t.Project}},
		// A project's synthesis quoting a forgotten memory or summary is
		// written again from what is left by the next synthesis.
		{nil, `DELETE FROM synthesis WHERE EXISTS (SELECT 1 FROM temp.forget_m m WHERE instr(synthesis.state, m.id) > 0)
			OR EXISTS (SELECT 1 FROM temp.forget_s s WHERE instr(synthesis.state, s.sid) > 0)`, nil},
		{nil, `DELETE FROM memory_injections WHERE session IN (SELECT sid FROM temp.forget_s) OR memory IN (SELECT id FROM temp.forget_m)`, nil},
		{nil, `DELETE FROM memories WHERE id IN (SELECT id FROM temp.forget_m)`, nil},
		{&st.Summaries, `DELETE FROM session_summaries WHERE session IN (SELECT sid FROM temp.forget_s)`, nil},
		{&st.Drafts, `DELETE FROM drafts WHERE session IN (SELECT sid FROM temp.forget_s)`, nil},
		{nil, `DELETE FROM extract_cursors WHERE session IN (SELECT sid FROM temp.forget_s)`, nil},
	}
	if t.Project != "" {
		steps = append(steps,
			step{&st.Summaries, `DELETE FROM session_summaries WHERE project = ?`, []any{t.Project}},
			step{&st.Drafts, `DELETE FROM drafts WHERE project = ?`, []any{t.Project}},
			step{nil, `DELETE FROM synthesis WHERE project = ?`, []any{t.Project}},
			step{nil, `DELETE FROM memory_fingerprints WHERE project = ?`, []any{t.Project}},
			step{nil, `DELETE FROM memory_file_versions WHERE project = ?`, []any{t.Project}},
		)
	}
	return steps
}

// forgetUnfinishedKey is set by Forget and cleared by FinishForget, once
// the caller has rebuilt the derived indexes.
const forgetUnfinishedKey = "forget.unfinished"

// ForgetUnfinished reports whether a Forget was committed and the derived
// indexes (full text, vectors, the built-in embedder's model) not rebuilt
// since: they may still hold the forgotten text.
func (s *Store) ForgetUnfinished(ctx context.Context) (bool, error) {
	_, ok, err := s.Setting(ctx, forgetUnfinishedKey)
	return ok, err
}

// FinishForget records that the derived indexes were rebuilt after Forget.
func (s *Store) FinishForget(ctx context.Context) error {
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM kv WHERE key = ?`, forgetUnfinishedKey)
		return err
	})
}

// Keys of settings other packages write that can quote a memory or a
// session: Forget deletes them with what they quote.
const (
	// MemAuditKeyPrefix + a memory's id: its audit trail (memories).
	MemAuditKeyPrefix = "memories.audit:"
	// RecentSessionsKeyPrefix + a project path: its latest sessions and
	// their titles (hook).
	RecentSessionsKeyPrefix = "hooks.recent:"
	// ConsolidateUndoKey: the last consolidation, for undo (memories).
	ConsolidateUndoKey = "memories.consolidate.last"
)

// tombstones are what Forget recorded, loaded once per sync.
type tombstones struct {
	sessions, folders map[string]bool
	paths             []string
}

func (s *Store) loadTombstones(ctx context.Context) (*tombstones, error) {
	t := &tombstones{sessions: map[string]bool{}, folders: map[string]bool{}}
	err := s.eachRow(ctx, `SELECT kind, key FROM tombstones`, nil, func(rows *sql.Rows) error {
		var kind, key string
		if err := rows.Scan(&kind, &key); err != nil {
			return err
		}
		switch kind {
		case TombSession:
			t.sessions[key] = true
		case TombFolder:
			t.folders[key] = true
		case TombPath:
			t.paths = append(t.paths, key)
		}
		return nil
	})
	return t, err
}

// Exclusion is the opt-out rule: project paths matching a glob of the
// config's index.exclude, or holding a .cairnignore file, are never
// indexed, extracted from or injected into; nor is anything `cairn forget`
// removed.
type Exclusion struct {
	Globs []string
}

// IgnoreFile is the marker that keeps a project folder out of cairn.
const IgnoreFile = ".cairnignore"

// Excluded reports whether a project path is opted out, and why.
func (x Exclusion) Excluded(path string) (bool, string) {
	if path == "" {
		return false, ""
	}
	path = filepath.Clean(path)
	home, _ := os.UserHomeDir()
	for _, g := range x.Globs {
		g = expandGlob(g, home)
		if globMatchesUp(g, path) {
			return true, "index.exclude " + g
		}
	}
	if f := ignoreFileAbove(path, home); f != "" {
		return true, f
	}
	return false, ""
}

// expandGlob is an index.exclude glob as a clean path, a leading ~/
// standing for home.
func expandGlob(g, home string) string {
	g = strings.TrimSpace(g)
	if strings.HasPrefix(g, "~/") && home != "" {
		g = filepath.Join(home, g[2:])
	}
	return filepath.Clean(g)
}

// ignoreFileAbove is the .cairnignore of path or of a folder above it,
// up to home; "" when there is none.
func ignoreFileAbove(path, home string) string {
	for p := path; ; p = filepath.Dir(p) {
		f := filepath.Join(p, IgnoreFile)
		if _, err := os.Lstat(f); err == nil {
			return f
		}
		if parent := filepath.Dir(p); parent == p || p == home {
			return ""
		}
	}
}

// globMatchesUp reports whether glob g matches path or one of the folders
// above it.
func globMatchesUp(g, path string) bool {
	for p := path; ; p = filepath.Dir(p) {
		if ok, _ := filepath.Match(g, p); ok {
			return true
		}
		if parent := filepath.Dir(p); parent == p {
			return false
		}
	}
}

// Excluded reports whether the project path is opted out (config globs, a
// .cairnignore, or forgotten with `cairn forget --project`).
func (s *Store) Excluded(ctx context.Context, path string) (bool, string) {
	if ok, why := s.exclusion.Excluded(path); ok {
		return true, why
	}
	t, err := s.loadTombstones(ctx)
	if err != nil {
		return false, ""
	}
	if underAny(path, t.paths) {
		return true, "forgotten (cairn forget)"
	}
	return false, ""
}

// Forgotten reports whether `cairn forget` removed the project folder
// (a folder name under projects/) or the session id; either may be empty.
// What reads Claude Code's files besides the sync (its memory files) skips
// what was forgotten, as the sync does.
func (s *Store) Forgotten(ctx context.Context, folder, sid string) bool {
	t, err := s.loadTombstones(ctx)
	if err != nil {
		return false
	}
	return (folder != "" && t.folders[folder]) || (sid != "" && t.sessions[strings.ToLower(sid)])
}

// underAny reports whether path is one of roots or inside one.
func underAny(path string, roots []string) bool {
	if path == "" {
		return false
	}
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, strings.TrimSuffix(r, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// dropExcluded takes out of the plan the files of forgotten sessions and
// folders and of opted-out projects. Only files with something to read are
// looked at, so an incremental sync checks a project or two.
func (s *Store) dropExcluded(ctx context.Context, plan *syncPlan, t *tombstones) {
	excluded := map[string]bool{} // folder -> opted out
	keep := plan.jobs[:0]
	for _, j := range plan.jobs {
		f := j.File
		out := t.sessions[f.SessionID] || t.folders[f.Project]
		if !out {
			x, ok := excluded[f.Project]
			if !ok {
				x = s.folderExcluded(ctx, f.Project, t)
				excluded[f.Project] = x
			}
			out = x
		}
		if out {
			plan.excluded++
			if n := f.Size - j.Cursor.Offset; n > 0 {
				plan.bytesTotal -= n
			}
			continue
		}
		keep = append(keep, j)
	}
	plan.jobs = keep
}

// folderExcluded checks a project folder's paths (the lossy decoding of its
// name, and the cwd its stored sessions recorded) against the opt-out rule.
func (s *Store) folderExcluded(ctx context.Context, folder string, t *tombstones) bool {
	paths := []string{transcripts.DecodeProjectName(folder)}
	// project_path is the session's repository, cwd the folder it ran in.
	_ = s.eachRow(ctx, `SELECT project_path FROM sessions WHERE project = (SELECT id FROM projects WHERE name = ?1) AND project_path != ''
		UNION SELECT cwd FROM sessions WHERE project = (SELECT id FROM projects WHERE name = ?1) AND cwd != ''`,
		[]any{folder}, func(rows *sql.Rows) error {
			var p string
			if err := rows.Scan(&p); err != nil {
				return err
			}
			paths = append(paths, p)
			return nil
		})
	for _, p := range paths {
		if ok, _ := s.exclusion.Excluded(p); ok || underAny(p, t.paths) {
			return true
		}
	}
	return false
}
