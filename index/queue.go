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
	embed    bool   // handed off by a sync: the entry was queued for an embedding too
	cairn    bool   // Claude's reply to one of cairn's commands (flagCairn): indexed without text
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
func (d Derived) QueuedDocs(ctx context.Context, limit int) ([]DocRow, error) {
	return d.s.queued(ctx, "fts_queue", limit, true)
}

// AckQueued removes indexed documents from the full-text queue.
func (d Derived) AckQueued(ctx context.Context, ids []string) error {
	return d.s.ack(ctx, "fts_queue", ids)
}

// QueuedEmbeds returns up to limit documents waiting for an embedding:
// typed prompts and assistant replies (not tool output or thinking).
func (d Derived) QueuedEmbeds(ctx context.Context, limit int) ([]DocRow, error) {
	return d.s.queued(ctx, "embed_queue", limit, false)
}

// AckEmbeds removes embedded documents from the embedding queue.
func (d Derived) AckEmbeds(ctx context.Context, ids []string) error {
	return d.s.ack(ctx, "embed_queue", ids)
}

func (s *Store) queued(ctx context.Context, table string, limit int, sessions bool) ([]DocRow, error) {
	rows, damaged, err := s.queuedAfter(ctx, table, "", limit, sessions)
	if err == nil {
		err = s.dropDamaged(ctx, table, damaged)
	}
	return rows, err
}

