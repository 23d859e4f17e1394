package fts

import (
	"bytes"
	"encoding/binary"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"

	"github.com/cairn-dev/cairn/internal/codesplit"
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
// The classes are defined once, in internal/codesplit (memory ranking
// splits identifiers by the same rules without this engine).
var separatorLevels = codesplit.SeparatorLevels

// camelLevel is the level after the separator levels: case boundaries.
var camelLevel = codesplit.CamelLevel

// connectorLevel maps an ASCII byte to 1 + its separator level (0: not a
// connector); a table because this is the analyzer's innermost loop.
var connectorLevel = codesplit.ConnectorLevel

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

// codeAnalyzer is the code analyzers (cairn_code, and cairn_code_query when
// compoundsOnly is false) fused into one pass. Its output is exactly that of
// the chain
//
//	codeTokenizer{compoundsOnly} → codePartsFilter → stop_en
//
// (same Term, Start, End, Position, Type and KeyWord for every token, in the
// same order; the differential tests and FuzzCodeAnalyzer in
// codefast_test.go hold it to that), but:
//
//   - it allocates the tokens in blocks and the stream once or twice;
//   - it lowercases into one buffer per call, or not at all: a term that is
//     already lower-case ASCII is a slice of the input;
//   - it finds compounds with a byte-class table (and bit tables for the
//     non-ASCII runes), noting which separator levels each has, so that
//     splitting only tries the levels that are there;
//   - it splits with scratch space reused for the whole call, dedups by
//     fingerprint and drops stop words before they become tokens;
//   - it replays the tokens of compounds it has seen before from a shared
//     cache (codeCompounds).
//
// It never writes to its input, and no two calls share term bytes.
//
// codeTokenizer and codePartsFilter stay registered, and are the reference
// the tests compare it with.
type codeAnalyzer struct {
	compoundsOnly bool
	// stop holds the stop words in an open-addressing table (probed
	// from stopHash, compared in full): cheaper than the map's hash of
	// the whole term for the many short pieces of compounds.
	stop     []string
	stopUsed []bool
	stopMask uint32
	// stopLens[b] has bit l set when a stop word of l bytes (0 < l < 64)
	// starts with b; stopLast the same by last byte. A term either
	// misses is no stop word: most terms need no lookup.
	stopLens, stopLast [256]uint64
	// stopOther: there are stop words the bits cannot describe (empty, or
	// 64 bytes and longer), so terms the bits miss are looked up anyway.
	stopOther bool
	// stopID identifies the stop list in codeCompounds, which all code
	// analyzers share.
	stopID uint64
}

func newCodeAnalyzerFused(stop analysis.TokenMap, compoundsOnly bool) *codeAnalyzer {
	a := &codeAnalyzer{compoundsOnly: compoundsOnly}
	size := 64
	for size < 4*len(stop) {
		size *= 2
	}
	a.stop = make([]string, size)
	a.stopUsed = make([]bool, size)
	a.stopMask = uint32(size - 1)
	for w := range stop {
		h := stopHash(w) & a.stopMask
		for a.stopUsed[h] {
			h = (h + 1) & a.stopMask
		}
		a.stop[h], a.stopUsed[h] = w, true
		a.stopID += compoundHash([]byte(w)) | 1 // order-independent
		if l := len(w); l > 0 && l < 64 {
			a.stopLens[w[0]] |= 1 << l
			a.stopLast[w[l-1]] |= 1 << l
		} else {
			a.stopOther = true
		}
	}
	return a
}

// stopHash hashes a term's length and first, second, middle and last
// bytes.
func stopHash[T string | []byte](w T) uint32 {
	l := len(w)
	if l == 0 {
		return 0
	}
	h := uint32(l)*0x9E3779B1 ^ uint32(w[0])<<24 ^ uint32(w[l-1])<<16 ^ uint32(w[l/2])<<8 ^ uint32(w[min(1, l-1)])
	h ^= h >> 15
	h *= 0x2C1B3C6D
	h ^= h >> 12
	return h
}

// isStop is the stop_en filter's test.
func (a *codeAnalyzer) isStop(term []byte) bool {
	if l := len(term); l > 0 && l < 64 && !a.stopOther &&
		(a.stopLens[term[0]]&(1<<l) == 0 || a.stopLast[term[l-1]]&(1<<l) == 0) {
		return false
	}
	h := stopHash(term) & a.stopMask
	for a.stopUsed[h] {
		if a.stop[h] == string(term) {
			return true
		}
		h = (h + 1) & a.stopMask
	}
	return false
}

// runeBits has, for each rune below 0x10000, whether isWordRune and
// unicode.IsUpper hold: bit tables, one lookup instead of unicode's binary
// searches for the non-ASCII runes of every scan (arrows, box drawing,
// accented letters). TestCodeRuneBits checks every rune.
type runeBits struct{ word, upper [1 << 16 / 64]uint64 }

func (b *runeBits) isWord(r rune) bool {
	if uint32(r) < 1<<16 {
		return b.word[r>>6]&(1<<(r&63)) != 0
	}
	return isWordRune(r)
}

func (b *runeBits) isUpper(r rune) bool {
	if uint32(r) < 1<<16 {
		return b.upper[r>>6]&(1<<(r&63)) != 0
	}
	return unicode.IsUpper(r)
}

// codeRuneBits builds the tables on first use (from unicode's range
// tables: about 60 000 bits to set), so that commands which never analyse
// code do not pay for them.
var codeRuneBits = sync.OnceValue(codeRuneBitsBuild)

func codeRuneBitsBuild() *runeBits {
	b := new(runeBits)
	set := func(t *[1 << 16 / 64]uint64, tab *unicode.RangeTable) {
		for _, rg := range tab.R16 {
			for c := uint32(rg.Lo); c <= uint32(rg.Hi); c += uint32(rg.Stride) {
				t[c>>6] |= 1 << (c & 63)
			}
		}
	}
	set(&b.word, unicode.Letter)
	set(&b.word, unicode.Digit)
	set(&b.word, unicode.Mark)
	set(&b.upper, unicode.Upper)
	// Below 0x100 the functions have their own table: ask them.
	for c := range rune(0x100) {
		w, u := uint64(0), uint64(0)
		if isWordRune(c) {
			w = 1
		}
		if unicode.IsUpper(c) {
			u = 1
		}
		b.word[c>>6] = b.word[c>>6]&^(1<<(c&63)) | w<<(c&63)
		b.upper[c>>6] = b.upper[c>>6]&^(1<<(c&63)) | u<<(c&63)
	}
	return b
}

// Classes of bytes for the code analyzer's scans. The first bits are the
// connector levels: ccLevel<<lvl for a separator of level lvl.
const (
	ccLevel = 1 << iota // level 0; levels 1 and 2 are the next bits
	_
	_
	ccWord  // ASCII letter or digit
	ccUpper // A-Z
	ccHigh  // a byte >= 0x80: decode the rune

	ccConn = ccLevel<<3 - 1 // any connector (three levels)
)

var codeClass = func() (t [256]uint8) {
	if len(separatorLevels) != 3 {
		panic("fts: codeClass assumes three separator levels")
	}
	for c := range 256 {
		switch {
		case c >= utf8.RuneSelf:
			t[c] = ccHigh
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			t[c] = ccWord
		case 'A' <= c && c <= 'Z':
			t[c] = ccWord | ccUpper
		case connectorLevel[c] != 0:
			t[c] = ccLevel << (connectorLevel[c] - 1)
		}
	}
	return t
}()

// classMask returns the union of the classes of b's bytes.
func classMask(b []byte) uint8 {
	m := uint8(0)
	for _, c := range b {
		m |= codeClass[c]
	}
	return m
}

// codeScratch is the scratch space of an Analyze call: nothing in it
// outlives the call.
type codeScratch struct {
	spans []span   // pieces of the compounds being split, a stack
	fps   []uint64 // termPrint of the current compound's tokens
}

var codeScratches = sync.Pool{New: func() any { return new(codeScratch) }}

// codeTokenBlock bounds how many tokens are allocated at once.
const codeTokenBlock = 512

// codeRun is the state of one Analyze call.
type codeRun struct {
	a     *codeAnalyzer
	input []byte
	out   analysis.TokenStream
	block []analysis.Token
	buf   []byte   // lowercased terms; only ever appended to
	spans []span   // pieces of the compounds being split, a stack
	fps   []uint64 // termPrint of out[first:]
	first int      // out[first:] are the current compound's tokens
	pos   int
	next  int // input offset the scan has reached (for size guesses)
}

func (a *codeAnalyzer) Analyze(input []byte) analysis.TokenStream {
	r := codeRun{a: a, input: input, pos: 1}
	sc := codeScratches.Get().(*codeScratch)
	r.spans, r.fps = sc.spans[:0], sc.fps[:0]
	defer func() {
		sc.spans, sc.fps = r.spans[:0], r.fps[:0]
		codeScratches.Put(sc)
	}()
	bits := codeRuneBits()
	n := len(input)
	for i := 0; i < n; {
		// Skip to the first word rune: a compound's leading connectors
		// are trimmed anyway.
		c := codeClass[input[i]]
		if c&ccWord == 0 {
			if c&ccHigh == 0 {
				i++
				continue
			}
			ru, size := utf8.DecodeRune(input[i:])
			if !bits.isWord(ru) {
				i += size
				continue
			}
		}
		s, e := i, i // e: the end of the last word rune
		conn := -1   // the offset of the first connector
		upper := false
		m := uint8(0) // classes of the bytes from s on
		for i < n {
			c := codeClass[input[i]]
			if c == ccWord { // the common case: a run of a-z 0-9
				i++
				for i < n && codeClass[input[i]] == ccWord {
					i++
				}
				e = i
				continue
			}
			m |= c
			if c&ccHigh == 0 {
				if c&ccWord != 0 {
					if c&ccUpper != 0 && i > s {
						upper = true
					}
					i++
					e = i
					continue
				}
				if c&ccConn != 0 {
					if conn < 0 {
						conn = i
					}
					i++
					continue
				}
				break
			}
			ru, size := utf8.DecodeRune(input[i:])
			if !bits.isWord(ru) {
				break
			}
			if i > s && bits.isUpper(ru) {
				upper = true
			}
			i += size
			e = i
		}
		r.next = i
		if e-s > maxCompoundBytes {
			continue
		}
		r.first, r.fps = len(r.out), r.fps[:0]
		if !upper && (conn < 0 || conn >= e) { // plain
			if !a.compoundsOnly {
				r.emit(s, e, m) // lowercased if 2 to maxCodeTokenBytes long
				r.pos++
			}
			continue
		}
		r.compound(s, e, m)
		r.pos++
	}
	if r.out == nil {
		return analysis.TokenStream{} // as the chain: empty, not nil
	}
	return r.out
}

// compound emits the tokens of the compound input[s:e], replayed from the
// compound cache or split and then recorded there. m may have connector
// bits of the trailing connectors trimmed off: more bits than input[s:e]
// has are harmless (split tries the level for nothing).
func (r *codeRun) compound(s, e int, m uint8) {
	input, a := r.input, r.a
	// Two slots a compound can be in, so that two compounds
	// that share one do not keep evicting each other.
	h := compoundHash(input[s:e])
	slot1, slot2 := &codeCompounds[h&(codeCacheSize-1)], &codeCompounds[h>>32&(codeCacheSize-1)]
	var ce2 *codeEntry
	ce1 := slot1.Load()
	if ce1 != nil && ce1.stopID == a.stopID && ce1.key() == string(input[s:e]) {
		r.replay(ce1, s)
		return
	}
	if ce2 = slot2.Load(); ce2 != nil && ce2.stopID == a.stopID && ce2.key() == string(input[s:e]) {
		r.replay(ce2, s)
		return
	}
	r.emit(s, e, m)
	r.split(s, e, 0, m)
	ce := r.record(s, e)
	if ce == nil {
		return
	}
	switch {
	case ce1 == nil:
		slot1.Store(ce)
	case ce2 == nil:
		slot2.Store(ce)
	case h&(1<<16) == 0:
		slot1.Store(ce)
	default:
		slot2.Store(ce)
	}
}

// codeCompounds caches the tokens of compounds (not plain words), which
// repeat a lot (paths, identifiers, JSON keys): replaying them skips the
// splitting, lowercasing, dedup and stop-word tests. A compound can be in
// one of two slots (from two parts of its hash), one of them replaced on a
// miss; entries are immutable, so concurrent Analyze
// calls need nothing more than the atomic pointers. Terms are copied out
// of it (or sliced from the input): no two calls share term bytes.
var codeCompounds [codeCacheSize]atomic.Pointer[codeEntry]

// codeCacheSize is a power of two. Full, the cache holds some 10-15 MB
// (the 16 MB test corpus leaves 27 000 entries of 180 bytes on average).
const codeCacheSize = 1 << 16

// codeEntry is a compound and its tokens. data is the compound's bytes
// followed by the tokens' terms that are not slices of the compound.
type codeEntry struct {
	stopID uint64
	keyLen int
	data   string
	toks   []codeCachedToken
}

func (ce *codeEntry) key() string { return ce.data[:ce.keyLen] }

// codeCachedToken is a token relative to its compound: Start and End are
// offsets in it, and the term is data[off:off+n] (a slice of the compound
// itself, where the term is found as it is in the input, when off < keyLen).
type codeCachedToken struct {
	start, end, off, n uint16
}

// compoundHash hashes b eight bytes at a time.
func compoundHash(b []byte) uint64 {
	h := uint64(len(b)) * 0x9E3779B97F4A7C15
	for len(b) >= 8 {
		h = (h ^ binary.LittleEndian.Uint64(b)) * 0xBF58476D1CE4E5B9
		h ^= h >> 29
		b = b[8:]
	}
	var t uint64
	for i, c := range b {
		t |= uint64(c) << (8 * i)
	}
	h = (h ^ t) * 0x94D049BB133111EB
	h ^= h >> 31
	return h
}

// replay adds the cached tokens of the compound at input[s:].
func (r *codeRun) replay(ce *codeEntry, s int) {
	need := 0
	for _, t := range ce.toks {
		if int(t.off) >= ce.keyLen {
			need += int(t.n)
		}
	}
	if need > 0 {
		r.reserve(need)
	}
	for _, t := range ce.toks {
		var term []byte
		if int(t.off) < ce.keyLen {
			term = r.input[s+int(t.off) : s+int(t.off)+int(t.n)]
		} else {
			mark := len(r.buf)
			r.buf = append(r.buf, ce.data[t.off:t.off+t.n]...)
			term = r.buf[mark:len(r.buf):len(r.buf)]
		}
		r.add(term, s+int(t.start), s+int(t.end))
	}
}

// record makes the cache entry for the compound input[s:e], whose tokens
// are out[first:], or returns nil if offsets in it would not fit 16 bits.
func (r *codeRun) record(s, e int) *codeEntry {
	toks := r.out[r.first:]
	key := r.input[s:e]
	n := len(key)
	for _, t := range toks {
		if string(t.Term) != string(r.input[t.Start:t.End]) {
			n += len(t.Term)
		}
	}
	if n > 1<<16-1 {
		return nil
	}
	data := make([]byte, 0, n)
	data = append(data, key...)
	ct := make([]codeCachedToken, len(toks))
	for i, t := range toks {
		c := codeCachedToken{start: uint16(t.Start - s), end: uint16(t.End - s), n: uint16(len(t.Term))}
		if string(t.Term) == string(r.input[t.Start:t.End]) {
			c.off = c.start // the term is the input as it is
		} else {
			c.off = uint16(len(data))
			data = append(data, t.Term...)
		}
		ct[i] = c
	}
	return &codeEntry{stopID: r.a.stopID, keyLen: len(key), data: string(data), toks: ct}
}

// add appends a token.
func (r *codeRun) add(term []byte, start, end int) {
	if len(r.block) == 0 {
		// Enough for the rest of the input at the rate so far.
		guess := 16
		if r.next > 0 {
			guess = len(r.out)*(len(r.input)-r.next)/r.next + 16
		}
		r.block = make([]analysis.Token, min(guess, codeTokenBlock))
	}
	if len(r.out) == cap(r.out) {
		// Transcripts have about one code token per 10 bytes; after the
		// first, the guess is the rate so far.
		size := len(r.input)/16 + 16
		if len(r.out) > 0 {
			size = max(len(r.out)*len(r.input)/max(r.next, 1)+16, len(r.out)+len(r.out)/4+16)
		}
		out := make(analysis.TokenStream, len(r.out), size)
		copy(out, r.out)
		r.out = out
	}
	t := &r.block[0]
	r.block = r.block[1:]
	t.Term = term
	t.Start = start
	t.End = end
	t.Position = r.pos
	t.Type = analysis.AlphaNumeric
	r.out = append(r.out, t)
}

// reserve makes room for n more bytes in buf without moving what it holds.
func (r *codeRun) reserve(n int) {
	if cap(r.buf)-len(r.buf) >= n {
		return
	}
	size := max(n, min((len(r.input)-r.next)/4+64, 1<<14))
	r.buf = make([]byte, 0, size)
}

// appendLower appends b lowercased as bytes.ToLower does (b is valid UTF-8:
// compounds are made of decoded word runes and ASCII connectors).
func appendLower(dst, b []byte) []byte {
	n := len(dst)
	if cap(dst)-n >= len(b) {
		// ASCII straight into place, as far as it goes.
		out := dst[n : n+len(b)]
		i := 0
		for ; i < len(b); i++ {
			c := b[i]
			if c >= utf8.RuneSelf {
				break
			}
			out[i] = asciiLower[c]
		}
		dst = dst[:n+i]
		if i == len(b) {
			return dst
		}
		b = b[i:]
	}
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			dst = append(dst, asciiLower[c])
			i++
			continue
		}
		ru, size := utf8.DecodeRune(b[i:])
		dst = utf8.AppendRune(dst, unicode.ToLower(ru))
		i += size
	}
	return dst
}

