package index

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/index/ftsapi"
)

// UpdateOptions tune Update. The zero value is an incremental update.
type UpdateOptions struct {
	Sync SyncOptions
	// Rebuild throws the full-text index away and rebuilds it from the
	// store (the store itself is never deleted).
	Rebuild bool
	// Retrain retrains the built-in embedder on the current store.
	Retrain bool
	// LockWait is how long to wait for another process's full-text index;
	// 0 means 2 s. On time-out the work stays queued for the next process.
	LockWait time.Duration
	// NoEmbed leaves vectors for a later run (they stay queued).
	NoEmbed bool
	// Status, when set, receives short phase messages ("embeddings: 4000").
	Status func(string)
	// DeferFTS leaves the full-text documents queued: the caller owns the
	// full-text index (the TUI's searcher holds it) and drains the queue
	// itself afterwards, or leaves it to the next process (hooks).
	DeferFTS bool
	// NoSync skips reading the transcripts: with Rebuild, only the derived
	// indexes are rebuilt from the store (after a restore).
	NoSync bool
}

// UpdateStats say what an Update did.
type UpdateStats struct {
	Sync     SyncStats
	FTSDocs  int  // documents moved into the full-text index
	FTSBusy  bool // another process held the full-text index: its work stays queued
	Embedded int  // documents given a vector
	Embedder string
	// EmbedErr is why vectors could not be made (an unreachable Ollama, a
	// store too small to train on); search then uses what it has and says
	// so. It does not fail the update.
	EmbedErr error
	Duration time.Duration
	// Integrity is what a rebuild's check of the store found (and, when
	// only indexes were damaged, repaired).
	Integrity Integrity
	// Damaged is how many documents were left out of the full-text index
	// because their rows in the store could not be read.
	Damaged int
	// Repaired is how many of those were re-read from their transcripts
	// (queued for the full-text index again).
	Repaired int
}

// Update brings everything up to date with the transcripts under claudeDir:
// the store (Sync), the full-text index and the vectors. The full-text index
// is filled while the store is being written, from the queue each committed
// transaction leaves, so the two costs overlap instead of adding up.
func (s *Store) Update(ctx context.Context, claudeDir string, o UpdateOptions) (UpdateStats, error) {
	start := time.Now()
	status, embedStatus := phaseStatus(o.Status)
	var st UpdateStats
	// Vectors are made once the store is written, while the full-text
	// index catches up (on a cold index it lags the store by seconds): the
	// two use different cores.
	// Side work that overlaps the run (the model, the checkpoint).
	var side sync.WaitGroup
	defer side.Wait()
	if !o.NoEmbed && !o.Retrain && !o.Rebuild && s.Embedder().Kind == EmbedBuiltin {
		// The built-in model (~0.5 MB) loads while the sync runs, not after.
		side.Go(func() { s.Derived().LoadBuiltinEmbedder(ctx) })
	}
	embedNow := func(fresh []DocRow) {
		side.Go(func() { s.checkpointPassive() })
		if o.NoEmbed {
			return
		}
		embedStatus("embeddings")
		st.Embedded, st.Embedder, st.EmbedErr = s.embedPending(ctx, o.Retrain, fresh, func(n int) {
			embedStatus(fmt.Sprintf("embeddings: %d documents", n))
		})
	}
	err := s.syncIndexes(ctx, claudeDir, o, &st, status, embedNow)
	if err == nil && errors.Is(st.EmbedErr, context.Canceled) {
		err = st.EmbedErr
	}
	if err != nil {
		return st, err
	}
	st.Damaged = s.Damaged()
	st.Duration = time.Since(start)
	return st, nil
}

// lockWait is how long to wait for another process's full-text index.
func (o *UpdateOptions) lockWait() time.Duration {
	if o.LockWait <= 0 {
		return 2 * time.Second
	}
	return o.LockWait
}

