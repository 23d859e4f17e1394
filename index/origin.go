package index

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
)

// ImportsDir is the folder of the data dir that holds transcripts pulled
// from other machines (`cairn remote sync`): ImportsDir/<machine> is laid
// out like a Claude config dir (projects/<folder>/<id>.jsonl) and indexed
// like one. Claude Code never sees it, so a session from another machine
// is never offered for --resume as if it were local.
const ImportsDir = "remote/imports"

// ImportsRoot is the folder of the store's imported trees.
func (s *Store) ImportsRoot() string { return filepath.Join(s.Dir(), filepath.FromSlash(ImportsDir)) }

// MachineDir is the Claude-like tree of the sessions imported from machine.
func (s *Store) MachineDir(machine string) string { return filepath.Join(s.ImportsRoot(), machine) }

// scopeKnown keeps in known only the files a sync of claudeDir may mark
// missing: an imported tree's own files for a sync of that tree, and no
// imported file for a sync of any other tree (the user's ~/.claude does
// not hold another machine's sessions; they are not gone from it).
func (s *Store) scopeKnown(claudeDir string, known map[string]knownFile) {
	root := s.ImportsRoot() + string(filepath.Separator)
	dir := filepath.Clean(claudeDir) + string(filepath.Separator)
	imported := strings.HasPrefix(dir, root)
	for path := range known {
		under := strings.HasPrefix(path, root)
		if imported && !strings.HasPrefix(path, dir) || !imported && under {
			delete(known, path)
		}
	}
}

// SessionOrigins maps the id of every session imported from another
// machine to that machine's name (the folder under ImportsDir its files
// were read from). Local sessions are not in it.
func (s *Store) SessionOrigins(ctx context.Context) (map[string]string, error) {
	return s.origins(ctx, "")
}

// SessionOrigin is the machine session (a full id) was imported from, ""
// for a session of this machine's.
func (s *Store) SessionOrigin(ctx context.Context, session string) (string, error) {
	m, err := s.origins(ctx, session)
	return m[session], err
}

// origins is SessionOrigins, of one session when session is set: a
// session is imported when a file of it lives under ImportsRoot.
func (s *Store) origins(ctx context.Context, session string) (map[string]string, error) {
	root := s.ImportsRoot() + string(filepath.Separator)
	q, args := `SELECT DISTINCT session_id, path FROM files WHERE instr(path, ?) = 1 AND session_id != ''`, []any{root}
	if session != "" {
		q, args = q+` AND session_id = ?`, append(args, session)
	}
	out := map[string]string{}
	err := s.eachRow(ctx, q, args, func(rows *sql.Rows) error {
		var sid, path string
		if err := rows.Scan(&sid, &path); err != nil {
			return err
		}
		rel := strings.TrimPrefix(path, root)
		if i := strings.IndexByte(rel, filepath.Separator); i > 0 {
			out[sid] = rel[:i]
		}
		return nil
	})
	return out, s.wrap(err)
}

// ScrubFreeSpace rewrites the database file (VACUUM) so no free space in
// it keeps text deleted earlier: Forget zeroes what it deletes, but a row
// updated before (a session's aggregates, a memory's text) left its older
// copies in pages' free space. `cairn remote sync` runs it after applying
// another machine's forgets; it takes time in proportion to the store.
func (s *Store) ScrubFreeSpace(ctx context.Context) error {
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return s.wrap(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "VACUUM"); err != nil {
		return s.wrap(err)
	}
	_, err = conn.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return s.wrap(err)
}
