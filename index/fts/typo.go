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
	var fz index.IndexReaderFuzzy
	var r index.IndexReader
	for i, c := range clauses {
		if c.op == opNot || c.phrase || c.prefix || known(c.text) || analyzeTerms(analyzers().english, c.text) == nil {
			continue
		}
		if !typoCandidate(c.text) {
			return text, nil, nil // unseen, and no typo: nothing to correct
		}
		if fz == nil {
			adv, err := ix.idx.Advanced()
			if err != nil {
				return text, nil, nil
			}
			if r, err = adv.Reader(); err != nil {
				return text, nil, nil
			}
			defer r.Close()
			var ok bool
			if fz, ok = r.(index.IndexReaderFuzzy); !ok {
				return text, nil, nil
			}
		}
		prose := analyzeTerms(analyzers().english, c.text)
		if len(prose) != 1 {
			return text, nil, nil
		}
		t := nearest(r, fz, prose[0], utf8.RuneCountInString(c.text))
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