// syncIndexes syncs the store and fills the full-text index as o asks
// (rebuilt, left queued, or drained while the sync runs); embedNow runs
// once the store is written.
func (s *Store) syncIndexes(ctx context.Context, claudeDir string, o UpdateOptions, st *UpdateStats, status func(string), embedNow func(fresh []DocRow)) error {
	var err error
	switch {
	case o.Rebuild:
		// The store's own indexes first: when only they are damaged,
		// REINDEX repairs them and the sync below can write again.
		status("checking the store")
		if st.Integrity, err = s.RepairIndexes(ctx); err != nil {
			return err
		}
		if !o.NoSync {
			st.Sync, err = s.Sync(ctx, claudeDir, o.Sync)
			if err != nil && (!isDamage(err) || ctx.Err() != nil) {
				return err
			}
		}
		// A damaged store still gets a full-text index of every row that
		// can be read.
		status("rebuilding the full-text index")
		var ferr error
		st.FTSDocs, ferr = s.Derived().RebuildFTS(ctx, status)
		st.Damaged, st.Repaired = s.Damaged(), s.Repaired()
		if err = errors.Join(err, ferr); err != nil {
			return err
		}
	case o.DeferFTS:
		st.Sync, err = s.Sync(ctx, claudeDir, o.Sync)
	default:
		st.Sync, st.FTSDocs, st.FTSBusy, err = s.syncAndDrain(ctx, claudeDir, o.Sync, o.lockWait(), status, embedNow)
		return err
	}
	if err == nil {
		embedNow(nil)
	}
	return err
}

// syncAndDrain runs Sync while a second goroutine moves what it queues
// into the full-text index. When another process holds that index, Sync
// runs alone and the documents stay queued.
//
// afterSync runs once the sync is done, given the documents it committed
// when they were few and all in one transaction (handoff.only), so the
// embedder need not read them back either.
func (s *Store) syncAndDrain(ctx context.Context, claudeDir string, so SyncOptions, lockWait time.Duration, status func(string), afterSync func(fresh []DocRow)) (SyncStats, int, bool, error) {
	// The listing of the tree need not wait for the full-text index to open
	// (unless another process holds the index for a while: then the sync
	// lists again, so as not to work from an old listing).
	so.survey = s.startWholeSurvey(ctx, claudeDir, so)
	opened := time.Now() // a survey from the survey snapshot has stat-ed the tree by now
	if s.nothingNew(ctx, claudeDir, so) {
		return s.syncThenDrain(ctx, claudeDir, so, lockWait, status, afterSync)
	}
	ix, err := s.Derived().OpenFTS(lockWait)
	if time.Since(opened) > staleSurvey {
		so.survey = nil
	}
	if err != nil {
		return s.syncWithoutFTS(ctx, claudeDir, so, err, afterSync)
	}
	// The documents each sync transaction commits come straight to the
	// drainer; what else is queued (left by an interrupted run or another
	// process, sessions, memories) is drained from the store once the sync
	// is done. A full hand-off channel makes the sync wait: the two move at
	// the pace of the slower one, with bounded memory.
	h := newHandoff(1)
	so.handoff = h
	d := &drainer{ctx: ctx, s: s, ix: ix, h: h, status: status}
	syncDone := make(chan struct{})
	result := make(chan error, 1)
	go func() {
		defer close(h.gone)
		result <- d.run(ctx, syncDone)
	}()
	stats, serr := s.Sync(ctx, claudeDir, so)
	close(syncDone)
	if serr == nil {
		afterSync(h.only())
	}
	derr := <-result
	if serr == nil && derr == nil {
		derr = settleFTS(ix, status) // a cold index: merge its segments down
	}
	if d.total > 0 {
		status("full-text index: saving to disk") // bleve writes what it holds in memory
	}
	cerr := ix.Close()
	return stats, d.total, false, errors.Join(serr, derr, cerr)
}

