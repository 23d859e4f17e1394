package memories

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/index/embed"
)

// OriginConsolidate marks the merge proposals consolidation makes.
const OriginConsolidate = "consolidate"

// Consolidation thresholds: looser than the add-time dedup (Jaccard 0.6,
// cosine 0.85), which already folded near-copies, so that paraphrases it
// missed meet; a vector match still needs some shared words.
const (
	consJaccard      = 0.5 // rarity-weighted Jaccard
	consCosine       = 0.8
	consCosineWords  = 0.25
	consMaxCluster   = 8
	DefaultRetention = 180 * 24 * time.Hour
)

// ConsolidateOptions tune Consolidate.
type ConsolidateOptions struct {
	// DryRun reports what would be done and changes nothing.
	DryRun bool
	// Archive archives the stale approved memories found (the person asked
	// for it, having seen them); without it they are only reported.
	Archive bool
	// Retention is how long archived, superseded and rejected memories are
	// kept before they are pruned (0: DefaultRetention).
	Retention time.Duration
	// auto: the hooks' daily run (AutoConsolidate).
	auto bool
}

// MergeProposal is a cluster of overlapping memories of one project, and
// the pending memory proposed to replace them.
type MergeProposal struct {
	Proposal string   `json:"proposal,omitempty"` // the pending memory's id (empty in a dry run)
	Project  string   `json:"project"`
	Type     Type     `json:"type"`
	Content  string   `json:"content"`
	Members  []string `json:"members"`
	Score    float64  `json:"score"` // the weakest member's similarity to the best one
}

// StaleMemory is an approved memory proposed for archiving.
type StaleMemory struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	Reason  string `json:"reason"`
}

// PrunedMemory is a memory deleted for having been retired long enough.
type PrunedMemory struct {
	ID      string    `json:"id"`
	Status  Status    `json:"status"`
	Updated time.Time `json:"updated"`
}

// ConsolidateReport says what Consolidate did (or would do).
type ConsolidateReport struct {
	DryRun   bool            `json:"dry_run"`
	Scanned  int             `json:"scanned"`
	Merges   []MergeProposal `json:"merges"`
	Stale    []StaleMemory   `json:"stale"`
	Archived []string        `json:"archived"`
	Pruned   []PrunedMemory  `json:"pruned"`
	// TrashPurged counts deleted memories kept for undo longer than the
	// retention, dropped for good.
	TrashPurged int           `json:"trash_purged"`
	Took        time.Duration `json:"took_ns"`
	At          time.Time     `json:"at"`
	// Auto marks the hooks' daily run (AutoConsolidate).
	Auto bool `json:"auto,omitempty"`
	// ArchivedUpdated is when each archived memory was last updated
	// before the run archived it: undo puts it back, so a memory whose
	// confidence had faded does not come back as fresh.
	ArchivedUpdated map[string]time.Time `json:"archived_updated,omitempty"`
}

// consolidateKey is where the runs are kept, for undo: a JSON array of
// ConsolidateReport, oldest first, at most keepRuns (an earlier build
// kept one report object there).
const consolidateKey = index.ConsolidateUndoKey

// keepRuns is how many consolidation runs are kept for undo.
const keepRuns = 30

