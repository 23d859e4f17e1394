package memories

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/index"
)

// Reviews are remembered: a fact a person rejected, merged into another
// or approved is never proposed again, from any source (the built-in
// extractor, Ollama or Claude extraction, an approved draft, /remember,
// an imported memory file), worded the same or as a near-paraphrase above
// the dedup thresholds. The one check is reviewedBefore, run by add, where
// every proposal enters the store:
//
//   - like a rejected memory: not stored (ActionSkippedRejected);
//   - like a superseded one (merged, or replaced): folded into the memory
//     that superseded it, else not stored (ActionSkippedReviewed);
//   - like an approved one: its sources are added to it
//     (ActionBumped), no new proposal;
//   - like a rejected or superseded memory that has since been deleted
//     (by hand or by consolidation): its fingerprint (the hashed content
//     words, kept at deletion) turns it away (ActionSkippedRejected).
//
// A proposal phrased the other way round ("do not use X" after "use X"
// was rejected) is a different fact: it is proposed, linked as a
// contradiction.

// ActionSkippedReviewed: the proposal repeats a fact a review replaced.
const ActionSkippedReviewed = "skipped-reviewed"

// sameFact reports whether a similar memory says the same as the
// proposal: the dedup rule's thresholds, whatever the types, and the same
// polarity.
func sameFact(m match, neg bool) bool {
	if m.c.row.ID == "" || m.c.neg != neg {
		return false
	}
	return m.jaccard >= dupJaccard || (m.cosine >= dupCosine && m.jaccard >= dupCosineWords)
}

// reviewedBefore applies the rule above to proposal n and its similar
// memories cands (best first); done is false when no review speaks
// against it.
func (s *core) reviewedBefore(ctx context.Context, mc *memCache, n *NewMemory, toks []uint32, neg bool, cands []match,
	now time.Time, dry bool, ws *writeSet) (res AddResult, done bool, err error) {
	for _, m := range cands {
		if !sameFact(m, neg) {
			continue
		}
		switch Status(m.c.row.Status) {
		case Rejected:
			return skipped(m.c.row, ActionSkippedRejected, now), true, nil
		case Approved:
			return s.bumpReviewed(ctx, m.c.row, n, now, dry, ws)
		case Superseded:
			return s.supersededReview(ctx, mc, m.c.row, n, now, dry, ws)
		}
	}
	if f := mc.deletedPrint(toks, neg, n.Project); f != nil {
		mem := Memory{ID: f.Memory, Project: f.Project, Type: f.Type, Status: f.Status, Updated: f.Created, Links: []Link{}, Tags: []string{}}
		return AddResult{Memory: &mem, Action: ActionSkippedRejected, Conflicts: []string{}}, true, nil
	}
	return AddResult{}, false, nil
}

// deletedPrint is the first fingerprint of a deleted reviewed memory (not
// live any more) in project's scope that says the same as a proposal of
// content words toks and polarity neg (their Jaccard similarity at least
// dupJaccard); nil for none, or for a proposal without words.
func (mc *memCache) deletedPrint(toks []uint32, neg bool, project string) *index.Fingerprint {
	if len(toks) == 0 {
		return nil
	}
	for i := range mc.prints {
		f := &mc.prints[i]
		if _, live := mc.byID[f.Memory]; live || f.Neg != neg || !sameScope(f.Project, project) {
			continue
		}
		shared := intersect(toks, f.Tokens)
		if float64(shared)/float64(len(toks)+len(f.Tokens)-shared) >= dupJaccard {
			return f
		}
	}
	return nil
}

// supersededReview settles proposal n repeating superseded memory r by
// what superseded it: skipped when nothing live did (reviewed) or its
// successor was rejected, else one more source of the successor.
func (s *core) supersededReview(ctx context.Context, mc *memCache, r *index.MemRow, n *NewMemory, now time.Time, dry bool, ws *writeSet) (AddResult, bool, error) {
	by := mc.supersededBy(r.ID)
	switch {
	case by == nil:
		return skipped(r, ActionSkippedReviewed, now), true, nil
	case by.Status == Rejected:
		return skipped(by, ActionSkippedRejected, now), true, nil
	}
	return s.bumpReviewed(ctx, by, n, now, dry, ws)
}

func skipped(r *index.MemRow, action string, now time.Time) AddResult {
	mem := fromRow(r, now)
	return AddResult{Memory: &mem, Action: action, Conflicts: []string{}}
}

// bumpReviewed records proposal n as one more source of the reviewed
// memory r (approved, or the live memory that superseded the one n
// repeats); pending ones take n's wording as any duplicate does.
func (s *core) bumpReviewed(ctx context.Context, r *index.MemRow, n *NewMemory, now time.Time, dry bool, ws *writeSet) (AddResult, bool, error) {
	old, action, unchanged := mergeDuplicate(match{c: &cached{row: r}, jaccard: sameJaccard}, n, now)
	if r.Status == Pending {
		old, action, unchanged = mergeDuplicate(match{c: &cached{row: r}}, n, now)
	}
	if action == "" {
		action = ActionBumped
	}
	if !dry && !unchanged {
		if err := s.saveRow(ctx, &old, nil, ws); err != nil {
			return AddResult{}, true, err
		}
	}
	if unchanged {
		old = *r
	}
	mem := fromRow(&old, now)
	return AddResult{Memory: &mem, Action: action, Conflicts: []string{}, Unchanged: unchanged}, true, nil
}

// supersededBy follows supersede links from memory id to the memory that
// replaced it last (a chain of merges), nil when none is held.
func (mc *memCache) supersededBy(id string) *index.MemRow {
	seen := map[string]bool{id: true}
	var by *index.MemRow
	for range 8 {
		next := ""
		for _, c := range mc.items {
			if c.row.ID == "" || seen[c.row.ID] {
				continue
			}
			if slices.ContainsFunc(c.row.Links, func(l index.MemLink) bool { return l.Kind == Supersedes && l.Target == id }) {
				next = c.row.ID
				by = c.row
				break
			}
		}
		if next == "" || by.Status != Superseded {
			return by
		}
		seen[next] = true
		id = next
	}
	return by
}

// keepFingerprint remembers a rejected or superseded memory about to be
// deleted, so a proposal repeating it is still turned away.
func (s *core) keepFingerprint(ctx context.Context, r *index.MemRow) error {
	switch r.Status {
	case Rejected, Superseded:
	default:
		return nil
	}
	toks, neg := tokens(r.Content + " " + strings.Join(r.Tags, " "))
	return s.st.Mem().SaveFingerprint(ctx, index.Fingerprint{Memory: r.ID, Project: r.Project, Type: r.Type, Neg: neg,
		Tokens: toks, Status: r.Status, Created: s.now().UTC()})
}
