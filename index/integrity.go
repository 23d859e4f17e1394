package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// A store can be damaged a little: a few bad bytes on a page (a disk
// error, a copy cut short, a file system that lied about a write) leave
// SQLite able to open it and to read most rows, while one index misses rows
// or one value no longer decompresses. cairn notices and keeps going:
//
//   - `cairn doctor` runs PRAGMA quick_check (`--full`: integrity_check)
//     and says what is damaged and what to do (Integrity);
//   - readers skip a row they cannot read and say how many they skipped
//     (queuedAfter, Conversation) instead of failing as a whole;
//   - `cairn index --rebuild` rebuilds the store's own indexes (REINDEX)
//     when only they are damaged, builds the full-text index beside the old
//     one and swaps it in only when it is complete.

// isDamage reports whether err is SQLite (or cairn_unz) saying that what
// it read is damaged, as opposed to busy, cancelled or a bug.
func isDamage(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrCorrupt) {
		return true
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return true
		}
	}
	msg := err.Error()
	// A value of the wrong type where the schema has another (a flipped
	// type byte in a record) is damage too.
	return strings.Contains(msg, ErrCorrupt.Error()) || strings.Contains(msg, "malformed") || strings.Contains(msg, "does not decompress") ||
		strings.Contains(msg, "Scan error on column")
}

// Integrity is what SQLite's own check found.
type Integrity struct {
	// Full is true for integrity_check, false for quick_check.
	Full bool `json:"full"`
	// Problems are SQLite's messages (at most maxProblems); none when the
	// store is intact.
	Problems []string `json:"problems"`
	// IndexesOnly is true when every problem is in an index (missing or
	// extra index entries): REINDEX repairs those without losing anything.
	IndexesOnly bool `json:"indexes_only"`
}

// OK reports whether the check found nothing.
func (i Integrity) OK() bool { return len(i.Problems) == 0 }

const maxProblems = 20

// CheckIntegrity runs PRAGMA quick_check (full: integrity_check, which also
// compares every index with its table and takes longer). A store so damaged
// that the check itself cannot run is reported as one problem.
func (s *Store) CheckIntegrity(ctx context.Context, full bool) (Integrity, error) {
	res := Integrity{Full: full}
	msgs, err := s.pageProblems(ctx, full)
	if err != nil {
		return res, err
	}
	if full {
		// SQLite checks its pages, not cairn's compressed values: a value
		// damaged inside its page passes integrity_check.
		more, err := s.valueProblems(ctx)
		if err != nil {
			return res, err
		}
		msgs = append(msgs, more...)
	}
	if len(msgs) == 0 {
		return res, nil
	}
	res.Problems = msgs
	res.IndexesOnly = !slices.ContainsFunc(msgs, func(m string) bool { return !indexProblem(m) })
	return res, nil
}

// pageProblems is what SQLite's own check finds (none: nil), or the error
// that stops the check when it is damage.
func (s *Store) pageProblems(ctx context.Context, full bool) ([]string, error) {
	pragma := fmt.Sprintf("PRAGMA quick_check(%d)", maxProblems)
	if full {
		pragma = fmt.Sprintf("PRAGMA integrity_check(%d)", maxProblems)
	}
	msgs, err := s.queryStrings(ctx, pragma)
	if err != nil {
		if !isDamage(err) {
			return nil, s.wrap(err)
		}
		msgs = []string{err.Error()}
	}
	if len(msgs) == 1 && msgs[0] == "ok" {
		return nil, nil
	}
	return msgs, nil
}

// valueChecks count the compressed values that no longer decompress, each
// with what its problem says.
var valueChecks = []struct {
	count     func(*Store, context.Context) (int, error)
	one, many string // the message for one, and for %d
	fix       string
}{
	{(*Store).undecodableEntries, "1 stored entry no longer decompresses", "%d stored entries no longer decompress",
		"`cairn index --rebuild` re-reads them from their transcripts"},
	{(*Store).undecodableSessions, "1 stored session's state no longer decompresses", "%d stored sessions' states no longer decompress",
		"`cairn index --recount` aggregates them again from their transcripts"},
}

// valueProblems runs the valueChecks. A count that fails on damage does not
// stop the check: what it returned stands.
func (s *Store) valueProblems(ctx context.Context) ([]string, error) {
	var msgs []string
	for _, c := range valueChecks {
		bad, err := c.count(s, ctx)
		if err != nil && !isDamage(err) {
			return nil, s.wrap(err)
		}
		if bad <= 0 {
			continue
		}
		what := fmt.Sprintf(c.many, bad)
		if bad == 1 {
			what = c.one
		}
		msgs = append(msgs, what+" ("+c.fix+")")
	}
	return msgs, nil
}

// indexProblem reports whether an integrity_check message is about an
// index alone (the table rows are intact).
func indexProblem(m string) bool {
	return (strings.Contains(m, "missing from index") || strings.Contains(m, "wrong # of entries in index") ||
		strings.Contains(m, "non-unique entry in index")) && !strings.Contains(m, "Tree ")
}

// RepairIndexes rebuilds the store's indexes (REINDEX) when a full check
// finds only index damage, and says what it did. A store whose tables are
// damaged is left as it is (the error says what to do).
func (s *Store) RepairIndexes(ctx context.Context) (Integrity, error) {
	ic, err := s.CheckIntegrity(ctx, true)
	if err != nil || ic.OK() {
		return ic, err
	}
	if !ic.IndexesOnly {
		return ic, nil
	}
	if err := s.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "REINDEX")
		return err
	}); err != nil {
		return ic, fmt.Errorf("rebuilding the store's indexes: %w", err)
	}
	return ic, nil
}

// undecodableEntries counts the entries whose stored text or render data
// does not decompress.
func (s *Store) undecodableEntries(ctx context.Context) (int, error) {
	return s.undecodable(ctx, "entries_raw", "text", "data")
}

// undecodableSessions counts the sessions whose stored state or detail
// does not decompress.
func (s *Store) undecodableSessions(ctx context.Context) (int, error) {
	return s.undecodable(ctx, "sessions", "state", "detail")
}

// undecodable counts the rows of table (keyed by id) whose compressed
// columns a and b do not decompress, reading the table in pages and, in a
// page that fails, row by row.
func (s *Store) undecodable(ctx context.Context, table, a, b string) (int, error) {
	const page = 500
	bad := 0
	var after int64
	for {
		ids, err := queryRows(ctx, s, `SELECT id FROM `+table+` WHERE id > ? ORDER BY id LIMIT ?`, []any{after, page},
			func(rows *sql.Rows) (int64, error) {
				var id int64
				return id, rows.Scan(&id)
			})
		if err != nil || len(ids) == 0 {
			return bad, err
		}
		check := func(lo, hi int64) error {
			var n int
			return s.r.QueryRowContext(ctx, `SELECT count(length(cairn_unz(`+a+`)) + length(cairn_unz(`+b+`))) FROM `+table+` WHERE id >= ? AND id <= ?`, lo, hi).Scan(&n)
		}
		if err := check(ids[0], ids[len(ids)-1]); err != nil {
			if !isDamage(err) {
				return bad, err
			}
			for _, id := range ids {
				if err := check(id, id); err != nil {
					bad++
				}
			}
		}
		after = ids[len(ids)-1]
	}
}
