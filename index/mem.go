package index

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"

	json "github.com/go-json-experiment/json"

	"github.com/cairn-dev/cairn/memtype"
)

// This file and the other mem*.go files hold the SQL of the memories
// domain (package memories owns the rules; the store only keeps rows).

// Document id prefixes of memories and session summaries in the derived
// indexes. They sort outside the "m:" and "s:" ranges the entry and
// session queues walk.
const (
	docMemoryPrefix  = "mem:"
	docSummaryPrefix = "sum:"
)

// Document kinds of memories and session summaries.
const (
	DocMemory  = "memory"
	DocSummary = "sumdoc"
)

// memGenKey is bumped on every memory write so processes holding memories
// in memory can tell, with one cheap read, whether to reload.
const memGenKey = "mem.gen"

// MemLink is a link from one memory to another.
type MemLink = memtype.Link

// MemRow is one stored memory.
type MemRow struct {
	ID            string         `json:"id"`
	Project       string         `json:"project"`
	Type          memtype.Type   `json:"type"`
	Content       string         `json:"content"`
	Tags          []string       `json:"tags"`
	Importance    int            `json:"importance"`
	Status        memtype.Status `json:"status"`
	SourceSession string         `json:"source_session"`
	SourceUUIDs   []string       `json:"source_uuids"`
	Origin        string         `json:"origin"`
	Created       time.Time      `json:"created"`
	Updated       time.Time      `json:"updated"`
	AccessCount   int            `json:"access_count"`
	LastAccess    time.Time      `json:"last_access"`
	Injected      int            `json:"injected"`
	Used          int            `json:"used"`
	Links         []MemLink      `json:"links"`
}

// MemFilter selects memories; zero values select everything.
type MemFilter struct {
	IDs           []string
	Statuses      []memtype.Status
	Types         []memtype.Type
	Project       string // exact project path
	IncludeGlobal bool   // with Project: also project ''
	Limit         int
}

const memCols = `id, project, type, content, tags, importance, status, source_session, source_uuids, origin,
	created, updated, access_count, last_access, injected, used`

