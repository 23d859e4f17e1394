package fts

import (
	"bytes"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/go-porterstemmer"
	"github.com/blevesearch/segment"
)

// englishAnalyzer is the "cairn_en" analyzer fused into one pass. Its output
// is exactly that of bleve's chain
//
//	unicode tokenizer → possessive_en → to_lower → stop_en →
//	length(0, maxEnglishTokenRunes) → stemmer_porter
//
// (same Term, Start, End, Position, Type and KeyWord for every token; the
// differential tests and FuzzEnglishAnalyzer in english_test.go hold it to
// that), but it allocates the tokens in blocks instead of one by one, filters
// each token as soon as it is cut, and takes fast paths for ASCII:
//
//   - Tokenizing: the unicode tokenizer runs github.com/blevesearch/segment
//     (UAX#29 words) one segment at a time, each scan starting afresh at the
//     end of the previous segment, so a segment is a function of the bytes
//     from its start on. fastSegment reproduces that function when the
//     segment and the bytes that could still extend it are ASCII (or a few
//     common symbols); anywhere else the real segment.SegmentWords is called
//     for that one segment.
//   - Filters: ASCII terms are lowercased in place and stemmed by
//     stemASCII, a byte port of go-porterstemmer's StemWithoutLowerCasing,
//     all-letter ones through a cache of stop/stem results (stemCache);
//     other terms go through the same code as bleve's filters.
//
// Like bleve's chain it rewrites the token bytes of its input in place
// (lowercasing, stemming); terms may alias the input.
type englishAnalyzer struct {
	stems *stemCache
	stop  analysis.TokenMap
	// stopLens[b] has bit l set when a stop word of l bytes (0 < l < 64)
	// starts with b: a term that misses it needs no map lookup.
	stopLens [256]uint64
	// stopLast: the same by last byte.
	stopLast [256]uint64
	// stopOther: the map has words the bits cannot describe (empty, or 64
	// bytes and longer), so terms the bits miss are looked up anyway.
	stopOther bool
}

// newEnglishAnalyzerFused returns the analyzer for the stop list stop,
// caching in stems, which must only be shared by analyzers with the same
// stop list.
func newEnglishAnalyzerFused(stop analysis.TokenMap, stems *stemCache) *englishAnalyzer {
	a := &englishAnalyzer{stop: stop, stems: stems}
	for w := range stop {
		if l := len(w); l > 0 && l < 64 {
			a.stopLens[w[0]] |= 1 << l
			a.stopLast[w[l-1]] |= 1 << l
		} else {
			a.stopOther = true
		}
	}
	return a
}

// stemCache caches, for all-letter ASCII terms (lowercased, possessive
// gone), whether each is a stop word and else its stem: words repeat a lot,
// and a lookup is much cheaper than the stemmer. It is direct-mapped, a slot
// replaced on a miss; entries are immutable, so concurrent Analyze calls
// need nothing more than the atomic pointers.
type stemCache [stemCacheSize]atomic.Pointer[stemEntry]

const stemCacheSize = 1 << 16 // a power of two

// englishStems is the cache of every analyzerEnglish (they all have the
// stop_en list), so it is warm for each index and query in the process.
var englishStems stemCache

type stemEntry struct {
	term, stem string
	stop       bool
}

