package index

import (
	"context"
	"errors"
	"fmt"
	"github.com/cairn-dev/cairn/transcripts"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/index/embed"
	"github.com/cairn-dev/cairn/index/ftsapi"
)

// The derived indexes (bleve, vectors, the vector cache) live beside the
// database and can all be rebuilt from it.

// Dir is the data dir holding the store.
func (s *Store) Dir() string { return filepath.Dir(s.path) }

func (s *Store) ftsDir() string { return filepath.Join(s.Dir(), "bleve") }

func (s *Store) vecCachePath() string { return filepath.Join(s.Dir(), "vectors.bin") }

// OpenFTS opens the full-text index, waiting up to lockWait for another
// process that holds it (ftsapi.ErrLocked otherwise).
//
// An index that is missing, empty or nearly empty while the store has documents
// that are not queued (a restore or a rebuild killed halfway, a deleted
// folder) would answer every search with nothing: OpenFTS queues every
// document again, so the drain that follows any open rebuilds it from the
// store.
func (d Derived) OpenFTS(lockWait time.Duration) (ftsapi.Index, error) {
	ix, err := ftsapi.Open(d.s.ftsDir(), lockWait)
	if err != nil {
		return nil, err
	}
	d.s.removeStaleRebuilds(staleRebuild)
	if err := d.s.healFTS(context.Background(), ix); err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
}

// healFewDocs is the size under which an index is compared with the
// store's count of documents on every open: the count reads the whole
// entries table, so a large index is not checked.
const healFewDocs = 1000

