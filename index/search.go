package index

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/index/embed"
	"github.com/cairn-dev/cairn/index/ftsapi"
)

// Search modes.
const (
	ModeHybrid = "hybrid"
	ModeText   = "text"
	ModeVector = "vector"
)

// SearchQuery is what to look for and where.
type SearchQuery struct {
	Text     string
	Mode     string // hybrid (default), text, vector
	Limit    int    // default 10
	Projects []string
	Session  string
	Roles    []string // user, assistant, tool, system
	Since    time.Time
	Until    time.Time
	// Kinds: messages, summaries, memories, all (default all).
	Kinds []string
	// Subagents: nil = both, true = only subagent entries, false = none.
	Subagents *bool
	// NoThinking and NoToolOutput leave those entries out.
	NoThinking   bool
	NoToolOutput bool
	// GroupBySession returns sessions: one result per session, ranked by
	// all of its matching entries (sessionrank.go).
	GroupBySession bool
	// Recency multiplies fused scores by a prior favouring recent results;
	// nil: the store's default (search.recency).
	Recency *bool
	// Fusion is "weighted" (default: a convex combination of min-max
	// normalised BM25 and cosine scores) or "rrf" (reciprocal rank fusion,
	// k=60); "" uses the store's default (search.fusion).
	Fusion string
	// VectorWeight is the weight of the vectors against BM25 (1); 0 uses
	// the store's default (search.vector_weight), else DefaultVectorWeight
	// or DefaultRRFVectorWeight.
	VectorWeight float64
	// Highlight wraps matched words in snippets (nil: plain text).
	Highlight func(string) string
	// Prefix: the last word is still being typed (search as you type), so
	// it also matches as the start of longer words ("websock" finds
	// "websocket"). Hits with only such longer words rank below every
	// hit with the whole words (Match is MatchPrefix). The TUI sets it;
	// the CLI takes --prefix (a typed "word*" works everywhere).
	Prefix bool
	// Partial also returns the partial matches (Match is MatchPartial:
	// fewer of the query's words than MinShouldMatch asks), after every
	// full one. Without it they are left out and counted in
	// SearchResponse.Partial.
	Partial bool
	// Machine keeps the sessions synced from that machine (`cairn
	// remote`), or MachineLocal this machine's own; "" every machine
	// (search_machine.go).
	Machine string
	// corrected: this is the typo fallback's second search.
	corrected bool
	// machines is Machine resolved against the store (Search sets it).
	machines *machineScope
}

// SearchDefaults are the ranking settings every front end's queries get
// when they leave them unset: the [search] config, applied in one place
// (Searcher.Search) so the CLI, the TUI, MCP and the hooks rank alike.
type SearchDefaults struct {
	Fusion       string
	VectorWeight float64
	Recency      bool
}

// withDefaults fills the ranking fields q leaves unset.
func (q SearchQuery) withDefaults(d SearchDefaults) SearchQuery {
	if q.Fusion == "" {
		q.Fusion = d.Fusion
	}
	if q.VectorWeight == 0 {
		q.VectorWeight = d.VectorWeight
	}
	if q.Recency == nil {
		q.Recency = &d.Recency
	}
	return q
}

// The built-in vectors are a weak signal: hybrid must stay BM25-dominant so
// they add paraphrase matches and break ties without pushing BM25's exact
// hits down. Measured on index/testdata/eval (TestSearchQuality): weighted
// fusion at 0.3 beats BM25 alone on every query type; rank fusion loses
// BM25's score gaps and only stays level at a tie-breaking weight.
const (
	DefaultVectorWeight    = 0.3
	DefaultRRFVectorWeight = 0.01
)

// SearchResult is one hit.
type SearchResult struct {
	Kind      string // message, summary, memory
	SessionID string
	Project   string
	UUID      string // the entry, for messages
	Role      string
	Block     string
	Timestamp time.Time
	Score     float64
	Title     string
	Snippet   string
	Subagent  bool
	Archived  bool
	// Machine is the machine the session was synced from (`cairn
	// remote`), "" for this machine's.
	Machine string
	// Match is how it matches the query: MatchWords, MatchPrefix,
	// MatchPartial (some of the words, fewer than the rule asks; only
	// with SearchQuery.Partial) or MatchMeaning (no shared word; shown
	// because its vector is above the meaning floor).
	Match string
	// Relevance is on a fixed scale, 0..1, the same for every query: the
	// share of the query's information (its informative words weighted by
	// rarity) the result holds; for a match by meaning alone, the cosine
	// of its vector to the query's (at least the meaning floor).
	Relevance float64
}