// Consolidate keeps the memory store healthy:
//   - clusters of overlapping memories of one project and type (paraphrases
//     the add-time dedup missed) become one pending memory that supersedes
//     them and keeps every source: approving it retires them, rejecting it
//     leaves them be;
//   - approved memories whose confidence decayed to nothing, or that were
//     injected PruneAfter times and never used, are reported, and archived
//     only with Archive;
//   - archived, superseded and rejected memories older than the retention
//     are deleted (kept for undo, then purged once a retention later).
//
// Nothing approved changes without review, and `ConsolidateUndo` reverts
// the last run.
func (s Curator) Consolidate(ctx context.Context, o ConsolidateOptions) (ConsolidateReport, error) {
	start := time.Now()
	now := s.now().UTC()
	if o.Retention <= 0 {
		o.Retention = time.Duration(s.cfg.Memories.RetentionDays) * 24 * time.Hour
	}
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	rep := ConsolidateReport{DryRun: o.DryRun, At: now, Merges: []MergeProposal{}, Stale: []StaleMemory{}, Archived: []string{}, Pruned: []PrunedMemory{}}
	rows, err := s.st.Mem().Query(ctx, index.MemFilter{})
	if err != nil {
		return rep, err
	}
	rep.Scanned = len(rows)
	rep.Merges = append(rep.Merges, s.mergeClusters(ctx, rows)...)
	for _, r := range rows {
		if reason := staleReason(r, now); reason != "" {
			rep.Stale = append(rep.Stale, StaleMemory{ID: r.ID, Content: r.Content, Reason: reason})
		}
	}
	rep.Pruned = append(rep.Pruned, prunable(rows, now.Add(-o.Retention))...)
	if o.DryRun {
		rep.Took = time.Since(start)
		return rep, nil
	}
	rep.Auto = o.auto
	if err := s.applyConsolidation(ctx, &rep, o, now); err != nil {
		return rep, err
	}
	rep.Took = time.Since(start)
	return rep, nil
}

// staleReason says why approved memory r is stale, "" when it is not (or
// not approved): its confidence has faded, or it was injected often and
// never used.
func staleReason(r *index.MemRow, now time.Time) string {
	switch {
	case r.Status != Approved:
		return ""
	case confidence(r.Type, r.Updated, now) == 0:
		return fmt.Sprintf("a %s memory last updated %s ago: its confidence has faded to nothing", r.Type, now.Sub(r.Updated).Round(24*time.Hour))
	case r.Used == 0 && r.Injected >= PruneAfter:
		return fmt.Sprintf("injected %d times, never used", r.Injected)
	}
	return ""
}

// prunable lists the archived, superseded and rejected rows last updated
// before cutoff that no pending memory supersedes.
func prunable(rows []*index.MemRow, cutoff time.Time) []PrunedMemory {
	var out []PrunedMemory
	for _, r := range rows {
		switch r.Status {
		case Archived, Superseded, Rejected:
			if r.Updated.Before(cutoff) && !supersededByPending(rows, r.ID) {
				out = append(out, PrunedMemory{ID: r.ID, Status: r.Status, Updated: r.Updated})
			}
		}
	}
	return out
}

// applyConsolidation writes the report's proposals, archives and prunes,
// and keeps the run for undo.
func (s *core) applyConsolidation(ctx context.Context, rep *ConsolidateReport, o ConsolidateOptions, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	written, err := s.proposalRows(ctx, rep.Merges, now)
	if err != nil {
		return err
	}
	if o.Archive {
		archived, err := s.archiveStale(ctx, rep, now)
		if err != nil {
			return err
		}
		written = append(written, archived...)
	}
	if len(written) > 0 {
		if err := s.st.Mem().Save(ctx, written...); err != nil {
			return err
		}
		s.wrote(ctx, 1, written, nil, nil)
	}
	if err := s.prune(ctx, rep.Pruned); err != nil {
		return err
	}
	retention := o.Retention
	n, err := s.st.Mem().PurgeTrash(ctx, time.Now().Add(-retention))
	if err != nil {
		return err
	}
	rep.TrashPurged = n
	return s.keepConsolidationRun(ctx, *rep)
}

// proposalRows makes each merge a pending memory superseding its members
// and sets the merge's Proposal to its ID.
func (s *core) proposalRows(ctx context.Context, merges []MergeProposal, now time.Time) ([]*index.MemRow, error) {
	byID := map[string]*index.MemRow{}
	var ids []string
	for _, m := range merges {
		ids = append(ids, m.Members...)
	}
	if len(ids) > 0 {
		rows, err := s.st.Mem().Query(ctx, index.MemFilter{IDs: ids})
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			byID[r.ID] = r
		}
	}
	var written []*index.MemRow
	for i := range merges {
		row := mergedRow(merges[i], byID, now)
		merges[i].Proposal = row.ID
		written = append(written, row)
	}
	return written, nil
}

