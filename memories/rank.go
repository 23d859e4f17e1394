package memories

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"time"

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
	// Prompt ranks for a prompt (the UserPromptSubmit hook), not a query:
	// a memory needs InjectWords words in common with it, and the
	// prompt's words no memory has do not count (a prompt is long, a
	// memory short). Without it the query's words are graded as search
	// grades them (index.Grade): full matches only.
	Prompt bool
	// partial also returns partial matches (Search).
	partial bool
	// ungraded takes any shared word as a match (Ask gathers evidence
	// for a model to judge, as it did before the grading rule).
	ungraded bool
}

// Ranked is a memory with its score.
type Ranked struct {
	Memory
	Score      float64 `json:"score"`
	Similarity float64 `json:"similarity"`
	// Match is how it matches the query: index.MatchWords (it shares the
	// query's words), index.MatchPartial (some of them, fewer than
	// index.Grade asks; Search only) or index.MatchMeaning (no shared
	// word; its vector is above the meaning floor). Empty for listings
	// without a query.
	Match string `json:"match,omitempty"`
	// Relevance is on search's fixed scale (index.Grade): the share of the
	// query's information (its words weighted by rarity among the
	// memories) the memory holds; for a match by meaning alone its cosine.
	Relevance float64 `json:"relevance,omitempty"`
}

// lexicalWeight and vectorWeight mix the two similarity signals: shared
// words are precise; the built-in vectors add paraphrase matches.
const (
	lexicalWeight = 0.65
	vectorWeight  = 0.35
)