// SearchResponse carries results and how they were found.
type SearchResponse struct {
	Results  []SearchResult
	Mode     string // the mode actually used
	Embedder string // the embedder used for vectors, "" when none
	Notice   string // e.g. why search fell back to text only
	// Partial is how many partial matches were left out (SearchQuery
	// Partial unset): the front ends offer to show them.
	Partial int
	// Corrected lists the typo fallback's corrections ("dialyzr →
	// dialyz") when the query as typed found nothing and its results are
	// those of the corrected words (Match MatchTypo).
	Corrected []string
	Took      time.Duration
}

// Searcher holds what a search needs: the store, the full-text index and an
// embedder with its vector cache. Open one per process (or per query in a
// short-lived process) and Close it.
type Searcher struct {
	Store    *Store
	FTS      ftsapi.Index
	Embedder embed.Embedder // nil: no vectors
	Vectors  *VecCache
	notice   string
	// floor overrides MeaningFloor when set (the calibration sweep).
	floor *float64
}

// OpenSearcher opens the full-text index (waiting up to lockWait for a
// writer), indexes what is queued, and loads the built-in embedder and its
// vector cache when they exist.
func (s *Store) OpenSearcher(ctx context.Context, lockWait time.Duration) (*Searcher, error) {
	ix, err := s.searchFTS(ctx, lockWait)
	if err != nil {
		if errors.Is(err, ftsapi.ErrLocked) {
			return nil, fmt.Errorf("the full-text index is in use by another cairn process for more than %s: try again in a moment (%w)", lockWait, err)
		}
		return nil, err
	}
	sr := &Searcher{Store: s, FTS: ix}
	s.attachVectors(ctx, sr)
	return sr, nil
}

// searchFTS opens the full-text index for a searcher. With nothing queued
// it opens read-only: a search then writes nothing and starts no merging
// (ftsapi.OpenReadOnly). Otherwise, and for an index small enough for
// OpenFTS's healing check, or none yet, it opens writable and indexes
// what is queued first.
func (s *Store) searchFTS(ctx context.Context, lockWait time.Duration) (ftsapi.Index, error) {
	if !s.ftsQueued(ctx) {
		ix, err := ftsapi.OpenReadOnly(s.ftsDir(), lockWait)
		if err != nil && !errors.Is(err, ftsapi.ErrNeedsRebuild) {
			return nil, err
		}
		if err == nil {
			if n, cerr := ix.Count(); cerr == nil && n >= healFewDocs {
				return ix, nil
			}
			ix.Close()
		}
	}
	ix, err := s.Derived().OpenFTS(lockWait)
	if err != nil {
		return nil, err
	}
	if _, err := s.Derived().DrainFTS(ctx, ix, nil); err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
}

// ftsQueued reports whether documents wait for the full-text index (or
// the queue cannot be read: then the writable path finds out why).
func (s *Store) ftsQueued(ctx context.Context) bool {
	var one int
	err := s.r.QueryRowContext(ctx, `SELECT 1 FROM fts_queue LIMIT 1`).Scan(&one)
	return !errors.Is(err, sql.ErrNoRows)
}

// Close releases the indexes.
func (sr *Searcher) Close() error {
	if sr.Vectors != nil {
		sr.Vectors.Close()
	}
	if sr.FTS != nil {
		return sr.FTS.Close()
	}
	return nil
}

// candidates is how deep each ranking is read before fusion.
const candidates = 100

// MaxSearchLimit is the most results a search can return: each ranking is
// read candidates deep.
const MaxSearchLimit = candidates

// Search runs a query: rank, load what was ranked, order, and, when
// nothing matched as typed, try near spellings.
func (sr *Searcher) Search(ctx context.Context, q SearchQuery) (*SearchResponse, error) {
	start := time.Now()
	run, err := sr.newRun(ctx, q)
	if err != nil {
		return nil, err
	}
	if err := run.rank(ctx); err != nil {
		return nil, err
	}
	if err := run.load(ctx); err != nil {
		return nil, err
	}
	fused, rel, err := run.order(ctx)
	if err != nil {
		return nil, err
	}
	resp := run.resp
	resp.Results = run.q.results(fused, run.docs, run.match, rel)
	if run.mayRespell() {
		if typo, err := sr.typoFallback(ctx, run.q, resp); err != nil || typo != nil {
			return typo, err
		}
	}
	resp.Took = time.Since(start)
	return resp, nil
}