func msOf(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func timeOfMs(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return unixMilli(ms)
}

func jsonList(v []string) string {
	if v == nil {
		v = []string{}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// MemGeneration is a counter bumped by every memory write.
func (m MemStore) Generation(ctx context.Context) (int64, error) {
	s := m.s
	var v sql.NullString
	err := s.r.QueryRowContext(ctx, `SELECT CAST(value AS TEXT) FROM kv WHERE key = ?`, memGenKey).Scan(&v)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	if err != nil {
		return 0, s.wrap(err)
	}
	n, _ := strconv.ParseInt(v.String, 10, 64)
	return n, nil
}

func bumpMemGen(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO kv(key, value) VALUES (?, '1')
		ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)`, memGenKey)
	return err
}

func queueDoc(ctx context.Context, tx *sql.Tx, doc string) error {
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO fts_queue(doc) VALUES (?)`, doc); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO embed_queue(doc) VALUES (?)`, doc)
	return err
}

// memStmts are the statements of memory writes, prepared once per
// transaction (modernc parses unprepared SQL on every call).
type memStmts struct {
	put, delLinks, link, fts, emb *sql.Stmt
}

func prepareMem(ctx context.Context, tx *sql.Tx) (*memStmts, error) {
	var m memStmts
	var err error
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = tx.PrepareContext(ctx, q)
		return st
	}
	m.put = prep(`INSERT INTO memories(` + memCols + `) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT(id) DO UPDATE SET project=excluded.project, type=excluded.type, content=excluded.content,
		tags=excluded.tags, importance=excluded.importance, status=excluded.status, source_session=excluded.source_session,
		source_uuids=excluded.source_uuids, origin=excluded.origin, created=excluded.created, updated=excluded.updated,
		access_count=excluded.access_count, last_access=excluded.last_access, injected=excluded.injected, used=excluded.used`)
	m.delLinks = prep(`DELETE FROM memory_links WHERE src = ?`)
	m.link = prep(`INSERT OR IGNORE INTO memory_links(src, kind, dst) VALUES (?,?,?)`)
	m.fts = prep(`INSERT OR IGNORE INTO fts_queue(doc) VALUES (?)`)
	m.emb = prep(`INSERT OR IGNORE INTO embed_queue(doc) VALUES (?)`)
	if err != nil {
		m.close()
		return nil, err
	}
	return &m, nil
}

func (m *memStmts) close() {
	for _, st := range []*sql.Stmt{m.put, m.delLinks, m.link, m.fts, m.emb} {
		if st != nil {
			st.Close()
		}
	}
}

func (m *memStmts) save(ctx context.Context, r *MemRow) error {
	if _, err := m.put.ExecContext(ctx, r.ID, r.Project, r.Type, r.Content, jsonList(r.Tags), r.Importance, r.Status, r.SourceSession,
		jsonList(r.SourceUUIDs), r.Origin, msOf(r.Created), msOf(r.Updated), r.AccessCount, msOf(r.LastAccess), r.Injected, r.Used); err != nil {
		return err
	}
	if _, err := m.delLinks.ExecContext(ctx, r.ID); err != nil {
		return err
	}
	for _, l := range r.Links {
		if _, err := m.link.ExecContext(ctx, r.ID, l.Kind, l.Target); err != nil {
			return err
		}
	}
	if _, err := m.fts.ExecContext(ctx, docMemoryPrefix+r.ID); err != nil {
		return err
	}
	_, err := m.emb.ExecContext(ctx, docMemoryPrefix+r.ID)
	return err
}

func putMem(ctx context.Context, tx *sql.Tx, r *MemRow) error {
	m, err := prepareMem(ctx, tx)
	if err != nil {
		return err
	}
	defer m.close()
	return m.save(ctx, r)
}

// MemSave inserts or replaces memories (with their outgoing links) in one
// transaction and queues them for the full-text and vector indexes.
func (m MemStore) Save(ctx context.Context, rows ...*MemRow) error {
	s := m.s
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		m, err := prepareMem(ctx, tx)
		if err != nil {
			return err
		}
		defer m.close()
		for _, r := range rows {
			if err := m.save(ctx, r); err != nil {
				return err
			}
		}
		return bumpMemGen(ctx, tx)
	})
}

// strs is vals as plain strings (what the driver binds).
func strs[T ~string](vals []T) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = string(v)
	}
	return out
}

// sql is the filter's query and its arguments.
func (f MemFilter) sql() (string, []any) {
	q := `SELECT ` + memCols + ` FROM memories WHERE 1=1`
	var args []any
	in := func(col string, vals []string) {
		if len(vals) == 0 {
			return
		}
		q += ` AND ` + col + ` IN (` + placeholders(len(vals)) + `)`
		for _, v := range vals {
			args = append(args, v)
		}
	}
	in("id", f.IDs)
	in("status", strs(f.Statuses))
	in("type", strs(f.Types))
	if f.Project != "" {
		if f.IncludeGlobal {
			q += ` AND project IN (?, '')`
		} else {
			q += ` AND project = ?`
		}
		args = append(args, f.Project)
	}
	q += ` ORDER BY updated DESC, id`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	return q, args
}

// MemQuery lists memories matching f, newest update first, with links.
func (m MemStore) Query(ctx context.Context, f MemFilter) ([]*MemRow, error) {
	s := m.s
	q, args := f.sql()
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, s.wrap(err)
	}
	var out []*MemRow
	byID := map[string]*MemRow{}
	for rows.Next() {
		r := &MemRow{}
		var tags, uuids string
		var created, updated, last int64
		if err := rows.Scan(&r.ID, &r.Project, &r.Type, &r.Content, &tags, &r.Importance, &r.Status, &r.SourceSession,
			&uuids, &r.Origin, &created, &updated, &r.AccessCount, &last, &r.Injected, &r.Used); err != nil {
			rows.Close()
			return nil, err
		}
		_ = json.Unmarshal([]byte(tags), &r.Tags)
		_ = json.Unmarshal([]byte(uuids), &r.SourceUUIDs)
		r.Created, r.Updated, r.LastAccess = timeOfMs(created), timeOfMs(updated), timeOfMs(last)
		out = append(out, r)
		byID[r.ID] = r
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.wrap(err)
	}
	if len(out) == 0 {
		return out, nil
	}
	if err := s.addMemLinks(ctx, out, byID); err != nil {
		return nil, err
	}
	return out, nil
}

// addMemLinks reads the links of the memories out (byID: by id).
func (s *Store) addMemLinks(ctx context.Context, out []*MemRow, byID map[string]*MemRow) error {
	lq := `SELECT src, kind, dst FROM memory_links ORDER BY src, kind, dst`
	var largs []any
	if len(out) <= 500 {
		lq = `SELECT src, kind, dst FROM memory_links WHERE src IN (` + placeholders(len(out)) + `) ORDER BY src, kind, dst`
		for _, r := range out {
			largs = append(largs, r.ID)
		}
	}
	return s.eachRow(ctx, lq, largs, func(lrows *sql.Rows) error {
		var src string
		var l MemLink
		if err := lrows.Scan(&src, &l.Kind, &l.Target); err != nil {
			return err
		}
		if r := byID[src]; r != nil {
			r.Links = append(r.Links, l)
		}
		return nil
	})
}

// MemIDsWithPrefix returns the ids starting with prefix (at most 10).
func (m MemStore) IDsWithPrefix(ctx context.Context, prefix string) ([]string, error) {
	return m.s.queryStrings(ctx, `SELECT id FROM memories WHERE substr(id, 1, ?) = ? ORDER BY id LIMIT 10`, len(prefix), prefix)
}

// MemDelete removes a memory and its outgoing links, keeping trash (the
// memory as JSON) so MemUndelete can restore it.
func (m MemStore) Delete(ctx context.Context, id string, trash []byte) error {
	return m.s.writeTx(ctx, func(tx *sql.Tx) error { return deleteMem(ctx, tx, id, trash) })
}

// Purge deletes a memory without keeping it for undo (a proposal withdrawn).
func (m MemStore) Purge(ctx context.Context, id string) error {
	return m.s.writeTx(ctx, func(tx *sql.Tx) error { return deleteMem(ctx, tx, id, nil) })
}

// deleteMem deletes memory id, keeping trash (when not nil) for undo.
func deleteMem(ctx context.Context, tx *sql.Tx, id string, trash []byte) error {
	res, err := tx.ExecContext(ctx, `DELETE FROM memories WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return sql.ErrNoRows
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM memory_links WHERE src = ?`, id); err != nil {
		return err
	}
	if trash != nil {
		if err := keepTrash(ctx, tx, id, trash); err != nil {
			return err
		}
	}
	if err := dropMemDoc(ctx, tx, id); err != nil {
		return err
	}
	return bumpMemGen(ctx, tx)
}

// dropMemDoc takes memory id out of the search indexes: its full-text
// document is queued for deletion, its vector deleted (and the vector
// counts, which held it, forgotten).
func dropMemDoc(ctx context.Context, tx *sql.Tx, id string) error {
	if err := queueDoc(ctx, tx, docMemoryPrefix+id); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM embeddings WHERE doc = ?`, docMemoryPrefix+id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return forgetVecCounts(ctx, tx)
	}
	return nil
}

