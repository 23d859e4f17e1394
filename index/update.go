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
}

// Update brings everything up to date with the transcripts under claudeDir:
// the store (Sync), the full-text index and the vectors. The full-text index
// is filled while the store is being written, from the queue each committed
// transaction leaves, so the two costs overlap instead of adding up.
func (s *Store) Update(ctx context.Context, claudeDir string, o UpdateOptions) (UpdateStats, error) {
	start := time.Now()
	status, embedStatus := phaseStatus(o.Status)
	lockWait := o.LockWait
	if lockWait <= 0 {
		lockWait = 2 * time.Second
	}
	var st UpdateStats
	var err error
	// Vectors are made once the store is written, while the full-text
	// index catches up (on a cold index it lags the store by seconds): the
	// two use different cores.
	// Side work that overlaps the run (the model, the checkpoint).
	var side sync.WaitGroup
	defer side.Wait()
	if !o.NoEmbed && !o.Retrain && !o.Rebuild && s.Embedder().Kind == EmbedBuiltin {
		// The built-in model (~0.5 MB) loads while the sync runs, not after.
		side.Go(func() { s.LoadBuiltinEmbedder() })
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
	if o.Rebuild {
		st.Sync, err = s.Sync(ctx, claudeDir, o.Sync)
		if err != nil {
			return st, err
		}
		status("rebuilding the full-text index")
		st.FTSDocs, err = s.RebuildFTS(ctx, func(n int) { status(fmt.Sprintf("full-text index: %d documents", n)) })
		if err == nil {
			embedNow(nil)
		}
	} else if o.DeferFTS {
		st.Sync, err = s.Sync(ctx, claudeDir, o.Sync)
		if err == nil {
			embedNow(nil)
		}
	} else {
		st.Sync, st.FTSDocs, st.FTSBusy, err = s.syncAndDrain(ctx, claudeDir, o.Sync, lockWait, status, embedNow)
	}
	if err == nil && errors.Is(st.EmbedErr, context.Canceled) {
		err = st.EmbedErr
	}
	if err != nil {
		return st, err
	}
	st.Duration = time.Since(start)
	return st, err
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
	opened := time.Now()
	so.survey = s.startSurvey(ctx, claudeDir, so.Projects)
	ix, err := s.OpenFTS(lockWait)
	if time.Since(opened) > staleSurvey {
		so.survey = nil
	}
	if errors.Is(err, ftsapi.ErrLocked) {
		stats, err := s.Sync(ctx, claudeDir, so)
		if err == nil {
			afterSync(nil)
		}
		return stats, 0, true, err
	}
	if err != nil {
		// A damaged full-text index must not stop the store from being
		// updated: sync, then report what to do about the index.
		stats, serr := s.Sync(ctx, claudeDir, so)
		if serr == nil {
			afterSync(nil)
		}
		return stats, 0, false, errors.Join(serr, err)
	}
	// The documents each sync transaction commits come straight to the
	// drainer; what else is queued (left by an interrupted run or another
	// process, sessions, memories) is drained from the store once the sync
	// is done. A full hand-off channel makes the sync wait: the two move at
	// the pace of the slower one, with bounded memory.
	h := newHandoff(1)
	so.handoff = h
	syncDone := make(chan struct{})
	type drained struct {
		n   int
		err error
	}
	result := make(chan drained, 1)
	go func() {
		defer close(h.gone)
		total := 0
		index := func(rows []DocRow) error {
			if len(rows) < smallHandoff {
				// A small last transaction (an incremental run's whole
				// sync): its documents go in one batch with what is left
				// in the queue, one segment to persist instead of two.
				return nil
			}
			h.label(rows)
			if err := s.indexRows(ix, rows); err != nil {
				return err
			}
			total += len(rows)
			status(fmt.Sprintf("full-text index: %d documents", total))
			return nil
		}
		synced := false
		// The documents of a sync's only transaction, indexed while it runs.
		var sp *speculation
		settle := func() ([]DocRow, error) {
			// A copy: the embedder reads the same documents meanwhile.
			only := slices.Clone(h.only())
			h.label(only)
			return only, s.settle(ix, sp, only)
		}
		for {
			var rows []DocRow
			if !synced {
				select {
				case docs := <-h.spec:
					sp = s.speculate(ctx, ix, docs)
					continue
				case rows = <-h.ch:
				case <-syncDone:
					synced = true
					continue
				case <-ctx.Done():
					if sp != nil {
						// What the interrupted sync committed is settled;
						// the rest stays queued.
						<-syncDone
						_, err := settle()
						result <- drained{total, errors.Join(ctx.Err(), err)}
						return
					}
					result <- drained{total, ctx.Err()}
					return
				}
			} else {
				// Every hand-off has been received or sits in the channel;
				// after those, the rest of the queue.
				select {
				case rows = <-h.ch:
				default:
					// An incremental run's documents, when the queue holds
					// nothing else, go in from memory: reading them back is
					// most of the run's full-text work.
					if sp != nil {
						only, err := settle()
						if err != nil {
							result <- drained{total, err}
							return
						}
						total += len(only)
						if len(only) > 0 {
							if outside, err := s.queuedOutside(ctx, "fts_queue", only); err != nil || !outside {
								result <- drained{total, err}
								return
							}
						}
					} else if only := slices.Clone(h.only()); only != nil {
						outside, err := s.queuedOutside(ctx, "fts_queue", only)
						if err == nil && !outside {
							h.label(only)
							err = s.indexRows(ix, only)
						}
						if err != nil || !outside {
							result <- drained{total + len(only), err}
							return
						}
					}
					n, err := s.DrainFTS(ctx, ix, func(d int) { status(fmt.Sprintf("full-text index: %d documents", total+d)) })
					result <- drained{total + n, err}
					return
				}
			}
			if err := index(rows); err != nil {
				result <- drained{total, err}
				return
			}
		}
	}()
	stats, serr := s.Sync(ctx, claudeDir, so)
	close(syncDone)
	if serr == nil {
		afterSync(h.only())
	}
	r := <-result
	cerr := ix.Close()
	return stats, r.n, false, errors.Join(serr, r.err, cerr)
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