// searchRun is one search under way: the query with its defaults, the
// response being built, and what each step adds to it.
type searchRun struct {
	sr     *Searcher
	q      SearchQuery
	resp   *SearchResponse
	filter ftsapi.Filter
	deep   int // how deep each ranking is read (SearchQuery.depth)

	text       []Scored        // full-text hits, then the prefix-only ones below them
	prefixOnly []Scored        // hits by the last word as a prefix only
	vec        []Scored        // nearest vectors
	byWords    map[string]bool // every document the words or the prefix found
	docs       map[string]*hit // the ranked documents, loaded
	match      map[string]string
}

// newRun applies the defaults, checks the mode and the machine scope and
// builds the full-text filter.
func (sr *Searcher) newRun(ctx context.Context, q SearchQuery) (*searchRun, error) {
	q = q.withDefaults(sr.Store.searchDefaults)
	if q.Limit <= 0 {
		q.Limit = 10
	}
	resp, err := sr.newResponse(q.Mode)
	if err != nil {
		return nil, err
	}
	if q.machines, err = sr.Store.scopeMachine(ctx, q.Machine); err != nil {
		return nil, err
	}
	filter, err := q.ftsFilter()
	if err != nil {
		return nil, err
	}
	return &searchRun{sr: sr, q: q, resp: resp, filter: filter, deep: q.depth()}, nil
}

// rank reads the rankings: the whole words, the prefix-only hits the words
// did not find (appended below them), then the nearest vectors.
func (run *searchRun) rank(ctx context.Context) error {
	sr, q, mode := run.sr, run.q, run.resp.Mode
	var err error
	if run.text, err = sr.textRanking(q.Text, run.filter, mode, run.deep); err != nil {
		return err
	}
	run.byWords = make(map[string]bool, len(run.text))
	markIDs(run.byWords, run.text)
	if run.prefixOnly, err = sr.prefixRanking(q, run.filter, mode, run.deep, run.byWords); err != nil {
		return err
	}
	markIDs(run.byWords, run.prefixOnly)
	run.text = appendBelow(run.text, run.prefixOnly)
	run.vec, err = sr.vectorRanking(ctx, q.Text, run.resp, run.deep)
	return err
}

// markIDs sets seen for every document of rank.
func markIDs(seen map[string]bool, rank []Scored) {
	for _, r := range rank {
		seen[r.ID] = true
	}
}

// load reads what was ranked from the store and drops the hits the
// query's filters refuse: vector candidates are filtered only here (the
// vector cache holds no metadata), text hits are rechecked in time.
func (run *searchRun) load(ctx context.Context) error {
	docs, damaged, err := run.sr.Store.docsByID(ctx, rankedIDs(run.text, run.vec))
	if err != nil {
		return err
	}
	if damaged > 0 {
		run.resp.Notice = joinNotice(run.resp.Notice, fmt.Sprintf("%d result(s) left out: their rows in the store are damaged (run `cairn doctor --full`)", damaged))
	}
	run.docs = docs
	run.text = run.q.exactTime(run.text, docs)
	run.vec = run.q.acceptedVectors(run.vec, docs, run.deep)
	return nil
}

// joinNotice adds more to a response's notice, "; " between them.
func joinNotice(notice, more string) string {
	return strings.TrimPrefix(notice+"; "+more, "; ")
}

// order fuses the rankings and settles the order shown: the relevance
// floor, recency, whole words above prefixes, then the grades, per hit or
// per session. It returns the grades.
func (run *searchRun) order(ctx context.Context) ([]Scored, map[string]float64, error) {
	sr, q, resp := run.sr, &run.q, run.resp
	fused, err := q.fuse(resp.Mode, run.text, run.vec)
	if err != nil {
		return nil, nil, err
	}
	// The relevance floor: a vector neighbour sharing no word with the
	// query is shown only when it is close in meaning. It only removes:
	// what passes ranks as it would without the floor.
	fused = aboveFloor(fused, run.vec, run.byWords, sr.meaningFloor(resp.Embedder), sr.meaningAlone(resp))
	if *q.Recency {
		favourRecent(fused, run.docs, time.Now())
	}
	run.match = matchKinds(run.text, run.prefixOnly)
	wordsFirst(fused, run.match)
	if q.GroupBySession && sessionRanking != "first" {
		var rel map[string]float64
		fused, rel, resp.Partial, err = sr.rankSessions(ctx, *q, resp, fused, run.text, run.vec, run.docs, run.match)
		return fused, rel, err
	}
	fused, rel, err := sr.grade(*q, resp, fused, run.text, run.vec, run.docs, run.match)
	if err != nil {
		return nil, nil, err
	}
	fused, resp.Partial = q.fullFirst(fused, run.docs, run.match, rel)
	return fused, rel, nil
}