var asciiLower = func() (t [utf8.RuneSelf]byte) {
	for c := range t {
		t[c] = byte(c)
		if 'A' <= c && c <= 'Z' {
			t[c] += 'a' - 'A'
		}
	}
	return t
}()

// keep adds term unless it repeats one of the compound's tokens or is a
// stop word. (The chain dedups before the stop filter, but a repeat of a
// stop word is a stop word too.)
func (r *codeRun) keep(term []byte, start, end int) bool {
	fp := termPrint(term)
	for k, f := range r.fps {
		if f == fp && string(r.out[r.first+k].Term) == string(term) {
			return false
		}
	}
	if r.a.isStop(term) {
		return false
	}
	r.add(term, start, end)
	r.fps = append(r.fps, fp)
	return true
}

// termPrint is a fingerprint of a term for keep: terms that differ in it
// differ.
func termPrint(b []byte) uint64 {
	l := len(b)
	if l == 0 {
		return 0
	}
	return uint64(l)<<40 | uint64(b[0])<<32 | uint64(b[l-1])<<24 | uint64(b[l/2])<<16 | uint64(b[min(1, l-1)])<<8 | uint64(b[l*3/4])
}

// emit is expander.emit for input[s:e], whose bytes have the classes m
// (or more).
func (r *codeRun) emit(s, e int, m uint8) {
	if e-s > maxCodeTokenBytes {
		return
	}
	b := r.input[s:e]
	if m&ccHigh == 0 {
		if len(b) < 2 {
			return
		}
		if m&ccUpper == 0 {
			r.keep(b, s, e)
			return
		}
	} else if utf8.RuneCount(b) < 2 {
		return
	}
	r.reserve(2 * len(b))
	mark := len(r.buf)
	r.buf = appendLower(r.buf, b)
	if !r.keep(r.buf[mark:len(r.buf):len(r.buf)], s, e) {
		r.buf = r.buf[:mark]
	}
}