// keepTrash keeps trash, deleted memory id as JSON, for undo.
func keepTrash(ctx context.Context, tx *sql.Tx, id string, trash []byte) error {
	now := time.Now()
	if _, err := tx.ExecContext(ctx, `INSERT INTO memory_trash(id, deleted, data) VALUES (?,?,?)`, id, now.UnixMilli(), string(trash)); err != nil {
		return err
	}
	// Keep every deletion of the last 30 days (a consolidation's
	// undo restores all it pruned), and the last 200 beyond.
	_, err := tx.ExecContext(ctx, `DELETE FROM memory_trash WHERE seq <= (SELECT max(seq) - 200 FROM memory_trash) AND deleted < ?`,
		now.Add(-30*24*time.Hour).UnixMilli())
	return err
}

// ErrNothingToUndo is returned by MemUndelete when the trash is empty.
var ErrNothingToUndo = errors.New("nothing to undo: no deleted memory is kept")

// MemUndelete takes the latest deletion out of the trash and passes its
// JSON to restore, which returns the row to save; both happen in one
// transaction.
func (m MemStore) Undelete(ctx context.Context, restore func(data []byte) (*MemRow, error)) (*MemRow, error) {
	return m.undelete(ctx, `SELECT seq, data FROM memory_trash ORDER BY seq DESC LIMIT 1`, nil, restore)
}

