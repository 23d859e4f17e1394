package embed

import (
	"unicode"
	"unicode/utf8"
)

// The built-in model's tokenizer is code-aware: it reads "parseTranscript",
// "parse_transcript" and "transcripts/parse.go" as the same words, drops
// things that look like hashes, uuids and base64, lowercases and lightly stems.
// Any change to its output changes the vector space: bump modelVersion.

const (
	maxPartLen     = 24 // longer pieces are blobs, not words
	maxCompoundLen = 24
)

// tokenizer holds reusable buffers; not safe for concurrent use.
type tokenizer struct {
	chunk []byte   // current chunk, original case, ASCII/UTF-8
	parts [][2]int // [start,end) of parts within chunk
	buf   []byte   // term being emitted
}

// forEachTerm calls emit with every term of text. The slice passed to emit is
// only valid during the call.
func (tk *tokenizer) forEachTerm(text string, emit func(term []byte)) {
	for i := skipSeparators(text, 0); i < len(text); i = skipSeparators(text, i) {
		start := i
		i = chunkEnd(text, i)
		tk.chunkTerms(text[start:i], emit)
	}
}

// skipSeparators is the index of the first letter, digit or '_' of text
// at or after i (len(text) when none).
func skipSeparators(text string, i int) int {
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if isWordByte(c) {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return i
		}
		i += n
	}
	return i
}

// chunkEnd is the end of the chunk that starts at i: a run of letters,
// digits, '_' and '-'.
func chunkEnd(text string, i int) int {
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if !isWordByte(c) && c != '-' {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		i += n
	}
	return i
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// chunkTerms splits one chunk ("parseTranscript", "spotter-4te",
// "HTTPServer2") into parts, filters and stems them, and emits the parts and,
// for 2–3 part identifiers, the joined compound ("parsetranscript").
func (tk *tokenizer) chunkTerms(chunk string, emit func([]byte)) {
	if len(chunk) > 256 || looksLikeBlob(chunk) {
		return
	}
	tk.chunk = append(tk.chunk[:0], chunk...)
	tk.splitParts()
	if tk.isIDChunk() {
		return
	}
	kept, dropped := tk.emitParts(emit)
	if kept >= 2 && kept <= 3 && !dropped && len(tk.parts) == kept {
		tk.emitCompound(emit)
	}
}

// splitParts sets tk.parts to the parts of tk.chunk: runs between '_' and
// '-', cut further at camelCase boundaries.
func (tk *tokenizer) splitParts() {
	tk.parts = tk.parts[:0]
	b := tk.chunk
	n := len(b)
	ps := -1 // start of current part
	for j := 0; j < n; j++ {
		c := b[j]
		if c == '_' || c == '-' {
			if ps >= 0 {
				tk.parts = append(tk.parts, [2]int{ps, j})
				ps = -1
			}
			continue
		}
		if ps < 0 {
			ps = j
			continue
		}
		if isUpper(c) && camelBoundary(b, ps, j) {
			tk.parts = append(tk.parts, [2]int{ps, j})
			ps = j
		}
	}
	if ps >= 0 {
		tk.parts = append(tk.parts, [2]int{ps, n})
	}
}

// camelBoundary reports whether the upper-case b[j] starts a new part of
// the part begun at ps (ASCII only): aB, 2B after a part that is not all
// digits, and ABc (the B starts a part).
func camelBoundary(b []byte, ps, j int) bool {
	p := b[j-1]
	return isLower(p) || isDigit(p) && j-1 > ps && !isDigitRun(b[ps:j]) ||
		isUpper(p) && j+1 < len(b) && isLower(b[j+1])
}

// isIDChunk reports whether a part is a hex run of 8+ characters with
// digits in a chunk of 3+ parts, which marks a uuid, sha or id chunk to be
// dropped whole ("6c2214d7-b87e-4432-…"; "agent-a881341" keeps "agent").
func (tk *tokenizer) isIDChunk() bool {
	if len(tk.parts) < 3 {
		return false
	}
	for _, p := range tk.parts {
		part := tk.chunk[p[0]:p[1]]
		if isHexID(part) && len(part) >= 8 {
			return true
		}
	}
	return false
}

// emitParts lowercases the parts in place and emits the stems of those
// kept that are not stop words. It returns how many parts were kept and
// whether any was dropped.
func (tk *tokenizer) emitParts(emit func([]byte)) (kept int, dropped bool) {
	for _, p := range tk.parts {
		part := tk.chunk[p[0]:p[1]]
		lowerASCII(part)
		if !keepPart(part) {
			dropped = true
			continue
		}
		kept++
		if isStopword(part) {
			continue
		}
		tk.buf = append(tk.buf[:0], part...)
		emit(stem(tk.buf))
	}
	return kept, dropped
}

// emitCompound emits the stem of the (lowercased) parts joined, unless it
// is too long.
func (tk *tokenizer) emitCompound(emit func([]byte)) {
	tk.buf = tk.buf[:0]
	for _, p := range tk.parts {
		tk.buf = append(tk.buf, tk.chunk[p[0]:p[1]]...)
	}
	if len(tk.buf) <= maxCompoundLen {
		emit(stem(tk.buf))
	}
}

// keepPart drops pieces that carry no meaning: single characters, short and
// long numbers, hex ids, and over-long blobs. part is lowercase.
func keepPart(part []byte) bool {
	n := len(part)
	if n < 2 || n > maxPartLen {
		return false
	}
	if isDigitRun(part) {
		// Keep status codes, ports and years; 1–2 digit numbers are mostly
		// line numbers from Read output, longer ones ids and timestamps.
		return n >= 3 && n <= 4
	}
	if n >= 4 && isHexID(part) {
		return false
	}
	return true
}

// isHexID: only hex characters, with both digits and letters ("b87e", "22ba294ea584").
func isHexID(b []byte) bool {
	digits, letters := 0, 0
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
			letters++
		default:
			return false
		}
	}
	return digits > 0 && letters > 0
}

