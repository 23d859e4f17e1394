package fts

import (
	"strings"
	"unicode"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Relative weights of the ways a query word can match. BM25 does the rest.
const (
	boostExact  = 1.5 // the whole compound ("parsetranscript", "transcripts/parse.go")
	boostTitle  = 1.3 // session titles and memory types are dense summaries
	boostPhrase = 2.0 // consecutive query words found next to each other
	maxBigrams  = 4
)

// built is a parsed query turned into bleve clauses.
type built struct {
	must, should, not []query.Query
	bigrams           []query.Query // optional score boosters
}

func (b *built) empty() bool { return len(b.must) == 0 && len(b.should) == 0 }

// buildQuery turns user text into bleve queries. It never fails: text that
// analyses to nothing (stop words, punctuation) just contributes nothing.
func buildQuery(text string) built {
	var b built
	// Positive plain words in order, stop words included, for phrase boosts.
	var words []queryWord
	for _, c := range parseQuery(text) {
		var q query.Query
		if c.phrase {
			q = phraseQuery(c.text)
		} else {
			q = wordQuery(c.text, c.op == opNot)
		}
		if !c.phrase && c.op != opNot {
			words = append(words, queryWord{c.text, q != nil})
		}
		if q != nil {
			b.add(c.op, q)
		}
	}
	if prosePositions { // needs positions
		b.bigrams = bigramQueries(words)
	}
	return b
}

// queryWord is a positive plain word of a query.
type queryWord struct {
	text    string
	content bool // analyses to at least one term
}

// add files q under op's clause.
func (b *built) add(op clauseOp, q query.Query) {
	switch op {
	case opMust:
		b.must = append(b.must, q)
	case opShould:
		b.should = append(b.should, q)
	case opNot:
		b.not = append(b.not, q)
	}
}

// bigramQueries returns a phrase query for each pair of neighbouring
// content words, with any stop words between them kept as gaps: "fix the
// bug" boosts "fix … bug" but not "bug fix". At most maxBigrams.
func bigramQueries(words []queryWord) []query.Query {
	var bigrams []query.Query
	for i := 0; i < len(words) && len(bigrams) < maxBigrams; i++ {
		if !words[i].content {
			continue
		}
		j := i + 1
		for j < len(words) && !words[j].content {
			j++
		}
		if j == len(words) {
			break
		}
		span := make([]string, 0, j-i+1)
		for _, w := range words[i : j+1] {
			span = append(span, w.text)
		}
		if q := prosePhrase(fieldText, strings.Join(span, " ")); q != nil {
			q.SetBoost(boostPhrase)
			bigrams = append(bigrams, q)
		}
	}
	return bigrams
}

// wordQuery matches one user word in every field and form it can take:
// English (stemmed) and code (whole compound and parts) forms, in body and
// title. A compound query word is also looked up by its parts in the
// English field, so `parseTranscript` finds prose that says "parse the
// transcript". With exact (exclusions, quoted text) only the word's own
// forms count, not its parts: `-parseX` must not exclude every document
// that mentions "parse".
func wordQuery(w string, exact bool) query.Query {
	a := analyzers()
	prose := analyzeTerms(a.english, w)
	code := analyzeTerms(a.codeQuery, w)
	compound := len(code) > 1
	if exact {
		var qs []query.Query
		if len(prose) > 0 {
			qs = append(qs, allTerms(fieldText, prose), allTerms(fieldTitle, prose))
		}
		if compound {
			qs = append(qs, term(fieldCode, code[0], 1), term(fieldTitleCode, code[0], 1))
		}
		return anyOf(qs)
	}
	if compound {
		prose = union(prose, analyzeTerms(a.english, strings.Join(code[1:], " ")))
	}
	var qs []query.Query
	for _, t := range prose {
		qs = append(qs, term(fieldText, t, 1), term(fieldTitle, t, boostTitle))
	}
	for i, t := range code {
		boost := 1.0
		if compound && i == 0 {
			boost = boostExact
		}
		qs = append(qs, term(fieldCode, t, boost), term(fieldTitleCode, t, boost*boostTitle))
	}
	return anyOf(qs)
}

// phraseQuery matches quoted text. With prosePositions it is a phrase in the
// English fields; without, every word must appear in its exact form (order
// unchecked). A quoted single compound ("parse_transcript") also matches it
// whole in the code fields, which is what quoting an identifier means.
func phraseQuery(p string) query.Query {
	if !prosePositions {
		var qs []query.Query
		for _, w := range strings.Fields(p) {
			if q := wordQuery(w, true); q != nil {
				qs = append(qs, q)
			}
		}
		if len(qs) < 2 {
			return anyOf(qs)
		}
		return query.NewConjunctionQuery(qs)
	}
	var qs []query.Query
	if q := prosePhrase(fieldText, p); q != nil {
		qs = append(qs, q)
	}
	if q := prosePhrase(fieldTitle, p); q != nil {
		q.SetBoost(boostTitle)
		qs = append(qs, q)
	}
	if !strings.ContainsFunc(strings.TrimSpace(p), unicode.IsSpace) {
		if code := analyzeTerms(analyzers().codeQuery, p); len(code) > 1 {
			qs = append(qs, term(fieldCode, code[0], boostExact), term(fieldTitleCode, code[0], boostExact))
		}
	}
	return anyOf(qs)
}

// prosePhrase is a phrase query over the English analysis of p, keeping the
// gaps left by stop words so "fix the bug" does not match "fix bug".
func prosePhrase(field, p string) interface {
	query.Query
	SetBoost(float64)
} {
	toks := analyzers().english.Analyze([]byte(p))
	switch len(toks) {
	case 0:
		return nil
	case 1:
		return term(field, string(toks[0].Term), 1)
	}
	return query.NewMultiPhraseQuery(phraseSlots(toks), field)
}

// phraseSlots lays tokens out by position; empty slots match any term.
func phraseSlots(toks analysis.TokenStream) [][]string {
	first, last := toks[0].Position, toks[0].Position
	for _, t := range toks {
		first, last = min(first, t.Position), max(last, t.Position)
	}
	slots := make([][]string, last-first+1)
	for _, t := range toks {
		slots[t.Position-first] = append(slots[t.Position-first], string(t.Term))
	}
	return slots
}

func term(field, t string, boost float64) *query.TermQuery {
	q := query.NewTermQuery(t)
	q.SetField(field)
	q.SetBoost(boost)
	return q
}

func allTerms(field string, terms []string) query.Query {
	qs := make([]query.Query, len(terms))
	for i, t := range terms {
		qs[i] = term(field, t, 1)
	}
	if len(qs) == 1 {
		return qs[0]
	}
	return query.NewConjunctionQuery(qs)
}

func anyOf(qs []query.Query) query.Query {
	switch len(qs) {
	case 0:
		return nil
	case 1:
		return qs[0]
	}
	return query.NewDisjunctionQuery(qs)
}

func union(a, b []string) []string {
	for _, t := range b {
		found := false
		for _, u := range a {
			found = found || u == t
		}
		if !found {
			a = append(a, t)
		}
	}
	return a
}

// QueryTerms returns the analysed terms of the query's positive clauses,
// from both analyzers, for Snippet to highlight.
func QueryTerms(text string) []string {
	a := analyzers()
	var out []string
	for _, c := range parseQuery(text) {
		if c.op == opNot {
			continue
		}
		code := analyzeTerms(a.codeQuery, c.text)
		out = union(out, analyzeTerms(a.english, c.text))
		out = union(out, code)
		if len(code) > 1 {
			out = union(out, analyzeTerms(a.english, strings.Join(code[1:], " ")))
		}
	}
	return out
}
