package fts

import (
	"strings"
	"unicode"
	"unicode/utf8"

	index "github.com/blevesearch/bleve_index_api"
)

// Typo tolerance (issue 24.5): a fallback when a query finds nothing. Each
// plain word of at least minTypoRunes letters that the index has never
// seen is replaced by the term of the English field within a small edit
// distance (1, or 2 from maxTypo1Runes+1 letters on; the first letter as
// typed) held by the most documents. Words the index knows, identifiers,
// phrases, prefixes and exclusions stay as they are. When a word the index
// has never seen has no near spelling, nothing is corrected: the query is
// about something the history does not hold ("banana submarine
// orchestra" must not become "summary orchestrator").
const (
	minTypoRunes  = 5
	maxTypo1Runes = 9
)

// Correct returns text with its unseen words replaced by their nearest
// indexed terms, and each correction as "typed → term"; none when no word
// needed or found one.
func (ix *Index) Correct(text string) (_ string, fixes []string, err error) {
	if ix.idx == nil {
		return text, nil, errClosed
	}
	if err := ix.broken(); err != nil {
		return text, nil, err
	}
	defer ix.guard("correcting", &err)
	known, release := ix.known()
	defer release()
	clauses := parseQuery(text)
	var rd typoReader
	defer rd.close()
	for i, c := range clauses {
		if !unseenWord(c, known) {
			continue
		}
		if !typoCandidate(c.text) || !rd.open(ix) {
			return text, nil, nil // unseen, and no typo: nothing to correct
		}
		t := rd.correct(c.text)
		if t == "" {
			return text, nil, nil
		}
		fixes = append(fixes, strings.ToLower(c.text)+" → "+t)
		clauses[i].text = t
	}
	if len(fixes) == 0 {
		return text, nil, nil
	}
	return joinClauses(clauses), fixes, nil
}

// unseenWord reports whether clause c is a plain word (not excluded, not a
// phrase or a prefix) with English terms that the index does not hold.
func unseenWord(c clause, known knownFunc) bool {
	if c.op == opNot || c.phrase || c.prefix || known(c.text) {
		return false
	}
	return analyzeTerms(analyzers().english, c.text) != nil
}

// typoReader is the index reader Correct opens at its first unseen word.
type typoReader struct {
	r  index.IndexReader
	fz index.IndexReaderFuzzy
}

// open opens the reader once; false when the index has no fuzzy
// dictionary to read.
func (t *typoReader) open(ix *Index) bool {
	if t.fz != nil {
		return true
	}
	if t.r != nil {
		return false // opened before, and not fuzzy
	}
	adv, err := ix.idx.Advanced()
	if err != nil {
		return false
	}
	if t.r, err = adv.Reader(); err != nil {
		t.r = nil
		return false
	}
	fz, ok := t.r.(index.IndexReaderFuzzy)
	if !ok {
		return false
	}
	t.fz = fz
	return true
}

func (t *typoReader) close() {
	if t.r != nil {
		t.r.Close()
	}
}

// correct is the nearest indexed term to the word w, "" when w is not one
// English term or none is near.
func (t *typoReader) correct(w string) string {
	prose := analyzeTerms(analyzers().english, w)
	if len(prose) != 1 {
		return ""
	}
	return nearest(t.r, t.fz, prose[0], utf8.RuneCountInString(w))
}

// typoCandidate reports whether w is a plain word long enough to correct.
func typoCandidate(w string) bool {
	if utf8.RuneCountInString(w) < minTypoRunes {
		return false
	}
	for _, r := range w {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// nearest is the English term within the edit distance a word of n runes
// allows of stem, sharing its first letter, held by the most documents.
func nearest(r index.IndexReader, fz index.IndexReaderFuzzy, stem string, n int) string {
	fuzz := 1
	if n > maxTypo1Runes {
		fuzz = 2
	}
	first, _ := utf8.DecodeRuneInString(stem)
	d, err := fz.FieldDictFuzzy(fieldText, stem, fuzz, string(first))
	if err != nil {
		return ""
	}
	defer d.Close()
	return commonest(r, d, stem)
}

// commonest is the term of the first 1000 of d, other than stem, held by
// the most documents (the first in order among equals; "" when none is
// held by any).
func commonest(r index.IndexReader, d index.FieldDict, stem string) string {
	best, most := "", uint64(0)
	for i := 0; i < 1000; i++ {
		e, err := d.Next()
		if err != nil || e == nil {
			break
		}
		if e.Term == stem {
			continue
		}
		// The fuzzy dictionary leaves counts out: read them.
		if c := termCount(r, fieldTerm{fieldText, e.Term}); c > most || c == most && c > 0 && e.Term < best {
			best, most = e.Term, c
		}
	}
	return best
}

// joinClauses writes clauses back as query text.
func joinClauses(cs []clause) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		s := c.text
		if c.phrase {
			s = `"` + s + `"`
		}
		if c.prefix {
			s += "*"
		}
		switch {
		case c.op == opNot:
			s = "-" + s
		case c.op == opMust && !c.phrase:
			s = "+" + s
		}
		parts[i] = s
	}
	return strings.Join(parts, " ")
}