// dropDamaged takes queue rows whose documents cannot be read off the
// queue (they would be read, and fail, on every drain) and counts them
// (Store.Damaged). The entries stay in the store: `cairn doctor --full`
// reports the damage and `cairn index --rebuild` re-reads them from their
// transcripts.
func (s *Store) dropDamaged(ctx context.Context, table string, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	s.damaged.Add(int64(len(keys)))
	if s.readOnly {
		return nil
	}
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		for _, k := range keys {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE doc = ?`, k); err != nil {
				return err
			}
		}
		return nil
	})
}

// Damaged is how many documents this process skipped because their rows in
// the store could not be read.
func (s *Store) Damaged() int { return int(s.damaged.Load()) }

// Repaired is how many of those this process re-read from their
// transcripts (they are queued again for the derived indexes).
func (s *Store) Repaired() int { return int(s.repaired.Load()) }

// queuePart is one key range of a queue (its documents come from one
// table) and how to read its rows.
type queuePart struct {
	lo, hi string // keys in [lo, hi)
	// sql reads the part's documents: ?1 is the key they follow, ?2 the
	// limit.
	sql  string
	scan func(rows *sql.Rows) (DocRow, error)
}

// queueParts are a queue's key ranges in key order ("e:" < "m:" < "mem:"
// < "s:" < "sum:"), so that reading them one after the other with a key
// cursor walks the queue once.
func queueParts(table string, sessions bool) []queuePart {
	entry := func(join string) string {
		return `SELECT CASE WHEN e.id IS NULL THEN q.doc ELSE 'm:' || e.uuid END, ` + docEntryCols + ` FROM ` + table + ` q
		` + join + `
		LEFT JOIN sessions s ON s.id = e.session
		WHERE q.doc >= ?3 AND q.doc < ?4 AND q.doc > ?1 ORDER BY q.doc LIMIT ?2`
	}
	scanEntry := func(rows *sql.Rows) (DocRow, error) {
		var d DocRow
		var flags int
		var ts int64
		err := rows.Scan(&d.ID, &d.queueKey, &d.Gone, &d.Text, &d.Title, &d.Project, &d.Session, &d.Role, &d.Block, &flags, &ts)
		d.Kind = DocMessage
		d.Subagent = flags&(flagSidechain|flagAgentThread) != 0
		d.cairn = flags&flagCairn != 0
		d.Time = docTime(ts)
		return d, err
	}
	parts := []queuePart{
		{lo: "e:", hi: "e;", sql: entry(`LEFT JOIN entries e ON e.id = CAST(substr(q.doc, 3) AS INTEGER)`), scan: scanEntry},
		{lo: "m:", hi: "m;", sql: entry(`LEFT JOIN entries e ON e.id = (SELECT id FROM entries_raw WHERE uuid = cairn_pack(substr(q.doc, 3)))`), scan: scanEntry},
		memoryQueuePart(table),
	}
	if sessions {
		parts = append(parts, queuePart{lo: "s:", hi: "s;", sql: `SELECT q.doc, s.id IS NULL, coalesce(s.first_prompt, ''), coalesce(s.title, ''),
		coalesce(s.project_path, ''), coalesce(s.sid, ''), coalesce(s.start_ns, 0)
		FROM ` + table + ` q LEFT JOIN sessions s ON s.sid = substr(q.doc, 3)
		WHERE q.doc >= ?3 AND q.doc < ?4 AND q.doc > ?1 ORDER BY q.doc LIMIT ?2`, scan: func(rows *sql.Rows) (DocRow, error) {
			var d DocRow
			var start int64
			err := rows.Scan(&d.ID, &d.Gone, &d.Text, &d.Title, &d.Project, &d.Session, &start)
			d.Kind = DocSession
			d.Time = fromUnixNano(start)
			return d, err
		}})
	}
	// Summaries: full-text and vectors both.
	return append(parts, summaryQueuePart(table))
}

// queuedAfter returns up to limit queued documents whose keys follow after
// ("" for the start), in key order. A row that cannot be read (a damaged
// page, a value that does not decompress) does not stop the rest: it is
// left out and its key returned in damaged, so that one bad row never
// blocks an index.
func (s *Store) queuedAfter(ctx context.Context, table, after string, limit int, sessions bool) (out []DocRow, damaged []string, err error) {
	if limit <= 0 {
		limit = 1000
	}
	for _, part := range queueParts(table, sessions) {
		if len(out) >= limit {
			break
		}
		if after >= part.hi {
			continue
		}
		docs, bad, err := s.queuedPart(ctx, table, part, max(after, part.lo), limit-len(out))
		if err != nil {
			return nil, nil, err
		}
		out = append(out, docs...)
		damaged = append(damaged, bad...)
	}
	return out, damaged, nil
}

// queuedPart reads one part's rows after key; when that fails, it reads
// them one by one and skips (returns in damaged) those that fail alone.
func (s *Store) queuedPart(ctx context.Context, table string, part queuePart, after string, limit int) ([]DocRow, []string, error) {
	// "after" is exclusive; a part's lower bound lo itself is a prefix no
	// key equals.
	read := func(after string, limit int) ([]DocRow, error) {
		return queryRows(ctx, s, part.sql, []any{after, limit, part.lo, part.hi}, part.scan)
	}
	docs, err := read(after, limit)
	if err == nil || ctx.Err() != nil || !isDamage(err) {
		return docs, nil, s.wrap(err)
	}
	keys, kerr := s.queryStrings(ctx, `SELECT doc FROM `+table+` WHERE doc >= ? AND doc < ? AND doc > ? ORDER BY doc LIMIT ?`, part.lo, part.hi, after, limit)
	if kerr != nil {
		return nil, nil, fmt.Errorf("reading the %s: %w", table, s.wrap(err))
	}
	// One statement for every row: a damaged store may have thousands
	// queued, and preparing the join per row was most of reading them.
	st, err := s.r.PrepareContext(ctx, part.sql)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the %s: %w", table, s.wrap(err))
	}
	defer st.Close()
	var damaged []string
	docs = docs[:0]
	prev := after
	for _, k := range keys {
		one, err := queryDocs(ctx, st, []any{prev, 1, part.lo, part.hi}, part.scan)
		prev = k
		if err != nil || len(one) != 1 {
			damaged = append(damaged, k)
			continue
		}
		docs = append(docs, one[0])
	}
	return docs, damaged, nil
}

// queryDocs runs a prepared query of the queue and reads its rows with scan.
func queryDocs(ctx context.Context, st *sql.Stmt, args []any, scan func(*sql.Rows) (DocRow, error)) ([]DocRow, error) {
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []DocRow
	for rows.Next() {
		d, err := scan(rows)
		if err != nil {
			return nil, err
		}
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
const entryKeyOf = `(SELECT printf('e:%013d', id) FROM entries_raw WHERE ?1 >= 'm:' AND ?1 < 'm;' AND uuid = cairn_pack(substr(?1, 3)))`

// PutEmbeddings stores vectors made by embedder (a name that pins model,
// dimensions and version: vectors of different embedders never mix) and
// removes their documents from the embedding queue, in one transaction.
func (d Derived) PutEmbeddings(ctx context.Context, embedder string, vecs []VecRow) error {
	s := d.s
	_, err := s.putEmbeddings(ctx, embedder, vecs)
	return err
}

// putEmbeddings is PutEmbeddings returning the vectors that were new (not
// replacing a stored one), for appending to the vector cache.
func (s *Store) putEmbeddings(ctx context.Context, embedder string, vecs []VecRow) ([]VecRow, error) {
	now := time.Now().UnixMilli()
	var added []VecRow
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		added = added[:0]
		ew, err := prepareEmbedWriter(ctx, tx)
		if err != nil {
			return err
		}
		defer ew.close()
		for _, v := range vecs {
			isNew, err := ew.put(ctx, embedder, v, now)
			if err != nil {
				return err
			}
			if isNew {
				added = append(added, v)
			}
		}
		return addVecCount(ctx, tx, embedder, len(added))
	})
	return added, err
}

// embedWriter holds the statements putEmbeddings stores vectors with.
type embedWriter struct {
	stmts                []*sql.Stmt
	ins, upd, del, keyOf *sql.Stmt
}

// embedWriterQueries are embedWriter's ins, upd, del and keyOf.
var embedWriterQueries = []string{
	`INSERT INTO embeddings(doc, embedder, dims, vector, created) VALUES (?,?,?,?,?)
			ON CONFLICT(embedder, doc) DO NOTHING`,
	`UPDATE embeddings SET dims = ?, vector = ?, created = ? WHERE embedder = ? AND doc = ?`,
	`DELETE FROM embed_queue WHERE doc IN (?1, ?2)`,
	`SELECT printf('e:%013d', id) FROM entries_raw WHERE uuid = ?`,
}

func prepareEmbedWriter(ctx context.Context, tx *sql.Tx) (*embedWriter, error) {
	ew := &embedWriter{}
	for _, q := range embedWriterQueries {
		st, err := tx.PrepareContext(ctx, q)
		if err != nil {
			ew.close()
			return nil, err
		}
		ew.stmts = append(ew.stmts, st)
	}
	ew.ins, ew.upd, ew.del, ew.keyOf = ew.stmts[0], ew.stmts[1], ew.stmts[2], ew.stmts[3]
	return ew, nil
}

// close closes the statements, the last prepared first.
func (ew *embedWriter) close() {
	for i := len(ew.stmts) - 1; i >= 0; i-- {
		ew.stmts[i].Close()
	}
}

// put stores v's vector of embedder under its key and takes it off the
// embedding queue; isNew when no vector of it was stored (not replaced).
func (ew *embedWriter) put(ctx context.Context, embedder string, v VecRow, now int64) (isNew bool, err error) {
	key, err := ew.key(ctx, v)
	if err != nil {
		return false, err
	}
	blob := encodeStoredVector(key, v.Vec)
	res, err := ew.ins.ExecContext(ctx, key, embedder, len(v.Vec), blob, now)
	if err != nil {
		return false, err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		isNew = true
	} else if _, err := ew.upd.ExecContext(ctx, len(v.Vec), blob, now, embedder, key); err != nil {
		return false, err
	}
	if _, err := ew.del.ExecContext(ctx, v.ID, key); err != nil {
		return false, err
	}
	return isNew, nil
}

// key is the key v's vector is stored under: an entry's is its "e:" key
// (see schema 6); anything else, or an entry not stored, keeps its id.
func (ew *embedWriter) key(ctx context.Context, v VecRow) (string, error) {
	if strings.HasPrefix(v.key, queueEntryPrefix) {
		return v.key, nil
	}
	key := v.ID
	if uuid, ok := strings.CutPrefix(v.ID, docEntryPrefix); ok {
		switch err := ew.keyOf.QueryRowContext(ctx, packUUID(uuid)).Scan(&key); {
		case errors.Is(err, sql.ErrNoRows):
			key = v.ID // not a stored entry: kept under its id
		case err != nil:
			return "", err
		}
	}
	return key, nil
}

// Embeddings loads every vector of embedder.
func (d Derived) Embeddings(ctx context.Context, embedder string) ([]VecRow, error) {
	var out []VecRow
	err := d.eachEmbedding(ctx, embedder, func(r VecRow) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// eachEmbedding calls fn with every vector of embedder, in insertion
// order, one row in memory at a time (the vector cache is written from it:
// holding all of them took ~400 MB at 10 GB of history).
func (d Derived) eachEmbedding(ctx context.Context, embedder string, fn func(VecRow) error) error {
	// Entries' vectors are stored under their "e:" key: read back by id.
	return d.s.eachRow(ctx, `SELECT CASE WHEN v.doc >= 'e:' AND v.doc < 'e;'
			THEN coalesce((SELECT 'm:' || cairn_uuid(uuid) FROM entries_raw WHERE id = CAST(substr(v.doc, 3) AS INTEGER)), v.doc)
			ELSE v.doc END, v.dims, v.vector
		FROM embeddings v WHERE v.embedder = ?`, []any{embedder}, func(rows *sql.Rows) error {
		var e VecRow
		var dims int
		var blob []byte
		if err := rows.Scan(&e.ID, &dims, &blob); err != nil {
			return err
		}
		v, err := decodeVector(blob, dims)
		if err != nil {
			return fmt.Errorf("embedding of %s (%s): %w", e.ID, embedder, err)
		}
		e.Vec = v
		return fn(e)
	})
}

// Vectors are stored as little-endian IEEE half floats (2 bytes a
// dimension) when every value fits one, else as float32 (4 bytes): the
// length of the BLOB against the dims column says which. Half precision
// (3 significant digits) is far finer than what search uses (the vector
// cache holds 8-bit values), and halves the largest table of the store: on
// the 1 GB corpus, 20 MB fewer to write and keep. Vectors written before
// this are float32 and read as such. Entries' vectors are stored at the
// cache's own precision (encodeStoredVector).
func encodeVector(v []float32) []byte {
	for _, f := range v {
		if !(math.Abs(float64(f)) <= maxHalf) { // also NaN
			b := make([]byte, 4*len(v))
			for i, f := range v {
				binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
			}
			return b
		}
	}
	b := make([]byte, 2*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint16(b[2*i:], toHalf(f))
	}
	return b
}

// encodeStoredVector is what the store keeps for the vector of the
// document under key. An entry's vector ("e:" key: all but a few of the
// store's vectors) serves only the vector cache, which ranks with 8-bit
// values: it is stored as the cache holds it (quantize: a scale and one
// byte a dimension, dims+4 bytes against half floats' 2*dims; on the 1 GB
// corpus 17 MB -> 8.6 MB), so rebuilding the cache from the store gives
// the same bytes as writing it from the embedder. Memories' and
// summaries' vectors, compared with each other at full precision, keep
// encodeVector's. A vector of 4 dimensions or fewer, where dims+4 bytes
// could be another format's length, also keeps encodeVector's.
func encodeStoredVector(key string, v []float32) []byte {
	if strings.HasPrefix(key, queueEntryPrefix) && len(v) > 4 {
		b := make([]byte, 4+len(v))
		if quantize(b, v) {
			return b
		}
	}
	return encodeVector(v)
}

// decodeVector reads a vector of dims values stored by encodeVector or
// encodeStoredVector.
func decodeVector(b []byte, dims int) ([]float32, error) {
	v := make([]float32, dims)
	switch len(b) {
	case 2 * dims:
		for i := range v {
			v[i] = fromHalf(binary.LittleEndian.Uint16(b[2*i:]))
		}
	case 4 * dims:
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	case dims + 4: // after the others: at 4 dimensions, 8 bytes are half floats
		if dims < 4 {
			return nil, fmt.Errorf("%w: a stored vector has %d bytes for %d dimensions", ErrCorrupt, len(b), dims)
		}
		scale := math.Float32frombits(binary.LittleEndian.Uint32(b))
		for i := range v {
			v[i] = float32(int8(b[4+i])) * scale
		}
	default:
		return nil, fmt.Errorf("%w: a stored vector has %d bytes for %d dimensions", ErrCorrupt, len(b), dims)
	}
	return v, nil
}

// maxHalf is the largest finite half float.
const maxHalf = 65504

// toHalf rounds f (|f| <= maxHalf) to the nearest half float, ties to even;
// values below the smallest subnormal become zero.
func toHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case exp >= 31: // only reachable for |f| > maxHalf, which callers exclude
		return sign | 0x7c00
	case exp <= 0: // subnormal or zero
		if exp < -10 {
			return sign
		}
		mant |= 0x800000 // the implicit bit
		shift := uint(14 - exp)
		half := uint16(mant >> shift)
		rest := mant & (1<<shift - 1)
		if mid := uint32(1) << (shift - 1); rest > mid || (rest == mid && half&1 == 1) {
			half++
		}
		return sign | half
	}
	half := uint16(exp)<<10 | uint16(mant>>13)
	if rest := mant & 0x1fff; rest > 0x1000 || (rest == 0x1000 && half&1 == 1) {
		half++ // may carry into the exponent: still the right value
	}
	return sign | half
}

// fromHalf widens a half float.
func fromHalf(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h >> 10 & 0x1f)
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f: // inf, NaN
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0:
		if mant == 0 {
			return math.Float32frombits(sign)
		}
		// Subnormal: normalise.
		e := uint32(127 - 15 + 1)
		for mant&0x400 == 0 {
			mant <<= 1
			e--
		}
		return math.Float32frombits(sign | e<<23 | (mant&0x3ff)<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// Setting returns a stored value (nil, false when unset).
func (s *Store) Setting(ctx context.Context, key string) ([]byte, bool, error) {
	var v []byte
	err := s.r.QueryRowContext(ctx, `SELECT value FROM kv WHERE key = ?`, key).Scan(&v)
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
func (s *Store) SetSetting(ctx context.Context, key string, value []byte) error {
	if strings.TrimSpace(key) == "" {
		return fmt.Errorf("empty setting key")
	}
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO kv(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
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

// queuedOutside reports whether table (a queue) holds anything besides the
// documents rows: anything with a key outside the range of theirs. Within
// it there can be nothing else when rows are what one transaction queued
// (handoff.only).
func (s *Store) queuedOutside(ctx context.Context, table string, rows []DocRow) (bool, error) {
	lo, hi := rows[0].key(), rows[0].key()
	for _, r := range rows[1:] {
		lo, hi = min(lo, r.key()), max(hi, r.key())
	}
	var outside bool
	err := s.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM `+table+` WHERE doc < ?) OR EXISTS (SELECT 1 FROM `+table+` WHERE doc > ?)`, lo, hi).Scan(&outside)
	return outside, s.wrap(err)
}
