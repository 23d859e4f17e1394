package index

import (
	"context"
	"database/sql"
	"strings"
)

// Memories ("mem:<id>") and session summaries ("sum:<session>") are
// documents of the derived indexes like entries: queued for full-text and
// embedding when written, searchable with Kinds memories and summaries.
// Rejected memories leave the indexes.

// memoryQueuePart reads the queued memory documents.
func memoryQueuePart(table string) queuePart {
	return queuePart{lo: "mem:", hi: "mem;", sql: `SELECT q.doc, m.id IS NULL OR m.status = 'rejected', coalesce(m.content, ''),
		coalesce(m.tags, '[]'), coalesce(m.type, ''), coalesce(m.project, ''), coalesce(m.source_session, ''), coalesce(m.updated, 0)
		FROM ` + table + ` q LEFT JOIN memories m ON m.id = substr(q.doc, 5)
		WHERE q.doc >= ?3 AND q.doc < ?4 AND q.doc > ?1 ORDER BY q.doc LIMIT ?2`, scan: func(rows *sql.Rows) (DocRow, error) {
		var d DocRow
		var tags, typ string
		var updated int64
		if err := rows.Scan(&d.ID, &d.Gone, &d.Text, &tags, &typ, &d.Project, &d.Session, &updated); err != nil {
			return d, err
		}
		d.Kind, d.Title, d.Time = DocMemory, memTitle(typ, tags), timeOfMs(updated)
		if tags != "[]" {
			d.Text += "\n" + tags
		}
		return d, nil
	}}
}

// summaryQueuePart reads the queued session summaries.
func summaryQueuePart(table string) queuePart {
	return queuePart{lo: "sum:", hi: "sum;", sql: `SELECT q.doc, ss.session IS NULL, coalesce(ss.markdown, ''), coalesce(ss.project, ''),
		coalesce(ss.session, ''), coalesce(ss.created, 0), coalesce(s.title, '')
		FROM ` + table + ` q LEFT JOIN session_summaries ss ON ss.session = substr(q.doc, 5)
		LEFT JOIN sessions s ON s.sid = ss.session
		WHERE q.doc >= ?3 AND q.doc < ?4 AND q.doc > ?1 ORDER BY q.doc LIMIT ?2`, scan: func(rows *sql.Rows) (DocRow, error) {
		var d DocRow
		var created int64
		err := rows.Scan(&d.ID, &d.Gone, &d.Text, &d.Project, &d.Session, &created, &d.Title)
		// Summaries are session documents to search filters and callers
		// ("summaries"); the id prefix tells them apart.
		d.Kind, d.Time = DocSession, timeOfMs(created)
		return d, err
	}}
}

func memTitle(typ, tags string) string {
	t := "memory: " + typ
	if tags != "" && tags != "[]" {
		t += " " + strings.NewReplacer(`"`, "", "[", "[", "]", "]").Replace(tags)
	}
	return t
}

// requeueMemDocs queues every memory and summary for one derived index.
func requeueMemDocs(ctx context.Context, tx *sql.Tx, table string) error {
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO `+table+`(doc) SELECT 'mem:' || id FROM memories WHERE status != 'rejected'`); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO `+table+`(doc) SELECT 'sum:' || session FROM session_summaries`)
	return err
}

// memDocsByID adds the memory and summary documents among ids to out.
func (s *Store) memDocsByID(ctx context.Context, ids []string, out map[string]*hit) error {
	mids, sids := idsByPrefix(ids, docMemoryPrefix, docSummaryPrefix)
	err := s.eachRowIn(ctx, `SELECT id, content, tags, type, project, source_session, updated FROM memories
			WHERE status != 'rejected' AND id IN (`, mids, func(rows *sql.Rows) error {
		h := &hit{}
		var id, tags, typ string
		var updated int64
		if err := rows.Scan(&id, &h.Text, &tags, &typ, &h.Project, &h.Session, &updated); err != nil {
			return err
		}
		h.ID, h.Kind, h.Title, h.Time, h.UUID = docMemoryPrefix+id, DocMemory, memTitle(typ, tags), timeOfMs(updated), id
		out[h.ID] = h
		return nil
	})
	if err != nil {
		return err
	}
	return s.eachRowIn(ctx, `SELECT ss.session, ss.markdown, ss.project, ss.created, coalesce(s.title, ''), coalesce(s.archived, 0)
			FROM session_summaries ss LEFT JOIN sessions s ON s.sid = ss.session WHERE ss.session IN (`, sids, func(rows *sql.Rows) error {
		h := &hit{}
		var created int64
		if err := rows.Scan(&h.Session, &h.Text, &h.Project, &created, &h.Title, &h.Archived); err != nil {
			return err
		}
		h.ID, h.Kind, h.Time = docSummaryPrefix+h.Session, DocSession, timeOfMs(created)
		out[h.ID] = h
		return nil
	})
}