// looksLikeBlob spots base64, API keys and the like: long chunks without
// separators that mix upper case, lower case and digits.
func looksLikeBlob(s string) bool {
	if len(s) < 16 {
		return false
	}
	up, lo, dg, sep := charMix(s)
	if sep {
		return false
	}
	return up >= 3 && lo >= 3 && dg >= 3 || (len(s) > 40 && dg >= 4)
}

// charMix counts the upper-case letters, lower-case letters and digits
// of s (ASCII), until a separator ('_' or '-'): sep reports one.
func charMix(s string) (up, lo, dg int, sep bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isUpper(c):
			up++
		case isLower(c):
			lo++
		case isDigit(c):
			dg++
		case c == '_' || c == '-':
			return up, lo, dg, true
		}
	}
	return up, lo, dg, false
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isDigitRun(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return len(b) > 0
}

// lowerASCII lowercases b in place; non-ASCII letters go through unicode.
func lowerASCII(b []byte) {
	ascii := true
	for i, c := range b {
		if c >= utf8.RuneSelf {
			ascii = false
			continue
		}
		if isUpper(c) {
			b[i] = c + ('a' - 'A')
		}
	}
	if ascii {
		return
	}
	// Rare: rewrite non-ASCII runes in place when the lowercase form has the
	// same encoded length (true for nearly all letters); otherwise keep them.
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if l := unicode.ToLower(r); l != r && utf8.RuneLen(l) == n {
			utf8.EncodeRune(b[i:], l)
		}
		i += n
	}
}

// stem is a light English suffix stripper working in place on lowercase
// ASCII words. It conflates plural, -ing, -ed, -ion and final -e/-y forms
// ("creates", "creating", "created", "create" → "creat"; "queries" →
// "queri"; "connection" → "connect"). Non-ASCII or short words are returned
// unchanged. Exact linguistics matter less than applying the same function
// to training text, documents and queries.
func stem(b []byte) []byte {
	if len(b) < 4 || !isLowerRun(b) {
		return b
	}
	b = stemPlural(b)
	// -tion/-sion nouns: "connection" → "connect", "migration" → "migrat".
	if n := len(b); n >= 7 && (hasSuffix(b, "tion") || hasSuffix(b, "sion")) {
		b = b[:n-3]
	}
	return stemFinal(stemIngEd(b))
}

