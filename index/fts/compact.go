package fts

import (
	"context"
	"fmt"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
)

// Every write batch becomes a segment, and scorch merges segments in a
// background goroutine that a short-lived process closes before it gets
// anywhere: hook-sized writes would pile up hundreds of tiny segments,
// slowing every open and query. So writers merge synchronously once the
// count passes maxSegments, with scorch's normal tiered policy (which
// merges the small segments together and leaves big ones alone). The
// process that crosses the line pays a few milliseconds; nobody else does.
const maxSegments = 16

// segmentCount is the number of segments in the current snapshot.
func (ix *Index) segmentCount() (int, error) {
	adv, err := ix.idx.Advanced()
	if err != nil {
		return 0, err
	}
	r, err := adv.Reader()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return 0, nil
	}
	return len(snap.Segments()), nil
}

// maybeCompact merges small segments if there are too many.
func (ix *Index) maybeCompact() error {
	n, err := ix.segmentCount()
	if err != nil || n <= maxSegments {
		return err
	}
	return ix.merge(&smallMergePlan)
}

// smallMergePlan is the foreground merge: only segments under 20,000
// documents take part (what short runs leave behind: a hook's or an
// incremental index's few dozen documents each), so it costs milliseconds,
// never a rewrite of the big segments a cold index made. Those are merged
// by scorch's background merger in long-running processes, or Compact.
var smallMergePlan = func() mergeplan.MergePlanOptions {
	o := mergeplan.DefaultMergePlanOptions
	o.MaxSegmentSize = 40_000 // eligible: live size < MaxSegmentSize/2
	o.MaxSegmentsPerTier = 4
	return o
}()

// Compact merges the whole index into as few segments as scorch allows,
// for the fastest queries. It takes seconds on a large index: meant for the
// end of a rebuild or an explicit maintenance command, not for hooks.
func (ix *Index) Compact() (err error) {
	if ix.idx == nil {
		return errClosed
	}
	if ix.readOnly {
		return errReadOnly
	}
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	if err := ix.broken(); err != nil {
		return err
	}
	defer ix.guard("merging", &err)
	return ix.merge(&mergeplan.SingleSegmentMergePlanOptions)
}

func (ix *Index) merge(opts *mergeplan.MergePlanOptions) error {
	adv, err := ix.idx.Advanced()
	if err != nil {
		return err
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return nil
	}
	// A merge rewrites segments: without room for it, it waits (the
	// index stays correct with more segments). Past the check, the merge
	// is let through (diskroom.go refuses background merges, and scorch
	// would retry a refused forced merge forever).
	if !ix.room(mergeFloor + ix.size()/2) {
		return nil
	}
	ix.forcing.Store(true)
	defer ix.forcing.Store(false)
	o := *opts // ForceMerge may keep the pointer; never hand it a package global
	done := make(chan error, 1)
	go func() { done <- s.ForceMerge(context.Background(), &o) }()
	// scorch retries a merge that failed to write; a full disk met on the
	// way fails the index (onScorchError), and the merge is given up.
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("fts: merging segments of %s: %w", ix.dir, err)
			}
			return nil
		case <-tick.C:
			if err := ix.broken(); err != nil {
				return err
			}
		}
	}
}
