package memories

import (
	"context"
	"slices"
	"strings"
	"unicode"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/index/embed"
)

// Dedup thresholds (issue 4): embedding cosine ≥ 0.85, or token Jaccard ≥
// 0.6 within a type. The built-in LSA space puts short texts on one topic
// close together, so a cosine match also needs some shared words.
const (
	dupJaccard     = 0.6
	dupCosine      = 0.85
	dupCosineWords = 0.2
	sameJaccard    = 0.85 // the same memory again: bump it
	relatedJaccard = 0.3
)

var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but if then else of to in on at by for with from as is are was were be been being
		it its this that these those there here we you i me my our your he she they them their us do does did done doing
		so such than too very can could should would will shall may might must just also only about into over under again
		what which who whom when where why how all any both each few more most other some own same up down out off once
		let lets let's ok okay yes please thanks thank hi hello now still even get got have has had having go going`) {
		stopwords[w] = true
	}
}

var negations = map[string]bool{"not": true, "never": true, "don't": true, "dont": true, "no": true, "avoid": true,
	"instead": true, "stop": true, "without": true, "shouldn't": true, "mustn't": true, "cannot": true, "can't": true,
	"doesn't": true, "isn't": true, "won't": true, "disable": true, "disabled": true, "remove": true}

// words splits text into lower-case words (letters, digits and the inner
// punctuation of identifiers and contractions).
func words(s string) []string {
	out := splitWords(s, false)
	for i, w := range out {
		out[i] = strings.ToLower(w)
	}
	return out
}

// splitWords splits text into words: letters and digits, with the
// punctuation identifiers and contractions hold inside (and colons, with
// colons), trimmed of it at their ends.
func splitWords(s string, colons bool) []string {
	trim := ".-_'/"
	if colons {
		trim += ":"
	}
	var out []string
	start := -1
	flush := func(end int) {
		if start >= 0 {
			if w := strings.Trim(s[start:end], trim); w != "" {
				out = append(out, w)
			}
			start = -1
		}
	}
	for i, r := range s {
		if wordRune(r, start >= 0, colons) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(s))
	return out
}

// wordRune reports whether r belongs to a word: a letter or a digit,
// or, inside a word, punctuation words hold (colons too with colons).
func wordRune(r rune, inside, colons bool) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || (inside && (innerPunct(r) || colons && r == ':'))
}

// innerPunct reports punctuation that may sit inside a word: identifiers'
// dots, dashes, underscores and slashes, and contractions' apostrophes.
func innerPunct(r rune) bool {
	return r == '.' || r == '-' || r == '_' || r == '\'' || r == '/'
}