// stemHash is FNV-1a.
func stemHash(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

// isStop is the stop_en filter's test.
func (a *englishAnalyzer) isStop(term []byte) bool {
	if l := len(term); l > 0 && l < 64 && !a.stopOther &&
		(a.stopLens[term[0]]&(1<<l) == 0 || a.stopLast[term[l-1]]&(1<<l) == 0) {
		return false
	}
	_, stop := a.stop[string(term)]
	return stop
}

// Segment types, as returned by github.com/blevesearch/segment.
const (
	segNone   = segment.None
	segNumber = segment.Number
	segLetter = segment.Letter
)

// tokenBlock bounds how many tokens are allocated at once.
const tokenBlock = 1024

func (a *englishAnalyzer) Analyze(input []byte) analysis.TokenStream {
	n := len(input)
	// Transcript text keeps about one token per 10 bytes; the stream
	// grows by append if that is short.
	out := make(analysis.TokenStream, 0, min(n/10+1, 1<<16))
	var block []analysis.Token
	var runes [maxEnglishTokenRunes]rune // stemming scratch for non-ASCII terms

	p := 0     // byte offset the segmenter has consumed
	start := 0 // bleve's offset: the sum of the segments' lengths
	pos := 1
	for p < n {
		// An ASCII byte that cannot start a word is a None segment of its
		// own (CR LF is one of two bytes, the same to the offsets): skip
		// runs of them while the byte after is ASCII as well.
		for p+1 < n && asciiWB[input[p]]&(wbWord|wbNonASCII) == 0 && input[p+1] < utf8.RuneSelf {
			p++
			start++
		}
		var seg []byte
		var typ int
		q, t, fast := fastSegment(input, p)
		if fast {
			seg, typ = input[p:q], t
			p = q
		} else {
			advance, tok, t, ok := slowSegment(input[p:])
			if !ok {
				break
			}
			p += advance
			seg, typ = tok, t
		}
		end := start + len(seg)
		if typ != segNone {
			if term, keep := a.filter(seg, fast, &runes); keep {
				if len(block) == 0 {
					block = make([]analysis.Token, tokenBlockSize(n-p, p, len(out)))
				}
				t := &block[0]
				block = block[1:]
				t.Term = term
				t.Start = start
				t.End = end
				t.Position = pos
				t.Type = tokenType(typ)
				out = append(out, t)
			}
			pos++
		}
		start = end
	}
	return out
}

// slowSegment is what segment.Segmenter.Segment does for one segment of a
// direct (whole-buffer, at-EOF) segmenter, at the start of rest: ok is
// false when an error, a bad advance or no segment ends the stream.
func slowSegment(rest []byte) (advance int, seg []byte, typ int, ok bool) {
	advance, seg, typ, err := segment.SegmentWords(rest, true)
	if err != nil || advance < 0 || advance > len(rest) || seg == nil {
		return 0, nil, 0, false
	}
	return advance, seg, typ, true
}

// tokenBlockSize is how many tokens to allocate next: enough for the
// left bytes of the input at the rate of the kept tokens so far (read
// of the done bytes; first: one per 12 bytes, a little under what
// transcripts have), within 4..tokenBlock.
func tokenBlockSize(left, done, kept int) int {
	guess := left/12 + 1
	if kept > 16 {
		guess = left/(done/kept+1) + 1
	}
	return min(max(guess, 4), tokenBlock)
}

func tokenType(segType int) analysis.TokenType {
	switch segType {
	case segment.Ideo, segment.Kana:
		return analysis.Ideographic
	case segment.Number:
		return analysis.Numeric
	}
	return analysis.AlphaNumeric
}

// Word-break classes of ASCII bytes (UAX#29 as compiled into segment).
const (
	wbOther     = 0
	wbLetter    = 1 << (iota - 1) // ALetter: A-Z a-z
	wbDigit                       // Numeric: 0-9
	wbExtNumLet                   // ExtendNumLet: _
	wbMidLetter                   // MidLetter: joins letters only (:)
	wbMidNumLet                   // MidNumLet and Single_Quote: join letters or digits (. ')
	wbMidNum                      // MidNum: joins digits only (, ;)
	wbCR                          // \r
	wbNonASCII                    // a byte >= 0x80

	wbWord = wbLetter | wbDigit | wbExtNumLet // the bytes a word is made of
)

var asciiWB = func() (t [256]uint8) {
	for c := 0x80; c < 256; c++ {
		t[c] = wbNonASCII
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = wbLetter
		t[c-'a'+'A'] = wbLetter
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = wbDigit
	}
	t['_'] = wbExtNumLet
	t[':'] = wbMidLetter
	t['.'] = wbMidNumLet
	t['\''] = wbMidNumLet
	t[','] = wbMidNum
	t[';'] = wbMidNum
	t['\r'] = wbCR
	return t
}()

// fastSegment returns the end and type of the segment that segment's word
// segmenter cuts at s[p], or ok=false when that depends on bytes it does not
// know (any non-ASCII byte but otherRune's: they could extend the segment,
// as a letter, a digit or a combining mark can; or stop the segmenter, as
// invalid UTF-8 after a segment of type None does).
//
// For ASCII the rules come down to: letters, digits and underscores run
// together (WB5, WB8-10, WB13a/b); one of : . ' between two letters (WB6/7)
// or one of , ; . ' between two digits (WB11/12) joins them; a run with no
// letter and some digit is a Number (the numeric rule wins ties), otherwise
// a Letter. CR LF is one segment (WB3); every other byte, and every
// otherRune, is a segment of its own, of type None.
//
// A Letter or Number segment from here is all ASCII.
func fastSegment(s []byte, p int) (q int, typ int, ok bool) {
	n := len(s)
	switch c0 := asciiWB[s[p]]; {
	case c0&wbWord != 0:
		seen := uint8(0) // the classes of the word's bytes
		q = p
	scan:
		for q < n {
			c := asciiWB[s[q]]
			if c&wbWord != 0 {
				seen |= c
				q++
				continue
			}
			switch c {
			case wbMidLetter, wbMidNumLet, wbMidNum:
				if q+1 >= n {
					break scan
				}
				prev, next := asciiWB[s[q-1]], asciiWB[s[q+1]]
				if next == wbNonASCII {
					if otherRune(s, q+1) == 0 {
						return 0, 0, false
					}
					break scan
				}
				if prev == next && (prev == wbLetter && c != wbMidNum || prev == wbDigit && c != wbMidLetter) {
					q += 2
					continue
				}
				break scan
			case wbNonASCII:
				if otherRune(s, q) == 0 {
					return 0, 0, false
				}
				break scan
			default:
				break scan
			}
		}
		if seen&(wbLetter|wbDigit) == wbDigit {
			return q, segNumber, true
		}
		return q, segLetter, true
	case c0 == wbCR:
		q = p + 1
		if q < n && s[q] == '\n' {
			q++
		}
	case c0 == wbNonASCII:
		size := otherRune(s, p)
		if size == 0 {
			return 0, 0, false
		}
		q = p + size
	default:
		q = p + 1
	}
	if q < n && s[q] >= utf8.RuneSelf && otherRune(s, q) == 0 {
		return 0, 0, false
	}
	return q, segNone, true
}

// otherRune returns the size of the rune at s[i] if it is one of the
// symbols common in transcripts that have no word-break property (WB
// "Other": they never join a word or take part in a rule, so segment cuts
// each on its own), else 0. Read tool output numbers every line "   12→",
// and box drawing, arrows, bullets, check marks and dashes are common in
// tables and plans. TestOtherRunesSegmentAlone checks every one of them
// against segment in many contexts.
//
//	U+2013 U+2014   – —     E2 80 93..94
//	U+2190..U+21FF  arrows  E2 86 90 .. E2 87 BF
//	U+2300..U+23FF  misc technical (⎿)  E2 8C 80 .. E2 8F BF
//	U+2500..U+25FF  box drawing, blocks, geometric shapes  E2 94 80 .. E2 97 BF
//	U+2700..U+27BF  dingbats (✓ ✗ ❌)  E2 9C 80 .. E2 9E BF
func otherRune(s []byte, i int) int {
	if i+3 > len(s) || s[i] != 0xE2 {
		return 0
	}
	b1, b2 := s[i+1], s[i+2]
	if b2 < 0x80 || b2 > 0xBF {
		return 0
	}
	switch {
	case b1 == 0x80 && (b2 == 0x93 || b2 == 0x94),
		b1 == 0x86 && b2 >= 0x90, b1 == 0x87,
		0x8C <= b1 && b1 <= 0x8F,
		0x94 <= b1 && b1 <= 0x97,
		0x9C <= b1 && b1 <= 0x9E:
		return 3
	}
	return 0
}

// filter runs possessive_en, to_lower, stop_en, the length filter and
// stemmer_porter over one term; keep is false when a filter drops it.
// ascii says the term is known to be ASCII.
func (a *englishAnalyzer) filter(term []byte, ascii bool, runes *[maxEnglishTokenRunes]rune) (_ []byte, keep bool) {
	if !ascii && !isASCII(term) {
		return a.filterUnicode(term, runes)
	}
	term = trimPossessiveASCII(term)
	// A term over the limit goes whether or not it is a stop word.
	if len(term) > maxEnglishTokenRunes {
		return nil, false
	}
	if !lowerASCII(term) {
		// Numbers, identifiers, hashes: too varied to cache.
		if a.isStop(term) {
			return nil, false
		}
		return stemASCII(term), true
	}
	// Letters only: look the term up in (or add it to) the stem cache.
	slot := &a.stems[stemHash(term)&(stemCacheSize-1)]
	if e := slot.Load(); e != nil && e.term == string(term) {
		if e.stop {
			return nil, false
		}
		return term[:copy(term, e.stem)], true
	}
	return a.stemMiss(slot, term)
}

// trimPossessiveASCII is possessive_en for an ASCII term: it drops a
// trailing 's or 'S.
func trimPossessiveASCII(term []byte) []byte {
	if l := len(term); l >= 2 && term[l-2] == '\'' && (term[l-1] == 's' || term[l-1] == 'S') {
		return term[:l-2]
	}
	return term
}

// lowerASCII lowercases the ASCII term in place and reports whether it is
// letters only.
func lowerASCII(term []byte) (letters bool) {
	letters = true
	for i, c := range term {
		if 'A' <= c && c <= 'Z' {
			term[i] = c + ('a' - 'A')
		} else if c < 'a' || c > 'z' {
			letters = false
		}
	}
	return letters
}

// stemMiss filters a lower-case letters-only term that is not in the stem
// cache and stores the outcome in slot. Two allocations: the entry, and its
// term and stem in one string.
func (a *englishAnalyzer) stemMiss(slot *atomic.Pointer[stemEntry], term []byte) (_ []byte, keep bool) {
	var buf [2 * maxEnglishTokenRunes]byte
	b := append(buf[:0], term...)
	n := len(b)
	stop := a.isStop(term)
	if !stop {
		term = stemASCII(term)
		b = append(b, term...)
	}
	str := string(b)
	slot.Store(&stemEntry{term: str[:n], stem: str[n:], stop: stop})
	if stop {
		return nil, false
	}
	return term, true
}

// filterUnicode is filter for a term that is not ASCII, following bleve's
// filters rune by rune.
func (a *englishAnalyzer) filterUnicode(term []byte, runes *[maxEnglishTokenRunes]rune) (_ []byte, keep bool) {
	// possessive_en
	lastRune, lastRuneSize := utf8.DecodeLastRune(term)
	if lastRune == 's' || lastRune == 'S' {
		nextLastRune, nextLastRuneSize := utf8.DecodeLastRune(term[:len(term)-lastRuneSize])
		if nextLastRune == '’' || nextLastRune == '\'' || nextLastRune == '＇' {
			term = term[:len(term)-lastRuneSize-nextLastRuneSize]
		}
	}
	// to_lower
	term = toLowerDeferredCopy(term)
	// stop_en
	if a.isStop(term) {
		return nil, false
	}
	// length
	if utf8.RuneCount(term) > maxEnglishTokenRunes {
		return nil, false
	}
	return stemRunes(term, runes), true
}

// stemRunes is stemmer_porter: bytes.Runes, StemWithoutLowerCasing,
// BuildTermFromRunes, with the runes in scratch space and the result
// written over the term when it fits.
func stemRunes(term []byte, runes *[maxEnglishTokenRunes]rune) []byte {
	rs := runes[:0]
	for b := term; len(b) > 0; {
		r, size := utf8.DecodeRune(b)
		rs = append(rs, r)
		b = b[size:]
	}
	rs = porterstemmer.StemWithoutLowerCasing(rs)
	size := 0
	for _, r := range rs {
		size += utf8.RuneLen(r)
	}
	if size > len(term) {
		return analysis.BuildTermFromRunes(rs)
	}
	w := 0
	for _, r := range rs {
		w += utf8.EncodeRune(term[w:], r)
	}
	return term[:w]
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// toLowerDeferredCopy is bleve's to_lower filter on one term (copied from
// github.com/blevesearch/bleve/v2/analysis/token/lowercase, unexported
// there): it lowercases in place unless a lowercase rune is wider.
func toLowerDeferredCopy(s []byte) []byte {
	j := 0
	for i := 0; i < len(s); {
		wid := 1
		r := rune(s[i])
		if r >= utf8.RuneSelf {
			r, wid = utf8.DecodeRune(s[i:])
		}
		l := unicode.ToLower(r)
		if l == r {
			i += wid
			j += wid
			continue
		}
		if l == 'σ' && i+2 == len(s) {
			l = 'ς'
		}
		lwid := utf8.RuneLen(l)
		if lwid > wid {
			rest := bytes.ToLower(s[i:])
			rv := make([]byte, j+len(rest))
			copy(rv[:j], s[:j])
			copy(rv[j:], rest)
			return rv
		}
		utf8.EncodeRune(s[j:], l)
		i += wid
		j += lwid
	}
	return s[:j]
}

// stemASCII is porterstemmer.StemWithoutLowerCasing for an ASCII term (one
// rune per byte), ported line for line from go-porterstemmer v1.0.3 to work
// on the bytes in place: no []rune conversion either way. The port includes
// that package's departures from Porter's paper ("bli", "logi") and its
// quirks (hasSuffix needs the word to be longer than the suffix; once a
// suffix of a step matches, no later one of that step is tried).
// TestStemASCIIMatchesPorterStemmer and the fuzz target compare the two.
func stemASCII(s []byte) []byte {
	if len(s) <= 2 {
		return s
	}
	s = psStep1a(s)
	s = psStep1b(s)
	s = psStep1c(s)
	s = psStep2(s)
	s = psStep3(s)
	s = psStep4(s)
	s = psStep5a(s)
	s = psStep5b(s)
	return s
}

func psIsConsonant(s []byte, i int) bool {
	switch s[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		// The original recurses: y is a consonant first in the word,
		// else iff the letter before is not. Over a run of ys
		// s[j+1..i] that alternates from the first, which is a
		// consonant iff it starts the word or follows one of aeiou.
		j := i - 1
		for j >= 0 && s[j] == 'y' {
			j--
		}
		first := j < 0 || psIsVowel5(s[j])
		return first != ((i-j-1)&1 == 1)
	}
	return true
}

func psIsVowel5(c byte) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'
}

func psMeasure(s []byte) uint {
	n := len(s)
	m := uint(0)
	i := 0
	if n == 0 {
		return m
	}
	for psIsConsonant(s, i) {
		i++
		if i >= n {
			return m
		}
	}
outer:
	for i < n {
		for !psIsConsonant(s, i) {
			i++
			if i >= n {
				break outer
			}
		}
		for psIsConsonant(s, i) {
			i++
			if i >= n {
				m++
				break outer
			}
		}
		m++
	}
	return m
}

// psHasSuffix: s ends with suffix and is longer than it.
func psHasSuffix(s []byte, suffix string) bool {
	if len(s) <= len(suffix) {
		return false
	}
	s = s[len(s)-len(suffix):]
	for i := len(suffix) - 1; i >= 0; i-- {
		if s[i] != suffix[i] {
			return false
		}
	}
	return true
}

// byLastByte indexes suffixes by their last byte, keeping their order: a
// suffix can only match a word ending in its last byte, so a step need only
// try those, in the same order, to find the same first match.
func byLastByte(n int, suffix func(int) string) (idx [256][]uint8) {
	for i := range n {
		b := suffix(i)[len(suffix(i))-1]
		idx[b] = append(idx[b], uint8(i))
	}
	return idx
}

func psContainsVowel(s []byte) bool {
	for i := range s {
		if !psIsConsonant(s, i) {
			return true
		}
	}
	return false
}

func psHasRepeatDoubleConsonantSuffix(s []byte) bool {
	n := len(s)
	return n >= 2 && s[n-1] == s[n-2] && psIsConsonant(s, n-1)
}

func psHasConsonantVowelConsonantSuffix(s []byte) bool {
	n := len(s)
	return n >= 3 && psIsConsonant(s, n-3) && !psIsConsonant(s, n-2) && psIsConsonant(s, n-1)
}

func psStep1a(s []byte) []byte {
	n := len(s)
	if s[n-1] != 's' { // every suffix below ends in s
		return s
	}
	switch {
	case psHasSuffix(s, "sses"):
		return s[:n-2]
	case psHasSuffix(s, "ies"):
		return s[:n-2]
	case psHasSuffix(s, "ss"):
		return s
	case psHasSuffix(s, "s"):
		return s[:n-1]
	}
	return s
}

func psStep1b(s []byte) []byte {
	n := len(s)
	if last := s[n-1]; last != 'd' && last != 'g' { // every suffix below ends in d or g
		return s
	}
	var sub []byte // s without its "ed" or "ing"
	switch {
	case psHasSuffix(s, "eed"):
		if psMeasure(s[:n-3]) > 0 {
			return s[:n-1]
		}
		return s
	case psHasSuffix(s, "ed"):
		sub = s[:n-2]
	case psHasSuffix(s, "ing"):
		sub = s[:n-3]
	default:
		return s
	}
	if !psContainsVowel(sub) {
		return s
	}
	return psStep1bStem(s, sub)
}

// psStep1bStem finishes step 1b once the "ed" or "ing" of s is dropped,
// leaving sub: it restores an 'e' (written over the suffix's first byte),
// undoubles a final consonant, or keeps sub.
func psStep1bStem(s, sub []byte) []byte {
	c := sub[len(sub)-1]
	switch {
	case psHasSuffix(sub, "at"), psHasSuffix(sub, "bl"), psHasSuffix(sub, "iz"):
		return psWithE(s, len(sub))
	case c != 'l' && c != 's' && c != 'z' && psHasRepeatDoubleConsonantSuffix(sub):
		return sub[:len(sub)-1]
	case psMeasure(sub) == 1 && psHasConsonantVowelConsonantSuffix(sub) && c != 'w' && c != 'x' && c != 'y':
		return psWithE(s, len(sub))
	default:
		return sub
	}
}

// psWithE returns s[:n] followed by an 'e', written in place over s[n].
func psWithE(s []byte, n int) []byte {
	r := s[:n+1]
	r[n] = 'e'
	return r
}

func psStep1c(s []byte) []byte {
	n := len(s)
	if n < 2 {
		return s
	}
	if s[n-1] == 'y' && psContainsVowel(s[:n-1]) {
		s[n-1] = 'i'
	} else if s[n-1] == 'Y' && psContainsVowel(s[:n-1]) {
		s[n-1] = 'I'
	}
	return s
}

// psStep2Rules: suffix, then how to rewrite when the stem before it has
// measure > 0: set the byte at n-setAt (if setAt > 0) to set, then cut to
// n-cut bytes.
var psStep2Rules = [...]struct {
	suffix string
	setAt  int
	set    byte
	set2At int
	set2   byte
	cut    int
}{
	{"ational", 5, 'e', 0, 0, 4},
	{"tional", 0, 0, 0, 0, 2},
	{"enci", 1, 'e', 0, 0, 0},
	{"anci", 1, 'e', 0, 0, 0},
	{"izer", 0, 0, 0, 0, 1},
	{"bli", 1, 'e', 0, 0, 0},
	{"alli", 0, 0, 0, 0, 2},
	{"entli", 0, 0, 0, 0, 2},
	{"eli", 0, 0, 0, 0, 2},
	{"ousli", 0, 0, 0, 0, 2},
	{"ization", 5, 'e', 0, 0, 4},
	{"ation", 3, 'e', 0, 0, 2},
	{"ator", 2, 'e', 0, 0, 1},
	{"alism", 0, 0, 0, 0, 3},
	{"iveness", 0, 0, 0, 0, 4},
	{"fulness", 0, 0, 0, 0, 4},
	{"ousness", 0, 0, 0, 0, 4},
	{"aliti", 0, 0, 0, 0, 3},
	{"iviti", 3, 'e', 0, 0, 2},
	{"biliti", 5, 'l', 4, 'e', 3},
	{"logi", 0, 0, 0, 0, 1},
}

var psStep2ByLast = byLastByte(len(psStep2Rules), func(i int) string { return psStep2Rules[i].suffix })

func psStep2(s []byte) []byte {
	n := len(s)
	for _, i := range psStep2ByLast[s[n-1]] {
		r := &psStep2Rules[i]
		if !psHasSuffix(s, r.suffix) {
			continue
		}
		if psMeasure(s[:n-len(r.suffix)]) > 0 {
			if r.setAt > 0 {
				s[n-r.setAt] = r.set
			}
			if r.set2At > 0 {
				s[n-r.set2At] = r.set2
			}
			s = s[:n-r.cut]
		}
		return s
	}
	return s
}

// psStep3Rules: suffix and how many bytes to cut when the stem before the
// suffix has measure > 0.
var psStep3Rules = [...]struct {
	suffix string
	cut    int
}{
	{"icate", 3},
	{"ative", 5},
	{"alize", 3},
	{"iciti", 3},
	{"ical", 2},
	{"ful", 3},
	{"ness", 4},
}

var psStep3ByLast = byLastByte(len(psStep3Rules), func(i int) string { return psStep3Rules[i].suffix })

func psStep3(s []byte) []byte {
	n := len(s)
	for _, i := range psStep3ByLast[s[n-1]] {
		r := &psStep3Rules[i]
		if psHasSuffix(s, r.suffix) {
			if psMeasure(s[:n-len(r.suffix)]) > 0 {
				return s[:n-r.cut]
			}
			return s
		}
	}
	return s
}

// psStep4Suffixes are removed when the stem before them has measure > 1
// ("ion" only after s or t).
var psStep4Suffixes = [...]string{
	"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment",
	"ent", "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize",
}

var psStep4ByLast = byLastByte(len(psStep4Suffixes), func(i int) string { return psStep4Suffixes[i] })

func psStep4(s []byte) []byte {
	n := len(s)
	for _, i := range psStep4ByLast[s[n-1]] {
		suffix := psStep4Suffixes[i]
		if psHasSuffix(s, suffix) {
			sub := s[:n-len(suffix)]
			if psMeasure(sub) > 1 {
				if suffix == "ion" {
					if c := sub[len(sub)-1]; c != 's' && c != 't' {
						return s
					}
				}
				return sub
			}
			return s
		}
	}
	return s
}

func psStep5a(s []byte) []byte {
	n := len(s)
	if s[n-1] == 'e' {
		sub := s[:n-1]
		m := psMeasure(sub)
		if m > 1 {
			return sub
		} else if m == 1 {
			if c := sub[len(sub)-1]; !(psHasConsonantVowelConsonantSuffix(sub) && c != 'w' && c != 'x' && c != 'y') {
				return sub
			}
		}
	}
	return s
}

func psStep5b(s []byte) []byte {
	n := len(s)
	if n > 2 && s[n-2] == 'l' && s[n-1] == 'l' {
		sub := s[:n-1]
		if psMeasure(sub) > 1 {
			return sub
		}
	}
	return s
}
