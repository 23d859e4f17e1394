package index

import (
	"context"
	"fmt"
	"math"
)

// RecalledSession is one past session a recall found: its best matching
// entry, and how well it matched.
type RecalledSession struct {
	SearchResult
	// Relevance is 0..1: the session's fused rank over the queries (1:
	// first for every one of them).
	Relevance float64
}

// recallCandidates is how many sessions each query ranks before fusion.
const recallCandidates = 20

// RecallSessions finds the past sessions that best match a query and its
// rephrasings: each query ranks sessions by their best message (no
// thinking, no tool output), and the rankings are fused by reciprocal
// rank. At most n sessions. This is the one session recall every front
// end uses (MCP memory_recall, `cairn recall` behind /recall). mode is the
// search mode used (hybrid, or text while no embedder is ready).
func (sr *Searcher) RecallSessions(ctx context.Context, queries, projects []string, n int) (found []RecalledSession, mode string, err error) {
	var lists [][]string
	best := map[string]SearchResult{}
	for _, q := range queries {
		resp, err := sr.Search(ctx, SearchQuery{Text: q, Limit: recallCandidates, Projects: projects,
			GroupBySession: true, Kinds: []string{"messages"}, NoThinking: true})
		if err != nil {
			return nil, mode, fmt.Errorf("searching for %q: %w", q, err)
		}
		mode = resp.Mode
		var ids []string
		for _, r := range resp.Results {
			if r.SessionID == "" {
				continue
			}
			ids = append(ids, r.SessionID)
			if _, ok := best[r.SessionID]; !ok {
				best[r.SessionID] = r
			}
		}
		lists = append(lists, ids)
	}
	top := float64(len(lists)) / float64(RRFK+1) // first in every list
	for _, f := range FuseRRF(RRFK, nil, lists...) {
		if len(found) == n {
			break
		}
		found = append(found, RecalledSession{SearchResult: best[f.ID], Relevance: math.Round(f.Score/top*1000) / 1000})
	}
	return found, mode, nil
}