// nothingNew waits for the survey and reports whether the sync will find
// nothing to read or mark missing, and nothing waits for the full-text
// index: the common case of a search or a hook's refresh. Opening the
// index writable costs more than such a sync (three bbolt commits with
// their fsyncs on the 1 GB store, though nothing is written: see
// fts.OpenReadOnly), so it is then not opened at all. Anything unsure (a recount due, a
// survey that failed) says no: the usual path finds out.
func (s *Store) nothingNew(ctx context.Context, claudeDir string, so SyncOptions) bool {
	if so.Recount || (len(so.Projects) == 0 && s.recountDue(ctx)) || s.ftsQueued(ctx) {
		return false
	}
	tree, known, err := so.survey.wait()
	if err != nil {
		return false
	}
	if so.survey.quiet {
		return true // Sync returns at once
	}
	s.scopeKnown(claudeDir, known) // as Sync does, which then finds it done
	memo := s.loadSyncMemo(ctx)
	var st SyncStats
	plan := planSync(tree, known, memo.Failed, &st)
	if len(plan.jobs) != 0 || len(plan.missing) != 0 || plan.reappeared != 0 {
		return false
	}
	// The Sync that follows reads nothing: it takes this plan (takePlan)
	// instead of comparing the 14,010 files of a 10 GB tree again.
	so.survey.plan, so.survey.planStats, so.survey.memo = plan, st, memo
	return true
}

// syncThenDrain runs the sync without the full-text index (nothingNew said
// it will write no document), then drains whatever it queued after all.
func (s *Store) syncThenDrain(ctx context.Context, claudeDir string, so SyncOptions, lockWait time.Duration, status func(string), afterSync func(fresh []DocRow)) (SyncStats, int, bool, error) {
	stats, err := s.Sync(ctx, claudeDir, so)
	if err != nil {
		return stats, 0, false, err
	}
	afterSync(nil)
	if !s.ftsQueued(ctx) {
		return stats, 0, false, nil
	}
	ix, err := s.Derived().OpenFTS(lockWait)
	if errors.Is(err, ftsapi.ErrLocked) {
		return stats, 0, true, nil
	}
	if err != nil {
		return stats, 0, false, err
	}
	n, derr := s.Derived().DrainFTS(ctx, ix, func(done int) { status(fmt.Sprintf("full-text index: %d documents", done)) })
	if derr == nil {
		derr = settleFTS(ix, status)
	}
	return stats, n, false, errors.Join(derr, ix.Close())
}

// settleFTS merges the full-text segments a bulk write left, when it was
// one (fts.Index.Settle: nothing after a few documents), saying so on
// status while it merges.
func settleFTS(ix ftsapi.Index, status func(string)) error {
	if s, ok := ix.(interface{ Settle(func(string)) error }); ok {
		return s.Settle(status)
	}
	return nil
}

// syncWithoutFTS runs Sync alone when the full-text index did not open.
// Another process holding it is not an error (busy: the documents stay
// queued); a damaged index must not stop the store from being updated:
// sync, then report what to do about the index.
func (s *Store) syncWithoutFTS(ctx context.Context, claudeDir string, so SyncOptions, openErr error, afterSync func(fresh []DocRow)) (SyncStats, int, bool, error) {
	stats, err := s.Sync(ctx, claudeDir, so)
	if err == nil {
		afterSync(nil)
	}
	if errors.Is(openErr, ftsapi.ErrLocked) {
		return stats, 0, true, err
	}
	return stats, 0, false, errors.Join(err, openErr)
}

// drainer moves the documents a sync hands off into the full-text index
// while the sync runs, then the rest of the queue.
type drainer struct {
	ctx    context.Context // the run's: acks outlive its cancellation (see indexRows)
	s      *Store
	ix     ftsapi.Index
	h      *handoff
	status func(string)
	total  int          // documents indexed
	sp     *speculation // the documents of a sync's only transaction, indexed while it runs
}

// run drains until the sync is done (syncDone closed) and the queue is
// empty, or ctx ends.
func (d *drainer) run(ctx context.Context, syncDone <-chan struct{}) error {
	if err := d.duringSync(ctx, syncDone); err != nil {
		return err
	}
	return d.afterSync(ctx)
}

// duringSync indexes the hand-offs until the sync is done. An error ends
// the drain; nil means the sync is done.
func (d *drainer) duringSync(ctx context.Context, syncDone <-chan struct{}) error {
	for {
		select {
		case docs := <-d.h.spec:
			d.sp = d.s.speculate(ctx, d.ix, docs)
		case rows := <-d.h.ch:
			if err := d.index(rows); err != nil {
				return err
			}
		case <-syncDone:
			return nil
		case <-ctx.Done():
			return d.interrupted(ctx, syncDone)
		}
	}
}