// split is expander.split for input[bs:be], whose bytes have the classes
// m (or more), with the pieces on r.spans.
//
// input[bs:be] starts and ends with a word rune (compounds and pieces are
// trimmed), so it has several pieces at a separator level exactly when it
// has a separator of that level: m tells which levels to try.
func (r *codeRun) split(bs, be, lvl int, m uint8) {
	for ; lvl <= camelLevel; lvl++ {
		base := len(r.spans)
		if lvl == camelLevel {
			// A case boundary is at an upper-case rune.
			if m&(ccUpper|ccHigh) == 0 {
				return
			}
			r.camelSplit(bs, be)
		} else {
			if m&(ccLevel<<lvl) == 0 {
				continue
			}
			r.sepSplit(bs, be, lvl)
		}
		np := len(r.spans) - base
		if np < 2 {
			r.spans = r.spans[:base]
			continue
		}
		if lvl == camelLevel-1 {
			if allHexish(r.input, r.spans[base:]) {
				r.spans = r.spans[:base]
				return
			}
			r.emitJoined(bs, be, r.spans[base:], m)
		}
		for k := range np {
			p := r.spans[base+k]
			pm := classMask(r.input[p.s:p.e])
			r.emit(p.s, p.e, pm)
			if lvl < camelLevel {
				r.split(p.s, p.e, lvl+1, pm)
			}
		}
		r.spans = r.spans[:base]
		return
	}
}

