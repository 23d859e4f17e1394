package index

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/internal/gitrepo"
	"github.com/cairn-dev/cairn/transcripts"
)

// The project rule (one place for every front end): a session's project
// is the git repository it ran in, named by the repository's main checkout
// folder, so the worktrees and subfolders of one repository share
// memories, search scope, hooks and CLAUDE.md sync. The folder a session
// ran in (sessions.cwd) stays a detail. For a folder, in order:
//
//  1. It exists and is in a git repository: that repository (read from the
//     `.git` entries on disk, see internal/gitrepo; no git subprocess).
//     The answer is recorded (project_repos), so it survives the folder.
//  2. It, or a folder above it, was recorded while it existed (by an
//     earlier sync, or by the SessionStart hook).
//  3. Its path follows a worktree naming convention (gitrepo.Guess):
//     <repo>-worktrees/<name>, <repo>/.claude/worktrees/<name>,
//     <repo>/.worktrees/<name> and the like.
//  4. For a session, the folder above it that Claude Code named the
//     session's transcript folder after (where it was launched).
//  5. The folder itself.

// ProjectOf is the project of a folder by the rule above, without the
// store's records (steps 1, 3 and 5): for a folder that exists now, such
// as the current directory or a hook's cwd, this is the whole answer.
func ProjectOf(path string) string {
	if path == "" {
		return ""
	}
	path = filepath.Clean(path)
	if r, ok := gitrepo.Find(path); ok {
		return r.Root
	}
	if r, ok := gitrepo.Guess(path); ok {
		return r
	}
	return path
}

// CheckoutOf is the top folder of the checkout path is in: a linked
// worktree's own folder, else the repository's (ProjectOf). It is where
// a file Claude Code reads from the checkout, such as CLAUDE.md, goes.
func CheckoutOf(path string) string {
	if r, ok := gitrepo.Find(filepath.Clean(path)); ok {
		return r.Worktree
	}
	return ProjectOf(path)
}

// projectRule applies the rule with the store's records, remembering its
// answers for the length of one job (a sync, a migration).
type projectRule struct {
	q     queryer
	exec  execer // nil: nothing is recorded (read-only callers)
	now   int64
	cache map[string]string
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func newProjectRule(q queryer, exec execer, nowMs int64) *projectRule {
	return &projectRule{q: q, exec: exec, now: nowMs, cache: map[string]string{}}
}

// of returns the project of folder cwd; folder is the session's transcript
// folder name ("" when unknown).
func (r *projectRule) of(ctx context.Context, cwd, folder string) (string, error) {
	if cwd == "" {
		return "", nil
	}
	key := folder + "\x00" + cwd
	if p, ok := r.cache[key]; ok {
		return p, nil
	}
	p, err := r.resolve(ctx, filepath.Clean(cwd), folder)
	if err == nil {
		r.cache[key] = p
	}
	return p, err
}

func (r *projectRule) resolve(ctx context.Context, cwd, folder string) (string, error) {
	if repo, ok := gitrepo.Find(cwd); ok {
		return repo.Root, r.remember(ctx, cwd, repo.Root)
	}
	if repo, ok, err := r.recordedRepo(ctx, cwd); ok || err != nil {
		return repo, err
	}
	if repo, ok := gitrepo.Guess(cwd); ok {
		return repo, nil
	}
	if p, ok := folderAncestor(cwd, folder); ok {
		return p, nil
	}
	return cwd, nil
}

// remember records that cwd, below it, is in repository root (when the
// rule can write): the rule finds it there once the repository is gone.
func (r *projectRule) remember(ctx context.Context, cwd, root string) error {
	if root == cwd || r.exec == nil {
		return nil
	}
	return recordRepo(ctx, r.exec, cwd, root, r.now)
}

// recordedRepo is the repository recorded for cwd or its nearest folder
// above that has one: what the rule found while the repository was there.
func (r *projectRule) recordedRepo(ctx context.Context, cwd string) (string, bool, error) {
	for p := cwd; ; p = filepath.Dir(p) {
		var repo string
		err := r.q.QueryRowContext(ctx, `SELECT repo FROM project_repos WHERE path = ?`, p).Scan(&repo)
		switch {
		case err == nil:
			return repo, true, nil
		case !errors.Is(err, sql.ErrNoRows):
			return "", false, err
		}
		if filepath.Dir(p) == p || p == "." {
			return "", false, nil
		}
	}
}

// folderAncestor is the folder, cwd or above, whose encoded path is the
// session's project folder name (none when folder is "").
func folderAncestor(cwd, folder string) (string, bool) {
	if folder == "" {
		return "", false
	}
	for p := cwd; ; p = filepath.Dir(p) {
		if transcripts.EncodeProjectPath(p) == folder {
			return p, true
		}
		if filepath.Dir(p) == p || p == "." {
			return "", false
		}
	}
}

// recordRepo remembers that folder path is in repository repo.
func recordRepo(ctx context.Context, exec execer, path, repo string, nowMs int64) error {
	_, err := exec.ExecContext(ctx, `INSERT INTO project_repos(path, repo, updated) VALUES (?, ?, ?)
		ON CONFLICT(path) DO UPDATE SET repo = excluded.repo, updated = excluded.updated WHERE repo != excluded.repo`, path, repo, nowMs)
	return err
}

// ProjectFor is the project of a folder by the whole rule (with the
// store's records): what a path typed by a person or Claude names.
func (s *Store) ProjectFor(ctx context.Context, path string) (string, error) {
	if path == "" {
		return "", nil
	}
	p, err := newProjectRule(s.r, nil, 0).of(ctx, path, "")
	return p, s.wrap(err)
}

// RecordProject remembers the repository of a folder that exists now, so
// sessions that ran in it keep their project after it is deleted (a
// worktree removed before cairn indexed it). The SessionStart hook calls
// it with the session's cwd. It returns the folder's project.
func (s *Store) RecordProject(ctx context.Context, cwd string) (string, error) {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return ProjectOf(cwd), nil
	}
	cwd = filepath.Clean(cwd)
	repo, ok := gitrepo.Find(cwd)
	if !ok {
		return ProjectOf(cwd), nil
	}
	if repo.Root == cwd {
		return cwd, nil
	}
	var known string
	err := s.r.QueryRowContext(ctx, `SELECT repo FROM project_repos WHERE path = ?`, cwd).Scan(&known)
	if err == nil && known == repo.Root {
		return known, nil // the usual case: no write
	}
	err = s.writeTx(ctx, func(tx *sql.Tx) error {
		return recordRepo(ctx, tx, cwd, repo.Root, time.Now().UnixMilli())
	})
	return repo.Root, s.wrap(err)
}