// mergedRow is merge m's proposal: its content, the highest importance,
// the tags and sources of every member still there, and a supersedes
// link to each.
func mergedRow(m MergeProposal, byID map[string]*index.MemRow, now time.Time) *index.MemRow {
	row := &index.MemRow{ID: newID("m-"), Project: m.Project, Type: m.Type, Content: m.Content, Status: Pending,
		Origin: OriginConsolidate, Created: now, Updated: now, Tags: []string{}, SourceUUIDs: []string{}}
	for _, id := range m.Members {
		r := byID[id]
		if r == nil {
			continue
		}
		row.Importance = max(row.Importance, r.Importance)
		row.Tags = cleanTags(append(row.Tags, r.Tags...))
		row.SourceUUIDs = uniq(append(row.SourceUUIDs, r.SourceUUIDs...))
		if row.SourceSession == "" {
			row.SourceSession = r.SourceSession
		}
		row.Links = append(row.Links, index.MemLink{Kind: Supersedes, Target: id})
	}
	return row
}

// archiveStale archives the stale memories still approved, noting in rep
// when each was last updated (undo restores it), and returns them to save.
func (s *core) archiveStale(ctx context.Context, rep *ConsolidateReport, now time.Time) ([]*index.MemRow, error) {
	rows, err := s.st.Mem().Query(ctx, index.MemFilter{IDs: staleIDs(rep.Stale)})
	if err != nil {
		return nil, err
	}
	var archived []*index.MemRow
	for _, r := range rows {
		if r.Status == Approved {
			if rep.ArchivedUpdated == nil {
				rep.ArchivedUpdated = map[string]time.Time{}
			}
			rep.ArchivedUpdated[r.ID] = r.Updated
			r.Status = Archived
			r.Updated = now
			archived = append(archived, r)
			rep.Archived = append(rep.Archived, r.ID)
		}
	}
	return archived, nil
}

// prune moves the pruned memories to the trash, keeping their
// fingerprints; one gone meanwhile is passed over.
func (s *core) prune(ctx context.Context, pruned []PrunedMemory) error {
	for _, p := range pruned {
		r, err := s.row(ctx, p.ID)
		if err != nil {
			continue // gone meanwhile
		}
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if err := s.keepFingerprint(ctx, r); err != nil {
			return err
		}
		if err := s.st.Mem().Delete(ctx, r.ID, b); err != nil {
			return err
		}
		s.wrote(ctx, 1, nil, nil, []string{r.ID})
	}
	return nil
}

// keepConsolidationRun adds rep to the runs kept for undo, the latest
// keepRuns.
func (s *core) keepConsolidationRun(ctx context.Context, rep ConsolidateReport) error {
	runs, err := s.consolidationRuns(ctx)
	if err != nil {
		runs = nil // an unreadable record is replaced, not kept failing every run
	}
	runs = append(runs, rep)
	if len(runs) > keepRuns {
		runs = runs[len(runs)-keepRuns:]
	}
	return s.saveConsolidationRuns(ctx, runs)
}

// consolidationRuns reads the runs kept for undo, oldest first.
func (s *core) consolidationRuns(ctx context.Context) ([]ConsolidateReport, error) {
	b, ok, err := s.st.Setting(ctx, consolidateKey)
	if err != nil || !ok || len(b) == 0 {
		return nil, err
	}
	var runs []ConsolidateReport
	if b[0] == '{' { // one report: an earlier build's record
		var one ConsolidateReport
		if err := json.Unmarshal(b, &one); err != nil {
			return nil, fmt.Errorf("the consolidation record is unreadable (%w)", err)
		}
		return []ConsolidateReport{one}, nil
	}
	if err := json.Unmarshal(b, &runs); err != nil {
		return nil, fmt.Errorf("the consolidation record is unreadable (%w)", err)
	}
	return runs, nil
}

func (s *core) saveConsolidationRuns(ctx context.Context, runs []ConsolidateReport) error {
	if len(runs) == 0 {
		return s.st.SetSetting(ctx, consolidateKey, nil)
	}
	b, err := json.Marshal(runs)
	if err != nil {
		return err
	}
	return s.st.SetSetting(ctx, consolidateKey, b)
}

