package index

import (
	"context"
	"database/sql"
	"math"
	"sort"
	"time"
)

// Session-level ranking (issue 24 item 2): where the answer is a session
// (`cairn search --group`, MCP memory_recall and `cairn recall` through
// RecallSessions), a session is ranked by all of its matching entries, not
// by its first appearance in the entry ranking: the evidence for a
// question is often spread over several turns of one session.
//
//   - A session's relevance is the share of the query's information its
//     entries hold between them (the union of their words, on the fixed
//     scale of an entry's relevance).
//   - Its grade is its best entry's (Grade), lifted to a full match when
//     its entries between them hold enough of the query's words (the count
//     rule) carrying at least sessionUnionFloor (FullCoverage) of its information: a
//     session whose turns hold "Caroline", "adoption" and "agency" between
//     them answers "Caroline adoption agency". Below that floor, several
//     turns each holding a common word of the query are a coincidence, not
//     evidence (measured on LoCoMo asked of the wrong conversation).
//   - Its score adds up its best entries' evidence — BM25 score times the
//     entry's relevance — each worth sessionDecay of the one before
//     (CombSUM with a geometric discount): a second and third matching
//     turn add up, a run of weak ones cannot outweigh one strong turn, and
//     a long turn holding one common word weighs little.
//   - A session none of whose entries is a match on its own is a partial
//     one when its entries between them hold at least
//     sessionUnionPartialFloor of the query's information: the question's
//     words spread over a conversation's turns ("Caroline", "adoption"
//     in one, "agency" in the next). Above PartialFloor, the entry's
//     floor: several turns holding the words between them is weaker
//     evidence than one turn holding them.
//   - Full sessions rank first, then the partial ones (shown when asked
//     for, SearchQuery.Partial), each by their words' evidence: the
//     session's relevance plus its best entry's plus a tenth of the log of
//     its score (sessionOrder "soft": the order does not depend on the
//     scale of BM25 scores, and a session holding the query in one turn
//     ranks above one holding it spread over several unless its evidence
//     is much weaker); the vectors (best cosine) and recency break ties;
//     the sessions found by meaning alone last — so hybrid never ranks a
//     word match below where text alone puts it.
//     With SearchQuery.Partial, once any session matches,
//     every other session holding a query word is returned as partial too
//     (sessionLoose): memory_recall's tail, flagged and with its low
//     relevance; a question nothing matches still gets nothing.
//   - A date the query names is a word its sessions of that day hold
//     (coverage.holdDates).
//
// A session's result is its best entry (full over partial, then the most
// relevant, then the first ranked), carrying the session's score, match
// and relevance. docs/search-relevance.md has the measurements (LoCoMo,
// the labelled set) of this rule and the alternatives.

// sessionDepth is how many of a session's entries count towards its score.
const sessionDepth = 5

// sessionDecay is the weight of each further entry of a session relative to
// the one before it.
var sessionDecay = 0.3

// sessionRanking selects the session rule; the tests sweep the
// alternatives measured in docs/search-relevance.md. "first" is the old
// rule: each session's first appearance in the entry ranking.
var sessionRanking = "decay"

// sessionUnionFloor: a session whose best entry is not a full match is one
// when its entries between them hold enough of the query's words (Grade's
// count rule) carrying at least this share of its information.
var sessionUnionFloor = FullCoverage

// sessionUnionPartial: a session whose entries between them hold at least
// PartialFloor of the query's information is a partial match even when
// none of them is on its own.
var sessionUnionPartial = false

// sessionUnionPartialFloor: a session whose entries are no match on their
// own is a partial match when they hold at least this share of the
// query's information between them (0: never).
var sessionUnionPartialFloor = 0.5

// sessionOrder ranks full sessions, then partial ones, by their relevance
// plus their best entry's plus sessionScoreWeight times the log of their
// score ("soft"); the tests also measure relevance, then the best entry's
// relevance, then score ("rel2", the rule before), relevance then score
// ("rel"), score alone ("score") and relevance times score ("prod").
var sessionOrder = "soft"

// sessionScoreWeight is the weight of the log of a session's score in the
// "soft" order: a session's score ten times another's is worth a tenth of
// the query's information (0.23).
var sessionScoreWeight = 0.1

// sessionEvidence: "text", an entry's evidence is its BM25 score (the
// vectors and recency break ties); "fused" (measured before), its fused
// score.
var sessionEvidence = "text"

// sessionTrace, set by tests only, sees each ranking's inputs.
var sessionTrace func(q SearchQuery, cv *coverage, fused, textRank, vecRank []Scored, docs map[string]*hit, match map[string]string)