// mayRespell reports whether a search that found nothing should try near
// spellings: not for vectors alone, nor for a query already corrected.
func (run *searchRun) mayRespell() bool {
	resp := run.resp
	return len(resp.Results) == 0 && resp.Partial == 0 && resp.Mode != ModeVector && !run.q.corrected
}

// newResponse checks the requested mode and starts the response with the
// mode this searcher can run: text only without an embedder.
func (sr *Searcher) newResponse(mode string) (*SearchResponse, error) {
	if mode == "" {
		mode = ModeHybrid
	}
	if mode != ModeHybrid && mode != ModeText && mode != ModeVector {
		return nil, fmt.Errorf("unknown search mode %q: use hybrid, text or vector", mode)
	}
	resp := &SearchResponse{Mode: mode, Notice: sr.notice}
	if sr.Embedder == nil {
		resp.Mode = ModeText
	} else if resp.Mode != ModeText {
		resp.Embedder = sr.Embedder.ID()
	}
	return resp, nil
}

// depth is how many candidates each ranking reads: more when grouping by
// session, which drops all but one hit per session.
func (q *SearchQuery) depth() int {
	if q.GroupBySession {
		return candidates * 3
	}
	return candidates
}

// textRanking is the full-text ranking, nil in vector mode.
func (sr *Searcher) textRanking(text string, filter ftsapi.Filter, mode string, deep int) ([]Scored, error) {
	if mode == ModeVector {
		return nil, nil
	}
	hits, _, err := sr.FTS.Search(text, filter, deep)
	if err != nil {
		return nil, err
	}
	var rank []Scored
	for _, h := range hits {
		rank = append(rank, Scored{ID: h.ID, Score: h.Score})
	}
	return rank, nil
}

// vectorRanking is the nearest vectors to the query, unfiltered, nil in
// text mode or for a query that embeds to zero. An embedder that stopped
// answering (Ollama went away) must not fail a hybrid search: resp falls
// back to text alone and says why.
func (sr *Searcher) vectorRanking(ctx context.Context, text string, resp *SearchResponse, deep int) ([]Scored, error) {
	if resp.Mode == ModeText {
		return nil, nil
	}
	vs, err := sr.Embedder.Embed(ctx, embed.Query, []string{text})
	if err != nil {
		if resp.Mode == ModeVector {
			return nil, fmt.Errorf("vector search needs the embedder %s: %w", sr.Embedder.ID(), err)
		}
		resp.Mode, resp.Embedder = ModeText, ""
		resp.Notice = "embedder " + sr.Embedder.ID() + " failed (" + err.Error() + "): text search only"
		return nil, nil
	}
	if embed.IsZero(vs[0]) {
		return nil, nil
	}
	return sr.Vectors.Search(vs[0], deep*3, nil), nil
}

// rankedIDs lists the documents of both rankings, text first.
func rankedIDs(textRank, vecRank []Scored) []string {
	ids := make([]string, 0, len(textRank)+len(vecRank))
	for _, r := range textRank {
		ids = append(ids, r.ID)
	}
	for _, r := range vecRank {
		ids = append(ids, r.ID)
	}
	return ids
}

// exactTime rechecks text hits against the query: the full-text filter is
// coarse in time (whole hours), so with a time window every hit is checked
// exactly, as the vector hits are. Hits missing from docs stay (results
// skips them).
func (q *SearchQuery) exactTime(rank []Scored, docs map[string]*hit) []Scored {
	if q.Since.IsZero() && q.Until.IsZero() {
		return rank
	}
	exact := rank[:0]
	for _, r := range rank {
		if d := docs[r.ID]; d == nil || q.accepts(d) {
			exact = append(exact, r)
		}
	}
	return exact
}

// acceptedVectors keeps the first deep vector hits that pass the filters.
func (q *SearchQuery) acceptedVectors(rank []Scored, docs map[string]*hit, deep int) []Scored {
	kept := rank[:0]
	for _, r := range rank {
		if d := docs[r.ID]; d != nil && q.accepts(d) {
			kept = append(kept, r)
		}
		if len(kept) == deep {
			break
		}
	}
	return kept
}

