package index

import (
	"math"
	"sort"
	"time"
)

// Scored is one fused result.
type Scored struct {
	ID    string
	Score float64
}

// RRFK is the reciprocal rank fusion constant.
const RRFK = 60

// FuseRRF merges ranked id lists by weighted reciprocal rank fusion:
// score(d) = Σ w_i / (k + rank_i(d)), ranks from 1. Ties keep the order of
// the first list, so a BM25-dominant weighting never reorders BM25's own
// ranking among results the vectors do not touch.
func FuseRRF(k float64, weights []float64, lists ...[]string) []Scored {
	score := map[string]float64{}
	first := map[string]int{} // position of first appearance, for stable ties
	pos := 0
	for li, list := range lists {
		w := 1.0
		if li < len(weights) {
			w = weights[li]
		}
		for r, id := range list {
			score[id] += w / (k + float64(r+1))
			if _, ok := first[id]; !ok {
				first[id] = pos
				pos++
			}
		}
	}
	return sortScores(score, first)
}

// FuseConvex merges scored lists by a weighted sum of min-max normalised
// scores: alpha for the first list, 1-alpha for the second.
func FuseConvex(alpha float64, text, vec []Scored) []Scored {
	score := map[string]float64{}
	first := map[string]int{}
	pos := 0
	add := func(list []Scored, w float64) {
		if len(list) == 0 {
			return
		}
		lo, hi := list[0].Score, list[0].Score
		for _, s := range list {
			lo, hi = math.Min(lo, s.Score), math.Max(hi, s.Score)
		}
		for _, s := range list {
			n := 1.0
			if hi > lo {
				n = (s.Score - lo) / (hi - lo)
			}
			score[s.ID] += w * n
			if _, ok := first[s.ID]; !ok {
				first[s.ID] = pos
				pos++
			}
		}
	}
	add(text, alpha)
	add(vec, 1-alpha)
	return sortScores(score, first)
}

func sortScores(score map[string]float64, first map[string]int) []Scored {
	out := make([]Scored, 0, len(score))
	for id, s := range score {
		out = append(out, Scored{id, s})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return first[out[i].ID] < first[out[j].ID]
	})
	return out
}

// RecencyWeight is a gentle prior: 1 for today, falling to floor for items
// much older than halfLife (exponential decay towards the floor).
func RecencyWeight(t, now time.Time, halfLife time.Duration, floor float64) float64 {
	if t.IsZero() || halfLife <= 0 {
		return 1
	}
	age := now.Sub(t)
	if age <= 0 {
		return 1
	}
	decay := math.Exp2(-float64(age) / float64(halfLife))
	return floor + (1-floor)*decay
}
