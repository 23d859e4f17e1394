// Package codesplit splits code identifiers into their parts as the
// full-text index does (index/fts: its code analyzers), without the
// full-text engine, for the packages that match words outside it (memory
// ranking, which the lean hook binary runs). The separator rules are
// defined here once; index/fts reads them from here, and its
// differential test (TestCodesplitMatchesAnalyzer) holds Parts to the
// terms its code analyzer emits.
//
// A compound is split at the first separator level that has more than one
// piece, and each piece further at the following levels, case boundaries
// last: "opentelemetry.set_text_map_propagators/1" → "opentelemetry.set_text_map_propagators"
// → "opentelemetry", "set_text_map_propagators" → "set", "text", "map",
// "propagators" (and "settextmappropagators", the joined form that meets
// the same name in camelCase). One-rune pieces are dropped; a UUID or hash
// is kept whole.
package codesplit

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SeparatorLevels are the separator classes, outermost first.
var SeparatorLevels = []string{`/\`, ".:@#~", "_-"}

// CamelLevel is the level after the separator levels: case boundaries.
var CamelLevel = len(SeparatorLevels)

// ConnectorLevel maps an ASCII byte to 1 + its separator level (0: not a
// connector).
var ConnectorLevel = func() (t [utf8.RuneSelf]int8) {
	for lvl, seps := range SeparatorLevels {
		for i := range len(seps) {
			t[seps[i]] = int8(lvl + 1)
		}
	}
	return t
}()

// MaxTermBytes caps a part, as the index caps code terms.
const MaxTermBytes = 128

// IsConnector reports whether r joins the parts of a compound.
func IsConnector(r rune) bool {
	return r < utf8.RuneSelf && ConnectorLevel[r] != 0
}

// Parts returns the lowercased parts of compound w (a run of letters,
// digits and connectors), without w itself, each once: the pieces at
// every level, and the joined form of snake_case and kebab-case pieces.
// None for a plain word.
func Parts(w string) []string {
	b := []byte(strings.TrimFunc(w, func(r rune) bool { return IsConnector(r) }))
	p := parts{whole: strings.ToLower(string(b))}
	p.split(b, 0)
	return p.out
}

type parts struct {
	whole string
	out   []string
}

func (p *parts) emit(b []byte) {
	if len(b) > MaxTermBytes || utf8.RuneCount(b) < 2 {
		return
	}
	s := strings.ToLower(string(b))
	if s == p.whole {
		return
	}
	for _, o := range p.out {
		if o == s {
			return
		}
	}
	p.out = append(p.out, s)
}

func (p *parts) split(b []byte, lvl int) {
	pieces, at := FirstSplit(b, lvl)
	if at == CamelLevel-1 && pieces != nil {
		p.emit(Joined(b, pieces))
	}
	for _, pc := range pieces {
		p.emit(b[pc[0]:pc[1]])
		p.split(b[pc[0]:pc[1]], at+1)
	}
}

// FirstSplit returns the pieces of b (offsets in it) at the first level
// from lvl on at which it has several, and that level; at is CamelLevel+1
// when no level has. At the last separator level a UUID or hash (every
// piece hex, some digit among them) has no pieces: its chunks are noise,
// the whole is enough.
func FirstSplit(b []byte, lvl int) (pieces [][2]int, at int) {
	for ; lvl <= CamelLevel; lvl++ {
		if lvl == CamelLevel {
			pieces = camelSplit(b)
		} else {
			pieces = sepSplit(b, lvl)
		}
		if len(pieces) < 2 {
			continue
		}
		if lvl == CamelLevel-1 && allHexish(b, pieces) {
			return nil, lvl
		}
		return pieces, lvl
	}
	return nil, lvl
}

// Joined is the pieces of b joined: snake_case and kebab-case compounds
// also stand for the name written in camelCase ("parsetranscript").
func Joined(b []byte, pieces [][2]int) []byte {
	var joined []byte
	for _, pc := range pieces {
		joined = append(joined, b[pc[0]:pc[1]]...)
	}
	return joined
}

func trimConnectors(b []byte, s, e int) (int, int) {
	for s < e && IsConnector(rune(b[s])) {
		s++
	}
	for e > s && IsConnector(rune(b[e-1])) {
		e--
	}
	return s, e
}

func sepSplit(b []byte, lvl int) [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i <= len(b); i++ {
		if i < len(b) && (b[i] >= utf8.RuneSelf || int(ConnectorLevel[b[i]]) != lvl+1) {
			continue
		}
		if s, e := trimConnectors(b, start, i); s < e {
			out = append(out, [2]int{s, e})
		}
		start = i + 1
	}
	return out
}

// camelSplit splits at case boundaries ("parseTranscript", "HTTPServer");
// not strings with too many boundaries for their length (base64, IDs).
func camelSplit(b []byte) [][2]int {
	var out [][2]int
	start, runes := 0, 0
	var prev rune
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		runes++
		if i > 0 && caseBoundary(prev, r, b[i+size:]) {
			out = append(out, [2]int{start, i})
			start = i
		}
		prev = r
		i += size
	}
	if len(out) == 0 {
		return nil
	}
	out = append(out, [2]int{start, len(b)})
	if len(out) > 1+runes/4 {
		return nil
	}
	return out
}

// caseBoundary reports whether a camelCase part starts at r, after prev
// and followed by rest: lower case or a digit then upper case
// ("parseTranscript", "base64Encode"), or the last capital of an acronym
// before lower case ("HTTPServer"). A letter-digit boundary alone does not
// split ("utf8", "v2").
func caseBoundary(prev, r rune, rest []byte) bool {
	if !unicode.IsUpper(r) {
		return false
	}
	if unicode.IsLower(prev) || unicode.IsDigit(prev) {
		return true
	}
	next, _ := utf8.DecodeRune(rest) // RuneError at the end: not lower
	return unicode.IsUpper(prev) && unicode.IsLower(next)
}

// allHexish reports whether every piece looks like a chunk of a hex ID.
func allHexish(b []byte, pieces [][2]int) bool {
	digit := false
	for _, p := range pieces {
		for _, c := range b[p[0]:p[1]] {
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

// Whole is compound w lowercased and trimmed of connectors, as the index
// keeps it ("" when shorter than two runes or longer than MaxTermBytes).
func Whole(w string) string {
	s := strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return IsConnector(r) }))
	if len(s) > MaxTermBytes || utf8.RuneCountInString(s) < 2 {
		return ""
	}
	return s
}

// Leaves are the innermost parts of compound w, lowercased, in order: the
// words it is made of ("a.b_c/1" → "a", "b", "c" less one-rune ones). None
// for a plain word or a UUID or hash, whose whole alone means anything.
func Leaves(w string) []string {
	b := []byte(strings.TrimFunc(w, func(r rune) bool { return IsConnector(r) }))
	if len(Parts(string(b))) == 0 {
		return nil
	}
	var out []string
	var walk func(b []byte, lvl int)
	walk = func(b []byte, lvl int) {
		pieces, at := FirstSplit(b, lvl)
		if at > CamelLevel && utf8.RuneCount(b) >= 2 && len(b) <= MaxTermBytes {
			out = append(out, strings.ToLower(string(b)))
		}
		for _, p := range pieces {
			walk(b[p[0]:p[1]], at+1)
		}
	}
	walk(b, 0)
	return out
}
