package embed

import (
	"context"
)

// maxEvalPairs bounds the quadratic ranking in the evaluations.
const maxEvalPairs = 3000

// halfSplitMRR queries with the first half of each 400–6000 byte entry and
// ranks all second halves: a topical-coherence score (MRR, recall@1).
func halfSplitMRR(m *Model, docs []string) (float64, float64) {
	var qs, ts []string
	for _, d := range docs {
		if len(qs) == maxEvalPairs {
			break
		}
		if len(d) < 400 || len(d) > 6000 {
			continue
		}
		h := len(d) / 2
		qs = append(qs, clipRunes(d, h))
		ts = append(ts, d[len(clipRunes(d, h)):])
	}
	var mrr, r1 float64
	ranks := pairRanks(m, qs, ts)
	for _, rank := range ranks {
		mrr += 1 / float64(rank)
		if rank == 1 {
			r1++
		}
	}
	return mrr / float64(len(ranks)), r1 / float64(len(ranks))
}

// pairRanks embeds queries qs and targets ts and returns, for each query,
// the rank of its own target among all targets (1 = best).
func pairRanks(m *Model, qs, ts []string) []int {
	qv, _ := m.Embed(context.Background(), Query, qs)
	tv, _ := m.Embed(context.Background(), Document, ts)
	ranks := make([]int, len(qv))
	for i := range qv {
		s := Dot(qv[i], tv[i])
		ranks[i] = 1
		for j := range tv {
			if j != i && Dot(qv[i], tv[j]) > s {
				ranks[i]++
			}
		}
	}
	return ranks
}

// promptReplyMRR queries with user texts and ranks all following assistant
// replies: a rough paraphrase-style score.
func promptReplyMRR(m *Model, entries []corpusEntry) (float64, int) {
	var qs, ts []string
	for i := 0; i+1 < len(entries) && len(qs) < maxEvalPairs; i++ {
		if entries[i].role == "user" && len(entries[i].text) >= 30 && len(entries[i].text) < 2000 {
			for j := i + 1; j < len(entries) && j < i+20; j++ {
				if entries[j].role == "assistant" && len(entries[j].text) >= 100 {
					qs = append(qs, entries[i].text)
					ts = append(ts, entries[j].text)
					break
				}
			}
		}
	}
	var mrr float64
	ranks := pairRanks(m, qs, ts)
	for _, rank := range ranks {
		mrr += 1 / float64(rank)
	}
	return mrr / float64(len(ranks)), len(ranks)
}
