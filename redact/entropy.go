package redact

import (
	"math"
	"strings"
)

// Thresholds for the high_entropy detector, calibrated on random tokens
// versus identifiers, paths and hashes from real transcripts and the Go
// module cache (see entropy_test.go). A token must pass every test:
//   - it is not hex (git SHAs, digests, UUIDs, test vectors are not
//     secrets often enough to pay for the holes they would punch);
//   - it mixes upper case, lower case and digits, and switches between
//     them on at least minTransitionRatio of byte pairs (random: ~0.6;
//     paths and kebab-case: < 0.1);
//   - it does not read as an identifier (looksLikeIdentifier): random
//     tokens split into camelCase segments averaging ~1.9 bytes and rarely
//     contain lower-case words, identifiers average 3+ bytes;
//   - its Shannon entropy is at least entropyThreshold (random 32-byte
//     alnum: >= ~4.1 bits/byte at the 99.9th percentile, rising with
//     length).
//
// Together they catch ~98.5% of random 32-byte alnum tokens and > 99.5% of
// 40+ byte ones.
const (
	minEntropyBits      = 3.9 // at 32 bytes; see entropyThreshold
	maxEntropyBits      = 4.4
	maxWordFraction     = 0.6
	minSegmentMean      = 2.9 // random: p99 at 32 bytes, p99.99 at 64
	minSegmentMeanSnake = 2.3 // with 3+ underscores (AVX512_VL128_...)
	minTransitionRatio  = 0.25
)

// ignoredTokenPrefixes are high-entropy strings that are public by
// design: Subresource Integrity / npm lockfile hashes and SSH public keys.
var ignoredTokenPrefixes = []string{
	"sha1-", "sha256-", "sha384-", "sha512-",
	"AAAAB3NzaC1", "AAAAC3NzaC1", "AAAAE2VjZHNh",
}

// ignoredContexts are what precedes hashes and inline data that are not
// secrets: go.sum ("h1:"), data URIs ("base64,").
var ignoredContexts = []string{"h1:", "base64,"}

// entropy reports the run [st,j) as high_entropy if it looks like a random
// secret. Leading/trailing '-', '_', '/', '+' are ignored when judging (so
// "--flag" or "dir/" don't inflate the token) and base64 '=' padding after
// the run is included in the redaction.
func (s *scanner) entropy(st, j int) {
	text := s.text
	a, b := trimTokenEdges(text, st, j)
	if b-a < minEntropyTok {
		return
	}
	tok := text[a:b]
	if isIgnoredToken(text, a, tok) {
		return
	}
	if !looksRandom(tok) || isPathLike(text[st:j]) {
		return
	}
	end := j
	for k := 0; k < 2 && end < len(text) && text[end] == '='; k++ {
		end++
	}
	s.add(KindHighEntropy, a, end)
}

// trimTokenEdges returns the run [st,j) without leading and trailing '-',
// '_', '/' and '+'.
func trimTokenEdges(text string, st, j int) (a, b int) {
	a, b = st, j
	for a < b && isTokenEdge(text[a]) {
		a++
	}
	for b > a && isTokenEdge(text[b-1]) {
		b--
	}
	return a, b
}

// isIgnoredToken reports whether tok, found at a in text, is random but
// not secret: a known prefix, an API object id, or data after a context
// such as go.sum's "h1:".
func isIgnoredToken(text string, a int, tok string) bool {
	for _, p := range ignoredTokenPrefixes {
		if strings.HasPrefix(tok, p) {
			return true
		}
	}
	if isObjectID(tok) {
		return true
	}
	for _, c := range ignoredContexts {
		if a >= len(c) && text[a-len(c):a] == c {
			return true
		}
	}
	return false
}

// isObjectID reports whether tok is an API object id rather than a
// credential: Anthropic ids are "<type>_01<base58>" (msg_01..., toolu_01...,
// srvtoolu_01..., agent_msg_01..., req_011C...) and OpenAI ids use a few
// fixed prefixes. They are random but public, and searching by them is
// useful.
func isObjectID(tok string) bool {
	for _, p := range objectIDPrefixes {
		if strings.HasPrefix(tok, p) {
			return true
		}
	}
	i := 0
	for i < len(tok) && (class[tok[i]]&cLower != 0 || tok[i] == '_') {
		i++
	}
	return i >= 3 && tok[i-1] == '_' && strings.HasPrefix(tok[i:], "01")
}

var objectIDPrefixes = []string{"chatcmpl-", "call_", "resp_", "asst_", "thread_", "run_"}

// isHex0x reports whether tok is a 0x-prefixed hex number.
func isHex0x(tok string) bool {
	if len(tok) < 3 || tok[0] != '0' || tok[1]|0x20 != 'x' {
		return false
	}
	for i := 2; i < len(tok); i++ {
		if class[tok[i]]&cHex == 0 {
			return false
		}
	}
	return true
}

func isTokenEdge(c byte) bool { return c == '-' || c == '_' || c == '/' || c == '+' }

// looksRandom applies the high_entropy tests to a token of base64/base64url
// bytes.
func looksRandom(tok string) bool {
	var m byteMix
	m.count(tok)
	if m.hex+int(m.hist['-']) == len(tok) || isHex0x(tok) {
		// Hex: git SHAs, digests, UUIDs, test vectors, DER dumps,
		// Ethereum addresses. Hex secrets are only found by env_secret
		// (WEBHOOK_SECRET=<hex>), where the name says what they are.
		return false
	}
	// Random tokens of this length virtually always mix all three classes;
	// identifiers, CONSTANT_NAMES and kebab-case words do not.
	if m.upper == 0 || m.lower == 0 || m.digit == 0 {
		return false
	}
	if m.pairs == 0 || float64(m.trans) < minTransitionRatio*float64(m.pairs) {
		return false
	}
	if looksLikeIdentifier(tok) {
		return false
	}
	return shannon(&m.hist, len(tok)) >= entropyThreshold(len(tok))
}

