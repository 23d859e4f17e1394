package fts

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/cairn-dev/cairn/index/ftsapi"
)

// maxCoverWords is how many query words coverage tracks (one bit each).
const maxCoverWords = 64

// Cover says which of the informative words of text (its positive words
// that are not stop words, and its quoted phrases) each document of ids
// holds, and how rare each word is in the index. A word is held as the
// search matches it (stemmed, or as a compound's part), with two
// exceptions that keep coincidences out:
//
//   - a compound (set_text_map_propagators, parseTranscript) is held
//     whole, or by all of its parts, not by one of them ("set");
//   - a word whose stem is shorter than five letters and is not the word
//     less its inflection (topping → top) carries a Root the document
//     must contain (the caller checks the text; see ftsapi.QueryWord).
//
// The search index is asked once per word, restricted to ids.
func (ix *Index) Cover(text string, ids []string) (_ ftsapi.Cover, err error) {
	var c ftsapi.Cover
	if ix.idx == nil {
		return c, errClosed
	}
	if err := ix.broken(); err != nil {
		return c, err
	}
	defer ix.guard("measuring coverage", &err)
	known, release := ix.known()
	defer release()
	words := coverWords(text, known)
	if len(words) == 0 {
		return c, nil
	}
	weights := ix.weights(words)
	for i, w := range words {
		c.Words = append(c.Words, ftsapi.QueryWord{Text: w.text, Weight: weights[i], Root: w.root})
	}
	c.Has, err = ix.holders(words, ids)
	if err != nil {
		return c, fmt.Errorf("fts: measuring coverage of %q: %w", text, err)
	}
	return c, nil
}

// holders is, for each document of ids, the bit set of the words it
// holds (bit i for words[i]).
func (ix *Index) holders(words []coverWord, ids []string) (map[string]uint64, error) {
	has := map[string]uint64{}
	if len(ids) == 0 {
		return has, nil
	}
	if len(words) == 1 && words[0].asSearched {
		// The search matched every hit by this one clause.
		for _, id := range ids {
			has[id] |= 1
		}
		return has, nil
	}
	keys := make([]string, len(ids)) // ids as the index holds them
	for j, id := range ids {
		keys[j] = ix.docKey(id)
	}
	for i, w := range words {
		if err := ix.markHolders(has, w.q, uint64(1)<<i, keys); err != nil {
			return has, err
		}
	}
	return has, nil
}

// markHolders sets bit in has for each document of keys that q matches.
func (ix *Index) markHolders(has map[string]uint64, q query.Query, bit uint64, keys []string) error {
	req := bleve.NewSearchRequestOptions(query.NewConjunctionQuery([]query.Query{query.NewDocIDQuery(keys), q}), len(keys), 0, false)
	req.Score = "none"
	res, err := ix.idx.Search(req)
	if err != nil {
		return err
	}
	for _, h := range res.Hits {
		has[ix.docID(h.ID)] |= bit
	}
	return nil
}

// coverWord is one informative query word: the query that holds it, the
// terms its rarity is read from, and its Root (see ftsapi.QueryWord).
type coverWord struct {
	text   string
	prefix bool // still being typed: its rarity is unknown
	// asSearched: q is the clause the search itself ran for the word, so
	// when it is the query's only word every hit holds it.
	asSearched bool
	q          query.Query
	terms      []fieldTerm
	root       string
}

type fieldTerm struct{ field, term string }

// coverWords are the informative words of text, at most maxCoverWords.
func coverWords(text string, known knownFunc) []coverWord {
	a := analyzers()
	var out []coverWord
	seen := map[string]bool{}
	for _, c := range parseQuery(text) {
		if c.op == opNot || len(out) == maxCoverWords {
			continue
		}
		bare := strings.ToLower(strings.TrimFunc(c.text, func(r rune) bool { return !isWordRune(r) }))
		if !c.phrase && (functionWords[bare] || seen[bare]) {
			continue
		}
		seen[bare] = true
		w := newCoverWord(c, bare, &a, known)
		if w.q == nil || len(w.terms) == 0 {
			continue // a stop word, or punctuation: no information
		}
		out = append(out, w)
	}
	return out
}

// newCoverWord is clause c as a cover word (bare: its text lowercased,
// without the punctuation around it): the query that holds it and the
// terms its rarity is read from.
func newCoverWord(c clause, bare string, a *analyzerSet, known knownFunc) coverWord {
	prose := analyzeTerms(a.english, c.text)
	code := analyzeTerms(a.codeQuery, c.text)
	w := coverWord{text: c.text}
	for _, t := range prose {
		w.terms = append(w.terms, fieldTerm{fieldText, t}, fieldTerm{fieldTitle, t})
	}
	switch {
	case c.phrase:
		w.q = phraseQuery(c.text)
		return w
	case len(code) > 1: // a compound: whole, or every part
		w.q = compoundCover(c.text, code[0], known)
		w.terms = []fieldTerm{{fieldCode, code[0]}, {fieldTitleCode, code[0]}}
		return w
	case c.prefix:
		w.q = prefixWordQuery(c.text, known)
		w.prefix = true
	default:
		w.q = wordQuery(c.text, false, known)
		if len(code) == 1 {
			w.terms = append(w.terms, fieldTerm{fieldCode, code[0]}, fieldTerm{fieldTitleCode, code[0]})
		}
	}
	w.asSearched = true
	if len(prose) == 1 {
		w.root = stemOnlyRoot(bare, prose[0])
	}
	return w
}

