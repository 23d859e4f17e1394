package fts

import (
	"bytes"
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
//     from its start on. asciiSegment reproduces that function when the
//     segment and the bytes that could still extend it are ASCII; anywhere
//     else the real segment.SegmentWords is called for that one segment.
//   - Filters: ASCII terms are lowercased in place and stemmed by
//     stemASCII, a byte port of go-porterstemmer's StemWithoutLowerCasing;
//     other terms go through the same code as bleve's filters.
//
// Like bleve's chain it rewrites the token bytes of its input in place
// (lowercasing, stemming); terms may alias the input.
type englishAnalyzer struct {
	stop       analysis.TokenMap
	maxStopLen int // longest stop word, in bytes: longer terms skip the map
}

func newEnglishAnalyzerFused(stop analysis.TokenMap) *englishAnalyzer {
	a := &englishAnalyzer{stop: stop}
	for w := range stop {
		a.maxStopLen = max(a.maxStopLen, len(w))
	}
	return a
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
	// About one kept token per 8 bytes of transcript text; the stream grows
	// by append if that is short.
	out := make(analysis.TokenStream, 0, min(n/8+1, 1<<16))
	var block []analysis.Token
	var runes [maxEnglishTokenRunes]rune // stemming scratch for non-ASCII terms

	p := 0     // byte offset the segmenter has consumed
	start := 0 // bleve's offset: the sum of the segments' lengths
	pos := 1
	for p < n {
		var seg []byte
		var typ int
		ascii := false
		if input[p] < utf8.RuneSelf {
			var q int
			if q, typ, ascii = asciiSegment(input, p); ascii {
				seg = input[p:q]
				p = q
			}
		}
		if !ascii {
			// What segment.Segmenter.Segment does for one segment of a
			// direct (whole-buffer, at-EOF) segmenter: any error, a bad
			// advance or no segment ends the stream.
			advance, tok, t, err := segment.SegmentWords(input[p:], true)
			if err != nil || advance < 0 || advance > n-p || tok == nil {
				break
			}
			p += advance
			seg, typ = tok, t
		}
		end := start + len(seg)
		if typ != segNone {
			if term, keep := a.filter(seg, ascii, &runes); keep {
				if len(block) == 0 {
					// Like bleve's tokenizer: guess the remaining count
					// from the average so far.
					guess := (n - p) / (p/(pos+1) + 1)
					block = make([]analysis.Token, min(max(guess, 16), tokenBlock))
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
	wbOther     = iota
	wbLetter    // ALetter: A-Z a-z
	wbDigit     // Numeric: 0-9
	wbExtNumLet // ExtendNumLet: _
	wbMidLetter // MidLetter: joins letters only (:)
	wbMidNumLet // MidNumLet and Single_Quote: join letters or digits (. ')
	wbMidNum    // MidNum: joins digits only (, ;)
	wbCR        // \r
	wbNonASCII  // a byte >= 0x80
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

// asciiSegment returns the end and type of the segment that segment's word
// segmenter cuts at s[p] (an ASCII byte), or ok=false when that depends on
// non-ASCII bytes (which could extend the segment: a letter, a digit, a
// combining mark; or, after a segment of type None, invalid UTF-8, which
// stops the segmenter).
//
// For ASCII the rules come down to: letters, digits and underscores run
// together (WB5, WB8-10, WB13a/b); one of : . ' between two letters (WB6/7)
// or one of , ; . ' between two digits (WB11/12) joins them; a run with no
// letter and some digit is a Number (the numeric rule wins ties), otherwise
// a Letter. CR LF is one segment (WB3); every other byte is a segment of its
// own, of type None.
func asciiSegment(s []byte, p int) (q int, typ int, ok bool) {
	n := len(s)
	switch asciiWB[s[p]] {
	case wbLetter, wbDigit, wbExtNumLet:
		letters, digits := false, false
		q = p
	scan:
		for q < n {
			switch c := asciiWB[s[q]]; c {
			case wbLetter:
				letters = true
				q++
			case wbDigit:
				digits = true
				q++
			case wbExtNumLet:
				q++
			case wbMidLetter, wbMidNumLet, wbMidNum:
				if q+1 >= n {
					break scan
				}
				prev, next := asciiWB[s[q-1]], asciiWB[s[q+1]]
				if next == wbNonASCII {
					return 0, 0, false
				}
				if prev == next && (prev == wbLetter && c != wbMidNum || prev == wbDigit && c != wbMidLetter) {
					q += 2
					continue
				}
				break scan
			case wbNonASCII:
				return 0, 0, false
			default:
				break scan
			}
		}
		if !letters && digits {
			return q, segNumber, true
		}
		return q, segLetter, true
	case wbCR:
		q = p + 1
		if q < n && s[q] == '\n' {
			q++
		}
	default:
		q = p + 1
	}
	if q < n && s[q] >= utf8.RuneSelf {
		return 0, 0, false
	}
	return q, segNone, true
}

// filter runs possessive_en, to_lower, stop_en, the length filter and
// stemmer_porter over one term; keep is false when a filter drops it.
// ascii says the term is known to be ASCII.
func (a *englishAnalyzer) filter(term []byte, ascii bool, runes *[maxEnglishTokenRunes]rune) (_ []byte, keep bool) {
	if !ascii {
		ascii = isASCII(term)
	}
	if ascii {
		if l := len(term); l >= 2 && term[l-2] == '\'' && (term[l-1] == 's' || term[l-1] == 'S') {
			term = term[:l-2]
		}
		for i, c := range term {
			if 'A' <= c && c <= 'Z' {
				term[i] = c + ('a' - 'A')
			}
		}
		if len(term) <= a.maxStopLen {
			if _, stop := a.stop[string(term)]; stop {
				return nil, false
			}
		}
		if len(term) > maxEnglishTokenRunes {
			return nil, false
		}
		return stemASCII(term), true
	}

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
	if _, stop := a.stop[string(term)]; stop {
		return nil, false
	}
	// length
	if utf8.RuneCount(term) > maxEnglishTokenRunes {
		return nil, false
	}
	// stemmer_porter: bytes.Runes, StemWithoutLowerCasing,
	// BuildTermFromRunes, with the runes in scratch space and the result
	// written over the term when it fits.
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
		return analysis.BuildTermFromRunes(rs), true
	}
	w := 0
	for _, r := range rs {
		w += utf8.EncodeRune(term[w:], r)
	}
	return term[:w], true
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
		if i == 0 {
			return true
		}
		return !psIsConsonant(s, i-1)
	}
	return true
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
	return len(s) > len(suffix) && string(s[len(s)-len(suffix):]) == suffix
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
	switch {
	case psHasSuffix(s, "eed"):
		if psMeasure(s[:n-3]) > 0 {
			return s[:n-1]
		}
	case psHasSuffix(s, "ed"):
		sub := s[:n-2]
		if psContainsVowel(sub) {
			c := sub[len(sub)-1]
			switch {
			case psHasSuffix(sub, "at"), psHasSuffix(sub, "bl"), psHasSuffix(sub, "iz"):
				return s[:n-1]
			case c != 'l' && c != 's' && c != 'z' && psHasRepeatDoubleConsonantSuffix(sub):
				return sub[:len(sub)-1]
			case psMeasure(sub) == 1 && psHasConsonantVowelConsonantSuffix(sub) && c != 'w' && c != 'x' && c != 'y':
				r := s[:n-1]
				r[len(r)-1] = 'e'
				return r
			default:
				return sub
			}
		}
	case psHasSuffix(s, "ing"):
		sub := s[:n-3]
		if psContainsVowel(sub) {
			c := sub[len(sub)-1]
			switch {
			case psHasSuffix(sub, "at"), psHasSuffix(sub, "bl"), psHasSuffix(sub, "iz"):
				r := s[:n-2]
				r[len(r)-1] = 'e'
				return r
			case c != 'l' && c != 's' && c != 'z' && psHasRepeatDoubleConsonantSuffix(sub):
				return sub[:len(sub)-1]
			case psMeasure(sub) == 1 && psHasConsonantVowelConsonantSuffix(sub) && c != 'w' && c != 'x' && c != 'y':
				r := s[:n-2]
				r[len(r)-1] = 'e'
				return r
			default:
				return sub
			}
		}
	}
	return s
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

func psStep2(s []byte) []byte {
	n := len(s)
	for _, r := range &psStep2Rules {
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

func psStep3(s []byte) []byte {
	n := len(s)
	for _, r := range &psStep3Rules {
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

func psStep4(s []byte) []byte {
	n := len(s)
	for _, suffix := range &psStep4Suffixes {
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