// sessionAgg is one session's evidence.
type sessionAgg struct {
	best       Scored  // its representative entry
	bestRel    float64 // the representative's own relevance
	bestFull   bool
	bestGrade  string
	scores     []Scored // its entries' evidence
	has        uint64   // the query words its entries hold between them
	words      bool     // an entry matches by words (not meaning alone)
	whole      bool     // an entry holds a whole word (not only a prefix)
	cos        float64  // best cosine of an entry matched by meaning alone
	score      float64
	rel        float64
	grade      string
	firstIndex int
	tf         [64]int // per query word, how many of its entries hold it
	vmax       float64 // best cosine of any of its entries
	latest     time.Time
	meaning    []Scored // its entries matched by meaning alone
	length     int      // its entries (sessions.entries)
}

// Session BM25 (sessionRanking "bm25s"): a session is one document whose
// terms are its turns' words: a word's frequency is how many of its
// matching turns hold it, saturating (k1), over the session's length in
// entries against the average (b); sessionVecWeight adds the best cosine
// of its entries.
var (
	sessionK1        = 1.2
	sessionB         = 0.75
	sessionVecWeight = 0.0
	// sessionLoose: with q.Partial, once some session matches (fully or
	// in part), every other session holding any query word is returned
	// as a partial match too.
	sessionLoose = true
)

// rankSessions turns the fused entry ranking into one result per session,
// ranked by the session rule above. It returns the representative entries
// in order (their match and rel set to the session's) and how many partial
// sessions were left out (without q.Partial).
func (sr *Searcher) rankSessions(ctx context.Context, q SearchQuery, resp *SearchResponse, fused, textRank, vecRank []Scored, docs map[string]*hit, match map[string]string) ([]Scored, map[string]float64, int, error) {
	cv, err := sr.queryCoverage(q, textRank, docs)
	if err != nil {
		return nil, nil, 0, err
	}
	if sessionTrace != nil {
		sessionTrace(q, cv, fused, textRank, vecRank, docs, match)
	}
	order := gatherSessions(cv, fused, textRank, vecRank, docs, match)
	avgLen, err := sr.averageLength(ctx, order, docs)
	if err != nil {
		return nil, nil, 0, err
	}
	anyFull, anyGraded := settleAll(order, cv, avgLen)
	full, partial, meaning := splitSessions(order, q.Partial && anyGraded, anyFull || sr.meaningAlone(resp))
	for _, list := range [][]*sessionAgg{full, partial, meaning} {
		sort.SliceStable(list, func(i, j int) bool { return list[i].before(list[j]) })
	}
	hidden := 0
	if !q.Partial {
		hidden, partial = len(partial), nil
	}
	// The sessions found by meaning alone come last: the vectors join
	// where the words find nothing, they never push a word match out.
	out, rel := representatives(append(append(full, partial...), meaning...), match)
	return monotone(out, match, rel), rel, hidden, nil
}

// averageLength is the sessions' average length for bm25s (sessionLengths),
// 1 for the other rankings.
func (sr *Searcher) averageLength(ctx context.Context, order []*sessionAgg, docs map[string]*hit) (float64, error) {
	if sessionRanking != "bm25s" {
		return 1.0, nil
	}
	return sr.sessionLengths(ctx, order, docs)
}

// settleAll settles every session, reporting whether some matched every
// word (anyFull) and whether some was graded at all (anyGraded).
func settleAll(order []*sessionAgg, cv *coverage, avgLen float64) (anyFull, anyGraded bool) {
	for _, a := range order {
		a.settle(cv, avgLen)
		anyFull = anyFull || a.words && a.grade == MatchWords
		anyGraded = anyGraded || a.words && a.grade != ""
	}
	return anyFull, anyGraded
}

// gatherSessions groups the fused entries by session, in the order each
// session first appears, with each entry's evidence.
func gatherSessions(cv *coverage, fused, textRank, vecRank []Scored, docs map[string]*hit, match map[string]string) []*sessionAgg {
	cos := make(map[string]float64, len(vecRank))
	for _, v := range vecRank {
		cos[v.ID] = v.Score
	}
	textScore := make(map[string]float64, len(textRank))
	for _, t := range textRank {
		textScore[t.ID] = t.Score
	}
	bySession := map[string]*sessionAgg{}
	var order []*sessionAgg
	for i, f := range fused {
		d := docs[f.ID]
		if d == nil {
			continue
		}
		a := bySession[d.Session]
		if a == nil {
			a = &sessionAgg{firstIndex: i}
			bySession[d.Session] = a
			order = append(order, a)
		}
		a.add(cv, f, d, match[f.ID], cos[f.ID], textScore[f.ID])
	}
	return order
}