// functionWords are common English function words the stop list of the
// English analyzer keeps (contractions, quantifiers, auxiliaries): they
// carry no information about what a question is about, so coverage does
// not count them, though the search still matches them.
var functionWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`aren't can't couldn't didn't doesn't don't hadn't hasn't haven't isn't
		mustn't shouldn't wasn't weren't won't wouldn't i'm i've i'd i'll you're you've you'd you'll
		he's she's it's we're we've they're they've that's there's what's where's who's how's let's
		arent cant couldnt didnt doesnt dont isnt wasnt wont wouldnt shouldnt im ive youre thats theres whats
		many much lot lots yet also just really quite rather very still even ever often always never
		shall may might must can could would should will get got gets getting
		thing things something anything everything nothing someone anyone everyone one ones
		way ways like well good best better new old first last next other another
		please thanks thank hi hello hey ok okay yes sure`) {
		m[w] = true
	}
	return m
}()

// compoundCover holds a compound whole, or by all of its parts (unless one
// of them occurs nowhere: then only whole, as wordQuery decides).
func compoundCover(w, whole string, known knownFunc) query.Query {
	alts := []query.Query{term(fieldCode, whole, 1), term(fieldTitleCode, whole, 1)}
	if unseen(w, known) {
		return anyOf(alts)
	}
	var parts []query.Query
	for _, tok := range (codeTokenizer{}).Tokenize([]byte(w)) {
		leaves := [][]byte{tok.Term}
		if !isPlain(tok.Term) {
			leaves = compoundLeaves(tok.Term)
		}
		for _, leaf := range leaves {
			if q := anyOf(plainWordQuery(string(leaf), 1)); q != nil {
				parts = append(parts, q)
			}
		}
	}
	if len(parts) > 1 {
		alts = append(alts, query.NewConjunctionQuery(parts))
	}
	return anyOf(alts)
}

// stemOnlyRoot is the Root of a plain word whose English term is stem:
// "" when the stem keeps five letters or more, or is the word less its
// inflection (the stemmer then joins only forms of the word).
func stemOnlyRoot(w, stem string) string {
	root := inflectionRoot(strings.ToLower(w))
	if utf8.RuneCountInString(stem) >= 5 || root == stem {
		return ""
	}
	return root
}

// inflectionRoot is w less a regular inflection: -ing, -ed, -es, -s.
func inflectionRoot(w string) string {
	w = strings.TrimSuffix(w, "'s")
	switch {
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		return w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		return w[:len(w)-2]
	case len(w) > 4 && strings.HasSuffix(w, "es") && !strings.HasSuffix(w, "ses"):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

// idf is BM25's inverse document frequency.
func idf(n, df uint64) float64 {
	df = min(df, n)
	return math.Log(1 + (float64(n-df)+0.5)/(float64(df)+0.5))
}

// weights returns the rarity (idf) of each word: the most documents any
// of its terms is in, read from the term dictionaries of one snapshot.
// When they cannot be read every word counts as unseen.
func (ix *Index) weights(words []coverWord) []float64 {
	out := make([]float64, len(words))
	var r index.IndexReader
	n := uint64(1)
	if adv, err := ix.idx.Advanced(); err == nil {
		if rd, err := adv.Reader(); err == nil {
			r = rd
			defer r.Close()
			if c, err := r.DocCount(); err == nil {
				n = max(c, 1)
			}
		}
	}
	for i, w := range words {
		out[i] = idf(n, docFreq(r, w, n))
	}
	return out
}

// docFreq is how many of the n documents r reads hold word w (its
// commonest term); 0 without a reader.
func docFreq(r index.IndexReader, w coverWord, n uint64) uint64 {
	if r == nil {
		return 0
	}
	var df uint64
	for _, ft := range w.terms {
		df = max(df, termCount(r, ft))
	}
	if w.prefix {
		// A word being typed: as rare as the words it starts.
		df = max(df, prefixCount(r, strings.ToLower(strings.TrimSpace(w.text)), n))
	}
	return df
}

// maxPrefixTerms bounds how many dictionary terms a prefix's rarity reads.
const maxPrefixTerms = 1000

// prefixCount is about how many documents hold a word starting with p (the
// sum of its terms' counts in the text and code fields, at most n).
func prefixCount(r index.IndexReader, p string, n uint64) uint64 {
	var most uint64
	for _, f := range []string{fieldText, fieldCode} {
		d, err := r.FieldDictPrefix(f, []byte(p))
		if err != nil {
			continue
		}
		var sum uint64
		for i := 0; i < maxPrefixTerms && sum < n; i++ {
			e, err := d.Next()
			if err != nil || e == nil {
				break
			}
			sum += e.Count
		}
		_ = d.Close()
		most = max(most, min(sum, n))
	}
	return most
}

func termCount(r index.IndexReader, ft fieldTerm) uint64 {
	tfr, err := r.TermFieldReader(context.Background(), []byte(ft.term), ft.field, false, false, false)
	if err != nil {
		return 0
	}
	defer tfr.Close()
	return tfr.Count()
}
