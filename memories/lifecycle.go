package memories

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/index/embed"
	"github.com/cairn-dev/cairn/memtype"

	json "github.com/go-json-experiment/json"
)

// NewMemory is a memory to add.
type NewMemory struct {
	Project    string
	Type       Type
	Content    string
	Tags       []string
	Importance int
	// Status: "" = pending, or approved when the type is auto-approved
	// (memories.auto_approve) or, for Origin "remember", as
	// memories.remember_status says.
	Status        Status
	SourceSession string
	SourceUUIDs   []string
	Origin        string
	// Supersedes names memories this one replaces (Ollama extraction).
	Supersedes []string
	// Scope, when set, limits what the add may change (see Scope): a
	// memory of another project is never merged into or superseded, and
	// a global memory the scope does not allow is only proposed (pending).
	Scope *Scope
}

// AddResult says what Add did.
type AddResult struct {
	Memory    *Memory  `json:"memory"`
	Action    string   `json:"action"`    // added | merged | bumped | skipped-rejected
	Conflicts []string `json:"conflicts"` // ids of memories it likely contradicts
	// Unchanged is set on a bump that found nothing new to record (the
	// same sources, tags and importance): nothing was written.
	Unchanged bool `json:"unchanged,omitempty"`
}

// Add actions.
const (
	ActionAdded           = "added"
	ActionMerged          = "merged"
	ActionBumped          = "bumped"
	ActionSkippedRejected = "skipped-rejected"
)

const maxSourceUUIDs = 64

// Add stores a memory after redacting it and checking for duplicates: a
// fact a review already settled is not proposed again (review.go: a
// rejected or superseded one is skipped, an approved one bumped), a
// near-copy bumps the existing memory, a similar pending one is merged
// into it, and a likely contradiction is linked and reported.
func (s Curator) Add(ctx context.Context, n NewMemory) (AddResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.add(ctx, n, false, nil)
}

// writeSet collects the rows of several adds so they are written in one
// transaction (an extraction's proposals).
type writeSet struct {
	rows []*index.MemRow
	vecs map[string][]float32
	mc   *memCache // the cache the batch reads and updates
}

func (ws *writeSet) put(r *index.MemRow, vec []float32) {
	if vec != nil {
		if ws.vecs == nil {
			ws.vecs = map[string][]float32{}
		}
		ws.vecs[r.ID] = vec
	}
	for i, x := range ws.rows {
		if x.ID == r.ID {
			ws.rows[i] = r
			return
		}
	}
	ws.rows = append(ws.rows, r)
}

// flush writes what ws collected; the cache already holds it.
func (s *core) flush(ctx context.Context, ws *writeSet) error {
	if len(ws.rows) == 0 {
		return nil
	}
	if err := s.st.Mem().Save(ctx, ws.rows...); err != nil {
		s.cache = nil
		return err
	}
	s.wrote(ctx, 1, nil, nil, nil)
	ws.rows, ws.vecs = nil, nil
	return nil
}

func (s *core) validate(n *NewMemory) error {
	if n.Type == "" {
		n.Type = Fact
	}
	t, err := ParseType(string(n.Type))
	if err != nil {
		return err
	}
	n.Type = t
	n.Content = cut(clean(n.Content), MaxContent)
	if n.Content == "" {
		return errors.New("memory content is empty")
	}
	if n.Importance == 0 {
		n.Importance = 3
	}
	if err := checkImportance(n.Importance); err != nil {
		return err
	}
	n.Tags = cleanTags(n.Tags)
	if n.Origin == "" {
		n.Origin = OriginManual
	}
	if err := s.defaultStatus(n); err != nil {
		return err
	}
	n.SourceUUIDs = uniq(n.SourceUUIDs)
	return nil
}

// checkImportance rejects an importance outside 1-5.
func checkImportance(imp int) error {
	if imp < 1 || imp > 5 {
		return fmt.Errorf("importance %d is out of range: use 1 (minor) to 5 (critical)", imp)
	}
	return nil
}

// defaultStatus checks n's status or, when it has none, sets the one its
// origin and type start with.
func (s *core) defaultStatus(n *NewMemory) error {
	if n.Status != "" {
		_, err := ParseStatus(string(n.Status))
		return err
	}
	switch {
	case n.Origin == OriginRemember && Status(s.cfg.Memories.RememberStatus) == Approved:
		n.Status = Approved
	case s.autoApproved(n.Type):
		n.Status = Approved
	default:
		n.Status = Pending
	}
	return nil
}