// UndeleteID restores the most recently deleted copy of memory id.
func (m MemStore) UndeleteID(ctx context.Context, id string, restore func(data []byte) (*MemRow, error)) (*MemRow, error) {
	return m.undelete(ctx, `SELECT seq, data FROM memory_trash WHERE id = ? ORDER BY seq DESC LIMIT 1`, []any{id}, restore)
}

// PurgeTrash drops deleted memories kept for undo that were deleted
// before a time, for good. It returns how many.
func (m MemStore) PurgeTrash(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := m.s.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM memory_trash WHERE deleted < ?`, before.UnixMilli())
		if err == nil {
			n, _ = res.RowsAffected()
		}
		return err
	})
	return int(n), err
}

func (m MemStore) undelete(ctx context.Context, q string, args []any, restore func(data []byte) (*MemRow, error)) (*MemRow, error) {
	s := m.s
	var out *MemRow
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		var seq int64
		var data string
		err := tx.QueryRowContext(ctx, q, args...).Scan(&seq, &data)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNothingToUndo
		}
		if err != nil {
			return err
		}
		r, err := restore([]byte(data))
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM memory_trash WHERE seq = ?`, seq); err != nil {
			return err
		}
		if err := putMem(ctx, tx, r); err != nil {
			return err
		}
		out = r
		return bumpMemGen(ctx, tx)
	})
	return out, err
}

// MemTouch counts one access of each memory at now.
func (m MemStore) Touch(ctx context.Context, ids []string, now time.Time) error {
	s := m.s
	if len(ids) == 0 {
		return nil
	}
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `UPDATE memories SET access_count = access_count + 1, last_access = ? WHERE id = ?`, now.UnixMilli(), id); err != nil {
				return err
			}
		}
		return bumpMemGen(ctx, tx)
	})
}

// MemStatusCounts counts memories by status.
func (m MemStore) StatusCounts(ctx context.Context) (map[memtype.Status]int, int, error) {
	s := m.s
	out := map[memtype.Status]int{}
	rows, err := s.r.QueryContext(ctx, `SELECT status, count(*) FROM memories GROUP BY status`)
	if err != nil {
		return nil, 0, s.wrap(err)
	}
	for rows.Next() {
		var st memtype.Status
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			rows.Close()
			return nil, 0, err
		}
		out[st] = n
	}
	rows.Close()
	var drafts int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM drafts WHERE status = 'pending'`).Scan(&drafts); err != nil {
		return nil, 0, s.wrap(err)
	}
	return out, drafts, nil
}

// MemVectors returns the stored vectors of memories made by embedder,
// keyed by memory id.
func (m MemStore) Vectors(ctx context.Context, embedder string) (map[string][]float32, error) {
	s := m.s
	rows, err := s.r.QueryContext(ctx, `SELECT doc, dims, vector FROM embeddings WHERE embedder = ? AND doc >= 'mem:' AND doc < 'mem;'`, embedder)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	out := map[string][]float32{}
	for rows.Next() {
		var doc string
		var dims int
		var blob []byte
		if err := rows.Scan(&doc, &dims, &blob); err != nil {
			return nil, err
		}
		// A damaged vector is left out: that memory is embedded again when
		// needed, and one bad row does not stop deduplication.
		if v, err := decodeVector(blob, dims); err == nil {
			out[strings.TrimPrefix(doc, docMemoryPrefix)] = v
		}
	}
	return out, rows.Err()
}

// MemPutVectors stores vectors of memories (keyed by memory id).
func (m MemStore) PutVectors(ctx context.Context, embedder string, vecs map[string][]float32) error {
	s := m.s
	if len(vecs) == 0 {
		return nil
	}
	rows := make([]VecRow, 0, len(vecs))
	for id, v := range vecs {
		rows = append(rows, VecRow{ID: docMemoryPrefix + id, Vec: v})
	}
	return s.Derived().PutEmbeddings(ctx, embedder, rows)
}

// MemStore is the store's memory persistence: memories with their links,
// vectors and search documents, drafts, summaries, injections, extraction
// cursors and the synthesis. The memories package is its one user. Get it
// with Store.Mem.
type MemStore struct{ s *Store }

// Mem is the store's memory persistence.
func (s *Store) Mem() MemStore { return MemStore{s} }
