package index

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/transcripts"
)

// errFound stops a transcript read once the entry sought was seen.
var errFound = errors.New("found")

// rereadDamaged re-reads entries whose stored text cannot be read (queue
// keys "e:<row id>" that readers skipped) from their transcripts, when the
// transcript is still on disk and the row's own place in it (file and
// line) can still be read: the entry is prepared again as the sync would
// (redacted, shortened) and its text and render data rewritten, then queued
// for the derived indexes. It returns how many were repaired; an entry that
// cannot be (transcript gone, row damaged beyond its text) stays left out.
func (s *Store) rereadDamaged(ctx context.Context, keys []string, o SyncOptions) int {
	o.defaults()
	p := preparer{head: o.ToolHead, tail: o.ToolTail}
	repaired := 0
	for _, k := range keys {
		if !strings.HasPrefix(k, queueEntryPrefix) {
			continue
		}
		id, err := strconv.ParseInt(k[len(queueEntryPrefix):], 10, 64)
		if err != nil {
			continue
		}
		if s.rereadEntry(ctx, &p, id) == nil {
			repaired++
		}
	}
	return repaired
}

func (s *Store) rereadEntry(ctx context.Context, p *preparer, id int64) error {
	var uuid, path, agent string
	var line int
	var kind int
	err := s.r.QueryRowContext(ctx, `SELECT cairn_uuid(e.uuid), e.line, f.path, f.kind, f.agent_id FROM entries_raw e JOIN files f ON f.id = e.file WHERE e.id = ?`, id).
		Scan(&uuid, &line, &path, &kind, &agent)
	if err != nil {
		return err
	}
	found, err := findLine(path, line, uuid)
	if err != nil {
		return err
	}
	redactEntry(found)
	r := p.row(&transcripts.File{Path: path, Kind: transcripts.FileKind(kind), AgentID: agent}, found, "", nil)
	if r.uuid != uuid {
		return errors.New("the transcript line changed")
	}
	return s.writeReread(ctx, id, r)
}

// findLine reads the entry of uuid (or without one) at line of the
// transcript at path.
func findLine(path string, line int, uuid string) (*transcripts.Entry, error) {
	var found *transcripts.Entry
	_, _, err := transcripts.ReadFile(path, transcripts.Cursor{}, func(e *transcripts.Entry) error {
		if e.Line == line && (e.UUID == uuid || e.UUID == "") {
			c := *e
			found = &c
			return errFound
		}
		return nil
	})
	if found == nil && (err == nil || !errors.Is(err, errFound)) {
		return nil, errors.Join(errors.New("not in its transcript"), err)
	}
	return found, nil
}

// writeReread stores entry id's row r, read again, and queues it for the
// indexes.
func (s *Store) writeReread(ctx context.Context, id int64, r *entryRow) error {
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE entries_raw SET text = ?, data = ? WHERE id = ?`, packText(r.text), packData(r.data), id); err != nil {
			return err
		}
		key := entryQueueKey(id)
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO fts_queue(doc) VALUES (?)`, key); err != nil {
			return err
		}
		if r.embed {
			_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO embed_queue(doc) VALUES (?)`, key)
			return err
		}
		return nil
	})
}