// rekeyKey flags a store whose sessions and memories are still keyed by
// the folder a session ran in (schema 8 sets it; rekeyProjects clears it).
const rekeyKey = "projects.rekey"

// rekeyProjects moves a store written before projects were repositories
// onto the rule: each session's project becomes its folder's repository,
// and memories, summaries, drafts and syntheses filed under a folder move
// to that folder's project. Documents whose project changed are queued
// for the full-text index again. It runs once, in one transaction, right
// after the migration that flags it.
func (s *Store) rekeyProjects(ctx context.Context) error {
	var flag sql.NullString
	if err := s.r.QueryRowContext(ctx, `SELECT CAST(value AS TEXT) FROM kv WHERE key = ?`, rekeyKey).Scan(&flag); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	}
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM kv WHERE key = ?`, rekeyKey)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // another process did it
		}
		return rekeyIn(ctx, tx, time.Now().UnixMilli())
	})
}

func rekeyIn(ctx context.Context, tx *sql.Tx, nowMs int64) error {
	rule := newProjectRule(tx, tx, nowMs)
	groups, err := sessionGroups(ctx, tx)
	if err != nil {
		return err
	}
	moved := map[string]string{} // a folder memories may be filed under -> its project
	for _, g := range groups {
		cwd := g.cwd
		if cwd == "" {
			cwd = g.at
		}
		p, err := rule.of(ctx, cwd, g.folder)
		if err != nil {
			return err
		}
		if p == "" {
			continue
		}
		if _, ok := moved[cwd]; !ok {
			moved[cwd] = p
		}
		if p == g.at {
			continue
		}
		if err := g.rekey(ctx, tx, cwd, p); err != nil {
			return err
		}
	}
	return moveFiledUnder(ctx, tx, rule, moved)
}

// sessionGroup is the sessions of a transcript folder (folderID, named
// folder) that ran in cwd and are filed at project path at.
type sessionGroup struct {
	folderID        int64
	cwd, folder, at string
}

// sessionGroups lists the sessions' groups.
func sessionGroups(ctx context.Context, tx *sql.Tx) ([]sessionGroup, error) {
	var groups []sessionGroup
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT s.project, p.name, s.cwd, s.project_path FROM sessions s JOIN projects p ON p.id = s.project`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var g sessionGroup
		if err := rows.Scan(&g.folderID, &g.folder, &g.cwd, &g.at); err != nil {
			rows.Close()
			return nil, err
		}
		groups = append(groups, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return groups, nil
}

