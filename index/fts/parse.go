package fts

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A query is user text, not bleve query-string syntax: it is parsed here
// into a few clause kinds and turned into query objects programmatically, so
// no input can produce a syntax error.
//
//	word        optional: ranks higher the more words match (at least one
//	            must match when there are no required clauses)
//	+word       required
//	"a phrase"  required: every word, as a word (stemmed) or a whole
//	            compound, not merely as part of one; in order only with
//	            prosePositions. An unterminated quote runs to the end.
//	-word       excluded; also -"a phrase". A lone "-" or "--flag" is a word.
//	word*       optional, and also matched as the start of longer words
//	            ("websock*" finds "websocket"); at least minPrefixRunes
//	            runes before the '*', else it is the plain word. Hits that
//	            have only the longer words rank below whole-word hits
//	            (index.SearchQuery.Prefix adds the '*' while typing).

type clauseOp int

const (
	opShould clauseOp = iota
	opMust
	opNot
)

type clause struct {
	text   string
	phrase bool
	op     clauseOp
	prefix bool // word*: also the start of longer words
}

// minPrefixRunes is the shortest prefix matched as one: a shorter one
// ("a*", "te*") matches a large part of the dictionary, which costs time
// and says little.
const minPrefixRunes = 3

// Bounds on what one query may cost: a pasted log line should not turn
// into thousands of term searchers.
const (
	maxQueryBytes = 1024
	maxClauses    = 32
)

func parseQuery(q string) []clause {
	q = cleanQuery(q)
	var out []clause
	for i := 0; i < len(q) && len(out) < maxClauses; {
		r, size := utf8.DecodeRuneInString(q[i:])
		if unicode.IsSpace(r) {
			i += size
			continue
		}
		var c clause
		c, i = readClause(q, i)
		if strings.TrimSpace(c.text) != "" {
			out = append(out, c)
		}
	}
	return out
}

// cleanQuery replaces invalid UTF-8 with spaces and cuts the query to
// maxQueryBytes, not inside a rune.
func cleanQuery(q string) string {
	q = strings.ToValidUTF8(q, " ")
	if len(q) > maxQueryBytes {
		q = q[:maxQueryBytes]
		for !utf8.ValidString(q) { // do not cut a rune in half
			q = q[:len(q)-1]
		}
	}
	return q
}

// readClause reads the clause starting at q[i], not a space: an optional
// '-' or '+' and a quoted phrase or a word. It returns the clause and
// where the next one may start.
func readClause(q string, i int) (clause, int) {
	op, i := readOp(q, i)
	if q[i] != '"' {
		return readWord(q, i, op)
	}
	end := strings.IndexByte(q[i+1:], '"')
	if end < 0 {
		end = len(q) - i - 1
	}
	c := clause{op: op, text: q[i+1 : i+1+end], phrase: true}
	if c.op == opShould {
		c.op = opMust // quoting is an explicit demand
	}
	return c, i + end + 2
}

// readOp reads the '-' or '+' at q[i], when a phrase or a word follows
// it, and returns the clause's operator and where its text starts.
func readOp(q string, i int) (clauseOp, int) {
	if r := q[i]; r == '-' || r == '+' {
		next, _ := utf8.DecodeRuneInString(q[i+1:])
		if next == '"' || isWordRune(next) {
			return map[byte]clauseOp{'-': opNot, '+': opMust}[r], i + 1
		}
	}
	return opShould, i
}

// readWord reads the word at q[i], up to a space: a prefix when it ends
// in '*' (and is long enough), unless excluded.
func readWord(q string, i int, op clauseOp) (clause, int) {
	c := clause{op: op}
	end := strings.IndexFunc(q[i:], unicode.IsSpace)
	if end < 0 {
		end = len(q) - i
	}
	c.text = q[i : i+end]
	if c.op != opNot && strings.HasSuffix(c.text, "*") {
		c.text = strings.TrimRight(c.text, "*")
		c.prefix = utf8.RuneCountInString(c.text) >= minPrefixRunes
	}
	return c, i + end
}

// PrefixLast returns text with its last word marked as a prefix (word*),
// as a search box wants while the word is being typed: only when text
// ends in a plain positive word (not quoted, not excluded, not followed by
// a space) of at least minPrefixRunes runes.
func PrefixLast(text string) (string, bool) {
	if text == "" || len(text) > maxQueryBytes || !endsInWord(text) {
		return text, false
	}
	cs := parseQuery(text)
	if len(cs) == 0 || !typedWord(cs[len(cs)-1], text) {
		return text, false
	}
	return text + "*", true
}

// endsInWord reports whether text does not end in a space, a quote or
// a '*'.
func endsInWord(text string) bool {
	r, _ := utf8.DecodeLastRuneInString(text)
	return !unicode.IsSpace(r) && r != '"' && r != '*'
}

// typedWord reports whether the last clause of text is a plain positive
// word of at least minPrefixRunes runes at its very end: the word being
// typed.
func typedWord(last clause, text string) bool {
	return !last.phrase && last.op != opNot && !last.prefix && utf8.RuneCountInString(last.text) >= minPrefixRunes &&
		strings.HasSuffix(text, last.text)
}

// PrefixOnly is the query for the hits PrefixLast(text) adds to text's:
// the last word as a prefix, with text's exclusions. The other words are
// left out because a hit holding any of them already matches text; false
// when PrefixLast does not apply or can add nothing (with required words
// or phrases every hit of either query holds them, so it matches text).
func PrefixOnly(text string) (string, bool) {
	if _, ok := PrefixLast(text); !ok {
		return text, false
	}
	cs := parseQuery(text)
	var sb strings.Builder
	for _, c := range cs[:len(cs)-1] {
		switch {
		case c.op == opMust:
			return text, false
		case c.op != opNot:
			continue
		case c.phrase:
			sb.WriteString(`-"` + c.text + `" `)
		default:
			sb.WriteString("-" + c.text + " ")
		}
	}
	return sb.String() + cs[len(cs)-1].text + "*", true
}
