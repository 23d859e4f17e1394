package index

import (
	"context"
	"database/sql"
	"maps"
	"strconv"
	"strings"
	"time"
)

// embeddableWhere selects the entries that get vectors: typed prompts and
// assistant replies (tool output and thinking are left to full-text search,
// and so are the person's words outside prompts, flagSaid: a queued prompt
// may be replaced by the prompt it becomes, and the built-in embedder's
// training sample stays what it was). It must match the embed flag set in
// prepare.go.
var embeddableWhere = `block = 'text' AND role IN ('user', 'assistant') AND (flags & ` + strconv.Itoa(flagSaid|flagCairn) + `) = 0 AND trim(text) != ''`

func (s *Store) embeddableCount(ctx context.Context) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM entries WHERE `+embeddableWhere).Scan(&n)
	return n, s.wrap(err)
}

// trainingSample returns up to max embeddable texts spread evenly over the
// store (every k-th entry), so training sees all projects and periods.
func (s *Store) trainingSample(ctx context.Context, max int) ([]DocRow, error) {
	n, err := s.embeddableCount(ctx)
	if err != nil {
		return nil, err
	}
	step := n/max + 1
	return queryRows(ctx, s, `SELECT 'm:' || uuid, printf('e:%013d', id), substr(text, 1, `+strconv.Itoa(embedMaxText)+`) FROM entries WHERE `+embeddableWhere+` AND id % ? = 0`, []any{step},
		func(rows *sql.Rows) (DocRow, error) {
			d := DocRow{Kind: DocMessage}
			err := rows.Scan(&d.ID, &d.queueKey, &d.Text)
			return d, err
		})
}

// queryStrings runs a query of one text column and returns its values.
func (s *Store) queryStrings(ctx context.Context, q string, args ...any) ([]string, error) {
	return queryRows(ctx, s, q, args, func(rows *sql.Rows) (string, error) {
		var t string
		err := rows.Scan(&t)
		return t, err
	})
}

// dropEmbeddingsLike deletes vectors of embedders matching the LIKE pattern,
// except keep: a retrained built-in model makes the old space useless.
func (s *Store) dropEmbeddingsLike(ctx context.Context, pattern, keep string) error {
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM embeddings WHERE embedder LIKE ? AND embedder != ?`, pattern, keep); err != nil {
			return err
		}
		return forgetVecCounts(ctx, tx)
	})
}

// requeueAll queues every document again for one derived index.
func (s *Store) requeueAll(ctx context.Context, table string) error {
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		if err := requeueMemDocs(ctx, tx, table); err != nil {
			return err
		}
		if table == "embed_queue" {
			_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO embed_queue(doc) SELECT printf('e:%013d', id) FROM entries WHERE `+embeddableWhere)
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO fts_queue(doc) SELECT printf('e:%013d', id) FROM entries_raw WHERE text IS NOT NULL AND (typeof(text) = 'blob' OR trim(text) != '')`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO fts_queue(doc) SELECT 's:' || sid FROM sessions WHERE entries > 0`)
		return err
	})
}

// FTSDocCount is how many documents the full-text index holds when it is
// complete: what requeueAll would queue.
func (d Derived) FTSDocCount(ctx context.Context) (int, error) {
	var n int
	err := d.s.r.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM entries_raw WHERE text IS NOT NULL AND (typeof(text) = 'blob' OR trim(text) != '')) +
		(SELECT count(*) FROM sessions WHERE entries > 0) +
		(SELECT count(*) FROM memories WHERE status != 'rejected') +
		(SELECT count(*) FROM session_summaries)`).Scan(&n)
	return n, d.s.wrap(err)
}

// hit is a search result's stored fields.
type hit struct {
	DocRow
	UUID     string
	Archived bool
}

// docsByID loads documents for ranking and display; unknown ids are left
// out, and so are (counted in damaged) those whose rows a damaged store
// cannot give back.
func (s *Store) docsByID(ctx context.Context, ids []string) (out map[string]*hit, damaged int, err error) {
	out, err = s.docsByIDAll(ctx, ids)
	if err == nil || !isDamage(err) || ctx.Err() != nil {
		return out, 0, s.wrap(err)
	}
	out = map[string]*hit{}
	for _, id := range ids {
		one, err := s.docsByIDAll(ctx, []string{id})
		if err != nil {
			if !isDamage(err) {
				return nil, 0, s.wrap(err)
			}
			damaged++
			continue
		}
		maps.Copy(out, one)
	}
	return out, damaged, nil
}

func (s *Store) docsByIDAll(ctx context.Context, ids []string) (map[string]*hit, error) {
	out := map[string]*hit{}
	uuids, sids := idsByPrefix(ids, docEntryPrefix, docSessionPrefix)
	err := s.eachRowIn(ctx, `SELECT e.uuid, e.text, s.title, s.project_path, s.sid, e.role, e.block, e.flags, e.ts, s.archived
			FROM entries_raw r JOIN entries e ON e.id = r.id JOIN sessions s ON s.id = e.session WHERE r.uuid IN (`, packUUIDs(uuids), func(rows *sql.Rows) error {
		h := &hit{}
		var flags int
		var ts int64
		if err := rows.Scan(&h.UUID, &h.Text, &h.Title, &h.Project, &h.Session, &h.Role, &h.Block, &flags, &ts, &h.Archived); err != nil {
			return err
		}
		h.ID, h.Kind = docEntryPrefix+h.UUID, DocMessage
		h.Subagent = flags&(flagSidechain|flagAgentThread) != 0
		if ts != 0 {
			h.Time = unixMilli(ts)
		}
		out[h.ID] = h
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = s.eachRowIn(ctx, `SELECT sid, first_prompt, title, project_path, start_ns, archived
			FROM sessions WHERE sid IN (`, sids, func(rows *sql.Rows) error {
		h := &hit{}
		var start int64
		if err := rows.Scan(&h.Session, &h.Text, &h.Title, &h.Project, &start, &h.Archived); err != nil {
			return err
		}
		h.ID, h.Kind, h.Time = docSessionPrefix+h.Session, DocSession, fromUnixNano(start)
		out[h.ID] = h
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := s.memDocsByID(ctx, ids, out); err != nil {
		return nil, err
	}
	return out, nil
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

var _ = time.Second