// rekey files the group's sessions at project p, with cwd (the group's,
// else where it is filed), and queues their documents again.
func (g sessionGroup) rekey(ctx context.Context, tx *sql.Tx, cwd, p string) error {
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET project_path = ?, cwd = ? WHERE project = ? AND cwd = ? AND project_path = ?`,
		p, cwd, g.folderID, g.cwd, g.at); err != nil {
		return err
	}
	return requeueSessionsWhere(ctx, tx, `project = ? AND cwd = ? AND project_path = ?`, g.folderID, cwd, p)
}

// requeueSessionsWhere queues the full-text documents of the sessions
// matching where (entries and the session's own) again: their project
// changed.
func requeueSessionsWhere(ctx context.Context, tx execer, where string, args ...any) error {
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO fts_queue(doc) SELECT printf('e:%013d', e.id) FROM entries e
		WHERE e.session IN (SELECT id FROM sessions WHERE `+where+`) AND trim(e.text) != ''`, args...); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO fts_queue(doc) SELECT 's:' || sid FROM sessions WHERE entries > 0 AND `+where, args...)
	return err
}

// moveFiledUnder re-files memories, summaries, drafts and syntheses kept
// under a folder to the folder's project: moved for folders sessions ran
// in, the rule for the others.
func moveFiledUnder(ctx context.Context, tx *sql.Tx, rule *projectRule, moved map[string]string) error {
	paths, err := filedProjects(ctx, tx)
	if err != nil {
		return err
	}
	changed := false
	for _, old := range paths {
		p, err := refiledTo(ctx, rule, moved, old)
		if err != nil {
			return err
		}
		if p == old || p == "" {
			continue
		}
		changed = true
		if err := refile(ctx, tx, p, old); err != nil {
			return err
		}
	}
	if !changed {
		return nil
	}
	return bumpMemGen(ctx, tx)
}

// refiledTo is the project what is filed under old goes to: where moved
// says, else the rule's project of old.
func refiledTo(ctx context.Context, rule *projectRule, moved map[string]string, old string) (string, error) {
	if p, ok := moved[old]; ok {
		return p, nil
	}
	return rule.of(ctx, old, "")
}

// filedProjects lists the projects memories, summaries, drafts and
// syntheses are filed under, but none.
func filedProjects(ctx context.Context, tx *sql.Tx) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT project FROM memories UNION SELECT project FROM session_summaries
		UNION SELECT project FROM drafts UNION SELECT project FROM synthesis`)
	if err != nil {
		return nil, err
	}
	var paths []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			rows.Close()
			return nil, err
		}
		if p != "" {
			paths = append(paths, p)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return paths, nil
}

// refileQueries re-file what is filed under project ?2 to project ?1; an
// INSERT (queueing what is re-indexed) takes the old project alone, as ?.
var refileQueries = []string{
	`INSERT OR IGNORE INTO fts_queue(doc) SELECT 'mem:' || id FROM memories WHERE project = ? AND status != 'rejected'`,
	`INSERT OR IGNORE INTO fts_queue(doc) SELECT 'sum:' || session FROM session_summaries WHERE project = ?`,
	`UPDATE memories SET project = ? WHERE project = ?`,
	`UPDATE session_summaries SET project = ? WHERE project = ?`,
	`UPDATE drafts SET project = ? WHERE project = ?`,
	`UPDATE memory_fingerprints SET project = ? WHERE project = ?`,
	// One synthesis per project: the repository's own, else the
	// most recent of its folders'.
	`DELETE FROM synthesis WHERE project = ?2 AND EXISTS (SELECT 1 FROM synthesis x WHERE x.project = ?1 AND x.updated >= synthesis.updated)`,
	`DELETE FROM synthesis WHERE project = ?1 AND EXISTS (SELECT 1 FROM synthesis x WHERE x.project = ?2)`,
	`UPDATE synthesis SET project = ?1 WHERE project = ?2`,
}

// refile moves what is filed under project old to project p.
func refile(ctx context.Context, tx *sql.Tx, p, old string) error {
	for _, q := range refileQueries {
		args := []any{p, old}
		if strings.HasPrefix(q, "INSERT") {
			args = []any{old}
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// FolderProjects maps each transcript folder name (under the Claude dir's
// projects/) to the project its sessions belong to: the project of its
// oldest session, else the project of the folder's decoded path.
func (s *Store) FolderProjects(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	var bare []struct{ name, decoded string }
	err := s.eachRow(ctx, `SELECT p.name, p.decoded_path, (SELECT s.project_path FROM sessions s WHERE s.project = p.id AND s.entries > 0
		ORDER BY s.start_ns, s.sid LIMIT 1) FROM projects p`, nil, func(rows *sql.Rows) error {
		var name, decoded string
		var project sql.NullString
		if err := rows.Scan(&name, &decoded, &project); err != nil {
			return err
		}
		if project.Valid && project.String != "" {
			out[name] = project.String
		} else {
			bare = append(bare, struct{ name, decoded string }{name, decoded})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, b := range bare {
		if out[b.name], err = s.ProjectFor(ctx, b.decoded); err != nil {
			return nil, err
		}
	}
	return out, nil
}
