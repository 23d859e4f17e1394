package fts

import (
	"github.com/cairn-dev/cairn/index/ftsapi"

	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Filter narrows a search (see ftsapi.Filter).
type Filter = ftsapi.Filter

// Hit is one result: the document ID and its BM25 score.
type Hit = ftsapi.Hit

// Limits on how many hits one search returns.
const (
	defaultLimit = 20
	maxLimit     = 10000
)

// Search runs user text against the index and returns the best hits by
// score and the total number of matching documents. Query text is never a
// syntax error: see parseQuery. A query that analyses to nothing (empty,
// only stop words or punctuation, only exclusions) matches nothing.
func (ix *Index) Search(text string, f Filter, limit int) ([]Hit, uint64, error) {
	if ix.idx == nil {
		return nil, 0, errClosed
	}
	if limit <= 0 {
		limit = defaultLimit
	}
	limit = min(limit, maxLimit)
	b := buildQuery(text)
	if b.empty() {
		return nil, 0, nil
	}
	req := bleve.NewSearchRequestOptions(assemble(b, f), limit, 0, false)
	res, err := ix.idx.Search(req)
	if err != nil {
		return nil, 0, fmt.Errorf("fts: searching %q: %w", text, err)
	}
	hits := make([]Hit, len(res.Hits))
	for i, h := range res.Hits {
		hits[i] = Hit{ID: h.ID, Score: h.Score}
	}
	return hits, res.Total, nil
}

// assemble combines the clauses and the filter. Optional words form one
// disjunction so its coordination factor rewards documents matching more of
// them; with required clauses present they only add score. Filters go in
// bleve's non-scoring filter slot so they never change the ranking.
func assemble(b built, f Filter) query.Query {
	must, should := b.must, b.bigrams
	if len(must) == 0 {
		must = []query.Query{anyOf(b.should)}
	} else {
		should = append(append([]query.Query(nil), b.should...), b.bigrams...)
	}
	not := append([]query.Query(nil), b.not...)
	for _, blk := range f.ExcludeBlocks {
		not = append(not, term(fieldBlock, blk, 1))
	}
	q := query.NewBooleanQuery(must, should, not)
	if fq := filterQuery(f); fq != nil {
		q.AddFilter(fq)
	}
	return q
}

func filterQuery(f Filter) query.Query {
	var qs []query.Query
	for _, l := range []struct {
		field  string
		values []string
	}{
		{fieldKind, f.Kinds}, {fieldProject, f.Projects}, {fieldSession, f.Sessions},
		{fieldRole, f.Roles}, {fieldBlock, f.Blocks},
	} {
		var alts []query.Query
		for _, v := range l.values {
			alts = append(alts, term(l.field, v, 1))
		}
		if q := anyOf(alts); q != nil {
			qs = append(qs, q)
		}
	}
	if f.Subagents != nil {
		q := query.NewBoolFieldQuery(*f.Subagents)
		q.SetField(fieldSubagent)
		qs = append(qs, q)
	}
	if !f.Since.IsZero() || !f.Until.IsZero() {
		qs = append(qs, newTimeRange(f.Since, f.Until))
	}
	switch len(qs) {
	case 0:
		return nil
	case 1:
		return qs[0]
	}
	return query.NewConjunctionQuery(qs)
}
