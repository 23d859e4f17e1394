package index

import (
	"context"
	"errors"
	"fmt"
	"sort"
)

// RecalledSession is one past session a recall found: its best matching
// entry, and how well it matched.
type RecalledSession struct {
	SearchResult
}

// recallCandidates is how many sessions each query ranks before fusion.
const recallCandidates = 20

// RecallSessions finds the past sessions that best match a query and its
// rephrasings: each query ranks sessions by the session rule
// (sessionrank.go: all of a session's matching messages, no thinking, no
// tool output), and the rankings are fused by reciprocal rank, the sessions matching fully (by words or meaning) before the
// partial ones (Match MatchPartial). A session's Relevance is its best
// result's over the queries (its messages' words between them): on the fixed scale of SearchResult.Relevance,
// so a weak match says so. At most n sessions. This is the one session recall every front
// end uses (MCP memory_recall, `cairn recall` behind /recall). mode is the
// search mode used (hybrid, or text while no embedder is ready).
func (sr *Searcher) RecallSessions(ctx context.Context, queries, projects []string, n int) (found []RecalledSession, mode string, err error) {
	return sr.RecallSessionsOf(ctx, queries, projects, "", n)
}

// RecallSessionsOf is RecallSessions of one machine's sessions: machine
// is SearchQuery.Machine (a machine's name, MachineLocal, or "" for all).
func (sr *Searcher) RecallSessionsOf(ctx context.Context, queries, projects []string, machine string, n int) (found []RecalledSession, mode string, err error) {
	var lists [][]string
	best := map[string]SearchResult{}
	for _, q := range queries {
		resp, err := sr.Search(ctx, SearchQuery{Text: q, Limit: recallCandidates, Projects: projects, Machine: machine,
			GroupBySession: true, Kinds: []string{"messages"}, NoThinking: true, Partial: true})
		if errors.Is(err, ErrNoMachine) {
			return nil, mode, err
		}
		if err != nil {
			return nil, mode, fmt.Errorf("searching for %q: %w", q, err)
		}
		mode = resp.Mode
		lists = append(lists, sessionsOf(resp.Results, best))
	}
	fused := FuseRRF(RRFK, nil, lists...)
	sort.SliceStable(fused, func(i, j int) bool {
		return best[fused[i].ID].Match != MatchPartial && best[fused[j].ID].Match == MatchPartial
	})
	for _, f := range fused {
		if len(found) == n {
			break
		}
		found = append(found, RecalledSession{SearchResult: best[f.ID]})
	}
	return found, mode, nil
}

// sessionsOf lists the sessions of results, in order, keeping each
// session's best hit so far in best.
func sessionsOf(results []SearchResult, best map[string]SearchResult) []string {
	var ids []string
	for _, r := range results {
		if r.SessionID == "" {
			continue
		}
		ids = append(ids, r.SessionID)
		if b, ok := best[r.SessionID]; !ok || better(r, b) {
			best[r.SessionID] = r
		}
	}
	return ids
}

// better reports whether a is a better hit of its session than b: a full
// match over a partial one, else the more relevant.
func better(a, b SearchResult) bool {
	if (a.Match == MatchPartial) != (b.Match == MatchPartial) {
		return b.Match == MatchPartial
	}
	return a.Relevance > b.Relevance
}