// undoTarget is the run ConsolidateUndo reverts: the latest run a person
// made, else the latest of the hooks' daily runs.
func undoTarget(runs []ConsolidateReport) int {
	for i := len(runs) - 1; i >= 0; i-- {
		if !runs[i].Auto {
			return i
		}
	}
	return len(runs) - 1
}

func staleIDs(st []StaleMemory) []string {
	out := make([]string, len(st))
	for i, m := range st {
		out[i] = m.ID
	}
	return out
}

// supersededByPending reports whether a pending memory proposes to
// supersede id (its undo needs it).
func supersededByPending(rows []*index.MemRow, id string) bool {
	for _, r := range rows {
		if r.Status == Pending {
			for _, l := range r.Links {
				if l.Kind == Supersedes && l.Target == id {
					return true
				}
			}
		}
	}
	return false
}

// mergeClusters finds clusters of overlapping live memories of one project
// and type. Each cluster is a seed (the best memory left: approved first,
// then most important, most used, newest) and the memories similar enough
// to it; no chaining, so a cluster never drifts from its seed. Memories
// already proposed for a merge (by a pending or rejected proposal) are
// left out: a rejected proposal is not made again.
func (s *core) mergeClusters(ctx context.Context, rows []*index.MemRow) []MergeProposal {
	live, proposed := liveAndProposed(rows)
	cl := newClusterer(s.clusterCache(ctx, live), proposed)
	var out []MergeProposal
	for i, seed := range cl.mc.items {
		if cl.taken[i] || proposed[seed.row.ID] || len(seed.toks) == 0 {
			continue
		}
		cands := cl.candidates(i, cl.overlaps(seed))
		if len(cands) == 0 {
			continue
		}
		out = append(out, cl.take(i, cands))
	}
	return out
}

// liveAndProposed splits rows into the live memories (approved or
// pending, best first) and the set of memories a pending or rejected
// merge proposal already names.
func liveAndProposed(rows []*index.MemRow) ([]*index.MemRow, map[string]bool) {
	proposed := map[string]bool{}
	var live []*index.MemRow
	for _, r := range rows {
		if r.Origin == OriginConsolidate && (r.Status == Pending || r.Status == Rejected) {
			for _, l := range r.Links {
				if l.Kind == Supersedes {
					proposed[l.Target] = true
				}
			}
			continue
		}
		if r.Status == Approved || r.Status == Pending {
			live = append(live, r)
		}
	}
	sort.SliceStable(live, func(i, j int) bool { return better(live[i], live[j]) })
	return live, proposed
}

// clusterCache holds the live memories with their vectors when an
// embedder is at hand (without one, or when the vectors cannot be read,
// clusters rest on shared words alone).
func (s *core) clusterCache(ctx context.Context, live []*index.MemRow) *memCache {
	mc := &memCache{byID: make(map[string]*cached, len(live)), post: map[uint32][]int32{}}
	for _, r := range live {
		mc.add(newCached(r))
	}
	if m := s.embedder(ctx); m != nil {
		if err := s.attachVectors(ctx, mc, m); err != nil {
			mc.model = nil
		}
	}
	return mc
}

// clusterer grows merge clusters over a memCache, one seed at a time.
type clusterer struct {
	mc       *memCache
	proposed map[string]bool
	idf      map[uint32]float64 // token -> weight by rarity
	mass     []float64          // item -> sum of its tokens' weights
	shared   []float64          // item -> weight shared with the seed (scratch)
	taken    []bool             // item -> already in a cluster
}

// clusterCand is a memory close enough to a seed, with how close.
type clusterCand struct {
	i     int32
	score float64
}

// newClusterer weighs words by rarity (idf): two memories of one project
// share its common vocabulary ("service", "test", "fails"); paraphrases
// of one fact share its rare words (names, flags, paths).
func newClusterer(mc *memCache, proposed map[string]bool) *clusterer {
	idf := make(map[uint32]float64, len(mc.post))
	for t, ps := range mc.post {
		idf[t] = math.Log(1 + float64(len(mc.items))/float64(len(ps)))
	}
	mass := make([]float64, len(mc.items))
	for i, c := range mc.items {
		for _, t := range c.toks {
			mass[i] += idf[t]
		}
	}
	return &clusterer{mc: mc, proposed: proposed, idf: idf, mass: mass,
		shared: make([]float64, len(mc.items)), taken: make([]bool, len(mc.items))}
}

