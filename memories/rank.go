package memories

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/index/embed"
)

// RankOptions tune Rank.
type RankOptions struct {
	Project   string   // the current project: its memories and global ones; "" = all
	Limit     int      // default 10
	Threshold float64  // minimum score; 0 = memories.min_relevance
	Exclude   []string // memory ids to leave out (already injected)
	Touch     bool     // count an access of each returned memory
}

// Ranked is a memory with its score.
type Ranked struct {
	Memory
	Score      float64 `json:"score"`
	Similarity float64 `json:"similarity"`
}

// lexicalWeight and vectorWeight mix the two similarity signals: shared
// words are precise; the built-in vectors add paraphrase matches.
const (
	lexicalWeight = 0.65
	vectorWeight  = 0.35
)

// Rank returns approved memories relevant to query: similarity ×
// importance/3 × recency × confidence, at or above the threshold, best first.
func (s *Service) Rank(ctx context.Context, query string, o RankOptions) ([]Ranked, error) {
	if o.Limit <= 0 {
		o.Limit = 10
	}
	if o.Threshold == 0 {
		o.Threshold = s.cfg.Memories.MinRelevance
	}
	s.mu.Lock()
	mc, err := s.loadCache(ctx, true, o.Project)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	out := s.rank(mc, query, o, func(c *cached) bool { return c.row.Status == string(Approved) })
	s.mu.Unlock()
	if o.Touch && len(out) > 0 {
		if err := s.touch(ctx, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

func (s *Service) touch(ctx context.Context, rs []Ranked) error {
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	now := s.now()
	if err := s.st.MemTouch(ctx, ids, now); err != nil {
		return err
	}
	for i := range rs {
		rs[i].AccessCount++
		rs[i].LastAccess = now
	}
	s.mu.Lock()
	s.cache = nil
	s.mu.Unlock()
	return nil
}

// weight is the summed rarity of c's words (for dens), computed once.
func (mc *memCache) weight(c *cached, n float64) float64 {
	if c.weight == 0 {
		for _, t := range c.toks {
			c.weight += math.Log(1 + n/float64(len(mc.post[t])+1))
		}
		if c.weight == 0 {
			c.weight = 1
		}
	}
	return c.weight
}

// queryTokens are the query's content words, for the lexical score.
func queryTokens(q string) []uint32 {
	t, _ := tokens(q)
	return t
}

// rank scores the memories keep accepts; callers hold s.mu.
func (s *Service) rank(mc *memCache, query string, o RankOptions, keep func(*cached) bool) []Ranked {
	now := s.now()
	qt := queryTokens(query)
	var qv []float32
	if m := s.embedder(); m != nil && mc.embedder == m.ID() {
		if v, ok := m.EmbedText(embed.Query, query); ok {
			qv = v
		}
	}
	// Lexical overlap from the postings, each word weighted by how rare it
	// is among the memories (a word every memory has says little).
	n := float64(len(mc.items)) + 1
	overlap := map[int32]float64{}
	qw := 0.0
	for _, t := range qt {
		post := mc.post[t]
		if len(post) == 0 {
			// No memory has the word: it cannot tell memories apart, and
			// a long prompt's many such words must not drown the rest.
			continue
		}
		w := math.Log(1 + n/float64(len(post)+1))
		qw += w
		for _, i := range post {
			overlap[i] += w
		}
	}
	type scored struct {
		c          *cached
		sim, score float64
	}
	var cands []scored
	consider := func(i int32, c *cached) {
		if c.row.ID == "" || !keep(c) || slices.Contains(o.Exclude, c.row.ID) {
			return
		}
		if o.Project != "" && c.row.Project != "" && c.row.Project != o.Project {
			return
		}
		lex := 0.0
		if shared := overlap[i]; shared > 0 && qw > 0 {
			// cover: how much of the query (its words that memories have)
			// the memory answers; dens: how much of the memory the query
			// is about.
			cover := min(1, shared/qw)
			dens := min(1, shared/mc.weight(c, n))
			lex = 0.75*cover + 0.25*dens
		}
		vs := 0.0
		if qv != nil {
			if cv := mc.vecOf(c); cv != nil {
				vs = max(0, float64(embed.Dot(qv, cv)))
			}
		}
		sim := lex
		if qv != nil {
			sim = lexicalWeight*lex + vectorWeight*vs
			if lex == 0 {
				// Vectors alone are a weak signal: damp paraphrase-only hits.
				sim = vectorWeight * vs * vs
			}
		}
		if sim <= 0 {
			return
		}
		conf := confidence(Type(c.row.Type), c.row.Updated, now)
		score := sim * (float64(c.row.Importance) / 3) * recency(c.row.Updated, now) * conf
		if score < o.Threshold {
			return
		}
		cands = append(cands, scored{c, sim, score})
	}
	if qv == nil {
		for i := range overlap {
			consider(i, mc.items[i])
		}
	} else {
		for i, c := range mc.items {
			consider(int32(i), c)
		}
	}
	slices.SortFunc(cands, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return strings.Compare(a.c.row.ID, b.c.row.ID)
	})
	if len(cands) > o.Limit {
		cands = cands[:o.Limit]
	}
	out := make([]Ranked, len(cands))
	for i, c := range cands {
		out[i] = Ranked{Memory: fromRow(c.c.row, now), Score: c.score, Similarity: c.sim}
	}
	return out
}

// Top returns the project's approved memories (and global ones) without
// a query, by importance/3 × recency × confidence. It reads only those
// memories, filtered in SQL: the full memory cache (every memory, its
// tokens and vectors) cost a hook ~25 ms at 2,000 memories, and every
// caller (SessionStart, `cairn recall`, the TUI) wants this one ranking.
func (s *Service) Top(ctx context.Context, project string, limit int) ([]Ranked, error) {
	if limit <= 0 {
		limit = 10
	}
	ms, err := s.List(ctx, Filter{Statuses: []Status{Approved}, Project: project, IncludeGlobal: true})
	if err != nil {
		return nil, err
	}
	now := s.now()
	var out []Ranked
	for _, m := range ms {
		if m.Status != Approved || (project != "" && m.Project != "" && m.Project != project) {
			continue
		}
		score := float64(m.Importance) / 3 * recency(m.Updated, now) * m.Confidence
		if score <= 0 {
			continue
		}
		out = append(out, Ranked{Memory: m, Score: score, Similarity: 1})
	}
	slices.SortFunc(out, func(a, b Ranked) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		// Same score: the project's own before global, then newest.
		if (a.Project == "") != (b.Project == "") {
			if a.Project != "" {
				return -1
			}
			return 1
		}
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Related returns memories linked to id or sharing its words or tags
// (any status but rejected), best first.
func (s *Service) Related(ctx context.Context, id string, tags []string, limit int) ([]Memory, error) {
	if limit <= 0 {
		limit = 5
	}
	m, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	mc, err := s.memories(ctx)
	if err != nil {
		return nil, err
	}
	now := s.now()
	var out []Memory
	seen := map[string]bool{m.ID: true}
	for _, l := range m.Links {
		if c := mc.byID[l.Target]; c != nil && !seen[l.Target] && c.row.Status != string(Rejected) {
			seen[l.Target] = true
			out = append(out, fromRow(c.row, now))
		}
	}
	// Memories linking to this one.
	for _, c := range mc.items {
		if c.row.ID == "" || seen[c.row.ID] || c.row.Status == string(Rejected) {
			continue
		}
		for _, l := range c.row.Links {
			if l.Target == m.ID {
				seen[c.row.ID] = true
				out = append(out, fromRow(c.row, now))
				break
			}
		}
	}
	toks, _ := tokens(m.Content + " " + strings.Join(append(slices.Clone(m.Tags), tags...), " "))
	var vec []float32
	if c := mc.byID[m.ID]; c != nil {
		vec = mc.vecOf(c)
	}
	for _, x := range mc.similar(toks, vec, m.Project, "", "", 3*limit) {
		if seen[x.c.row.ID] || x.c.row.Status == string(Rejected) || (x.jaccard < 0.15 && x.cosine < 0.7) {
			continue
		}
		seen[x.c.row.ID] = true
		out = append(out, fromRow(x.c.row, now))
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Search finds memories of any status but rejected matching query (and,
// when given, of the types and carrying all the tags), best first.
func (s *Service) Search(ctx context.Context, query string, types []Type, tags []string, limit int) ([]Ranked, error) {
	if limit <= 0 {
		limit = 10
	}
	tags = cleanTags(tags)
	s.mu.Lock()
	defer s.mu.Unlock()
	mc, err := s.memories(ctx)
	if err != nil {
		return nil, err
	}
	keep := func(c *cached) bool {
		if c.row.Status == string(Rejected) {
			return false
		}
		if len(types) > 0 && !slices.Contains(types, Type(c.row.Type)) {
			return false
		}
		for _, t := range tags {
			if !slices.Contains(c.row.Tags, t) {
				return false
			}
		}
		return true
	}
	if strings.TrimSpace(query) == "" {
		// No query: the newest matching memories.
		now := s.now()
		var hits []*cached
		for _, c := range mc.items {
			if c.row.ID != "" && keep(c) {
				hits = append(hits, c)
			}
		}
		slices.SortFunc(hits, func(a, b *cached) int {
			if c := b.row.Updated.Compare(a.row.Updated); c != 0 {
				return c
			}
			return strings.Compare(a.row.ID, b.row.ID)
		})
		out := []Ranked{}
		for _, c := range hits[:min(limit, len(hits))] {
			out = append(out, Ranked{Memory: fromRow(c.row, now), Score: 1, Similarity: 1})
		}
		return out, nil
	}
	return s.rank(mc, query, RankOptions{Limit: limit, Threshold: 1e-9}, keep), nil
}

// RecordInjection records memories injected into a session by a hook event.
func (s *Service) RecordInjection(ctx context.Context, sessionID, event string, ids []string) error {
	if err := s.st.MemRecordInjection(ctx, sessionID, event, uniq(ids), s.now()); err != nil {
		return err
	}
	s.mu.Lock()
	s.cache = nil
	s.mu.Unlock()
	return nil
}

// Injected lists the memory ids injected into a session, in order.
func (s *Service) Injected(ctx context.Context, sessionID string) ([]string, error) {
	rows, err := s.st.MemInjections(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range rows {
		if !slices.Contains(out, r.Memory) {
			out = append(out, r.Memory)
		}
	}
	return out, nil
}

// ScoreUsage checks the memories injected into a session against what the
// assistant wrote after the injection: a memory whose distinctive words
// (at least half of them, and at least two) reappear counts as used.
func (s *Service) ScoreUsage(ctx context.Context, sessionID string) (checked, used int, err error) {
	inj, err := s.st.MemInjections(ctx, sessionID)
	if err != nil || len(inj) == 0 {
		return 0, 0, err
	}
	texts, err := s.st.MemAssistantText(ctx, sessionID, inj[0].Time)
	if err != nil {
		return 0, 0, err
	}
	var said []uint32
	for _, t := range texts {
		tt, _ := tokens(t)
		said = append(said, tt...)
	}
	slices.Sort(said)
	said = slices.Compact(said)
	var ids []string
	for _, r := range inj {
		if !r.Checked && !slices.Contains(ids, r.Memory) {
			ids = append(ids, r.Memory)
		}
	}
	if len(ids) == 0 {
		return 0, 0, nil
	}
	rows, err := s.st.MemQuery(ctx, index.MemFilter{IDs: ids})
	if err != nil {
		return 0, 0, err
	}
	byID := map[string]*index.MemRow{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	var usedIDs []string
	for _, id := range ids {
		m, ok := byID[id]
		if !ok {
			continue
		}
		mt, _ := tokens(m.Content)
		n := intersect(mt, said)
		if n >= 2 && 2*n >= len(mt) {
			usedIDs = append(usedIDs, id)
		}
	}
	if err := s.st.MemMarkUsage(ctx, sessionID, ids, usedIDs); err != nil {
		return 0, 0, err
	}
	s.mu.Lock()
	s.cache = nil
	s.mu.Unlock()
	return len(ids), len(usedIDs), nil
}