// fuse merges the rankings as the mode and fusion ask.
func (q *SearchQuery) fuse(mode string, textRank, vecRank []Scored) ([]Scored, error) {
	switch {
	case mode == ModeText:
		return textRank, nil
	case mode == ModeVector:
		return vecRank, nil
	case q.Fusion == "rrf":
		w := cmp.Or(q.VectorWeight, DefaultRRFVectorWeight)
		return FuseRRF(RRFK, []float64{1, w}, idsOf(textRank), idsOf(vecRank)), nil
	case q.Fusion == "" || q.Fusion == "weighted":
		w := cmp.Or(q.VectorWeight, DefaultVectorWeight)
		return FuseConvex(1/(1+w), textRank, vecRank), nil
	default:
		return nil, fmt.Errorf("unknown fusion %q: use weighted or rrf", q.Fusion)
	}
}

// favourRecent weighs each score by the age of its document and re-sorts.
func favourRecent(fused []Scored, docs map[string]*hit, now time.Time) {
	for i := range fused {
		if d := docs[fused[i].ID]; d != nil {
			fused[i].Score *= RecencyWeight(d.Time, now, 90*24*time.Hour, 0.6)
		}
	}
	sort.SliceStable(fused, func(i, j int) bool { return fused[i].Score > fused[j].Score })
}

// prefixRanking is, with q.Prefix, the hits that match the last word only
// as the start of a longer one: those of the last word as a prefix (with
// the query's exclusions) that the whole words did not find, best first.
func (sr *Searcher) prefixRanking(q SearchQuery, filter ftsapi.Filter, mode string, deep int, byWords map[string]bool) ([]Scored, error) {
	if !q.wantsPrefixOnly(mode, len(byWords)) {
		return nil, nil
	}
	text, ok := ftsapi.PrefixOnly(q.Text)
	if !ok {
		return nil, nil
	}
	rank, err := sr.textRanking(text, filter, mode, deep)
	if err != nil {
		return nil, err
	}
	only := rank[:0]
	for _, r := range rank {
		if !byWords[r.ID] {
			only = append(only, r)
		}
	}
	return only, nil
}

// wantsPrefixOnly reports whether the query, ranked in mode with words
// hits by whole words, may show hits that match its last word only as a
// prefix. Prefix-only hits rank after every whole-word hit: with a full
// page of those (and no filter that drops some later) they cannot show.
func (q *SearchQuery) wantsPrefixOnly(mode string, words int) bool {
	if !q.Prefix || mode == ModeVector {
		return false
	}
	return !(words >= q.Limit && !q.GroupBySession && q.Since.IsZero() && q.Until.IsZero())
}

// appendBelow appends the prefix-only hits to the text ranking, their
// scores scaled under its lowest so they rank after every whole-word hit
// and keep their own order.
func appendBelow(text, below []Scored) []Scored {
	if len(below) == 0 {
		return text
	}
	ceil := 1.0
	if len(text) > 0 {
		ceil = text[len(text)-1].Score / 2
	}
	top := below[0].Score
	for _, b := range below {
		s := ceil
		if top > 0 {
			s = ceil * b.Score / top
		}
		text = append(text, Scored{ID: b.ID, Score: s})
	}
	return text
}

// matchKinds says how each ranked document matches: by words or only by
// the prefix; anything else matched by meaning alone.
func matchKinds(text, prefixOnly []Scored) map[string]string {
	m := make(map[string]string, len(text))
	for _, r := range text {
		m[r.ID] = MatchWords
	}
	for _, r := range prefixOnly {
		m[r.ID] = MatchPrefix
	}
	return m
}

// wordsFirst keeps every hit with the whole words above the prefix-only
// ones (vectors or recency may have lifted one), otherwise in order, and
// lowers the score of a prefix-only hit so it is never above one before it:
// front ends that re-sort by score (to break ties) keep the order.
func wordsFirst(fused []Scored, match map[string]string) {
	sort.SliceStable(fused, func(i, j int) bool {
		return match[fused[i].ID] != MatchPrefix && match[fused[j].ID] == MatchPrefix
	})
	for i := 1; i < len(fused); i++ {
		if match[fused[i].ID] == MatchPrefix && fused[i].Score >= fused[i-1].Score {
			fused[i].Score = fused[i-1].Score * 0.999
		}
	}
}

