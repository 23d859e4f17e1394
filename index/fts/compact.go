package fts

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
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
	if err := ix.lockWrite(); err != nil {
		return err
	}
	defer ix.writeMu.Unlock()
	defer ix.guard("merging", &err)
	return ix.merge(&mergeplan.SingleSegmentMergePlanOptions)
}

// A bulk write (a cold index, a rebuild, a sync of many new transcripts)
// leaves the segments scorch's background merger had made by its end: 15
// on the 1 GB corpus, 41 on 10 GB, each costing every later search process
// its open and ~4.7 MB resident. Settle, at the end of such a write, merges
// them down to about settleSegments: every segment under a settleSegments-th
// of the index is merged with others into segments under twice that, and
// the big ones are left alone. So each document is rewritten once at the
// end of a cold index, and a later bulk sync rewrites only what is small
// next to the whole (a document is rewritten again only when the index has
// grown by a good part since).
const settleSegments = 4

// settleDocs is how many documents an open index must have been given (or
// had deleted) for Settle to merge: under it (a hook's or an incremental
// sync's few), maybeCompact's small merges are enough.
var settleDocs int64 = 20_000

// Settle merges the segments a bulk write left (see settleSegments), when
// this open has written at least settleDocs documents; otherwise, or when
// the folder lacks room for the merge, it does nothing. progress, when set,
// hears of the merge as it goes ("merging 15 segments into 3: 1 of 3
// done"). It takes seconds on a large index: the cost a cold index pays so
// that every search opens a few segments, not dozens.
func (ix *Index) Settle(progress func(string)) (err error) {
	if err := ix.lockWrite(); err != nil {
		return err
	}
	defer ix.writeMu.Unlock()
	if ix.written.Load() < settleDocs {
		return nil
	}
	defer ix.guard("merging", &err)
	s, segs, err := ix.segments()
	if err != nil || s == nil {
		return err
	}
	opts := settlePlan(segs)
	plan, err := mergeplan.Plan(segs, &opts)
	if err != nil || plan == nil || len(plan.Tasks) == 0 {
		return err
	}
	need, merged := planFiles(plan)
	if !ix.room(need) {
		return nil // the index stays correct, with more segments
	}
	if progress == nil {
		progress = func(string) {}
	}
	tasks := len(plan.Tasks)
	phase := fmt.Sprintf("full-text index: merging %d of %d segments into %d", merged, len(segs), tasks)
	progress(phase)
	err = ix.forceMerge(s, &opts, mergesWritten(s, tasks, func(done int) {
		progress(fmt.Sprintf("%s: %d of %d written", phase, done, tasks))
	}))
	if err != nil {
		return err
	}
	ix.written.Store(0)
	ix.awaitMerged(s)
	return nil
}

// recordWait bounds awaitMerged's wait for the merge to be recorded,
// filesWait each of its two waits for the replaced files to go.
var recordWait, filesWait = 10 * time.Second, 2 * time.Second

// awaitMerged waits until s has recorded the snapshot a merge introduced
// and deleted the segment files it replaced (for at most recordWait, then
// filesWait).
// Scorch's ForceMerge returns once the merged segments are in memory's
// snapshot, not yet in root.bolt: a Close right after may end the
// persister first, and the next open then loads the snapshot before the
// merge (and deletes the merged files, which no recorded snapshot names).
// The replaced files go when the persister next idles, if nothing holds the
// old snapshot by then (a search under way in the same process); a Close
// before that left them to the next writable open (at 1 GB the folder held
// 105 MB instead of 57 until then). When they outlast the first wait, one
// write of the generation the index already holds makes the persister pass
// once more; what still remains after that, the next writable open deletes.
func (ix *Index) awaitMerged(s *scorch.Scorch) {
	stats, _ := s.Stats().(*scorch.Stats)
	if stats == nil {
		return
	}
	epoch := atomic.LoadUint64(&stats.CurRootEpoch)
	if !ix.waitFor(recordWait, func() bool { return atomic.LoadUint64(&stats.LastPersistedEpoch) >= epoch }) {
		return
	}
	gone := func() bool { return len(ix.unusedSegmentFiles()) == 0 }
	if ix.waitFor(filesWait, gone) {
		return
	}
	if v, err := ix.idx.GetInternal([]byte(generationKey)); err == nil && v != nil &&
		ix.idx.SetInternal([]byte(generationKey), v) == nil {
		ix.waitFor(filesWait, gone)
	}
}

