package memories

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/index/embed"

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
// near-copy bumps the existing memory, a similar pending one is merged
// into it, a similar approved one is superseded by the new (pending)
// memory once that is approved, a rejected one is never proposed again,
// and a likely contradiction is linked and reported.
func (s *Service) Add(ctx context.Context, n NewMemory) (AddResult, error) {
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
func (s *Service) flush(ctx context.Context, ws *writeSet) error {
	if len(ws.rows) == 0 {
		return nil
	}
	if err := s.st.MemSave(ctx, ws.rows...); err != nil {
		s.cache = nil
		return err
	}
	s.wrote(ctx, 1, nil, nil, nil)
	ws.rows, ws.vecs = nil, nil
	return nil
}

func (s *Service) validate(n *NewMemory) error {
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
	if n.Importance < 1 || n.Importance > 5 {
		return fmt.Errorf("importance %d is out of range: use 1 (minor) to 5 (critical)", n.Importance)
	}
	n.Tags = cleanTags(n.Tags)
	if n.Origin == "" {
		n.Origin = OriginManual
	}
	if n.Status == "" {
		switch {
		case n.Origin == OriginRemember && s.cfg.Memories.RememberStatus == string(Approved):
			n.Status = Approved
		case s.autoApproved(n.Type):
			n.Status = Approved
		default:
			n.Status = Pending
		}
	} else if _, err := ParseStatus(string(n.Status)); err != nil {
		return err
	}
	n.SourceUUIDs = uniq(n.SourceUUIDs)
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

func (s *Service) vectorOf(text string) []float32 {
	if m := s.embedder(); m != nil {
		if v, ok := m.EmbedText(embed.Document, text); ok {
			return v
		}
	}
	return nil
}

// add is Add under s.mu; dry computes the result without writing. With a
// write set, the rows go to it (and to the cache, so the next add sees
// them) and the caller flushes it.
func (s *Service) add(ctx context.Context, n NewMemory, dry bool, ws *writeSet) (AddResult, error) {
	if err := s.validate(&n); err != nil {
		return AddResult{}, err
	}
	// A project's memory is compared with that project's and global ones
	// only; a global one with every memory.
	var mc *memCache
	if ws != nil && ws.mc != nil && (ws.mc.project == "" || ws.mc.project == n.Project) {
		mc = ws.mc // a batch owns the cache until it flushes
	} else {
		var err error
		if mc, err = s.loadCache(ctx, false, n.Project); err != nil {
			return AddResult{}, err
		}
		if ws != nil {
			ws.mc = mc
		}
	}
	now := s.now().UTC()
	toks, neg := tokens(n.Content + " " + strings.Join(n.Tags, " "))
	vec := s.vectorOf(n.Content)
	if mc.embedder == "" {
		if m := s.embedder(); m != nil {
			mc.embedder = m.ID()
		}
	}
	cands := mc.similar(toks, vec, n.Project, "", string(n.Type), 12)
	res := AddResult{Conflicts: []string{}}

	// A duplicate of an existing memory: the best one of the same type.
	for _, m := range cands {
		sameType := m.c.row.Type == string(n.Type)
		if !m.isDuplicate(sameType) {
			continue
		}
		old := *m.c.row
		switch Status(old.Status) {
		case Rejected:
			mem := fromRow(&old, now)
			return AddResult{Memory: &mem, Action: ActionSkippedRejected, Conflicts: []string{}}, nil
		case Superseded, Archived:
			continue
		}
		before := m.c.row
		old.SourceUUIDs = append(slices.Clone(old.SourceUUIDs), n.SourceUUIDs...)
		old.SourceUUIDs = uniq(old.SourceUUIDs)
		if len(old.SourceUUIDs) > maxSourceUUIDs {
			old.SourceUUIDs = old.SourceUUIDs[len(old.SourceUUIDs)-maxSourceUUIDs:]
		}
		old.Tags = cleanTags(append(slices.Clone(old.Tags), n.Tags...))
		old.Importance = max(old.Importance, n.Importance)
		old.Updated = now
		action := ActionBumped
		switch {
		case m.jaccard >= sameJaccard || normalized(old.Content) == normalized(n.Content):
			if slices.Equal(old.SourceUUIDs, before.SourceUUIDs) && slices.Equal(old.Tags, before.Tags) && old.Importance == before.Importance {
				// Seen before, nothing new (a memory file imported
				// again): no write, and its age stays.
				mem := fromRow(before, now)
				return AddResult{Memory: &mem, Action: ActionBumped, Conflicts: []string{}, Unchanged: true}, nil
			}
		case Status(old.Status) == Pending:
			// The newer wording of a fact still in review replaces the
			// older, unless it says much less.
			action = ActionMerged
			if len(n.Content)*5 >= len(old.Content)*4 {
				old.Content = n.Content
				if n.SourceSession != "" {
					old.SourceSession = n.SourceSession
				}
			}
		default:
			// An approved memory said differently: propose the new wording
			// as its replacement.
			n.Supersedes = append(n.Supersedes, old.ID)
			action = ""
		}
		if action == "" {
			break
		}
		if !dry {
			var v []float32
			if action == ActionMerged {
				v = vec
			}
			if ws != nil {
				ws.put(&old, v)
				mc.put(&old, v)
			} else {
				if err := s.st.MemSave(ctx, &old); err != nil {
					return AddResult{}, err
				}
				s.wrote(ctx, 1, []*index.MemRow{&old}, map[string][]float32{old.ID: v}, nil)
			}
		}
		mem := fromRow(&old, now)
		res.Memory, res.Action = &mem, action
		return res, nil
	}

	mem := Memory{ID: newID("m-"), Project: n.Project, Type: n.Type, Content: n.Content, Tags: n.Tags,
		Importance: n.Importance, Status: n.Status, SourceSession: n.SourceSession, SourceUUIDs: n.SourceUUIDs,
		Origin: n.Origin, Created: now, Updated: now, Links: []Link{}}
	for _, id := range uniq(n.Supersedes) {
		if _, ok := mc.byID[id]; ok {
			mem.Links = append(mem.Links, Link{Kind: Supersedes, Target: id})
		}
	}
	for _, m := range cands {
		st := Status(m.c.row.Status)
		if st == Rejected || st == Superseded || st == Archived || m.c.row.ID == "" || hasLink(mem.Links, m.c.row.ID) {
			continue
		}
		if m.jaccard < relatedJaccard && m.cosine < dupCosine {
			continue
		}
		if m.c.row.Type == string(n.Type) && m.c.neg != neg && m.jaccard >= relatedJaccard {
			mem.Links = append(mem.Links, Link{Kind: Contradicts, Target: m.c.row.ID})
			res.Conflicts = append(res.Conflicts, m.c.row.ID)
			continue
		}
		if len(mem.Links) < 5 {
			mem.Links = append(mem.Links, Link{Kind: Related, Target: m.c.row.ID})
		}
	}
	mem.Confidence = confidence(mem.Type, mem.Updated, now)
	res.Memory, res.Action = &mem, ActionAdded
	if dry {
		return res, nil
	}
	row := toRow(&mem)
	if ws != nil {
		ws.put(row, vec)
		mc.put(row, vec)
		if mem.Status == Approved {
			for _, l := range mem.Links {
				if c := mc.byID[l.Target]; c != nil && l.Kind == Supersedes &&
					(c.row.Status == string(Approved) || c.row.Status == string(Pending)) {
					old := *c.row
					old.Status, old.Updated = string(Superseded), now
					ws.put(&old, nil)
					mc.put(&old, nil)
				}
			}
		}
		return res, nil
	}
	if err := s.st.MemSave(ctx, row); err != nil {
		return AddResult{}, err
	}
	var vecs map[string][]float32
	if vec != nil {
		vecs = map[string][]float32{mem.ID: vec}
	}
	s.wrote(ctx, 1, []*index.MemRow{row}, vecs, nil)
	if mem.Status == Approved {
		if err := s.applySupersedes(ctx, &mem); err != nil {
			return res, err
		}
	}
	return res, nil
}

func hasLink(ls []Link, id string) bool {
	for _, l := range ls {
		if l.Target == id {
			return true
		}
	}
	return false
}

func normalized(s string) string {
	return strings.Join(words(s), " ")
}

// applySupersedes marks the memories an approved memory supersedes.
func (s *Service) applySupersedes(ctx context.Context, m *Memory) error {
	var ids []string
	for _, l := range m.Links {
		if l.Kind == Supersedes {
			ids = append(ids, l.Target)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := s.st.MemQuery(ctx, index.MemFilter{IDs: ids})
	if err != nil {
		return err
	}
	var changed []*index.MemRow
	for _, r := range rows {
		if r.Status == string(Approved) || r.Status == string(Pending) {
			r.Status = string(Superseded)
			r.Updated = s.now().UTC()
			changed = append(changed, r)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	if err := s.st.MemSave(ctx, changed...); err != nil {
		return err
	}
	s.wrote(ctx, 1, changed, nil, nil)
	return nil
}

func (s *Service) row(ctx context.Context, idPrefix string) (*index.MemRow, error) {
	id, err := s.Resolve(ctx, idPrefix)
	if err != nil {
		return nil, err
	}
	rows, err := s.st.MemQuery(ctx, index.MemFilter{IDs: []string{id}})
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
func (s *Service) SetStatus(ctx context.Context, id string, st Status) (*Memory, error) {
	if _, err := ParseStatus(string(st)); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.row(ctx, id)
	if err != nil {
		return nil, err
	}
	r.Status = string(st)
	r.Updated = s.now().UTC()
	if err := s.st.MemSave(ctx, r); err != nil {
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
func (s *Service) Update(ctx context.Context, id string, u Update) (*Memory, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.row(ctx, id)
	if err != nil {
		return nil, err
	}
	var vecs map[string][]float32
	if u.Content != nil {
		c := cut(clean(*u.Content), MaxContent)
		if c == "" {
			return nil, fmt.Errorf("memory %s: the new content is empty (use `cairn memories rm %s` to delete it)", r.ID, r.ID)
		}
		r.Content = c
		if v := s.vectorOf(c); v != nil {
			vecs = map[string][]float32{r.ID: v}
		}
	}
	if u.Type != nil {
		t, err := ParseType(string(*u.Type))
		if err != nil {
			return nil, err
		}
		r.Type = string(t)
	}
	if u.Importance != nil {
		if *u.Importance < 1 || *u.Importance > 5 {
			return nil, fmt.Errorf("importance %d is out of range: use 1 (minor) to 5 (critical)", *u.Importance)
		}
		r.Importance = *u.Importance
	}
	if u.Tags != nil {
		r.Tags = cleanTags(*u.Tags)
	}
	if u.Project != nil {
		r.Project = strings.TrimSpace(*u.Project)
	}
	r.Updated = s.now().UTC()
	if err := s.st.MemSave(ctx, r); err != nil {
		return nil, err
	}
	s.wrote(ctx, 1, []*index.MemRow{r}, vecs, nil)
	m := fromRow(r, s.now())
	return &m, nil
}

// Delete removes a memory; Undo brings back the latest deletion.
func (s *Service) Delete(ctx context.Context, id string) error {
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
	if err := s.st.MemDelete(ctx, r.ID, b); err != nil {
		return err
	}
	s.wrote(ctx, 1, nil, nil, []string{r.ID})
	return nil
}

// Undo restores the most recently deleted memory.
func (s *Service) Undo(ctx context.Context) (*Memory, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.st.MemUndelete(ctx, func(data []byte) (*index.MemRow, error) {
		var r index.MemRow
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("the deleted memory kept for undo is unreadable (%v)", err)
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
func (s *Service) Merge(ctx context.Context, keepID, otherID string) (*Memory, error) {
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
	if !hasMemLink(keep.Links, other.ID) {
		keep.Links = append(keep.Links, index.MemLink{Kind: string(Supersedes), Target: other.ID})
	}
	keep.Updated = now
	other.Status = string(Superseded)
	other.Updated = now
	if err := s.st.MemSave(ctx, keep, other); err != nil {
		return nil, err
	}
	s.wrote(ctx, 1, []*index.MemRow{keep, other}, nil, nil)
	m := fromRow(keep, now)
	return &m, nil
}

func hasMemLink(ls []index.MemLink, id string) bool {
	for _, l := range ls {
		if l.Target == id && l.Kind == string(Supersedes) {
			return true
		}
	}
	return false
}
