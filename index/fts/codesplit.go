package fts

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
)

// maxCodeTokenBytes caps code terms. A whole path is worth keeping up to a
// point; past that it is usually a URL with a query string or generated junk
// whose pieces are still indexed.
const maxCodeTokenBytes = 128

// maxCompoundBytes skips longer compounds altogether (minified code, base64,
// data URLs): their pieces are noise, and splitting them is quadratic in
// the number of pieces. The English field still indexes their words.
const maxCompoundBytes = 512

// Separator classes, outermost first. A compound is split at the first
// level that has more than one piece, and each piece is split further at the
// following levels: "src/parse_transcript.go" → "src", "parse_transcript.go"
// → "parse_transcript", "go" → "parse", "transcript".
var separatorLevels = []string{`/\`, ".:@#~", "_-"}

// camelLevel is the level after the separator levels: case boundaries.
var camelLevel = len(separatorLevels)

// connectorLevel maps an ASCII byte to 1 + its separator level (0: not a
// connector); a table because this is the analyzer's innermost loop.
var connectorLevel = func() (t [utf8.RuneSelf]int8) {
	for lvl, seps := range separatorLevels {
		for i := range len(seps) {
			t[seps[i]] = int8(lvl + 1)
		}
	}
	return t
}()

func isConnector(r rune) bool {
	return r < utf8.RuneSelf && connectorLevel[r] != 0
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// codeTokenizer emits compounds: maximal runs of word runes and connectors,
// with connectors trimmed from both ends ("(./cmd/main.go:12)," →
// "cmd/main.go:12"). codePartsFilter then splits them.
//
// compoundsOnly skips plain words (nothing to split). The index analyzer
// uses it because the English field already holds plain words, which
// halves the code field; skipping them here, before a token is allocated,
// is what makes that cheap. The query analyzer keeps plain words so a plain
// query word can meet a compound's part ("transcript" → "parseTranscript").
type codeTokenizer struct{ compoundsOnly bool }

func (t codeTokenizer) Tokenize(input []byte) analysis.TokenStream {
	var out analysis.TokenStream
	pos := 1
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		s, e := trimConnectors(input, start, end)
		if s < e && e-s <= maxCompoundBytes && !(t.compoundsOnly && isPlain(input[s:e])) {
			out = append(out, &analysis.Token{
				Start: s, End: e, Term: input[s:e], Position: pos, Type: analysis.AlphaNumeric,
			})
			pos++
		}
		start = -1
	}
	for i := 0; i < len(input); {
		r, size := rune(input[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(input[i:])
		}
		if isWordRune(r) || isConnector(r) {
			if start < 0 {
				start = i
			}
		} else {
			flush(i)
		}
		i += size
	}
	flush(len(input))
	return out
}

// trimConnectors narrows [s,e) so it starts and ends with a word rune.
// Connectors are ASCII, so byte steps are rune steps here.
func trimConnectors(b []byte, s, e int) (int, int) {
	for s < e && isConnector(rune(b[s])) {
		s++
	}
	for e > s && isConnector(rune(b[e-1])) {
		e--
	}
	return s, e
}

// codePartsFilter expands each compound into the lowercased whole plus its
// pieces at every level. Every derived token keeps the compound's position:
// they are alternatives for the same place in the text, like synonyms.
// Plain words pass through lowercased.
type codePartsFilter struct{}

func (codePartsFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(input))
	for _, tok := range input {
		if isPlain(tok.Term) { // fast path: nothing to split
			if utf8.RuneCount(tok.Term) >= 2 && len(tok.Term) <= maxCodeTokenBytes {
				tok.Term = bytes.ToLower(tok.Term)
				out = append(out, tok)
			}
			continue
		}
		e := expander{base: tok}
		e.emit(tok.Term, tok.Start, tok.End)
		e.split(tok.Term, tok.Start, 0)
		out = append(out, e.out...)
	}
	return out
}

// isPlain reports whether b can have no pieces: no connectors and no
// upper-case letter after the first rune.
func isPlain(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if connectorLevel[c] != 0 || (i > 0 && 'A' <= c && c <= 'Z') {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if i > 0 && unicode.IsUpper(r) {
			return false
		}
		i += size
	}
	return true
}

// expander collects the tokens derived from one compound, without duplicates.
type expander struct {
	base *analysis.Token
	out  analysis.TokenStream
}

func (e *expander) emit(term []byte, start, end int) {
	// One-rune pieces ("i" of iPhone, "1" of v2.6.1) match too much to help.
	if len(term) > maxCodeTokenBytes || utf8.RuneCount(term) < 2 {
		return
	}
	lower := bytes.ToLower(term)
	for _, t := range e.out {
		if bytes.Equal(t.Term, lower) {
			return
		}
	}
	e.out = append(e.out, &analysis.Token{
		Start: start, End: end, Term: lower, Position: e.base.Position, Type: analysis.AlphaNumeric,
	})
}

// split finds the first level, from lvl on, at which b has several pieces,
// emits them and recurses into each at the next level.
func (e *expander) split(b []byte, off, lvl int) {
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
			return // a UUID or hash: its chunks are noise, the whole is enough
		}
		if lvl == camelLevel-1 {
			// snake_case and kebab-case also index the joined form so they
			// meet the same name written in camelCase ("parsetranscript").
			var joined []byte
			for _, p := range pieces {
				joined = append(joined, b[p.s:p.e]...)
			}
			e.emit(joined, off, off+len(b))
		}
		for _, p := range pieces {
			e.emit(b[p.s:p.e], off+p.s, off+p.e)
			e.split(b[p.s:p.e], off+p.s, lvl+1)
		}
		return
	}
}

type span struct{ s, e int }

// sepSplit splits b at the separators of level lvl, trimming connectors
// from pieces and dropping empty ones.
func sepSplit(b []byte, lvl int) []span {
	var out []span
	start := 0
	for i := 0; i <= len(b); i++ {
		if i < len(b) && (b[i] >= utf8.RuneSelf || int(connectorLevel[b[i]]) != lvl+1) {
			continue
		}
		if s, e := trimConnectors(b, start, i); s < e {
			out = append(out, span{s, e})
		}
		start = i + 1
	}
	return out
}

// camelSplit splits at case boundaries: "parseTranscript" → parse|Transcript,
// "HTTPServer" → HTTP|Server, "base64Encode" → base64|Encode. Letter-digit
// boundaries alone do not split ("utf8", "v2"). Strings with too many
// boundaries for their length (base64, random IDs) are not split at all.
func camelSplit(b []byte) []span {
	var out []span
	start, runes := 0, 0
	var prev rune
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		runes++
		if i > 0 {
			next, _ := utf8.DecodeRune(b[i+size:]) // RuneError at the end: not lower
			lowerToUpper := (unicode.IsLower(prev) || unicode.IsDigit(prev)) && unicode.IsUpper(r)
			acronymEnd := unicode.IsUpper(prev) && unicode.IsUpper(r) && unicode.IsLower(next)
			if lowerToUpper || acronymEnd {
				out = append(out, span{start, i})
				start = i
			}
		}
		prev = r
		i += size
	}
	if len(out) == 0 {
		return nil
	}
	out = append(out, span{start, len(b)})
	if len(out) > 1+runes/4 {
		return nil
	}
	return out
}

// allHexish reports whether every piece looks like a chunk of a hex ID
// (only hex digits, at least one decimal digit among them all).
func allHexish(b []byte, pieces []span) bool {
	digit := false
	for _, p := range pieces {
		for _, c := range b[p.s:p.e] {
			switch {
			case c >= '0' && c <= '9':
				digit = true
			case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
			default:
				return false
			}
		}
	}
	return digit
}