// stemWord drops a plural or verb ending. A switch, not a table: it runs
// for every word of every memory, and the table loop cost four times as
// much.
func stemWord(w string) string {
	switch {
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		return w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "es") && !strings.HasSuffix(w, "ses"):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

// tokens returns the sorted, unique hashed content words of s, and whether
// s is phrased negatively.
func tokens(s string) ([]uint32, bool) {
	var out []uint32
	neg := false
	for _, w := range words(s) {
		if negations[w] {
			neg = true
			continue
		}
		if len(w) < 2 || stopwords[w] {
			continue
		}
		out = append(out, fnv32a(stemWord(w)))
	}
	slices.Sort(out)
	return slices.Compact(out), neg
}

// fnv32a hashes s (FNV-1a) without allocating.
func fnv32a(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

func intersect(a, b []uint32) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			n++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return n
}

// cached is one memory held in memory for dedup and ranking.
type cached struct {
	row  *index.MemRow
	toks []uint32
	// rtoks are the terms ranking matches it by (match.go): its words
	// without function words, and the parts of its identifiers.
	rtoks []uint32
	neg   bool
	vec   []float32 // nil without an embedder
	lazy  bool      // vec is still to be computed
	// weight is the summed rarity of toks (rank.go), 0 until computed.
	weight float64
}

// vecOf returns c's vector, embedding it on first use when the index has
// not stored one yet.
func (mc *memCache) vecOf(c *cached) []float32 {
	if c.lazy {
		mc.embedLazy(c)
	}
	return c.vec
}

// embedLazy embeds c, once, with the cache's model.
func (mc *memCache) embedLazy(c *cached) {
	c.lazy = false
	if mc.model == nil {
		return
	}
	if v, ok := mc.model.EmbedText(embed.Document, c.row.Content); ok {
		c.vec = v
	}
}

// memCache holds every memory of the store, reloaded when another write
// bumped the store's memory generation.
type memCache struct {
	gen          int64
	approvedOnly bool   // holds only approved memories (recall)
	project      string // holds only this project's and global memories; "" = all
	embedder     string
	model        *embed.Model // embeds memories the index has not embedded yet
	items        []*cached
	byID         map[string]*cached
	post         map[uint32][]int32 // token -> items holding it
	rpost        map[uint32][]int32 // ranking term (rtoks) -> items holding it
	counts       []int32            // scratch for candidate counting
	// prints are the fingerprints of deleted rejected and superseded
	// memories in the cache's scope (review.go).
	prints []index.Fingerprint
}

func newCached(r *index.MemRow) *cached {
	c := &cached{row: r}
	c.toks, c.neg = tokens(r.Content + " " + strings.Join(r.Tags, " "))
	c.rtoks = matchTokens(r.Content + " " + strings.Join(r.Tags, " "))
	return c
}

func (mc *memCache) add(c *cached) {
	i := int32(len(mc.items))
	mc.items = append(mc.items, c)
	mc.byID[c.row.ID] = c
	for _, t := range c.toks {
		mc.post[t] = append(mc.post[t], i)
	}
	if mc.rpost == nil {
		mc.rpost = map[uint32][]int32{}
	}
	for _, t := range c.rtoks {
		mc.rpost[t] = append(mc.rpost[t], i)
	}
	mc.counts = append(mc.counts, 0)
}

// put replaces or adds a memory after this process wrote it.
func (mc *memCache) put(r *index.MemRow, vec []float32) {
	if old := mc.byID[r.ID]; old != nil {
		toks, neg := tokens(r.Content + " " + strings.Join(r.Tags, " "))
		if slices.Equal(toks, old.toks) && slices.Equal(matchTokens(r.Content+" "+strings.Join(r.Tags, " ")), old.rtoks) {
			old.row, old.neg = r, neg
			if vec != nil {
				old.vec = vec
			}
			return
		}
		// Content changed: drop the old postings lazily (candidates are
		// re-checked against the item's tokens) and add a fresh item.
		old.row = &index.MemRow{ID: "", Status: Archived}
		old.toks, old.rtoks = nil, nil
		delete(mc.byID, r.ID)
	}
	c := newCached(r)
	c.vec = vec
	c.lazy = vec == nil && mc.model != nil
	mc.add(c)
}

func (mc *memCache) remove(id string) {
	if old := mc.byID[id]; old != nil {
		old.row = &index.MemRow{ID: "", Status: Archived}
		old.toks, old.rtoks = nil, nil
		delete(mc.byID, id)
	}
}

// memories returns the cache of every memory, loading it when the store
// changed since.
func (s *core) memories(ctx context.Context) (*memCache, error) {
	return s.loadCache(ctx, false, "")
}

// loadCache returns a cache that holds at least what is asked: with
// approvedOnly the approved memories alone (all that recall needs), with a
// project that project's memories and the global ones (all that dedup of a
// project's memory compares with). A hook process so skips loading what it
// cannot use; a broader cache already loaded serves narrower asks.
func (s *core) loadCache(ctx context.Context, approvedOnly bool, project string) (*memCache, error) {
	gen, err := s.st.Mem().Generation(ctx)
	if err != nil {
		return nil, err
	}
	if c := s.cache; c != nil && c.serves(gen, approvedOnly, project) {
		return c, nil
	}
	rows, err := s.st.Mem().Query(ctx, cacheFilter(approvedOnly, project))
	if err != nil {
		return nil, err
	}
	mc := &memCache{gen: gen, approvedOnly: approvedOnly, project: project, byID: make(map[string]*cached, len(rows)), post: map[uint32][]int32{}}
	for _, r := range rows {
		mc.add(newCached(r))
	}
	if err := s.completeCache(ctx, mc, len(rows) > 0); err != nil {
		return nil, err
	}
	s.cache = mc
	return mc, nil
}

// completeCache adds to a loaded cache what dedup compares with besides
// the memories: the fingerprints of deleted reviewed memories (unless
// the cache is for recall alone) and, when it holds memories, their
// stored vectors.
func (s *core) completeCache(ctx context.Context, mc *memCache, hasMemories bool) error {
	var err error
	if !mc.approvedOnly {
		if mc.prints, err = s.st.Mem().Fingerprints(ctx, mc.project); err != nil {
			return err
		}
	}
	if m := s.embedder(ctx); m != nil && hasMemories {
		return s.attachVectors(ctx, mc, m)
	}
	return nil
}

// cacheFilter selects what a cache holds: a project's memories (all when
// project is "") and global ones, the approved ones alone with
// approvedOnly.
func cacheFilter(approvedOnly bool, project string) index.MemFilter {
	f := index.MemFilter{Project: project, IncludeGlobal: true}
	if approvedOnly {
		f.Statuses = []Status{Approved}
	}
	return f
}

// serves reports whether the cache, current at generation gen, holds
// what loadCache is asked for.
func (mc *memCache) serves(gen int64, approvedOnly bool, project string) bool {
	return mc.gen == gen && (approvedOnly || !mc.approvedOnly) && (mc.project == "" || mc.project == project)
}

// attachVectors gives mc's memories the vectors model's index stored for
// them; the others are embedded when first compared.
func (s *core) attachVectors(ctx context.Context, mc *memCache, m *embed.Model) error {
	mc.embedder = m.ID()
	vecs, err := s.st.Mem().Vectors(ctx, m.ID())
	if err != nil {
		return err
	}
	mc.model = m
	for _, c := range mc.items {
		if v, ok := vecs[c.row.ID]; ok && len(v) == m.Dims() {
			c.vec = v
		} else {
			// Not embedded by the index yet (it embeds queued
			// documents and keeps the vector cache in step): embedded
			// here when first compared.
			c.lazy = true
		}
	}
	return nil
}

// wrote records in the cache what this process just wrote, or drops the
// cache when another process wrote in between.
func (s *core) wrote(ctx context.Context, writes int, rows []*index.MemRow, vecs map[string][]float32, removed []string) {
	if s.cache == nil {
		return
	}
	gen, err := s.st.Mem().Generation(ctx)
	if err != nil || gen != s.cache.gen+int64(writes) {
		s.cache = nil
		return
	}
	s.cache.gen = gen
	for _, r := range rows {
		s.cache.put(r, vecs[r.ID])
	}
	for _, id := range removed {
		s.cache.remove(id)
	}
}

// match is a stored memory similar to a candidate.
type match struct {
	c       *cached
	jaccard float64
	cosine  float64
}

func sameScope(a, b string) bool { return a == b || a == "" || b == "" }

// similar returns memories of the same scope that share words with (or are
// close in vector space to) toks/vec, best first: those with a Jaccard of
// at least minSimilarJaccard or a cosine of at least dupCosine. typ limits
// the lexical rule to one type ("" = any).
//
// Without shared words only memories of vecType ("" = any) are compared by
// vector: the dedup rule needs the same type, and it keeps a check against
// 10,000 memories at a tenth of the dot products.
func (mc *memCache) similar(toks []uint32, vec []float32, project string, typ, vecType Type, limit int) []match {
	q := similarQuery{mc: mc, toks: toks, vec: vec, project: project, typ: typ, vecType: vecType}
	touched := mc.countShared(toks)
	if vec != nil {
		return bestMatches(q.everyMemory(touched), limit)
	}
	return bestMatches(q.sharingWords(touched), limit)
}

// everyMemory matches every memory, in one pass: with a vector no shared
// word is needed (a memory sharing none must be of the query's vecType,
// when set). It clears the counts of touched, the memories sharing words.
func (q *similarQuery) everyMemory(touched []int32) []match {
	mc, counts := q.mc, q.mc.counts
	var out []match
	for i, c := range mc.items {
		if counts[i] == 0 && q.vecType != "" && c.row.Type != q.vecType {
			continue
		}
		if m, ok := q.match(c, counts[i]); ok {
			out = append(out, m)
		}
	}
	for _, i := range touched {
		counts[i] = 0
	}
	return out
}

// sharingWords matches the memories of touched, those sharing words with
// the query, clearing their counts.
func (q *similarQuery) sharingWords(touched []int32) []match {
	mc, counts := q.mc, q.mc.counts
	var out []match
	for _, i := range touched {
		n := counts[i]
		counts[i] = 0
		if m, ok := q.match(mc.items[i], n); ok {
			out = append(out, m)
		}
	}
	return out
}

// countShared counts in mc.counts the tokens each memory shares with toks
// and returns the memories sharing any; the caller zeroes their counts.
func (mc *memCache) countShared(toks []uint32) (touched []int32) {
	counts := mc.counts
	for _, t := range toks {
		for _, i := range mc.post[t] {
			if counts[i] == 0 {
				touched = append(touched, i)
			}
			counts[i]++
		}
	}
	return touched
}

// similarQuery is what similar compares memories with.
type similarQuery struct {
	mc           *memCache
	toks         []uint32
	vec          []float32
	project      string
	typ, vecType Type
}

// match compares c with the query: a match when it is in scope and
// similar enough; n is the number of tokens it shares with the query.
func (q *similarQuery) match(c *cached, n int32) (match, bool) {
	if c.row.ID == "" || !sameScope(c.row.Project, q.project) {
		return match{}, false
	}
	m := match{c: c}
	if n > 0 {
		m.jaccard = float64(n) / float64(len(q.toks)+len(c.toks)-int(n))
	}
	m.cosine = q.cosine(c)
	if m.jaccard < minSimilarJaccard && m.cosine < dupCosine {
		return match{}, false
	}
	if q.typ != "" && c.row.Type != q.typ && m.cosine < dupCosine {
		return match{}, false
	}
	return m, true
}

// cosine is the query vector's cosine with c's, 0 without both or when c
// is not of the type vectors are compared for.
func (q *similarQuery) cosine(c *cached) float64 {
	if q.vec == nil || (q.vecType != "" && c.row.Type != q.vecType) {
		return 0
	}
	if cv := q.mc.vecOf(c); cv != nil {
		return float64(embed.Dot(q.vec, cv))
	}
	return 0
}

// betterMatch orders matches best first: by the higher of the Jaccard and
// the damped cosine, then by id.
func betterMatch(a, b match) int {
	sa, sb := max(a.jaccard, a.cosine*0.7), max(b.jaccard, b.cosine*0.7)
	switch {
	case sa > sb:
		return -1
	case sa < sb:
		return 1
	}
	return strings.Compare(a.c.row.ID, b.c.row.ID)
}

// bestMatches returns the best limit matches of out (all when limit is
// 0), best first.
func bestMatches(out []match, limit int) []match {
	if limit > 0 && len(out) > 4*limit {
		return topMatches(out, limit)
	}
	slices.SortFunc(out, betterMatch)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// topMatches keeps the best limit matches without sorting them all.
func topMatches(out []match, limit int) []match {
	top := make([]match, 0, limit+1)
	for _, m := range out {
		if len(top) == limit && betterMatch(m, top[limit-1]) >= 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, m, betterMatch)
		top = slices.Insert(top, i, m)
		if len(top) > limit {
			top = top[:limit]
		}
	}
	return top
}

// minSimilarJaccard is the least word overlap that makes two memories
// candidates for linking or merging.
const minSimilarJaccard = 0.15

// isDuplicate applies the dedup rule to a match of the same type.
func (m match) isDuplicate(sameType bool) bool {
	if sameType && m.jaccard >= dupJaccard {
		return true
	}
	return m.cosine >= dupCosine && m.jaccard >= dupCosineWords && sameType
}

// codeSpanRe is a Markdown code span: a command, an identifier, a path.
var codeSpanRe = lazyRE("`([^`\n]{1,200})`")

// namesDiffer reports whether a and b each quote code the other does not
// mention: two memories about different commands or identifiers
// ("checks the project with `uv run ty check`" and "… with `uv run pytest
// -m browser`"), however alike the words around them. They are two
// memories, not one said twice: merging them would keep one wording and
// lose the other command. A memory whose quoted code the other mentions
// (`mix format` and `mix format --check-formatted`) may still be its
// duplicate.
func namesDiffer(a, b string) bool {
	ca, cb := codeTokens(a), codeTokens(b)
	if len(ca) == 0 || len(cb) == 0 {
		return false
	}
	ta, _ := tokens(a)
	tb, _ := tokens(b)
	return !subset(ca, tb) && !subset(cb, ta)
}

// codeTokens are the tokens of s's code spans, sorted and unique.
func codeTokens(s string) []uint32 {
	var out []uint32
	for _, m := range codeSpanRe.FindAllStringSubmatch(s, -1) {
		t, _ := tokens(m[1])
		out = append(out, t...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// subset reports whether every token of a (sorted) is in b (sorted).
func subset(a, b []uint32) bool {
	return intersect(a, b) == len(a)
}