// stemFinal strips a final -e ("create" / "creat(ing)" meet) and turns a
// final consonant+y into i ("query" / "queri(es)" meet).
func stemFinal(b []byte) []byte {
	n := len(b)
	if n >= 4 && b[n-1] == 'e' {
		b = b[:n-1]
		n--
	}
	if n >= 3 && b[n-1] == 'y' && !isVowel(b[n-2]) {
		b[n-1] = 'i'
	}
	return b
}

func isLowerRun(b []byte) bool {
	for _, c := range b {
		if !isLower(c) {
			return false
		}
	}
	return true
}

// stemPlural strips a plural -s, -es of -sses, or -es of -ies ("queries" →
// "queri"), from a word of 4 or more letters.
func stemPlural(b []byte) []byte {
	n := len(b)
	switch {
	case hasSuffix(b, "sses"):
		return b[:n-2]
	case hasSuffix(b, "ies") && n > 4:
		return b[:n-2] // "queries" → "queri"
	case b[n-1] == 's' && b[n-2] != 's' && b[n-2] != 'u' && b[n-2] != 'i':
		return b[:n-1]
	}
	return b
}

// stemIngEd strips -ing or -ed when a vowel stays before it, and then a
// doubled final consonant ("running" → "run", "embedded" → "embed").
func stemIngEd(b []byte) []byte {
	n := len(b)
	switch {
	case hasSuffix(b, "ing") && n-3 >= 3 && hasVowel(b[:n-3]):
		return undouble(b[:n-3])
	case hasSuffix(b, "ed") && !hasSuffix(b, "eed") && n-2 >= 3 && hasVowel(b[:n-2]):
		return undouble(b[:n-2])
	}
	return b
}

// undouble drops the second of a doubled final consonant other than l, s
// and z, from a stem of 4 or more letters ("runn" → "run").
func undouble(b []byte) []byte {
	n := len(b)
	if n >= 4 && b[n-1] == b[n-2] && !isVowel(b[n-1]) &&
		b[n-1] != 'l' && b[n-1] != 's' && b[n-1] != 'z' {
		return b[:n-1]
	}
	return b
}

func hasSuffix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[len(b)-len(s):]) == s
}

func isVowel(c byte) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'
}

func hasVowel(b []byte) bool {
	for _, c := range b {
		if isVowel(c) || c == 'y' {
			return true
		}
	}
	return false
}

func isStopword(b []byte) bool {
	_, ok := stopwords[string(b)]
	return ok
}

// stopwords are English function words plus conversational filler common in
// transcripts. They are checked before stemming.
var stopwords = func() map[string]struct{} {
	words := []string{
		"a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "aren",
		"as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
		"can", "cannot", "could", "couldn", "did", "didn", "do", "does", "doesn", "doing", "don", "done", "down", "during",
		"each", "either", "else", "etc", "even", "ever", "every", "few", "for", "from", "further",
		"get", "gets", "got", "had", "hadn", "has", "hasn", "have", "haven", "having", "he", "her", "here", "hers",
		"herself", "him", "himself", "his", "how", "however", "i", "if", "in", "into", "is", "isn", "it", "its", "itself",
		"just", "let", "lets", "ll", "me", "might", "more", "most", "much", "must", "mustn", "my", "myself",
		"no", "nor", "not", "now", "of", "off", "ok", "okay", "on", "once", "one", "only", "or", "other", "our",
		"ours", "ourselves", "out", "over", "own", "please", "re", "same", "shall", "she", "should", "shouldn", "so",
		"some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these",
		"they", "this", "those", "through", "thus", "to", "too", "under", "until", "up", "upon", "us", "ve", "very",
		"was", "wasn", "we", "were", "weren", "what", "when", "where", "whether", "which", "while", "who", "whom",
		"why", "will", "with", "within", "without", "won", "would", "wouldn", "yes", "yet", "you", "your", "yours",
		"yourself", "yourselves", "sure", "thanks", "thank", "great", "going", "want", "like", "really", "actually",
		"s", "t", "d", "m", "y",
	}
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}()