// Rank returns approved memories relevant to query: similarity ×
// importance/3 × recency × confidence, at or above the threshold, best first.
func (s Recall) Rank(ctx context.Context, query string, o RankOptions) ([]Ranked, error) {
	if o.Limit <= 0 {
		o.Limit = 10
	}
	o.Threshold = cmp.Or(o.Threshold, s.cfg.Memories.MinRelevance)
	// Loading the cache reads every memory of the project with its
	// vectors: when it is not loaded yet (a hook's fresh process), skip
	// that if no approved memory of the project (nor a global one) is
	// left once Exclude is left out. A loaded cache (the MCP server, the
	// TUI) ranks at once: the check would cost more than the ranking.
	if !s.cacheServes(ctx, o.Project) {
		if none, err := s.noCandidates(ctx, o); err != nil {
			return nil, err
		} else if none {
			return []Ranked{}, nil
		}
	}
	out, err := s.rankApproved(ctx, query, o)
	if err != nil {
		return nil, err
	}
	if o.Touch && len(out) > 0 {
		if err := s.touch(ctx, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

// rankApproved ranks the approved memories of the cache for o.Project
// (loaded if need be), under the cache's lock.
func (s *core) rankApproved(ctx context.Context, query string, o RankOptions) ([]Ranked, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	mc, err := s.loadCache(ctx, true, o.Project)
	if err != nil {
		return nil, err
	}
	return s.rank(ctx, mc, query, o, func(c *cached) bool { return c.row.Status == Approved }), nil
}

// cacheServes reports whether the loaded cache serves Rank for project
// as it stands (nothing changed since it was loaded).
func (s *core) cacheServes(ctx context.Context, project string) bool {
	gen, err := s.st.Mem().Generation(ctx)
	if err != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cache != nil && s.cache.serves(gen, true, project)
}

// noCandidates reports whether Rank has nothing to rank: no approved
// memory of o.Project (or global; of any project without one) outside
// o.Exclude.
func (s *core) noCandidates(ctx context.Context, o RankOptions) (bool, error) {
	ms, err := s.List(ctx, Filter{Statuses: []Status{Approved}, Project: o.Project, IncludeGlobal: true})
	if err != nil {
		return false, err
	}
	return !slices.ContainsFunc(ms, func(m Memory) bool { return !slices.Contains(o.Exclude, m.ID) }), nil
}

func (s *core) touch(ctx context.Context, rs []Ranked) error {
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	now := s.now()
	if err := s.st.Mem().Touch(ctx, ids, now); err != nil {
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
		for _, t := range c.rtoks {
			c.weight += math.Log(1 + n/float64(len(mc.rpost[t])+1))
		}
		if c.weight == 0 {
			c.weight = 1
		}
	}
	return c.weight
}

// rank scores the memories keep accepts; callers hold s.mu.
func (s *core) rank(ctx context.Context, mc *memCache, query string, o RankOptions, keep func(*cached) bool) []Ranked {
	q := rankQuery{mc: mc, o: o, keep: keep, now: s.now(), qv: s.queryVector(ctx, mc, query),
		overlap: map[int32]float64{}, held: map[int32]int{}}
	q.weighWords(queryWords(query))
	var cands []scored
	if q.qv == nil {
		for i := range q.overlap {
			cands = q.consider(cands, i, mc.items[i])
		}
	} else {
		for i, c := range mc.items {
			cands = q.consider(cands, int32(i), c)
		}
	}
	slices.SortFunc(cands, func(a, b scored) int {
		// Full matches first (partial ones come back from Search only).
		if c := cmp.Compare(boolInt(a.match == index.MatchPartial), boolInt(b.match == index.MatchPartial)); c != 0 {
			return c
		}
		return byScore(a, b)
	})
	if len(cands) > o.Limit {
		cands = cands[:o.Limit]
	}
	out := make([]Ranked, len(cands))
	for i, c := range cands {
		out[i] = Ranked{Memory: fromRow(c.c.row, q.now), Score: c.score, Similarity: c.sim, Match: c.match, Relevance: c.rel}
	}
	return out
}

// queryVector embeds query when mc's vectors are the embedder's; nil
// otherwise.
func (s *core) queryVector(ctx context.Context, mc *memCache, query string) []float32 {
	m := s.embedder(ctx)
	if m == nil || mc.embedder != m.ID() {
		return nil
	}
	if v, ok := m.EmbedText(embed.Query, query); ok {
		return v
	}
	return nil
}

// rankQuery is a query being ranked against the memories of mc.
type rankQuery struct {
	mc   *memCache
	o    RankOptions
	keep func(*cached) bool
	now  time.Time
	qv   []float32 // the query's vector, nil without one
	// overlap is the summed weight of the query words each memory has,
	// held how many of them it has (an identifier counting two for a
	// prompt), qw the summed weight of the query's words, words their
	// number, n the number of memories plus one.
	overlap map[int32]float64
	held    map[int32]int
	qw, n   float64
	words   int
}

// weighWords sums into q.overlap the query words each memory holds, each
// weighted by how rare it is among the memories (a word every memory has
// says little), and counts them in q.held.
func (q *rankQuery) weighWords(qws []queryWord) {
	q.n = float64(len(q.mc.items)) + 1
	for _, qw := range qws {
		hs := q.mc.holders(qw)
		if len(hs) == 0 && (q.o.Prompt || q.o.ungraded) {
			// No memory has the word: it cannot tell memories apart, and
			// a long prompt's many such words must not drown the rest.
			continue
		}
		// A query's word no memory has is information none holds: it
		// weighs most.
		w := math.Log(1 + q.n/float64(len(hs)+1))
		q.qw += w
		q.words++
		n := 1
		if q.o.Prompt && len(qw.leaves) > 1 {
			n = 2 // an identifier is more than a common word
		}
		for _, i := range hs {
			q.overlap[i] += w
			q.held[i] += n
		}
	}
}

// scored is a memory with its similarity to the query and its score.
type scored struct {
	c               *cached
	sim, score, rel float64
	match           string // index.MatchWords, MatchPartial or MatchMeaning
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// byScore orders scored memories best first, then by id.
func byScore(a, b scored) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	return strings.Compare(a.c.row.ID, b.c.row.ID)
}

// consider appends c (item i) to out when it may be returned and scores at
// least the threshold: similarity × importance/3 × recency × confidence.
func (q *rankQuery) consider(out []scored, i int32, c *cached) []scored {
	if !q.eligible(c) {
		return out
	}
	sim, match, rel := q.similarity(i, c)
	if sim <= 0 {
		return out
	}
	conf := confidence(Type(c.row.Type), c.row.Updated, q.now)
	score := sim * (float64(c.row.Importance) / 3) * recency(c.row.Updated, q.now) * conf
	if score < q.o.Threshold {
		return out
	}
	return append(out, scored{c, sim, score, rel, match})
}

// eligible reports whether c may be returned: live, kept, not excluded,
// and of the project (or global).
func (q *rankQuery) eligible(c *cached) bool {
	if c.row.ID == "" || !q.keep(c) || slices.Contains(q.o.Exclude, c.row.ID) {
		return false
	}
	return inScope(c.row.Project, q.o.Project)
}

// similarity mixes the lexical score of c (item i) with its vector's
// closeness to the query's; vectors alone are a weak signal, so
// paraphrase-only hits are damped, and below the relevance floor
// (index.MeaningFloor, index.MeaningAlone: the rules search applies) they
// do not match at all: every memory has some closeness to any query, so without it a
// query matching nothing returned every memory. match says which signal
// found it, rel its relevance on search's fixed scale.
func (q *rankQuery) similarity(i int32, c *cached) (float64, string, float64) {
	lex, match, rel := q.lexical(i, c)
	if q.qv == nil {
		return lex, match, rel
	}
	vs := 0.0
	if cv := q.mc.vecOf(c); cv != nil {
		vs = max(0, float64(embed.Dot(q.qv, cv)))
	}
	if lex == 0 {
		// Meaning alone: above the floor, and with the built-in vectors
		// only when some memory shares a word with the query
		// (index.MeaningAlone says why).
		if vs < index.MeaningFloor(q.mc.embedder) || len(q.overlap) == 0 && !index.MeaningAlone(q.mc.embedder) {
			return 0, "", 0
		}
		return vectorWeight * vs * vs, index.MatchMeaning, math.Round(vs*1000) / 1000
	}
	return lexicalWeight*lex + vectorWeight*vs, match, rel
}

// lexical is c's word score: cover, how much of the query (its words'
// summed rarity) the memory holds, and dens, how much of the memory the
// query is about; with how it matches (index.Grade, or for a prompt
// InjectWords) and its relevance (cover). 0 when it does not match.
func (q *rankQuery) lexical(i int32, c *cached) (float64, string, float64) {
	shared := q.overlap[i]
	if shared <= 0 || q.qw <= 0 {
		return 0, "", 0
	}
	cover := min(1, shared/q.qw)
	match := index.MatchWords
	if q.o.Prompt {
		if q.held[i] < InjectWords {
			return 0, "", 0
		}
	} else if !q.o.ungraded {
		match = index.Grade(q.held[i], q.words, cover)
		if match == "" || match == index.MatchPartial && !q.o.partial {
			return 0, "", 0
		}
	}
	dens := min(1, shared/q.mc.weight(c, q.n))
	return 0.75*cover + 0.25*dens, match, math.Round(cover*1000) / 1000
}

// Top returns the project's approved memories (and global ones) without
// a query, by importance/3 × recency × confidence. It reads only those
// memories, filtered in SQL: the full memory cache (every memory, its
// tokens and vectors) cost a hook ~25 ms at 2,000 memories, and every
// caller (SessionStart, `cairn recall`, the TUI) wants this one ranking.
func (s Recall) Top(ctx context.Context, project string, limit int) ([]Ranked, error) {
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
		if m.Status != Approved || !inScope(m.Project, project) {
			continue
		}
		if score := float64(m.Importance) / 3 * recency(m.Updated, now) * m.Confidence; score > 0 {
			out = append(out, Ranked{Memory: m, Score: score, Similarity: 1})
		}
	}
	slices.SortFunc(out, byTopScore)
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// inScope reports whether a memory of memProject belongs with project: the
// same project, a global memory, or any memory when project is "".
func inScope(memProject, project string) bool {
	return project == "" || memProject == "" || memProject == project
}

// byTopScore orders Top's memories best first; at the same score the
// project's own before global ones, then the newest.
func byTopScore(a, b Ranked) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	if c := globalLast(a.Project, b.Project); c != 0 {
		return c
	}
	if c := b.Updated.Compare(a.Updated); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// globalLast orders a project's memory before a global one.
func globalLast(a, b string) int {
	switch {
	case (a == "") == (b == ""):
		return 0
	case a != "":
		return -1
	}
	return 1
}

// Related returns memories linked to id or sharing its words or tags
// (any status but rejected), best first.
func (s Recall) Related(ctx context.Context, id string, tags []string, limit int) ([]Memory, error) {
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
	r := relatedSet{now: s.now(), seen: map[string]bool{m.ID: true}}
	r.addLinked(mc, m)
	toks, _ := tokens(m.Content + " " + strings.Join(append(slices.Clone(m.Tags), tags...), " "))
	var vec []float32
	if c := mc.byID[m.ID]; c != nil {
		vec = mc.vecOf(c)
	}
	for _, x := range mc.similar(toks, vec, m.Project, "", "", 3*limit) {
		if x.jaccard >= 0.15 || x.cosine >= max(0.7, index.MeaningFloor(mc.embedder)) {
			r.add(x.c.row)
		}
	}
	return r.out[:min(limit, len(r.out))], nil
}

// relatedSet collects related memories, each once, none rejected.
type relatedSet struct {
	out  []Memory
	seen map[string]bool
	now  time.Time
}

// addLinked adds the memories m links to, then those linking to m.
func (r *relatedSet) addLinked(mc *memCache, m *Memory) {
	for _, l := range m.Links {
		if c := mc.byID[l.Target]; c != nil {
			r.add(c.row)
		}
	}
	for _, c := range mc.items {
		if c.row.ID != "" && linksTo(c.row.Links, m.ID) {
			r.add(c.row)
		}
	}
}

func (r *relatedSet) add(row *index.MemRow) {
	if r.seen[row.ID] || row.Status == Rejected {
		return
	}
	r.seen[row.ID] = true
	r.out = append(r.out, fromRow(row, r.now))
}

// linksTo reports whether links has one to id.
func linksTo(links []index.MemLink, id string) bool {
	for _, l := range links {
		if l.Target == id {
			return true
		}
	}
	return false
}

// Search finds memories of any status but rejected matching query (and,
// when given, of the types and carrying all the tags), best first.
func (s Recall) Search(ctx context.Context, query string, types []Type, tags []string, limit int) ([]Ranked, error) {
	if limit <= 0 {
		limit = 10
	}
	keep := searchFilter(types, cleanTags(tags))
	s.mu.Lock()
	defer s.mu.Unlock()
	mc, err := s.memories(ctx)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(query) == "" {
		return s.newest(mc, keep, limit), nil
	}
	return s.rank(ctx, mc, query, RankOptions{Limit: limit, Threshold: 1e-9, partial: true}, keep), nil
}

// searchFilter keeps memories not rejected, of one of types (any when
// none) and carrying every tag.
func searchFilter(types []Type, tags []string) func(*cached) bool {
	return func(c *cached) bool {
		if c.row.Status == Rejected {
			return false
		}
		if len(types) > 0 && !slices.Contains(types, Type(c.row.Type)) {
			return false
		}
		return !slices.ContainsFunc(tags, func(t string) bool { return !slices.Contains(c.row.Tags, t) })
	}
}

// newest returns the newest memories of mc that keep accepts.
func (s *core) newest(mc *memCache, keep func(*cached) bool, limit int) []Ranked {
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
	return out
}

// RecordInjection records memories injected into a session by a hook event.
func (s Feedback) RecordInjection(ctx context.Context, sessionID, event string, ids []string) error {
	if err := s.st.Mem().RecordInjection(ctx, sessionID, event, uniq(ids), s.now()); err != nil {
		return err
	}
	s.mu.Lock()
	s.cache = nil
	s.mu.Unlock()
	return nil
}

// Injected lists the memory ids injected into a session, in order.
func (s Feedback) Injected(ctx context.Context, sessionID string) ([]string, error) {
	rows, err := s.st.Mem().Injections(ctx, sessionID)
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
func (s Feedback) ScoreUsage(ctx context.Context, sessionID string) (checked, used int, err error) {
	inj, err := s.st.Mem().Injections(ctx, sessionID)
	if err != nil || len(inj) == 0 {
		return 0, 0, err
	}
	texts, err := s.st.Mem().AssistantText(ctx, sessionID, inj[0].Time)
	if err != nil {
		return 0, 0, err
	}
	ids := uncheckedMemories(inj)
	if len(ids) == 0 {
		return 0, 0, nil
	}
	rows, err := s.st.Mem().Query(ctx, index.MemFilter{IDs: ids})
	if err != nil {
		return 0, 0, err
	}
	usedIDs := usedMemories(ids, rows, saidTokens(texts))
	if err := s.st.Mem().MarkUsage(ctx, sessionID, ids, usedIDs); err != nil {
		return 0, 0, err
	}
	s.mu.Lock()
	s.cache = nil
	s.mu.Unlock()
	return len(ids), len(usedIDs), nil
}

// saidTokens are the sorted, unique tokens of texts.
func saidTokens(texts []string) []uint32 {
	var said []uint32
	for _, t := range texts {
		tt, _ := tokens(t)
		said = append(said, tt...)
	}
	slices.Sort(said)
	return slices.Compact(said)
}

// uncheckedMemories are the memories of injections not checked yet, each
// once, in order.
func uncheckedMemories(inj []index.InjectionRow) []string {
	var ids []string
	for _, r := range inj {
		if !r.Checked && !slices.Contains(ids, r.Memory) {
			ids = append(ids, r.Memory)
		}
	}
	return ids
}

// usedMemories are the ids (of rows) whose content's tokens reappear in
// said: at least two, and at least half of them.
func usedMemories(ids []string, rows []*index.MemRow, said []uint32) []string {
	byID := map[string]*index.MemRow{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	var used []string
	for _, id := range ids {
		m, ok := byID[id]
		if !ok {
			continue
		}
		mt, _ := tokens(m.Content)
		if n := intersect(mt, said); n >= 2 && 2*n >= len(mt) {
			used = append(used, id)
		}
	}
	return used
}