// emitJoined emits the pieces of input[bs:be] joined, as expander.split
// does for snake_case and kebab-case. m is as for split.
func (r *codeRun) emitJoined(bs, be int, pieces []span, m uint8) {
	n := 0
	for _, p := range pieces {
		n += p.e - p.s
	}
	if n > maxCodeTokenBytes {
		return
	}
	r.reserve(2 * n)
	mark := len(r.buf)
	for _, p := range pieces {
		r.buf = appendLower(r.buf, r.input[p.s:p.e])
	}
	// The rune count of the joined pieces (before lowercasing).
	runes := n
	if m&ccHigh != 0 {
		runes = 0
		for _, p := range pieces {
			runes += utf8.RuneCount(r.input[p.s:p.e])
		}
	}
	if runes < 2 || !r.keep(r.buf[mark:len(r.buf):len(r.buf)], bs, be) {
		r.buf = r.buf[:mark]
	}
}

// sepSplit is sepSplit for input[bs:be], pushing the pieces (absolute
// offsets) on r.spans.
func (r *codeRun) sepSplit(bs, be, lvl int) {
	b := r.input
	sep := int8(lvl + 1)
	start := bs
	for i := bs; i <= be; i++ {
		if i < be && (b[i] >= utf8.RuneSelf || connectorLevel[b[i]] != sep) {
			continue
		}
		if s, e := trimConnectors(b, start, i); s < e {
			r.spans = append(r.spans, span{s, e})
		}
		start = i + 1
	}
}