// overlaps adds up, in cl.shared, the weight each memory shares with the
// seed, and returns the memories sharing any word.
func (cl *clusterer) overlaps(seed *cached) []int32 {
	var touched []int32
	for _, t := range seed.toks {
		w := cl.idf[t]
		for _, j := range cl.mc.post[t] {
			if cl.shared[j] == 0 {
				touched = append(touched, j)
			}
			cl.shared[j] += w
		}
	}
	return touched
}

// candidates are the touched memories that may join seed i's cluster,
// closest first and at most consMaxCluster-1; it clears cl.shared.
func (cl *clusterer) candidates(i int, touched []int32) []clusterCand {
	seed := cl.mc.items[i]
	var cands []clusterCand
	for _, j := range touched {
		sw := cl.shared[j]
		cl.shared[j] = 0
		c := cl.mc.items[j]
		if int(j) == i || !cl.free(j) || !sameKind(seed, c) {
			continue
		}
		if score, ok := cl.similarity(seed, c, sw/(cl.mass[i]+cl.mass[j]-sw)); ok {
			cands = append(cands, clusterCand{j, score})
		}
	}
	sort.Slice(cands, func(a, b int) bool { return cands[a].score > cands[b].score })
	if len(cands) > consMaxCluster-1 {
		cands = cands[:consMaxCluster-1]
	}
	return cands
}

// free reports whether memory j may still join a cluster: not taken by
// one, nor proposed for a merge already.
func (cl *clusterer) free(j int32) bool {
	return !cl.taken[j] && !cl.proposed[cl.mc.items[j].row.ID]
}

// sameKind reports whether c could be merged with seed: the same
// project, type and polarity.
func sameKind(seed, c *cached) bool {
	return c.row.Project == seed.row.Project && c.row.Type == seed.row.Type && c.neg == seed.neg
}

// similarity scores c against seed: the weighted Jaccard jac when it is
// high enough, else the vectors' cosine when enough words are shared and
// both memories have a vector.
func (cl *clusterer) similarity(seed, c *cached, jac float64) (float64, bool) {
	if jac < consJaccard {
		if jac < consCosineWords || cl.mc.model == nil {
			return 0, false
		}
		a, b := cl.mc.vecOf(seed), cl.mc.vecOf(c)
		if a == nil || b == nil {
			return 0, false
		}
		cos := float64(embed.Dot(a, b))
		if cos < consCosine {
			return 0, false
		}
		return cos, true
	}
	return jac, true
}

// take makes seed i and its candidates one merge proposal and marks them
// taken.
func (cl *clusterer) take(i int, cands []clusterCand) MergeProposal {
	seed := cl.mc.items[i]
	p := MergeProposal{Project: seed.row.Project, Type: Type(seed.row.Type), Content: seed.row.Content, Members: []string{seed.row.ID}, Score: 1}
	cl.taken[i] = true
	for _, c := range cands {
		cl.taken[c.i] = true
		p.Members = append(p.Members, cl.mc.items[c.i].row.ID)
		p.Score = min(p.Score, c.score)
	}
	return p
}

// better orders memories for keeping: approved first, then more
// important, more used, newer.
func better(a, b *index.MemRow) bool {
	if (a.Status == Approved) != (b.Status == Approved) {
		return a.Status == Approved
	}
	if a.Importance != b.Importance {
		return a.Importance > b.Importance
	}
	if a.Used != b.Used {
		return a.Used > b.Used
	}
	return a.Updated.After(b.Updated)
}

// ErrNoConsolidation is returned by ConsolidateUndo when there is no run
// to undo.
var ErrNoConsolidation = errors.New("no consolidation to undo")