// waitFor polls done every few milliseconds for at most wait, while the
// index is not broken; it says whether done came true.
func (ix *Index) waitFor(wait time.Duration, done func() bool) bool {
	deadline := time.Now().Add(wait)
	for !done() {
		if ix.broken() != nil || time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// unusedSegmentFiles are the segment files in the index's folder that its
// current snapshot does not use (merged away, not yet deleted).
func (ix *Index) unusedSegmentFiles() []string {
	files, _ := filepath.Glob(filepath.Join(ix.dir, "store", "*.zap"))
	if len(files) == 0 {
		return nil
	}
	used := map[string]bool{}
	_, segs, err := ix.segments()
	if err != nil {
		return nil
	}
	for _, sg := range segs {
		if ss, ok := sg.(*scorch.SegmentSnapshot); ok {
			if p, ok := ss.Segment().(interface{ Path() string }); ok {
				used[filepath.Clean(p.Path())] = true
			}
		}
	}
	var unused []string
	for _, f := range files {
		if !used[filepath.Clean(f)] {
			unused = append(unused, f)
		}
	}
	return unused
}

// planFiles is the room plan's merge needs (the merged segments are all
// written before any old one is let go: the files it merges, and the
// floor) and how many segments it merges.
func planFiles(plan *mergeplan.MergePlan) (need uint64, merged int) {
	need = uint64(mergeFloor)
	for _, t := range plan.Tasks {
		for _, sg := range t.Segments {
			need += uint64(max(sg.FileSize(), 0))
			merged++
		}
	}
	return need, merged
}

// mergesWritten is forceMerge's tick: it calls written with the number
// of merged segments s has finished writing since, each new count below
// tasks once (nothing when s keeps no stats).
func mergesWritten(s *scorch.Scorch, tasks int, written func(done int)) func() {
	stats, _ := s.Stats().(*scorch.Stats)
	if stats == nil {
		return func() {}
	}
	before := atomic.LoadUint64(&stats.TotFileMergeZapEnd)
	last := -1
	return func() {
		done := int(atomic.LoadUint64(&stats.TotFileMergeZapEnd) - before)
		if done != last && done < tasks {
			last = done
			written(done)
		}
	}
}

// settlePlan is the one-pass merge Settle asks for: segments under a
// settleSegments-th of the index's live documents take part, grouped into
// segments under twice that (scorch's planner, given a budget of one
// segment, merges every eligible one in groups its size limit bounds).
func settlePlan(segs []mergeplan.Segment) mergeplan.MergePlanOptions {
	var live int64
	for _, sg := range segs {
		live += sg.LiveSize()
	}
	o := mergeplan.SingleSegmentMergePlanOptions
	o.MaxSegmentSize = min(max(2*live/settleSegments, 2), mergeplan.MaxSegmentSizeLimit)
	o.SegmentsPerMergeTask = max(len(segs), 2)
	return o
}

// segments are the persisted segments of the current snapshot, as the
// merge planner sees them (scorch's merger plans on those alone).
func (ix *Index) segments() (*scorch.Scorch, []mergeplan.Segment, error) {
	adv, err := ix.idx.Advanced()
	if err != nil {
		return nil, nil, err
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return nil, nil, nil
	}
	r, err := s.Reader()
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil, nil, nil
	}
	var segs []mergeplan.Segment
	for _, sg := range snap.Segments() {
		if _, ok := sg.Segment().(interface{ Path() string }); ok { // segment.PersistedSegment
			segs = append(segs, sg)
		}
	}
	return s, segs, nil
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
	return ix.forceMerge(s, opts, nil)
}

// forceMerge runs one merge of s with opts (room checked), calling tick, when
// set, every 50 ms while it runs.
func (ix *Index) forceMerge(s *scorch.Scorch, opts *mergeplan.MergePlanOptions, tick func()) error {
	ix.forcing.Store(true)
	defer ix.forcing.Store(false)
	o := *opts // ForceMerge may keep the pointer; never hand it a package global
	done := make(chan error, 1)
	go func() { done <- s.ForceMerge(context.Background(), &o) }()
	// scorch retries a merge that failed to write; a full disk met on the
	// way fails the index (onScorchError), and the merge is given up.
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("fts: merging segments of %s: %w", ix.dir, err)
			}
			return nil
		case <-t.C:
			if err := ix.broken(); err != nil {
				return err
			}
			if tick != nil {
				tick()
			}
		}
	}
}