// add counts one entry of the session: f as fused, d its row, m its match
// kind ("" by meaning alone), cos its cosine, text its BM25 score.
func (a *sessionAgg) add(cv *coverage, f Scored, d *hit, m string, cos, text float64) {
	var g string
	var r float64
	if m == "" {
		a.cos = math.Max(a.cos, cos)
	} else {
		g, r = a.countWords(cv, f.ID, m)
	}
	// An entry's evidence: its BM25 score times the share of the
	// query it holds, so a long turn holding one word of the query
	// weighs less than a short one holding them all. The vectors and
	// recency only break ties between sessions of equal word evidence
	// (vmax, latest): hybrid never ranks a session below where text
	// alone puts it. A match by meaning alone is evidence only for a
	// session without words: its fused score times its cosine.
	a.vmax = math.Max(a.vmax, cos)
	if d.Time.After(a.latest) {
		a.latest = d.Time
	}
	a.addEvidence(f, m, cos, text, r)
	a.pickBest(f, g, r)
}

// countWords counts the query words entry id (matched as m) holds into the
// session's, and returns the entry's grade and relevance.
func (a *sessionAgg) countWords(cv *coverage, id, m string) (string, float64) {
	g, r := cv.grade(id)
	if cv != nil {
		has := cv.cover.Has[id]
		a.has |= has
		for i := range cv.cover.Words {
			if has&(1<<i) != 0 {
				a.tf[i]++
			}
		}
	}
	a.words = true
	a.whole = a.whole || m == MatchWords
	return g, r
}

// addEvidence records the entry's evidence (see add): a word match's
// score (fused or BM25, per sessionEvidence) times its relevance r, or a
// match by meaning alone's fused score times its cosine.
func (a *sessionAgg) addEvidence(f Scored, m string, cos, text, r float64) {
	switch {
	case sessionEvidence == "fused" && m != "":
		a.scores = append(a.scores, Scored{ID: f.ID, Score: f.Score * r})
	case m != "":
		a.scores = append(a.scores, Scored{ID: f.ID, Score: text * r})
	default:
		a.meaning = append(a.meaning, Scored{ID: f.ID, Score: f.Score * cos})
	}
}

// pickBest keeps the representative: a full match over a partial one over
// the rest, then the more relevant, then the first in the ranking; and the
// best grade seen.
func (a *sessionAgg) pickBest(f Scored, g string, r float64) {
	full := g == MatchWords
	if a.best.ID == "" || full && !a.bestFull || full == a.bestFull && r > a.bestRel {
		a.best, a.bestRel, a.bestFull = f, r, full
	}
	if g == MatchWords || g == MatchPartial && a.bestGrade == "" {
		a.bestGrade = g
	}
}

// settle scores the session from its evidence and, when words match,
// grades it by the query's information its entries hold between them.
func (a *sessionAgg) settle(cv *coverage, avgLen float64) {
	if !a.words {
		a.scores = a.meaning
	}
	sort.SliceStable(a.scores, func(i, j int) bool { return a.scores[i].Score > a.scores[j].Score })
	a.score = sessionScore(a.scores[:min(len(a.scores), sessionDepth)])
	if sessionRanking == "bm25s" {
		a.score = a.bm25(cv, avgLen)
	}
	if !a.words {
		return
	}
	matched, n := cv.count(a.has)
	if cv.total > 0 {
		a.rel = cv.relevance(a.has)
	}
	a.grade = a.unionGrade(Grade(matched, n, a.rel))
	if a.grade == "" && sessionUnionPartialFloor > 0 && a.rel >= sessionUnionPartialFloor-1e-9 {
		a.grade = MatchPartial
	}
}

// unionGrade is the session's grade from g, the grade of what its entries
// hold between them: full only at sessionUnionFloor; below, partial when
// sessionUnionPartial, else its best entry's grade.
func (a *sessionAgg) unionGrade(g string) string {
	switch {
	case g == MatchWords && a.rel >= sessionUnionFloor-1e-9:
		return g
	case g != MatchPartial && g != MatchWords || !sessionUnionPartial:
		return a.bestGrade
	case a.bestGrade == MatchWords:
		return MatchWords
	}
	return MatchPartial
}

// splitSessions sorts the sessions into full, partial and by meaning
// alone; loose (some session graded, partial matches asked for) makes
// every other session holding any query word partial (sessionLoose);
// meaningOK admits sessions found by meaning alone.
func splitSessions(order []*sessionAgg, loose, meaningOK bool) (full, partial, meaning []*sessionAgg) {
	for _, a := range order {
		if !a.words {
			if meaningOK {
				a.rel = math.Round(a.cos*1000) / 1000
				meaning = append(meaning, a)
			}
			continue
		}
		switch {
		case a.grade == MatchWords:
			full = append(full, a)
		case a.grade == MatchPartial:
			partial = append(partial, a)
		case sessionLoose && loose && a.rel > 0:
			// (a word every entry holds, such as a speaker's name, weighs
			// nothing: no evidence)
			a.grade = MatchPartial
			partial = append(partial, a)
		}
	}
	return full, partial, meaning
}

