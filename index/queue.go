package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Document id prefixes. Entries are "m:<uuid>" (fts may append "#<n>" for
// chunks); sessions are "s:<session id>" (title and first prompt).
const (
	docEntryPrefix   = "m:"
	queueEntryPrefix = "e:" // an entry's queue key: "e:" + its row id in 13 digits
	docSessionPrefix = "s:"
)

// Document kinds.
const (
	DocMessage = "message"
	DocSession = "session"
)

// DocRow is a queued document as the derived indexes need it.
type DocRow struct {
	ID       string
	Kind     string    // DocMessage or DocSession
	Text     string    // redacted searchable text
	Title    string    // the session's title now
	Project  string    // project path
	Session  string    // session id
	Role     string    // user (typed prompts), assistant, tool, system; "" for sessions
	Block    string    // text, thinking, tool_use, tool_result, ...; "" for sessions
	Subagent bool      // written in a subagent's thread or a sidechain
	Time     time.Time // entry time; a session's start
	// Gone is set when the document no longer exists in the store: remove
	// it from the index.
	Gone bool

	queueKey string // the queue row, when it is not ID (entries: "e:<row id>")
}

// key is the document's queue row.
func (d *DocRow) key() string {
	if d.queueKey != "" {
		return d.queueKey
	}
	return d.ID
}

const docEntryCols = `q.doc, e.id IS NULL, coalesce(e.text, ''), coalesce(s.title, ''), coalesce(s.project_path, ''),
	coalesce(s.sid, ''), coalesce(e.role, ''), coalesce(e.block, ''), coalesce(e.flags, 0), coalesce(e.ts, 0)`

// QueuedDocs returns up to limit documents waiting for the full-text index.
// They stay queued until AckQueued: a consumer that dies loses nothing.
func (s *Store) QueuedDocs(limit int) ([]DocRow, error) {
	return s.queued(context.Background(), "fts_queue", limit, true)
}

// AckQueued removes indexed documents from the full-text queue.
func (s *Store) AckQueued(ids []string) error { return s.ack(context.Background(), "fts_queue", ids) }

// QueuedEmbeds returns up to limit documents waiting for an embedding:
// typed prompts and assistant replies (not tool output or thinking).
func (s *Store) QueuedEmbeds(limit int) ([]DocRow, error) {
	return s.queued(context.Background(), "embed_queue", limit, false)
}

// AckEmbeds removes embedded documents from the embedding queue.
func (s *Store) AckEmbeds(ids []string) error { return s.ack(context.Background(), "embed_queue", ids) }

func (s *Store) queued(ctx context.Context, table string, limit int, sessions bool) ([]DocRow, error) {
	if limit <= 0 {
		limit = 1000
	}
	// Queue keys sort "e:" (entries by row id) < "m:" (entries by uuid:
	// removals, and rows from before schema 4) < "mem:" < "s:"; the range
	// conditions let each query walk its part of the queue's primary key.
	var out []DocRow
	for _, part := range []struct{ join, where string }{
		{`LEFT JOIN entries e ON e.id = CAST(substr(q.doc, 3) AS INTEGER)`, `q.doc >= 'e:' AND q.doc < 'e;'`},
		{`LEFT JOIN entries e ON e.uuid = substr(q.doc, 3)`, `q.doc >= 'm:' AND q.doc < 'm;'`},
	} {
		if len(out) >= limit {
			break
		}
		rows, err := s.r.QueryContext(ctx, `SELECT CASE WHEN e.id IS NULL THEN q.doc ELSE 'm:' || e.uuid END, `+docEntryCols+` FROM `+table+` q
		`+part.join+`
		LEFT JOIN sessions s ON s.id = e.session
		WHERE `+part.where+` LIMIT ?`, limit-len(out))
		if err != nil {
			return nil, s.wrap(err)
		}
		for rows.Next() {
			var d DocRow
			var flags int
			var ts int64
			if err := rows.Scan(&d.ID, &d.queueKey, &d.Gone, &d.Text, &d.Title, &d.Project, &d.Session, &d.Role, &d.Block, &flags, &ts); err != nil {
				rows.Close()
				return nil, err
			}
			d.Kind = DocMessage
			d.Subagent = flags&(flagSidechain|flagAgentThread) != 0
			d.Time = docTime(ts)
			out = append(out, d)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	// Memories and session summaries: full-text and vectors both.
	more, err := s.queuedMemDocs(ctx, table, limit-len(out))
	if err != nil {
		return nil, err
	}
	out = append(out, more...)
	if !sessions || len(out) >= limit {
		return out, nil
	}
	rows, err := s.r.QueryContext(ctx, `SELECT q.doc, s.id IS NULL, coalesce(s.first_prompt, ''), coalesce(s.title, ''),
		coalesce(s.project_path, ''), coalesce(s.sid, ''), coalesce(s.start_ns, 0)
		FROM `+table+` q LEFT JOIN sessions s ON s.sid = substr(q.doc, 3)
		WHERE q.doc >= 's:' AND q.doc < 's;' LIMIT ?`, limit-len(out))
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var d DocRow
		var start int64
		if err := rows.Scan(&d.ID, &d.Gone, &d.Text, &d.Title, &d.Project, &d.Session, &start); err != nil {
			return nil, err
		}
		d.Kind = DocSession
		d.Time = fromUnixNano(start)
		out = append(out, d)
	}
	return out, rows.Err()
}

func (s *Store) ack(ctx context.Context, table string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `DELETE FROM `+table+` WHERE doc IN (?1, `+entryKeyOf+`)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, id := range ids {
			if _, err := st.ExecContext(ctx, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// entryKeyOf is the "e:" queue key of the entry whose document id is ?1
// ("m:<uuid>"), NULL for any other id or key: acknowledging by document id
// (the public API) and by queue key both work.
const entryKeyOf = `(SELECT printf('e:%013d', id) FROM entries_raw WHERE ?1 >= 'm:' AND ?1 < 'm;' AND uuid = substr(?1, 3))`

// PutEmbeddings stores vectors made by embedder (a name that pins model,
// dimensions and version: vectors of different embedders never mix) and
// removes their documents from the embedding queue, in one transaction.
func (s *Store) PutEmbeddings(embedder string, vecs []VecRow) error {
	_, err := s.putEmbeddings(context.Background(), embedder, vecs)
	return err
}

// putEmbeddings is PutEmbeddings returning the vectors that were new (not
// replacing a stored one), for appending to the vector cache.
func (s *Store) putEmbeddings(ctx context.Context, embedder string, vecs []VecRow) ([]VecRow, error) {
	now := time.Now().UnixMilli()
	var added []VecRow
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		added = added[:0]
		ins, err := tx.PrepareContext(ctx, `INSERT INTO embeddings(doc, embedder, dims, vector, created) VALUES (?,?,?,?,?)
			ON CONFLICT(embedder, doc) DO NOTHING`)
		if err != nil {
			return err
		}
		defer ins.Close()
		upd, err := tx.PrepareContext(ctx, `UPDATE embeddings SET dims = ?, vector = ?, created = ? WHERE embedder = ? AND doc = ?`)
		if err != nil {
			return err
		}
		defer upd.Close()
		del, err := tx.PrepareContext(ctx, `DELETE FROM embed_queue WHERE doc IN (?1, ?2)`)
		if err != nil {
			return err
		}
		defer del.Close()
		keyOf, err := tx.PrepareContext(ctx, `SELECT printf('e:%013d', id) FROM entries_raw WHERE uuid = ?`)
		if err != nil {
			return err
		}
		defer keyOf.Close()
		for _, v := range vecs {
			// An entry's vector is stored under its "e:" key (see schema 6).
			key := v.key
			if key == "" {
				key = v.ID
				if uuid, ok := strings.CutPrefix(v.ID, docEntryPrefix); ok {
					switch err := keyOf.QueryRowContext(ctx, uuid).Scan(&key); {
					case errors.Is(err, sql.ErrNoRows):
						key = v.ID // not a stored entry: kept under its id
					case err != nil:
						return err
					}
				}
			}
			blob := encodeVector(v.Vec)
			res, err := ins.ExecContext(ctx, key, embedder, len(v.Vec), blob, now)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				added = append(added, v)
			} else if _, err := upd.ExecContext(ctx, len(v.Vec), blob, now, embedder, key); err != nil {
				return err
			}
			if _, err := del.ExecContext(ctx, v.ID, key); err != nil {
				return err
			}
		}
		return addVecCount(ctx, tx, embedder, len(added))
	})
	return added, err
}

// Embeddings loads every vector of embedder (e.g. to write the vector
// cache with WriteVecCache).
func (s *Store) Embeddings(embedder string) ([]VecRow, error) {
	// Entries' vectors are stored under their "e:" key: read back by id.
	rows, err := s.r.Query(`SELECT CASE WHEN v.doc >= 'e:' AND v.doc < 'e;'
			THEN coalesce((SELECT 'm:' || uuid FROM entries_raw WHERE id = CAST(substr(v.doc, 3) AS INTEGER)), v.doc)
			ELSE v.doc END, v.dims, v.vector
		FROM embeddings v WHERE v.embedder = ?`, embedder)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []VecRow
	for rows.Next() {
		var e VecRow
		var dims int
		var blob []byte
		if err := rows.Scan(&e.ID, &dims, &blob); err != nil {
			return nil, err
		}
		if len(blob) != 4*dims {
			return nil, fmt.Errorf("%w: embedding of %s (%s) has %d bytes for %d dimensions", ErrCorrupt, e.ID, embedder, len(blob), dims)
		}
		e.Vec = decodeVector(blob)
		out = append(out, e)
	}
	return out, rows.Err()
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func decodeVector(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// Setting returns a stored value (nil, false when unset).
func (s *Store) Setting(key string) ([]byte, bool, error) {
	var v []byte
	err := s.r.QueryRow(`SELECT value FROM kv WHERE key = ?`, key).Scan(&v)
	if err == sql.ErrNoRows {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.wrap(err)
	}
	return v, true, nil
}

// SetSetting stores a value (a setting, or a blob such as an embedder's
// trained model).
func (s *Store) SetSetting(key string, value []byte) error {
	if strings.TrimSpace(key) == "" {
		return fmt.Errorf("empty setting key")
	}
	return s.writeTx(context.Background(), func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO kv(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
		return err
	})
}

// docTime is an entry's time from its ts column (unix ms; 0 = unknown).
func docTime(ts int64) time.Time {
	if ts == 0 {
		return time.Time{}
	}
	return unixMilli(ts)
}

// entryQueueKey is how an entry waits in the queues.
func entryQueueKey(id int64) string { return fmt.Sprintf("e:%013d", id) }