// camelSplit is camelSplit for input[bs:be], pushing the pieces (absolute
// offsets) on r.spans, or nothing.
func (r *codeRun) camelSplit(bs, be int) {
	b := r.input[:be]
	base := len(r.spans)
	start, runes := bs, 0
	var prev rune
	for i := bs; i < be; {
		ru, size := rune(b[i]), 1
		if ru >= utf8.RuneSelf {
			ru, size = utf8.DecodeRune(b[i:])
		}
		runes++
		if i > bs && isUpperRune(ru) {
			if isLowerRune(prev) || isDigitRune(prev) {
				r.spans = append(r.spans, span{start, i})
				start = i
			} else if isUpperRune(prev) {
				// RuneError at the end: not lower.
				if j := i + size; j < be {
					next := rune(b[j])
					if next >= utf8.RuneSelf {
						next, _ = utf8.DecodeRune(b[j:])
					}
					if isLowerRune(next) {
						r.spans = append(r.spans, span{start, i})
						start = i
					}
				}
			}
		}
		prev = ru
		i += size
	}
	if len(r.spans) == base {
		return
	}
	r.spans = append(r.spans, span{start, be})
	if len(r.spans)-base > 1+runes/4 {
		r.spans = r.spans[:base]
	}
}

func isUpperRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'A' <= r && r <= 'Z'
	}
	return unicode.IsUpper(r)
}

func isLowerRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z'
	}
	return unicode.IsLower(r)
}

func isDigitRune(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsDigit(r)
}
