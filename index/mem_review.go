package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"github.com/cairn-dev/cairn/memtype"
	"time"
)

// Fingerprint is what a review turned down, kept after the memory itself
// is deleted: its content words' hashes (memories' dedup tokens), not its
// text. A proposal that matches one is never offered again.
type Fingerprint struct {
	Memory  string // the deleted memory's id
	Project string
	Type    memtype.Type
	Neg     bool           // phrased negatively
	Tokens  []uint32       // sorted hashes of its content words
	Status  memtype.Status // rejected or superseded
	Created time.Time
}

// SaveFingerprint keeps a memory's fingerprint (replacing an older one of
// the same memory).
func (m MemStore) SaveFingerprint(ctx context.Context, f Fingerprint) error {
	b := make([]byte, 4*len(f.Tokens))
	for i, t := range f.Tokens {
		binary.LittleEndian.PutUint32(b[4*i:], t)
	}
	return m.s.writeTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO memory_fingerprints(memory, project, type, neg, tokens, status, created)
			VALUES (?,?,?,?,?,?,?)`, f.Memory, f.Project, f.Type, f.Neg, b, f.Status, f.Created.UnixMilli()); err != nil {
			return err
		}
		return bumpMemGen(ctx, tx)
	})
}

// Fingerprints returns the fingerprints of a project and the global ones
// (every one when project is "").
func (m MemStore) Fingerprints(ctx context.Context, project string) ([]Fingerprint, error) {
	q := `SELECT memory, project, type, neg, tokens, status, created FROM memory_fingerprints`
	var args []any
	if project != "" {
		q += ` WHERE project = ? OR project = ''`
		args = append(args, project)
	}
	return queryRows(ctx, m.s, q, args, func(rows *sql.Rows) (Fingerprint, error) {
		var f Fingerprint
		var b []byte
		var created int64
		if err := rows.Scan(&f.Memory, &f.Project, &f.Type, &f.Neg, &b, &f.Status, &created); err != nil {
			return f, err
		}
		f.Tokens = make([]uint32, len(b)/4)
		for i := range f.Tokens {
			f.Tokens[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
		f.Created = unixMilli(created)
		return f, nil
	})
}
