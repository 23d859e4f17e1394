package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// MemFileVersion is one text of one of Claude Code's auto-memory files
// (projects/<P>/memory/*.md) that cairn has kept: the baseline it found,
// a change Claude made (pending, then approved or rejected), or an older
// text a person put back. The rules are in memories/memfiles.go; the
// store only keeps rows.
type MemFileVersion struct {
	ID       int64     `json:"version"`
	Path     string    `json:"path"`
	Project  string    `json:"project"`
	Hash     string    `json:"hash"` // sha256 of Text, hex; "" when the file was deleted
	Text     string    `json:"text"`
	Status   string    `json:"status"`
	Base     int64     `json:"base,omitempty"` // the reviewed version a change was seen against
	Seq      int64     `json:"-"`              // review order; 0 when not a review
	Seen     time.Time `json:"seen"`
	Reviewed time.Time `json:"reviewed,omitzero"`
}

const memFileCols = `id, path, project, hash, text, status, base, seq, seen, reviewed`

func scanMemFile(rows *sql.Rows) (MemFileVersion, error) {
	var v MemFileVersion
	var seen, reviewed int64
	err := rows.Scan(&v.ID, &v.Path, &v.Project, &v.Hash, &v.Text, &v.Status, &v.Base, &v.Seq, &seen, &reviewed)
	v.Seen, v.Reviewed = timeOfMs(seen), timeOfMs(reviewed)
	return v, err
}

// MemFileFilter selects memory-file versions; zero values select all.
type MemFileFilter struct {
	ID       int64
	Path     string
	Project  string
	Statuses []string
}

// MemFileVersions returns the versions f selects, oldest first.
func (m MemStore) MemFileVersions(ctx context.Context, f MemFileFilter) ([]MemFileVersion, error) {
	q := `SELECT ` + memFileCols + ` FROM memory_file_versions WHERE 1`
	var args []any
	if f.ID != 0 {
		q += ` AND id = ?`
		args = append(args, f.ID)
	}
	if f.Path != "" {
		q += ` AND path = ?`
		args = append(args, f.Path)
	}
	if f.Project != "" {
		q += ` AND project = ?`
		args = append(args, f.Project)
	}
	if len(f.Statuses) > 0 {
		q += ` AND status IN (` + placeholders(len(f.Statuses)) + `)`
		for _, s := range f.Statuses {
			args = append(args, s)
		}
	}
	q += ` ORDER BY id`
	return queryRows(ctx, m.s, q, args, scanMemFile)
}

// MemFilePaths returns every memory file with a version kept.
func (m MemStore) MemFilePaths(ctx context.Context) ([]string, error) {
	return queryRows(ctx, m.s, `SELECT DISTINCT path FROM memory_file_versions ORDER BY path`, nil, func(rows *sql.Rows) (string, error) {
		var p string
		err := rows.Scan(&p)
		return p, err
	})
}

// LastMemFileReview returns the version of the latest review that still
// stands (the highest seq), nil when there is none.
func (m MemStore) LastMemFileReview(ctx context.Context) (*MemFileVersion, error) {
	vs, err := queryRows(ctx, m.s, `SELECT `+memFileCols+` FROM memory_file_versions WHERE seq > 0 ORDER BY seq DESC LIMIT 1`, nil, scanMemFile)
	if err != nil || len(vs) == 0 {
		return nil, err
	}
	return &vs[0], nil
}

// ErrMemFileConflict: the write would give a file a second baseline or a
// second pending change (another process recorded the same file at the
// same moment).
var ErrMemFileConflict = errors.New("another version of this memory file was recorded at the same moment")

// SaveMemFileVersion inserts v (ID 0; its new id is set) or updates it.
// review gives it the next review order (seq), for undo; otherwise seq is
// kept as v has it.
func (m MemStore) SaveMemFileVersion(ctx context.Context, v *MemFileVersion, review bool) error {
	err := m.s.writeTx(ctx, func(tx *sql.Tx) error {
		if review {
			if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) + 1 FROM memory_file_versions`).Scan(&v.Seq); err != nil {
				return err
			}
		}
		if v.ID == 0 {
			res, err := tx.ExecContext(ctx, `INSERT INTO memory_file_versions(path, project, hash, text, status, base, seq, seen, reviewed)
				VALUES (?,?,?,?,?,?,?,?,?)`, v.Path, v.Project, v.Hash, v.Text, v.Status, v.Base, v.Seq, msOf(v.Seen), msOf(v.Reviewed))
			if err != nil {
				return err
			}
			v.ID, err = res.LastInsertId()
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE memory_file_versions SET path = ?, project = ?, hash = ?, text = ?, status = ?, base = ?,
			seq = ?, seen = ?, reviewed = ? WHERE id = ?`, v.Path, v.Project, v.Hash, v.Text, v.Status, v.Base, v.Seq, msOf(v.Seen), msOf(v.Reviewed), v.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errors.New("memory file version no longer stored (forgotten?)")
		}
		return nil
	})
	if err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed") {
		return fmt.Errorf("%s: %w", v.Path, ErrMemFileConflict)
	}
	return err
}

// DeleteMemFileVersion removes one version (the undo of a restore).
func (m MemStore) DeleteMemFileVersion(ctx context.Context, id int64) error {
	return m.s.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM memory_file_versions WHERE id = ?`, id)
		return err
	})
}