// byteMix is what looksRandom measures of a token: its byte histogram,
// how many bytes are upper case, lower case, digits and hex digits, and of
// the pairs of adjacent letters or digits how many change class.
type byteMix struct {
	hist                                   [128]uint32
	upper, lower, digit, hex, trans, pairs int
}

func (m *byteMix) count(tok string) {
	var prev uint32
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		m.hist[c&127]++
		cl := class[c]
		k := cl & (cUpper | cLower | cDigit)
		switch k {
		case cUpper:
			m.upper++
		case cLower:
			m.lower++
		case cDigit:
			m.digit++
		}
		if cl&cHex != 0 {
			m.hex++
		}
		if k != 0 && prev != 0 {
			m.pairs++
			if k != prev {
				m.trans++
			}
		}
		prev = k
	}
}

// entropyThreshold grows with length because the empirical entropy of a
// random string does: short samples cannot show every symbol.
func entropyThreshold(n int) float64 {
	return min(minEntropyBits+0.025*float64(n-minEntropyTok), maxEntropyBits)
}

// looksLikeIdentifier reports whether tok is built from words, acronyms
// and numbers the way code identifiers are ("PtrHeadInt16NilMultiFields",
// "BenchmarkC64AxpyIncToN100000Inc1", "VCVTPD2DQ_XMMi32_MASKmskw_AVX512").
// Random tokens split into short camelCase segments (mean ~1.9 bytes) and
// rarely contain lower-case words.
func looksLikeIdentifier(tok string) bool {
	n := float64(len(tok))
	if float64(wordBytes(tok)) >= maxWordFraction*n {
		return true
	}
	segs, alnum, underscores := segments(tok)
	mean := float64(alnum) / float64(max(segs, 1))
	return mean >= minSegmentMean || (underscores >= 3 && mean >= minSegmentMeanSnake)
}

// segments splits tok like a camelCase/snake_case identifier: at
// non-alphanumerics, between letters and digits, before an upper-case
// letter that starts a lower-case word ("HTTPServer" is HTTP|Server). It
// returns the number of segments, of alphanumeric bytes, and of '_'.
func segments(tok string) (segs, alnum, underscores int) {
	for i := 0; i < len(tok); {
		cl := class[tok[i]] & (cUpper | cLower | cDigit)
		if cl == 0 {
			if tok[i] == '_' {
				underscores++
			}
			i++
			continue
		}
		j := i + 1
		for j < len(tok) && class[tok[j]]&cl != 0 {
			j++
		}
		alnum += j - i
		if cl == cUpper && j < len(tok) && class[tok[j]]&cLower != 0 {
			// The last capital starts the next (lower-case) word.
			if j-i >= 2 {
				segs++
			}
			k := j + 1
			for k < len(tok) && class[tok[k]]&cLower != 0 {
				k++
			}
			alnum += k - j
			j = k
		}
		segs++
		i = j
	}
	return segs, alnum, underscores
}

// wordBytes counts the bytes of tok that look like parts of a name rather
// than noise: [A-Z]?[a-z]{3,} runs (the words of camelCase and snake_case
// identifiers) and digit runs of 3 or more ("25519", "2024", "1024").
// Random tokens rarely have either.
func wordBytes(tok string) int {
	total := 0
	for i := 0; i < len(tok); {
		cl := class[tok[i]] & (cLower | cDigit)
		if cl == 0 {
			i++
			continue
		}
		j := i + 1
		for j < len(tok) && class[tok[j]]&cl != 0 {
			j++
		}
		if j-i >= 3 {
			total += j - i
			if cl == cLower && i > 0 && class[tok[i-1]]&cUpper != 0 {
				total++
			}
		}
		i = j
	}
	return total
}

// shannon returns the Shannon entropy in bits per byte of a histogram over
// n bytes, as log2(n) - sum(c*log2(c))/n with c*log2(c) from a table.
func shannon(hist *[128]uint32, n int) float64 {
	sum := 0.0
	for _, c := range hist {
		if c < uint32(len(clog2)) {
			sum += clog2[c]
		} else {
			sum += float64(c) * math.Log2(float64(c))
		}
	}
	return math.Log2(float64(n)) - sum/float64(n)
}

// clog2[c] = c*log2(c), with clog2[0] = 0.
var clog2 [512]float64

func init() {
	for c := 1; c < len(clog2); c++ {
		clog2[c] = float64(c) * math.Log2(float64(c))
	}
}

// isPathLike reports whether a token has a word-like segment ("src",
// "node_modules", "Users") between two slashes, which random base64
// essentially never has. Only interior segments count: the ends of a random
// token are often short lower-case runs next to a '/'.
func isPathLike(tok string) bool {
	first := strings.IndexByte(tok, '/')
	if first < 0 {
		return false
	}
	rest := tok[first+1:]
	for {
		k := strings.IndexByte(rest, '/')
		if k < 0 {
			return false
		}
		if seg := rest[:k]; len(seg) >= 3 && isWord(seg) {
			return true
		}
		rest = rest[k+1:]
	}
}

// isWord reports whether seg is a lower-case or Capitalised word, possibly
// joined by '-' or '_'.
func isWord(seg string) bool {
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if class[c]&cLower != 0 || c == '-' || c == '_' || (i == 0 && class[c]&cUpper != 0) {
			continue
		}
		return false
	}
	return true
}