// before orders two sessions of one list by sessionOrder, then by word
// evidence, the vectors, recency and first appearance.
func (a *sessionAgg) before(b *sessionAgg) bool {
	if x, y, ok := a.orderKey(b); ok && x != y {
		return x > y
	}
	if sessionOrder == "rel2" && a.rel == b.rel && a.bestRel != b.bestRel {
		return a.bestRel > b.bestRel
	}
	switch {
	case a.score != b.score:
		return a.score > b.score
	case a.vmax != b.vmax:
		return a.vmax > b.vmax
	case !a.latest.Equal(b.latest):
		return a.latest.After(b.latest)
	}
	return a.firstIndex < b.firstIndex
}

// orderKey is what sessionOrder compares first, for a and b (ok false:
// nothing).
func (a *sessionAgg) orderKey(b *sessionAgg) (x, y float64, ok bool) {
	switch sessionOrder {
	case "soft":
		if !a.words || !b.words { // by meaning alone: by cosine
			return a.rel, b.rel, true
		}
		return a.soft(), b.soft(), true
	case "rel", "rel2":
		return a.rel, b.rel, true
	case "prod":
		return a.rel * a.score, b.rel * b.score, true
	}
	return 0, 0, false
}

// representatives are the sessions' representative entries in order,
// their match kinds set in match, and their relevance.
func representatives(all []*sessionAgg, match map[string]string) ([]Scored, map[string]float64) {
	rel := make(map[string]float64, len(all))
	out := make([]Scored, 0, len(all))
	for _, a := range all {
		id := a.best.ID
		switch {
		case !a.words:
			match[id] = ""
		case a.grade == MatchPartial:
			match[id] = MatchPartial
		case a.whole:
			match[id] = MatchWords
		default:
			match[id] = MatchPrefix
		}
		rel[id] = a.rel
		out = append(out, Scored{ID: id, Score: a.score})
	}
	return out, rel
}

// soft is the session's evidence in the "soft" order (sessionOrder).
func (a *sessionAgg) soft() float64 {
	return a.rel + a.bestRel + sessionScoreWeight*math.Log(max(a.score, 1e-9))
}

// sessionScore adds up a session's entry scores (fused order, best first)
// as the session rule says.
func sessionScore(scores []Scored) float64 {
	if len(scores) == 0 {
		return 0
	}
	switch sessionRanking {
	case "max":
		return scores[0].Score
	case "combsum":
		s := 0.0
		for _, x := range scores {
			s += x.Score
		}
		return s
	case "combmnz":
		s := 0.0
		for _, x := range scores {
			s += x.Score
		}
		return s * float64(len(scores))
	}
	s, w := 0.0, 1.0
	for _, x := range scores {
		s += w * x.Score
		w *= sessionDecay
	}
	return s
}

// bm25 is the session's BM25 score as one document (see sessionK1).
func (a *sessionAgg) bm25(cv *coverage, avgLen float64) float64 {
	s := sessionVecWeight * a.vmax
	if cv == nil {
		return s
	}
	norm := 1 - sessionB + sessionB*float64(max(a.length, 1))/avgLen
	for i, w := range cv.cover.Words {
		if tf := float64(a.tf[i]); tf > 0 {
			s += w.Weight * tf * (sessionK1 + 1) / (tf + sessionK1*norm)
		}
	}
	return s
}

// sessionLengths reads each ranked session's length in entries, and the
// average over the store's sessions.
func (sr *Searcher) sessionLengths(ctx context.Context, order []*sessionAgg, docs map[string]*hit) (avg float64, err error) {
	if len(order) == 0 {
		return 1, nil
	}
	by := map[string]*sessionAgg{}
	keys := make([]any, 0, len(order))
	for _, a := range order {
		if d := docs[a.best.ID]; d != nil {
			by[d.Session] = a
			keys = append(keys, d.Session)
		}
	}
	err = sr.Store.eachRowIn(ctx, `SELECT sid, entries FROM sessions WHERE sid IN (`, keys, func(rows *sql.Rows) error {
		var sid string
		var n int
		if err := rows.Scan(&sid, &n); err != nil {
			return err
		}
		if a := by[sid]; a != nil {
			a.length = n
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	err = sr.Store.r.QueryRowContext(ctx, `SELECT coalesce(avg(entries), 1) FROM sessions WHERE entries > 0`).Scan(&avg)
	return max(avg, 1), err
}