// results turns the fused ranking into at most q.Limit results, one per
// session when grouping.
func (q *SearchQuery) results(fused []Scored, docs map[string]*hit, match map[string]string, rel map[string]float64) []SearchResult {
	var out []SearchResult
	text := q.Text
	if q.Prefix {
		text, _ = ftsapi.PrefixLast(text)
	}
	terms := ftsapi.QueryTerms(text)
	seen := map[string]bool{}
	for _, f := range fused {
		d := docs[f.ID]
		if d == nil {
			continue // indexed but gone from the store: the next drain removes it
		}
		if q.GroupBySession {
			if seen[d.Session] {
				continue
			}
			seen[d.Session] = true
		}
		out = append(out, SearchResult{
			Kind: publicKind(d.Kind), SessionID: d.Session, Project: d.Project, UUID: d.UUID, Role: d.Role,
			Block: d.Block, Timestamp: d.Time, Score: f.Score, Title: d.Title, Subagent: d.Subagent, Archived: d.Archived,
			Machine: q.machines.of(d.Session),
			Snippet: ftsapi.Snippet(d.Text, terms, 160, q.Highlight), Match: cmp.Or(match[f.ID], MatchMeaning),
			Relevance: rel[f.ID],
		})
		if len(out) == q.Limit {
			break
		}
	}
	return out
}

func idsOf(s []Scored) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = x.ID
	}
	return out
}

// publicKind names document kinds as the search command does.
func publicKind(k string) string {
	if k == DocSession {
		return "summary"
	}
	return k
}

// docKinds maps the public kinds to document kinds.
func docKinds(kinds []string) ([]string, error) {
	var out []string
	for _, k := range kinds {
		switch strings.TrimSpace(k) {
		case "", "all":
			return nil, nil
		case "messages", "message":
			out = append(out, DocMessage)
		case "summaries", "summary", "sessions":
			out = append(out, DocSession)
		case "memories", "memory":
			out = append(out, "memory")
		default:
			return nil, fmt.Errorf("unknown kind %q: use messages, summaries, memories or all", k)
		}
	}
	return out, nil
}

func (q *SearchQuery) ftsFilter() (ftsapi.Filter, error) {
	kinds, err := docKinds(q.Kinds)
	if err != nil {
		return ftsapi.Filter{}, err
	}
	f := ftsapi.Filter{Kinds: kinds, Projects: q.Projects, Roles: q.Roles, Since: q.Since, Until: q.Until, Subagents: q.Subagents}
	if q.Session != "" {
		f.Sessions = []string{q.Session}
	}
	q.machines.narrow(&f, q.Session)
	if q.NoThinking {
		f.ExcludeBlocks = append(f.ExcludeBlocks, "thinking", "redacted_thinking")
	}
	if q.NoToolOutput {
		f.ExcludeBlocks = append(f.ExcludeBlocks, "tool_result")
	}
	return f, nil
}

// accepts applies the filters to a document (for vector candidates).
func (q *SearchQuery) accepts(d *hit) bool {
	return q.acceptsSource(d) && inWindow(d.Time, q.Since, q.Until) && q.acceptsBlock(d)
}

// acceptsSource applies the filters on where a document comes from: kind,
// project, session, role and subagent.
func (q *SearchQuery) acceptsSource(d *hit) bool {
	kinds, _ := docKinds(q.Kinds)
	if !allows(kinds, d.Kind) || !allows(q.Projects, d.Project) || !allows(q.Roles, d.Role) {
		return false
	}
	if q.Session != "" && d.Session != q.Session || !q.machines.accepts(d.Session) {
		return false
	}
	return q.Subagents == nil || *q.Subagents == d.Subagent
}

// acceptsBlock applies the thinking and tool output exclusions.
func (q *SearchQuery) acceptsBlock(d *hit) bool {
	if q.NoThinking && strings.Contains(d.Block, "thinking") {
		return false
	}
	return !q.NoToolOutput || d.Block != "tool_result"
}

// allows reports whether s is in list; an empty list allows everything.
func allows(list []string, s string) bool {
	return len(list) == 0 || slices.Contains(list, s)
}

// inWindow reports whether t is within [since, until], either end open
// when zero; an unknown (zero) t is outside any window.
func inWindow(t, since, until time.Time) bool {
	if !since.IsZero() && (t.IsZero() || t.Before(since)) {
		return false
	}
	return until.IsZero() || (!t.IsZero() && !t.After(until))
}