func uniq(v []string) []string {
	out := []string{}
	for _, x := range v {
		if x != "" && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func (s *core) vectorOf(ctx context.Context, text string) []float32 {
	if m := s.embedder(ctx); m != nil {
		if v, ok := m.EmbedText(embed.Document, text); ok {
			return v
		}
	}
	return nil
}

// add is Add under s.mu; dry computes the result without writing. With a
// write set, the rows go to it (and to the cache, so the next add sees
// them) and the caller flushes it.
func (s *core) add(ctx context.Context, n NewMemory, dry bool, ws *writeSet) (AddResult, error) {
	if err := n.Scope.checkNew(&n); err != nil {
		return AddResult{}, err
	}
	if err := s.validate(&n); err != nil {
		return AddResult{}, err
	}
	mc, err := s.addCache(ctx, n.Project, ws)
	if err != nil {
		return AddResult{}, err
	}
	now := s.now().UTC()
	cands, vec, neg := s.similarTo(ctx, mc, &n)
	if n.Scope != nil {
		cands = slices.DeleteFunc(cands, func(m match) bool { return !n.Scope.allows(m.c.row.Project) })
	}
	toks, _ := tokens(n.Content + " " + strings.Join(n.Tags, " "))
	if res, done, err := s.reviewedBefore(ctx, mc, &n, toks, neg, cands, now, dry, ws); done {
		return res, err
	}
	if res, done, err := s.addToDuplicate(ctx, &n, cands, vec, now, dry, ws); done {
		return res, err
	}
	mem, conflicts := newMemory(n, now, mc, cands, neg)
	res := AddResult{Memory: &mem, Action: ActionAdded, Conflicts: conflicts}
	if dry {
		return res, nil
	}
	if err := s.saveRow(ctx, toRow(&mem), vec, ws); err != nil {
		return AddResult{}, err
	}
	return res, s.supersedeOnAdd(ctx, &mem, now, ws)
}

// supersedeOnAdd makes the memories a newly added approved mem supersedes
// superseded: in the write set when there is one, else at once.
func (s *core) supersedeOnAdd(ctx context.Context, mem *Memory, now time.Time, ws *writeSet) error {
	if mem.Status != Approved {
		return nil
	}
	if ws != nil {
		ws.supersede(mem.Links, now)
		return nil
	}
	return s.applySupersedes(ctx, mem)
}

// addCache is the cache a memory of project is compared with: that
// project's memories and global ones (a global memory's: every memory). A
// batch owns its cache until it flushes.
func (s *core) addCache(ctx context.Context, project string, ws *writeSet) (*memCache, error) {
	if ws != nil && ws.mc != nil && (ws.mc.project == "" || ws.mc.project == project) {
		return ws.mc, nil
	}
	mc, err := s.loadCache(ctx, false, project)
	if err != nil {
		return nil, err
	}
	if ws != nil {
		ws.mc = mc
	}
	return mc, nil
}

// similarTo returns the memories of mc similar to n (best first), n's
// vector, and whether n is negated.
func (s *core) similarTo(ctx context.Context, mc *memCache, n *NewMemory) (cands []match, vec []float32, neg bool) {
	toks, neg := tokens(n.Content + " " + strings.Join(n.Tags, " "))
	vec = s.vectorOf(ctx, n.Content)
	if mc.embedder == "" {
		if m := s.embedder(ctx); m != nil {
			mc.embedder = m.ID()
		}
	}
	return mc.similar(toks, vec, n.Project, "", n.Type, 12), vec, neg
}

// liveDuplicate is the best duplicate of n among cands (best first),
// skipping superseded and archived ones and those naming other code
// (namesDiffer); nil when none.
func liveDuplicate(cands []match, n *NewMemory) *match {
	for i := range cands {
		m := &cands[i]
		if !m.isDuplicate(m.c.row.Type == n.Type) || namesDiffer(n.Content, m.c.row.Content) {
			continue
		}
		switch Status(m.c.row.Status) {
		case Superseded, Archived:
			continue
		}
		return m
	}
	return nil
}

// addToDuplicate handles n when it duplicates a stored memory: a rejected
// one skips it, a near-copy is bumped, a pending one merged. done is false
// when n is still to be added: no duplicate, or an approved one said
// differently, which n then supersedes (added to n.Supersedes).
func (s *core) addToDuplicate(ctx context.Context, n *NewMemory, cands []match, vec []float32, now time.Time, dry bool, ws *writeSet) (res AddResult, done bool, err error) {
	d := liveDuplicate(cands, n)
	if d == nil {
		return AddResult{}, false, nil
	}
	if Status(d.c.row.Status) == Rejected {
		old := *d.c.row
		mem := fromRow(&old, now)
		return AddResult{Memory: &mem, Action: ActionSkippedRejected, Conflicts: []string{}}, true, nil
	}
	old, action, unchanged := mergeDuplicate(*d, n, now)
	switch {
	case unchanged:
		// Seen before, nothing new (a memory file imported again): no
		// write, and its age stays.
		mem := fromRow(d.c.row, now)
		return AddResult{Memory: &mem, Action: ActionBumped, Conflicts: []string{}, Unchanged: true}, true, nil
	case action == "":
		n.Supersedes = append(n.Supersedes, old.ID)
		return AddResult{}, false, nil
	}
	if !dry {
		var v []float32
		if action == ActionMerged {
			v = vec
		}
		if err := s.saveRow(ctx, &old, v, ws); err != nil {
			return AddResult{}, true, err
		}
	}
	mem := fromRow(&old, now)
	return AddResult{Memory: &mem, Action: action, Conflicts: []string{}}, true, nil
}

// mergeDuplicate folds n into a copy of its duplicate d: d gains n's
// sources, tags and the higher importance and, when still pending, n's
// newer wording unless it says much less. The action is ActionBumped for
// the same memory again (unchanged when that records nothing new),
// ActionMerged for a pending one, and "" for an approved memory said
// differently, which n should replace rather than change.
func mergeDuplicate(d match, n *NewMemory, now time.Time) (old index.MemRow, action string, unchanged bool) {
	before := d.c.row
	old = *before
	old.SourceUUIDs = uniq(append(slices.Clone(old.SourceUUIDs), n.SourceUUIDs...))
	if len(old.SourceUUIDs) > maxSourceUUIDs {
		old.SourceUUIDs = old.SourceUUIDs[len(old.SourceUUIDs)-maxSourceUUIDs:]
	}
	old.Tags = cleanTags(append(slices.Clone(old.Tags), n.Tags...))
	old.Importance = max(old.Importance, n.Importance)
	old.Updated = now
	switch {
	case d.jaccard >= sameJaccard || normalized(old.Content) == normalized(n.Content):
		unchanged = slices.Equal(old.SourceUUIDs, before.SourceUUIDs) && slices.Equal(old.Tags, before.Tags) && old.Importance == before.Importance
		return old, ActionBumped, unchanged
	case old.Status == Pending:
		if len(n.Content)*5 >= len(old.Content)*4 {
			old.Content = n.Content
			if n.SourceSession != "" {
				old.SourceSession = n.SourceSession
			}
		}
		return old, ActionMerged, false
	}
	return old, "", false
}

// newMemory is the memory n adds, linked to what it supersedes (of the
// memories mc holds), contradicts (returned as conflicts too) and, up to
// five links in all, relates to.
func newMemory(n NewMemory, now time.Time, mc *memCache, cands []match, neg bool) (Memory, []string) {
	mem := Memory{ID: newID("m-"), Project: n.Project, Type: n.Type, Content: n.Content, Tags: n.Tags,
		Importance: n.Importance, Status: n.Status, SourceSession: n.SourceSession, SourceUUIDs: n.SourceUUIDs,
		Origin: n.Origin, Created: now, Updated: now, Links: []Link{}}
	mem.Links = append(mem.Links, supersedeLinks(n.Supersedes, mc)...)
	conflicts := []string{}
	for _, m := range cands {
		id := m.c.row.ID
		if !linkable(m) || memtype.HasLink(mem.Links, id) {
			continue
		}
		if m.c.row.Type == n.Type && m.c.neg != neg && m.jaccard >= relatedJaccard {
			mem.Links = append(mem.Links, Link{Kind: Contradicts, Target: id})
			conflicts = append(conflicts, id)
			continue
		}
		if len(mem.Links) < 5 {
			mem.Links = append(mem.Links, Link{Kind: Related, Target: id})
		}
	}
	mem.Confidence = confidence(mem.Type, mem.Updated, now)
	return mem, conflicts
}

// supersedeLinks link to the memories of ids that mc holds, each once.
func supersedeLinks(ids []string, mc *memCache) []Link {
	var links []Link
	for _, id := range uniq(ids) {
		if _, ok := mc.byID[id]; ok {
			links = append(links, Link{Kind: Supersedes, Target: id})
		}
	}
	return links
}

// linkable reports whether a new memory may link to the similar memory m:
// a live one, close enough.
func linkable(m match) bool {
	switch Status(m.c.row.Status) {
	case Rejected, Superseded, Archived:
		return false
	}
	if m.c.row.ID == "" {
		return false
	}
	return m.jaccard >= relatedJaccard || m.cosine >= dupCosine
}

// saveRow stores row and its vector: at once, or, with a write set, in it
// and its cache.
func (s *core) saveRow(ctx context.Context, row *index.MemRow, vec []float32, ws *writeSet) error {
	if ws != nil {
		ws.put(row, vec)
		ws.mc.put(row, vec)
		return nil
	}
	if err := s.st.Mem().Save(ctx, row); err != nil {
		return err
	}
	var vecs map[string][]float32
	if vec != nil {
		vecs = map[string][]float32{row.ID: vec}
	}
	s.wrote(ctx, 1, []*index.MemRow{row}, vecs, nil)
	return nil
}

// supersede marks, in the write set and its cache, the approved or pending
// memories that links name as superseded.
func (ws *writeSet) supersede(links []Link, now time.Time) {
	for _, l := range links {
		if l.Kind != Supersedes {
			continue
		}
		c := ws.mc.byID[l.Target]
		if c == nil || (c.row.Status != Approved && c.row.Status != Pending) {
			continue
		}
		old := *c.row
		old.Status, old.Updated = Superseded, now
		ws.put(&old, nil)
		ws.mc.put(&old, nil)
	}
}

func normalized(s string) string {
	return strings.Join(words(s), " ")
}

// applySupersedes marks the memories an approved memory supersedes.
func (s *core) applySupersedes(ctx context.Context, m *Memory) error {
	ids := supersededIDs(m.Links)
	if len(ids) == 0 {
		return nil
	}
	rows, err := s.st.Mem().Query(ctx, index.MemFilter{IDs: ids})
	if err != nil {
		return err
	}
	var changed []*index.MemRow
	for _, r := range rows {
		if r.Status == Approved || r.Status == Pending {
			r.Status = Superseded
			r.Updated = s.now().UTC()
			changed = append(changed, r)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	if err := s.st.Mem().Save(ctx, changed...); err != nil {
		return err
	}
	s.wrote(ctx, 1, changed, nil, nil)
	return nil
}

// supersededIDs are the targets of links that supersede.
func supersededIDs(links []Link) []string {
	var ids []string
	for _, l := range links {
		if l.Kind == Supersedes {
			ids = append(ids, l.Target)
		}
	}
	return ids
}

func (s *core) row(ctx context.Context, idPrefix string) (*index.MemRow, error) {
	id, err := s.Resolve(ctx, idPrefix)
	if err != nil {
		return nil, err
	}
	rows, err := s.st.Mem().Query(ctx, index.MemFilter{IDs: []string{id}})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("memory %s: %w", idPrefix, ErrNotFound)
	}
	return rows[0], nil
}

// SetStatus approves, rejects or archives a memory. Approving a memory
// that supersedes others marks them superseded.
func (s Curator) SetStatus(ctx context.Context, id string, st Status) (*Memory, error) {
	if _, err := ParseStatus(string(st)); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.row(ctx, id)
	if err != nil {
		return nil, err
	}
	r.Status = st
	r.Updated = s.now().UTC()
	if err := s.st.Mem().Save(ctx, r); err != nil {
		return nil, err
	}
	s.wrote(ctx, 1, []*index.MemRow{r}, nil, nil)
	m := fromRow(r, s.now())
	if st == Approved {
		if err := s.applySupersedes(ctx, &m); err != nil {
			return nil, err
		}
	}
	return &m, nil
}

// Update changes a memory's fields; nil fields stay.
type Update struct {
	Content    *string
	Type       *Type
	Importance *int
	Tags       *[]string
	Project    *string
}

// Update edits a memory.
func (s Curator) Update(ctx context.Context, id string, u Update) (*Memory, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.row(ctx, id)
	if err != nil {
		return nil, err
	}
	vecs, err := s.applyUpdate(ctx, r, u)
	if err != nil {
		return nil, err
	}
	r.Updated = s.now().UTC()
	if err := s.st.Mem().Save(ctx, r); err != nil {
		return nil, err
	}
	s.wrote(ctx, 1, []*index.MemRow{r}, vecs, nil)
	m := fromRow(r, s.now())
	return &m, nil
}

// applyUpdate sets u's fields on r, checked, and returns r's new vector
// when its content changed.
func (s *core) applyUpdate(ctx context.Context, r *index.MemRow, u Update) (map[string][]float32, error) {
	var vecs map[string][]float32
	if u.Content != nil {
		var err error
		if vecs, err = s.updateContent(ctx, r, *u.Content); err != nil {
			return nil, err
		}
	}
	if u.Type != nil {
		t, err := ParseType(string(*u.Type))
		if err != nil {
			return nil, err
		}
		r.Type = t
	}
	if u.Importance != nil {
		if err := checkImportance(*u.Importance); err != nil {
			return nil, err
		}
		r.Importance = *u.Importance
	}
	if u.Tags != nil {
		r.Tags = cleanTags(*u.Tags)
	}
	if u.Project != nil {
		r.Project = strings.TrimSpace(*u.Project)
	}
	return vecs, nil
}

// updateContent sets r's content (cleaned, not empty) and returns its new
// vector, if any.
func (s *core) updateContent(ctx context.Context, r *index.MemRow, content string) (map[string][]float32, error) {
	c := cut(clean(content), MaxContent)
	if c == "" {
		return nil, fmt.Errorf("memory %s: the new content is empty (use `cairn memories rm %s` to delete it)", r.ID, r.ID)
	}
	r.Content = c
	if v := s.vectorOf(ctx, c); v != nil {
		return map[string][]float32{r.ID: v}, nil
	}
	return nil, nil
}

// Delete removes a memory; Undo brings back the latest deletion.
func (s Curator) Delete(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.row(ctx, id)
	if err != nil {
		return err
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
	return nil
}

// Undo restores the most recently deleted memory.
func (s Curator) Undo(ctx context.Context) (*Memory, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.st.Mem().Undelete(ctx, func(data []byte) (*index.MemRow, error) {
		var r index.MemRow
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("the deleted memory kept for undo is unreadable (%w)", err)
		}
		return &r, nil
	})
	if err != nil {
		return nil, err
	}
	s.cache = nil
	m := fromRow(r, s.now())
	return &m, nil
}

// Merge folds other into keep: keep gains other's sources, tags and the
// higher importance and supersedes it; other becomes superseded.
func (s Curator) Merge(ctx context.Context, keepID, otherID string) (*Memory, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keep, err := s.row(ctx, keepID)
	if err != nil {
		return nil, err
	}
	other, err := s.row(ctx, otherID)
	if err != nil {
		return nil, err
	}
	if keep.ID == other.ID {
		return nil, fmt.Errorf("cannot merge memory %s into itself", keep.ID)
	}
	now := s.now().UTC()
	keep.SourceUUIDs = uniq(append(keep.SourceUUIDs, other.SourceUUIDs...))
	keep.Tags = cleanTags(append(keep.Tags, other.Tags...))
	keep.Importance = max(keep.Importance, other.Importance)
	keep.AccessCount += other.AccessCount
	if !memtype.HasLink(keep.Links, other.ID, Supersedes) {
		keep.Links = append(keep.Links, index.MemLink{Kind: Supersedes, Target: other.ID})
	}
	keep.Updated = now
	other.Status = Superseded
	other.Updated = now
	if err := s.st.Mem().Save(ctx, keep, other); err != nil {
		return nil, err
	}
	s.wrote(ctx, 1, []*index.MemRow{keep, other}, nil, nil)
	m := fromRow(keep, now)
	return &m, nil
}