// healFTS queues every document of the store when the index (holding
// under healFewDocs documents) lacks documents that are not queued: by the
// doctor's rule, none while the store has some not queued, or fewer than
// half of those.
func (s *Store) healFTS(ctx context.Context, ix ftsapi.Index) error {
	n, err := ix.Count()
	if err != nil || n >= healFewDocs {
		return nil
	}
	want, err := s.Derived().FTSDocCount(ctx)
	if err != nil {
		return nil // a damaged store: doctor and --rebuild say what to do
	}
	var queued int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM fts_queue`).Scan(&queued); err != nil {
		return nil
	}
	indexed := want - queued // what the index should hold already
	if indexed <= 0 || (n > 0 && indexed <= 2*int(n)+100) {
		return nil
	}
	if s.readOnly {
		return fmt.Errorf("%w: %s holds %d documents while the store has %d (%d queued): text search would miss them; run `cairn index --rebuild`",
			ftsapi.ErrNeedsRebuild, s.ftsDir(), n, want, queued)
	}
	if err := s.requeueAll(ctx, "fts_queue"); err != nil {
		return fmt.Errorf("queueing every document for the full-text index %s (it holds %d of the store's %d): %w; run `cairn index --rebuild`", s.ftsDir(), n, want, err)
	}
	return nil
}

// Tool output is indexed for full-text search as its first ftsToolHead and
// last ftsToolTail bytes (the store keeps more, for reading). Long output
// dilutes BM25: on index/testdata/eval, indexing 800+200 instead of the
// stored 1500+500 raised keyword MRR from 0.867 to 0.910 and cut cold
// indexing time by ~10%.
const (
	ftsToolHead = 800
	ftsToolTail = 200
)

// ftsMaxText bounds the text of any one full-text document: a 20 MB
// pasted log in a prompt is searchable by its first 192 KB and last 64 KB
// (the store keeps all of it for reading). Without the bound, a file of
// three 20 MB lines took 1 GB of memory and half a minute to analyse.
const ftsMaxText = 256 << 10

// DrainFTS moves every queued document into the full-text index. Documents
// stay queued until indexed, so a process killed midway loses nothing.
func (d Derived) DrainFTS(ctx context.Context, ix ftsapi.Index, progress func(done int)) (int, error) {
	s := d.s
	done := 0
	for {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		const limit = 2000
		rows, err := s.Derived().QueuedDocs(ctx, limit)
		if err != nil || len(rows) == 0 {
			return done, err
		}
		if err := s.indexRows(ctx, ix, rows); err != nil {
			return done, err
		}
		done += len(rows)
		if progress != nil {
			progress(done)
		}
		if len(rows) < limit {
			// That was all of it (what others queue meanwhile waits for
			// the next drain): no second read to find the queue empty.
			return done, nil
		}
	}
}

// indexRows puts queued documents into the full-text index (or takes the
// gone ones out), then takes them off the queue.
func (s *Store) indexRows(ctx context.Context, ix ftsapi.Index, rows []DocRow) error {
	docs := make([]ftsapi.Doc, 0, len(rows))
	var gone []string
	ids := make([]string, 0, len(rows))
	for _, r := range rows {
		ids = append(ids, r.key())
		if r.Gone {
			gone = append(gone, r.ID)
			continue
		}
		docs = append(docs, ftsDoc(r))
	}
	if err := ix.Index(docs); err != nil {
		return err
	}
	if len(gone) > 0 {
		if err := ix.Delete(gone); err != nil {
			return err
		}
	}
	// Once the index has the documents the queue must say so, even when
	// the run was cancelled meanwhile (an interrupted drain settles what
	// the sync committed).
	return s.Derived().AckQueued(context.WithoutCancel(ctx), ids)
}

// ftsDoc is what the full-text index gets of a document.
func ftsDoc(r DocRow) ftsapi.Doc {
	text, title := r.Text, r.Title
	if cairnsOwn(r) {
		text = ""
	}
	if r.Block == "tool_result" {
		text = transcripts.HeadTail(text, ftsToolHead, ftsToolTail)
	} else if len(text) > ftsMaxText {
		text = transcripts.HeadTail(text, ftsMaxText*3/4, ftsMaxText/4)
	}
	if r.Block == "tool_result" || r.Block == "tool_use" {
		// A session's title describes the conversation, not each of its
		// tool calls: on index/testdata/eval, leaving it off tool
		// documents (three in four documents) raised hybrid MRR from
		// 0.639 to 0.644 (text alone fell from 0.625 to 0.614) and cut a
		// cold index's CPU by ~10%.
		title = ""
	}
	return ftsapi.Doc{ID: r.ID, Kind: r.Kind, Text: text, Title: title, Project: r.Project,
		Session: r.Session, Role: r.Role, Block: r.Block, Subagent: r.Subagent, Time: r.Time}
}

// cairnsOwn says whether r is cairn's own: its commands, what they
// printed, the calls of its MCP tools and what they returned (prepare makes
// those results system lines), never recalled.
func cairnsOwn(r DocRow) bool {
	return (r.Role == roleUser || r.Role == roleSystem) && transcripts.IsCairnCommand(r.Text) ||
		r.Role == roleSystem && r.Block == transcripts.BlockToolResult ||
		r.Block == transcripts.BlockToolUse && transcripts.IsCairnTool(r.Text) || r.cairn
}

// RebuildFTS builds a new full-text index of every document of the store
// beside the old one and swaps it in only when it is complete: a rebuild
// that fails (a damaged store, a full disk, an interrupt) leaves the old
// index searchable. Documents whose rows cannot be read are left out and
// counted (Store.Damaged); the rest are indexed. Once all are in, the
// segments the bulk write left are merged (fts.Index.Settle), so the new
// index opens with a few, as after a cold index. status, when set, hears of
// both phases ("full-text index: 1000 documents", then the merge's
// "full-text index: merging 11 of 12 segments into 2: 1 of 2 written").
func (d Derived) RebuildFTS(ctx context.Context, status func(string)) (int, error) {
	s := d.s
	dir := s.ftsDir()
	// Fail before the work, not after, when another process holds it.
	if err := ftsHeld(dir); err != nil {
		return 0, err
	}
	// Every document is queued: whatever this rebuild does not finish,
	// the next drain does.
	if err := s.requeueAll(ctx, "fts_queue"); err != nil {
		return 0, err
	}
	s.removeStaleRebuilds(0)
	built := filepath.Join(s.Dir(), rebuildingPrefix+fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano()))
	ix, err := ftsapi.Open(built, 0)
	if err != nil {
		return 0, err
	}
	var progress func(done int)
	if status != nil {
		progress = func(n int) { status(fmt.Sprintf("full-text index: %d documents", n)) }
	}
	keys, damaged, n, err := s.fillFTS(ctx, ix, progress)
	if err == nil {
		err = settleFTS(ix, status)
	}
	if cerr := ix.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = ftsapi.Replace(dir, built)
	}
	if err != nil {
		_ = os.RemoveAll(built) // only ever our own new directory
		return n, fmt.Errorf("rebuilding the full-text index (the old index was kept): %w", err)
	}
	for len(keys) > 0 {
		k := min(len(keys), 5000)
		if err := s.ack(context.WithoutCancel(ctx), "fts_queue", keys[:k]); err != nil {
			return n, err
		}
		keys = keys[k:]
	}
	if len(damaged) > 0 {
		n += s.indexReread(ctx, dir, damaged)
	}
	return n, nil
}

// ftsHeld is the error for the full-text index at dir when another
// process holds it; nil otherwise.
func ftsHeld(dir string) error {
	old, err := ftsapi.Open(dir, 2*time.Second)
	if err == nil {
		old.Close()
		return nil
	}
	if errors.Is(err, ftsapi.ErrLocked) {
		return fmt.Errorf("%w: close the other cairn (the TUI, the MCP server, a running index) and run `cairn index --rebuild` again", err)
	}
	return nil
}

// indexReread re-reads the damaged entries from their transcripts when
// those are still on disk, queueing them, and indexes what it queued into
// the index at dir (what it cannot, the next drain, any search first,
// does); it returns how many documents it indexed.
func (s *Store) indexReread(ctx context.Context, dir string, damaged []string) int {
	fixed := s.rereadDamaged(ctx, damaged, SyncOptions{})
	if fixed <= 0 {
		return 0
	}
	s.repaired.Add(int64(fixed))
	ix, err := ftsapi.Open(dir, 2*time.Second)
	if err != nil {
		return 0
	}
	m, _ := s.Derived().DrainFTS(ctx, ix, nil)
	ix.Close()
	return m
}

// rebuildingPrefix names the folders full-text indexes are rebuilt in.
const rebuildingPrefix = ".bleve.rebuilding-"

// staleRebuild is how long a rebuild's folder must have been left
// unchanged before it is taken for a killed one (a rebuild under way
// writes into it; between closing it and swapping it in, it holds no
// lock for a moment).
const staleRebuild = 10 * time.Minute

// removeStaleRebuilds deletes the folders of rebuilds that were killed
// (a half-built index, which holds text the store may have forgotten
// since): those unchanged for minAge that no process holds open. Every
// open of the index waits staleRebuild; a rebuild (which finishes a
// forget too) waits for nothing.
func (s *Store) removeStaleRebuilds(minAge time.Duration) {
	m, _ := filepath.Glob(filepath.Join(s.Dir(), rebuildingPrefix+"*"))
	for _, p := range m {
		// A folder whose rebuild's process is gone goes at once; the age
		// rule is for those whose process cannot be told.
		if fi, err := os.Stat(p); err != nil || (time.Since(fi.ModTime()) < minAge && !rebuildOwnerGone(p)) {
			continue
		}
		ix, err := ftsapi.Open(p, 0)
		if errors.Is(err, ftsapi.ErrLocked) {
			continue
		}
		if err == nil {
			ix.Close()
		}
		_ = os.RemoveAll(p)
	}
}

// fillFTS indexes every queued document into ix without taking any off
// the queue, and returns their queue keys.
func (s *Store) fillFTS(ctx context.Context, ix ftsapi.Index, progress func(done int)) (keys, damagedKeys []string, n int, err error) {
	after := ""
	for {
		if err := ctx.Err(); err != nil {
			return nil, nil, n, err
		}
		rows, damaged, err := s.queuedAfter(ctx, "fts_queue", after, 2000, true)
		if err != nil {
			return nil, nil, n, err
		}
		if len(rows)+len(damaged) == 0 {
			return keys, damagedKeys, n, nil
		}
		if err := s.dropDamaged(ctx, "fts_queue", damaged); err != nil {
			return nil, nil, n, err
		}
		damagedKeys = append(damagedKeys, damaged...)
		var docs []ftsapi.Doc
		keys, docs, after = ftsBatch(keys, rows, damaged, after)
		if err := ix.Index(docs); err != nil {
			return nil, nil, n, err
		}
		n += len(rows)
		if progress != nil {
			progress(n)
		}
	}
}

// ftsBatch appends to keys the queue keys of a batch of queued rows and
// returns the documents to index of those not gone, and where the next
// batch starts: after the rows' keys and the damaged ones'.
func ftsBatch(keys []string, rows []DocRow, damaged []string, after string) ([]string, []ftsapi.Doc, string) {
	docs := make([]ftsapi.Doc, 0, len(rows))
	for _, r := range rows {
		keys = append(keys, r.key())
		after = max(after, r.key())
		if !r.Gone {
			docs = append(docs, ftsDoc(r))
		}
	}
	for _, k := range damaged {
		after = max(after, k)
	}
	return keys, docs, after
}

// builtinModelKey is where the trained built-in embedder is kept.
const builtinModelKey = "embed.builtin.model"

// BuiltinEmbedder returns the built-in LSA embedder trained on this store's
// own transcripts, training it when there is none or when the store has
// grown to twice the entries it was trained on (retrain forces it). A new
// model is a new vector space: every document is queued for embedding again.
func (d Derived) BuiltinEmbedder(ctx context.Context, retrain bool) (*embed.Model, error) {
	s := d.s
	m, _, err := s.builtinEmbedder(ctx, retrain)
	return m, err
}

// builtinEmbedder is BuiltinEmbedder also returning, when it trained a new
// model (so every document is queued again), the training sample: those
// documents are embedded first, straight from memory, instead of being
// read back (on a cold 1 GB index, the sample is every embeddable entry).
func (s *Store) builtinEmbedder(ctx context.Context, retrain bool) (*embed.Model, []DocRow, error) {
	if !retrain {
		if m, kept, err := s.keptBuiltin(ctx); kept {
			return m, nil, err
		}
	}
	sample, err := s.trainingSample(ctx, 50000)
	if err != nil {
		return nil, nil, err
	}
	if len(sample) < 20 {
		return nil, nil, errNotEnoughText
	}
	m, err := s.trainBuiltin(ctx, sample)
	if err != nil {
		return nil, nil, err
	}
	// Older built-in spaces are useless now; vectors of other embedders
	// (Ollama) are kept for when the user switches back.
	if err := s.dropEmbeddingsLike(ctx, "cairn-lsa:%", m.ID()); err != nil {
		return nil, nil, err
	}
	switched, err := s.activate(ctx, m.ID())
	if err != nil || !switched {
		return m, nil, err
	}
	return m, sample, nil
}

// keptBuiltin is the stored built-in model, kept (true) unless there is
// none that loads or the store has grown since its training; kept with the
// error when telling whether it grew fails.
func (s *Store) keptBuiltin(ctx context.Context) (*embed.Model, bool, error) {
	m, ok, err := s.Derived().LoadBuiltinEmbedder(ctx)
	if err != nil || !ok {
		return nil, false, nil
	}
	grown, err := s.grownSinceTraining(ctx)
	if err != nil || !grown {
		return m, true, err
	}
	return nil, false, nil
}

// trainBuiltin trains a built-in model on the sample and saves it.
func (s *Store) trainBuiltin(ctx context.Context, sample []DocRow) (*embed.Model, error) {
	texts := make([]string, len(sample))
	for i, d := range sample {
		texts[i] = d.Text
	}
	m, err := embed.Train(texts, embed.TrainOptions{})
	if err != nil {
		return nil, err
	}
	b, err := m.MarshalBinary()
	if err != nil {
		return nil, err
	}
	if err := s.saveBuiltinModel(ctx, m, b); err != nil {
		return nil, err
	}
	return m, nil
}

// activeEmbedderKey records which embedder the embedding queue is filled for.
const activeEmbedderKey = "embed.active"

// ActivateEmbedder makes id the embedder that queued documents are embedded
// with. Switching to another embedder queues every document again: vectors
// of different embedders never mix, and each needs its own.
func (d Derived) ActivateEmbedder(ctx context.Context, id string) error {
	s := d.s
	_, err := s.activate(ctx, id)
	return err
}

// activate is ActivateEmbedder reporting whether it switched (and queued
// every document again).
func (s *Store) activate(ctx context.Context, id string) (bool, error) {
	cur, _, err := s.Setting(ctx, activeEmbedderKey)
	if err != nil {
		return false, err
	}
	if string(cur) == id {
		return false, nil
	}
	if err := s.requeueAll(ctx, "embed_queue"); err != nil {
		return false, err
	}
	return true, s.SetSetting(ctx, activeEmbedderKey, []byte(id))
}

// embedMaxText bounds the text one vector is made of: a vector stands for
// what a document is about, which its first 64 KB say (a 20 MB pasted log
// would only cost memory and time).
const embedMaxText = 64 << 10

func embedText(s string) string {
	if len(s) <= embedMaxText {
		return s
	}
	return strings.ToValidUTF8(s[:embedMaxText], "")
}

var errNotEnoughText = errors.New("not enough text indexed yet to train the built-in embedder")

// EmbedQueued embeds every queued document with e and stores the vectors.
func (d Derived) EmbedQueued(ctx context.Context, e embed.Embedder, progress func(done int)) (int, error) {
	return d.s.embedQueued(ctx, e, 0, progress)
}

func (s *Store) embedQueued(ctx context.Context, e embed.Embedder, done int, progress func(done int)) (int, error) {
	start := done
	for {
		if err := ctx.Err(); err != nil {
			return done - start, err
		}
		rows, err := s.Derived().QueuedEmbeds(ctx, embedBatchSize)
		if err != nil || len(rows) == 0 {
			return done - start, err
		}
		if err := s.embedBatch(ctx, e, rows); err != nil {
			return done - start, err
		}
		done += len(rows)
		if progress != nil {
			progress(done)
		}
	}
}

// embedRows embeds documents given in memory (a training sample), in
// batches, taking each off the embedding queue.
func (s *Store) embedRows(ctx context.Context, e embed.Embedder, rows []DocRow, progress func(done int)) (int, error) {
	done := 0
	for len(rows) > 0 {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		batch := rows[:min(embedBatchSize, len(rows))]
		rows = rows[len(batch):]
		if err := s.embedBatch(ctx, e, batch); err != nil {
			return done, err
		}
		done += len(batch)
		if progress != nil {
			progress(done)
		}
	}
	return done, nil
}

const embedBatchSize = 512

// embedBatch embeds documents, stores their vectors (keeping an existing
// vector cache current in place) and takes them off the embedding queue;
// documents that are gone or yield no vector are just taken off.
func (s *Store) embedBatch(ctx context.Context, e embed.Embedder, rows []DocRow) error {
	texts := make([]string, 0, len(rows))
	var live []DocRow
	var skip []string
	for _, r := range rows {
		if r.Gone || r.Text == "" {
			skip = append(skip, r.key())
			continue
		}
		live = append(live, r)
		texts = append(texts, embedText(r.Text))
	}
	var vecs []VecRow
	if len(texts) > 0 {
		out, err := e.Embed(ctx, embed.Document, texts)
		if err != nil {
			return err
		}
		for i, v := range out {
			if embed.IsZero(v) {
				skip = append(skip, live[i].key())
				continue
			}
			vecs = append(vecs, VecRow{ID: live[i].ID, Vec: v, key: live[i].queueKey})
		}
	}
	added, err := s.putEmbeddings(ctx, e.ID(), vecs)
	if err != nil {
		return err
	}
	// A missing or foreign cache is written whole by RefreshVecCache.
	if err := AppendVecCache(s.vecCachePath(), e.ID(), e.Dims(), added); err != nil {
		return err
	}
	return s.Derived().AckEmbeds(ctx, skip)
}

// RefreshVecCache rewrites the memory-mapped vector cache when it does not
// hold exactly the stored vectors of embedder.
func (d Derived) RefreshVecCache(ctx context.Context, embedder string, dims int) error {
	s := d.s
	n, err := s.vecCount(ctx, embedder)
	if err != nil {
		return err
	}
	if c, err := OpenVecCache(s.vecCachePath(), embedder); err == nil {
		same := c.Len() == n && c.Dims() == dims
		c.Close()
		if same {
			return nil
		}
	}
	return writeVecCache(s.vecCachePath(), embedder, dims, func(emit func(VecRow) error) error {
		return d.eachEmbedding(ctx, embedder, emit)
	})
}

// Derived is the store's derived indexes: the full-text index and the
// vectors, the work queues that feed them and the built-in embedder they
// are made with. Everything in them can be rebuilt from the store. Get it
// with Store.Derived.
type Derived struct{ s *Store }

// Derived is the store's derived indexes.
func (s *Store) Derived() Derived { return Derived{s} }