// interrupted ends a drain whose context ended during the sync: what the
// interrupted sync committed is settled; the rest stays queued.
func (d *drainer) interrupted(ctx context.Context, syncDone <-chan struct{}) error {
	if d.sp == nil {
		return ctx.Err()
	}
	<-syncDone
	_, err := d.settle()
	return errors.Join(ctx.Err(), err)
}

// afterSync indexes the hand-offs still in the channel (every one has been
// received or sits there), then the rest of the queue.
func (d *drainer) afterSync(ctx context.Context) error {
	for {
		select {
		case rows := <-d.h.ch:
			if err := d.index(rows); err != nil {
				return err
			}
		default:
			return d.finish(ctx)
		}
	}
}

// finish indexes an incremental run's documents from memory (when the
// queue holds nothing else: reading them back is most of the run's
// full-text work), else drains the queue from the store.
func (d *drainer) finish(ctx context.Context) error {
	var done bool
	var err error
	if d.sp != nil {
		done, err = d.settleSpeculation(ctx)
	} else {
		done, err = d.indexOnly(ctx)
	}
	if done {
		return err
	}
	n, err := d.s.Derived().DrainFTS(ctx, d.ix, func(n int) { d.status(fmt.Sprintf("full-text index: %d documents", d.total+n)) })
	d.total += n
	return err
}

// settleSpeculation settles the speculatively indexed documents; done
// reports that nothing else is queued (or an error).
func (d *drainer) settleSpeculation(ctx context.Context) (done bool, err error) {
	only, err := d.settle()
	if err != nil {
		return true, err
	}
	d.total += len(only)
	if len(only) == 0 {
		return false, nil
	}
	outside, err := d.s.queuedOutside(ctx, "fts_queue", only)
	return err != nil || !outside, err
}

// indexOnly indexes the documents of the sync's only transaction from
// memory when nothing else is queued; done reports that it did (or an
// error).
func (d *drainer) indexOnly(ctx context.Context) (done bool, err error) {
	only := slices.Clone(d.h.only())
	if only == nil {
		return false, nil
	}
	outside, err := d.s.queuedOutside(ctx, "fts_queue", only)
	if err == nil && !outside {
		d.h.label(only)
		err = d.s.indexRows(d.ctx, d.ix, only)
	}
	if err != nil || !outside {
		d.total += len(only)
		return true, err
	}
	return false, nil
}

// settle settles the speculation with the documents of the sync's only
// transaction.
func (d *drainer) settle() ([]DocRow, error) {
	// A copy: the embedder reads the same documents meanwhile.
	only := slices.Clone(d.h.only())
	d.h.label(only)
	return only, d.s.settle(d.ctx, d.ix, d.sp, only)
}

// index indexes one hand-off. A small one (an incremental run's whole
// sync) is left for the final batch with what is left in the queue: one
// segment to persist instead of two.
func (d *drainer) index(rows []DocRow) error {
	if len(rows) < smallHandoff {
		return nil
	}
	d.h.label(rows)
	if err := d.s.indexRows(d.ctx, d.ix, rows); err != nil {
		return err
	}
	d.total += len(rows)
	d.status(fmt.Sprintf("full-text index: %d documents", d.total))
	return nil
}

// phaseStatus splits one status callback in two, for the full-text index and
// the embeddings, which run at once: each message shows the latest of both.
func phaseStatus(out func(string)) (fts, emb func(string)) {
	if out == nil {
		out = func(string) {}
	}
	var mu sync.Mutex
	var a, b string
	show := func() {
		switch {
		case a == "":
			out(b)
		case b == "":
			out(a)
		default:
			out(a + " · " + b)
		}
	}
	fts = func(m string) { mu.Lock(); defer mu.Unlock(); a = m; show() }
	emb = func(m string) { mu.Lock(); defer mu.Unlock(); b = m; show() }
	return fts, emb
}

// staleSurvey is how long a sync trusts a listing it started ahead.
const staleSurvey = 100 * time.Millisecond

// smallHandoff is the size under which handed-off documents are left to
// the final drain from the queue (each full-text batch costs a segment
// persisted with fsyncs: ~4 ms).
const smallHandoff = 1000
