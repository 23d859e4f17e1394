package index

import (
	"math"
	"math/bits"
	"sort"
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
//   - Its score adds up its best entries' evidence — fused score (BM25,
//     vectors, recency) times the entry's relevance — each worth
//     sessionDecay of the one before (CombSUM with a geometric discount):
//     a second and third matching turn add up, a run of weak ones cannot
//     outweigh one strong turn, and a long turn holding one common word
//     weighs little.
//   - Full sessions rank first: by relevance, then their best entry's, then
//     score; the partial ones after them (shown when asked for,
//     SearchQuery.Partial).
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

// sessionOrder ranks full sessions by relevance, then their best entry's
// relevance, then score ("rel2": a session holding the query in one turn
// ranks above one holding it spread over several, evidence breaks ties);
// the tests also measure relevance then score ("rel"), score alone
// ("score") and their product ("prod").
var sessionOrder = "rel2"

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
}

// rankSessions turns the fused entry ranking into one result per session,
// ranked by the session rule above. It returns the representative entries
// in order (their match and rel set to the session's) and how many partial
// sessions were left out (without q.Partial).
func (sr *Searcher) rankSessions(q SearchQuery, resp *SearchResponse, fused, textRank, vecRank []Scored, docs map[string]*hit, match map[string]string) ([]Scored, map[string]float64, int, error) {
	cv, err := sr.queryCoverage(q, textRank, docs)
	if err != nil {
		return nil, nil, 0, err
	}
	cos := make(map[string]float64, len(vecRank))
	for _, v := range vecRank {
		cos[v.ID] = v.Score
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
		m := match[f.ID]
		var g string
		var r float64
		if m == "" {
			a.cos = math.Max(a.cos, cos[f.ID])
		} else {
			g, r = cv.grade(f.ID)
			if cv != nil {
				a.has |= cv.cover.Has[f.ID]
			}
			a.words = true
			a.whole = a.whole || m == MatchWords
		}
		// An entry's evidence: its fused score (BM25 and vectors, recency)
		// times the share of the query it holds (its cosine for a match
		// by meaning alone), so a long turn holding one word of the query
		// weighs less than a short one holding them all.
		strength := f.Score * r
		if m == "" {
			strength = f.Score * cos[f.ID]
		}
		a.scores = append(a.scores, Scored{ID: f.ID, Score: strength})
		// The representative: a full match over a partial one over the
		// rest, then the more relevant, then the first in the ranking.
		full := g == MatchWords
		if a.best.ID == "" || full && !a.bestFull || full == a.bestFull && r > a.bestRel {
			a.best, a.bestRel, a.bestFull = f, r, full
		}
		if g == MatchWords || g == MatchPartial && a.bestGrade == "" {
			a.bestGrade = g
		}
	}
	anyFull := false
	for _, a := range order {
		sort.SliceStable(a.scores, func(i, j int) bool { return a.scores[i].Score > a.scores[j].Score })
		a.score = sessionScore(a.scores[:min(len(a.scores), sessionDepth)])
		if a.words {
			matched, w := bits.OnesCount64(a.has), 0.0
			for i, word := range cv.cover.Words {
				if a.has&(1<<i) != 0 {
					w += word.Weight
				}
			}
			if cv.total > 0 {
				a.rel = math.Round(w/cv.total*1000) / 1000
			}
			a.grade = Grade(matched, len(cv.cover.Words), a.rel)
			if a.grade != MatchWords || a.rel < sessionUnionFloor-1e-9 {
				if a.grade != MatchPartial && a.grade != MatchWords || !sessionUnionPartial {
					a.grade = a.bestGrade
				} else if a.bestGrade == MatchWords {
					a.grade = MatchWords
				} else {
					a.grade = MatchPartial
				}
			}
			if a.grade == MatchWords {
				anyFull = true
			}
		}
	}
	alone := sr.meaningAlone(resp)
	var full, partial []*sessionAgg
	for _, a := range order {
		switch {
		case a.words && a.grade == MatchWords:
			full = append(full, a)
		case a.words && a.grade == MatchPartial:
			partial = append(partial, a)
		case !a.words && (anyFull || alone):
			a.rel = math.Round(a.cos*1000) / 1000
			full = append(full, a)
		}
	}
	less := func(list []*sessionAgg) func(i, j int) bool {
		return func(i, j int) bool {
			switch sessionOrder {
			case "rel":
				if list[i].rel != list[j].rel {
					return list[i].rel > list[j].rel
				}
			case "rel2":
				if list[i].rel != list[j].rel {
					return list[i].rel > list[j].rel
				}
				if list[i].bestRel != list[j].bestRel {
					return list[i].bestRel > list[j].bestRel
				}
			case "prod":
				if a, b := list[i].rel*list[i].score, list[j].rel*list[j].score; a != b {
					return a > b
				}
			}
			if list[i].score != list[j].score {
				return list[i].score > list[j].score
			}
			return list[i].firstIndex < list[j].firstIndex
		}
	}
	sort.SliceStable(full, less(full))
	sort.SliceStable(partial, less(partial))
	hidden := 0
	if !q.Partial {
		hidden, partial = len(partial), nil
	}
	rel := make(map[string]float64, len(full)+len(partial))
	out := make([]Scored, 0, len(full)+len(partial))
	for _, a := range append(full, partial...) {
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
	return monotone(out, match, rel), rel, hidden, nil
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