// ConsolidateUndo reverts one consolidation run — the latest a person
// made (`cairn memories consolidate`), else the latest of the hooks' daily
// runs, whose runs never take the place of a person's: its merge proposals
// still pending are deleted, what it archived is approved again with the
// time it was last updated before (its confidence as it was), and what it
// pruned is restored from the trash. Each run is undone once; undoing
// again reverts the run before.
func (s Curator) ConsolidateUndo(ctx context.Context) (ConsolidateReport, error) {
	runs, err := s.consolidationRuns(ctx)
	if err != nil {
		return ConsolidateReport{}, err
	}
	if len(runs) == 0 {
		return ConsolidateReport{}, ErrNoConsolidation
	}
	rep := runs[undoTarget(runs)]
	if err := s.revertRun(ctx, rep); err != nil {
		return rep, err
	}
	s.cache = nil
	return rep, s.forgetRun(ctx, rep)
}

// revertRun undoes what consolidation run rep did: its pending merge
// proposals go, what it archived is approved again, what it pruned comes
// back from the trash.
func (s Curator) revertRun(ctx context.Context, rep ConsolidateReport) error {
	for _, m := range rep.Merges {
		if err := s.dropProposal(ctx, m.Proposal); err != nil {
			return err
		}
	}
	for _, id := range rep.Archived {
		if err := s.unarchive(ctx, id, rep.ArchivedUpdated[id]); err != nil {
			return err
		}
	}
	for _, p := range rep.Pruned {
		if err := s.unprune(ctx, p.ID); err != nil {
			return err
		}
	}
	return nil
}

// dropProposal purges merge proposal id while it is still pending (one
// reviewed, or gone, stays as it is).
func (s Curator) dropProposal(ctx context.Context, id string) error {
	if r, err := s.row(ctx, id); err == nil && r.Status == Pending {
		return s.st.Mem().Purge(ctx, r.ID)
	}
	return nil
}

// unprune brings memory id back from the trash; one not there any more
// is left alone.
func (s Curator) unprune(ctx context.Context, id string) error {
	_, err := s.st.Mem().UndeleteID(ctx, id, func(data []byte) (*index.MemRow, error) {
		var r index.MemRow
		return &r, json.Unmarshal(data, &r)
	})
	if err != nil && !errors.Is(err, index.ErrNothingToUndo) {
		return err
	}
	return nil
}

// forgetRun removes run rep from the recorded runs, read again: a daily
// run may have added one meanwhile.
func (s Curator) forgetRun(ctx context.Context, rep ConsolidateReport) error {
	runs, err := s.consolidationRuns(ctx)
	if err != nil {
		return err
	}
	for i := range runs {
		if runs[i].At.Equal(rep.At) && runs[i].Auto == rep.Auto {
			runs = append(runs[:i], runs[i+1:]...)
			break
		}
	}
	return s.saveConsolidationRuns(ctx, runs)
}

// unarchive approves again a memory a consolidation archived, with the
// time it was last updated before (zero: now, as a record of an earlier
// build did not keep it). A memory changed since is left as it is.
func (s *core) unarchive(ctx context.Context, id string, updated time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.row(ctx, id)
	if err != nil || r.Status != Archived {
		return nil
	}
	r.Status = Approved
	if updated.IsZero() {
		updated = s.now().UTC()
	}
	r.Updated = updated
	if err := s.st.Mem().Save(ctx, r); err != nil {
		return err
	}
	s.wrote(ctx, 1, []*index.MemRow{r}, nil, nil)
	return nil
}

// AutoConsolidate is the daily run of the hooks' background work: it
// consolidates (proposing and pruning, never archiving) when the last run
// is a day old. ran is false when it was not due.
func (s Curator) AutoConsolidate(ctx context.Context) (rep ConsolidateReport, ran bool, err error) {
	runs, _ := s.consolidationRuns(ctx)
	if len(runs) > 0 && s.now().Sub(runs[len(runs)-1].At) < 24*time.Hour {
		return rep, false, nil
	}
	rep, err = s.Consolidate(ctx, ConsolidateOptions{auto: true})
	return rep, err == nil, err
}
