package fts

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

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

// knownFunc reports whether a compound's part occurs anywhere in the index
// (nil: assume it does).
type knownFunc func(part string) bool

// buildQuery turns user text into bleve queries. It never fails: text that
// analyses to nothing (stop words, punctuation) just contributes nothing.
// known decides whether compounds may match by their parts (compoundQuery).
func buildQuery(text string, known knownFunc) built {
	var b built
	// Positive plain words in order, stop words included, for phrase boosts.
	var words []queryWord
	for _, c := range parseQuery(text) {
		var q query.Query
		switch {
		case c.phrase:
			q = phraseQuery(c.text)
		case c.prefix:
			q = prefixWordQuery(c.text, known)
		default:
			q = wordQuery(c.text, c.op == opNot, known)
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
// transcript" — unless one of its parts occurs nowhere in the index
// (unseen): then it names something the index has never seen, and only the
// whole may match (it cannot), not the parts it happens to share with
// everything else ("zzzzqqqq-nothing-matches" matched every text saying
// "nothing"). With exact (exclusions, quoted text) only the word's own
// forms count, not its parts: `-parseX` must not exclude every document
// that mentions "parse".
func wordQuery(w string, exact bool, known knownFunc) query.Query {
	a := analyzers()
	prose := analyzeTerms(a.english, w)
	code := analyzeTerms(a.codeQuery, w)
	compound := len(code) > 1
	switch {
	case exact:
		return exactWordQuery(prose, code)
	case compound && unseen(w, known):
		return anyOf([]query.Query{term(fieldCode, code[0], boostExact), term(fieldTitleCode, code[0], boostExact*boostTitle)})
	case compound:
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

// exactWordQuery is wordQuery's exact form: the word's own forms only,
// all its English terms (in body or title) or its whole compound.
func exactWordQuery(prose, code []string) query.Query {
	var qs []query.Query
	if len(prose) > 0 {
		qs = append(qs, allTerms(fieldText, prose), allTerms(fieldTitle, prose))
	}
	if len(code) > 1 {
		qs = append(qs, term(fieldCode, code[0], 1), term(fieldTitleCode, code[0], 1))
	}
	return anyOf(qs)
}

// unseen reports whether a compound of w has an innermost part that known
// says occurs nowhere in the index.
func unseen(w string, known knownFunc) bool {
	if known == nil {
		return false
	}
	for _, tok := range (codeTokenizer{}).Tokenize([]byte(w)) {
		if isPlain(tok.Term) {
			continue
		}
		for _, leaf := range compoundLeaves(tok.Term) {
			if !known(string(leaf)) {
				return true
			}
		}
	}
	return false
}

// boostPrefix weighs a word's longer forms ("websocket" for "websock*")
// below the word itself.
const boostPrefix = 0.5

// prefixWordQuery matches w as a word (wordQuery) or as the start of a
// longer one: its last token (a plain word, or a compound whose last part
// is being typed, "parse_trans*") continues into any term.
func prefixWordQuery(w string, known knownFunc) query.Query {
	// A stop word ("how" being typed) has no whole-word query: a nil
	// clause in the disjunction panicked inside bleve, which the index
	// took for a failed write and refused all further searches.
	var qs []query.Query
	if q := wordQuery(w, false, known); q != nil {
		qs = append(qs, q)
	}
	toks := (codeTokenizer{}).Tokenize([]byte(w))
	if len(toks) == 0 {
		return anyOf(qs)
	}
	last := toks[len(toks)-1].Term
	if isPlain(last) {
		qs = append(qs, prefixTerms(strings.ToLower(string(last)))...)
		return anyOf(qs)
	}
	lower := strings.ToLower(string(last))
	qs = append(qs, prefix(fieldCode, lower, boostPrefix*boostExact), prefix(fieldTitleCode, lower, boostPrefix*boostExact))
	leaves := compoundLeaves(last)
	if len(leaves) < 2 || !bytes.HasSuffix(last, leaves[len(leaves)-1]) {
		return anyOf(qs)
	}
	var parts []query.Query
	for _, leaf := range leaves[:len(leaves)-1] {
		if q := anyOf(plainWordQuery(string(leaf), 1)); q != nil {
			parts = append(parts, q)
		}
	}
	parts = append(parts, anyOf(prefixTerms(strings.ToLower(string(leaves[len(leaves)-1])))))
	qs = append(qs, query.NewConjunctionQuery(parts))
	return anyOf(qs)
}

// prefixTerms are the clauses matching any term that starts with p, in
// every text field. p is matched as typed (lowercased), not stemmed: the
// stem of a half-typed word is no prefix of anything ("dialy" → "diali").
func prefixTerms(p string) []query.Query {
	return []query.Query{
		prefix(fieldText, p, boostPrefix), prefix(fieldTitle, p, boostPrefix*boostTitle),
		prefix(fieldCode, p, boostPrefix), prefix(fieldTitleCode, p, boostPrefix*boostTitle),
	}
}

func prefix(field, p string, boost float64) query.Query {
	q := query.NewPrefixQuery(p)
	q.SetField(field)
	q.SetBoost(boost)
	return q
}

// plainWordQuery is the clauses matching a word without parts: its English
// terms in body and title, and the word as a compound's part.
func plainWordQuery(w string, boost float64) []query.Query {
	a := analyzers()
	var qs []query.Query
	for _, t := range analyzeTerms(a.english, w) {
		qs = append(qs, term(fieldText, t, boost), term(fieldTitle, t, boost*boostTitle))
	}
	for _, t := range analyzeTerms(a.codeQuery, w) {
		qs = append(qs, term(fieldCode, t, boost), term(fieldTitleCode, t, boost*boostTitle))
	}
	return qs
}

// compoundLeaves are the innermost parts of a compound, split as the code
// analyzer splits it (separators outermost first, then case), without
// one-rune parts, which the index does not keep. An ID or hash has none:
// only its whole means anything.
func compoundLeaves(b []byte) [][]byte {
	var out [][]byte
	var walk func(b []byte, lvl int)
	walk = func(b []byte, lvl int) {
		for ; lvl <= camelLevel; lvl++ {
			var pieces []span
			if lvl == camelLevel {
				pieces = camelSplit(b)
			} else {
				pieces = sepSplit(b, lvl)
			}
			if len(pieces) < 2 {
				continue
			}
			if lvl == camelLevel-1 && allHexish(b, pieces) {
				return
			}
			for _, p := range pieces {
				walk(b[p.s:p.e], lvl+1)
			}
			return
		}
		if utf8.RuneCount(b) >= 2 {
			out = append(out, b)
		}
	}
	walk(b, 0)
	return out
}

// phraseQuery matches quoted text. With prosePositions it is a phrase in the
// English fields; without, every word must appear in its exact form (order
// unchecked). A quoted single compound ("parse_transcript") also matches it
// whole in the code fields, which is what quoting an identifier means.
func phraseQuery(p string) query.Query {
	if !prosePositions {
		var qs []query.Query
		for _, w := range strings.Fields(p) {
			if q := wordQuery(w, true, nil); q != nil {
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
		if c.prefix {
			out = union(out, []string{strings.ToLower(c.text) + "*"})
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
