package fts

import (
	"github.com/cairn-dev/cairn/index/ftsapi"

	"fmt"
	"strings"

	index "github.com/blevesearch/bleve_index_api"

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
func (ix *Index) Search(text string, f Filter, limit int) (_ []Hit, _ uint64, err error) {
	if ix.idx == nil {
		return nil, 0, errClosed
	}
	if err := ix.broken(); err != nil {
		return nil, 0, err
	}
	defer ix.guard("searching", &err)
	if limit <= 0 {
		limit = defaultLimit
	}
	limit = min(limit, maxLimit)
	known, release := ix.known()
	defer release()
	b := buildQuery(text, known)
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
		hits[i] = Hit{ID: ix.docID(h.ID), Score: h.Score}
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
	for _, sid := range f.ExcludeSessions {
		not = append(not, term(fieldSession, sid, 1))
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

// known returns a check of whether a word occurs anywhere in the index (as
// an English term or a compound's part), for compound query words, and a
// function to release what it opened. It looks the word up in the term
// dictionaries of one snapshot, opened on first use; when they cannot be
// read it assumes the word is known (the looser matching) rather than
// failing the search.
func (ix *Index) known() (knownFunc, func()) {
	var dicts []index.FieldDictContains
	var r index.IndexReader
	opened := false
	check := func(part string) bool {
		if !opened {
			opened = true
			r, dicts = ix.dictionaries()
		}
		if dicts == nil {
			return true
		}
		terms := append([][]byte{[]byte(strings.ToLower(part))}, toBytes(analyzeTerms(analyzers().english, part))...)
		for _, d := range dicts {
			for _, t := range terms {
				if ok, err := d.Contains(t); err != nil || ok {
					return true
				}
			}
		}
		return false
	}
	release := func() {
		if r != nil {
			_ = r.Close()
		}
	}
	return check, release
}

func toBytes(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// dictionaries opens a reader on the current snapshot and the term
// dictionaries of its text and code fields; nils when it cannot.
func (ix *Index) dictionaries() (index.IndexReader, []index.FieldDictContains) {
	adv, err := ix.idx.Advanced()
	if err != nil {
		return nil, nil
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, nil
	}
	c, ok := r.(interface {
		FieldDictContains(field string) (index.FieldDictContains, error)
	})
	if !ok {
		_ = r.Close()
		return nil, nil
	}
	var out []index.FieldDictContains
	for _, f := range []string{fieldText, fieldCode, fieldTitle, fieldTitleCode} {
		d, err := c.FieldDictContains(f)
		if err != nil {
			_ = r.Close()
			return nil, nil
		}
		out = append(out, d)
	}
	return r, out
}
