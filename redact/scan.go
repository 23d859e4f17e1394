package redact

import "slices"

// Character classes, one bit per class, looked up through a 256-entry table
// so the hot loop costs one load and one AND per byte.
const (
	cTok     uint32 = 1 << iota // [A-Za-z0-9_+/-]: base64/base64url token bytes
	cAlnum                      // [A-Za-z0-9]
	cWord                       // [A-Za-z0-9_-]
	cAlnumU                     // [A-Za-z0-9_]
	cAlnumD                     // [A-Za-z0-9-]
	cUpDigit                    // [A-Z0-9]
	cB64                        // [A-Za-z0-9+/=]
	cWordDot                    // [A-Za-z0-9_.-]
	cPath                       // [A-Za-z0-9/_-]
	cUpper                      // [A-Z]
	cLower                      // [a-z]
	cDigit                      // [0-9]
	cHex                        // [0-9a-fA-F]
	cSep                        // ':' '=': may introduce an env_secret value or a URL
	cTrig                       // first byte of some prefix rule (see prefix.go)
	cName                       // [A-Za-z0-9_.-]: bytes of a NAME in NAME=value
	cKeyEnd                     // last byte of a secret NAME keyword or suffix (env.go)
)

var class [256]uint32

const (
	upperBytes = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lowerBytes = "abcdefghijklmnopqrstuvwxyz"
	digitBytes = "0123456789"
	alnumBytes = upperBytes + lowerBytes + digitBytes
)

// classMembers lists the bytes of each plain class; cTrig and cKeyEnd are
// derived from the detectors' rules in init.
var classMembers = [...]struct {
	bit   uint32
	bytes string
}{
	{cTok, alnumBytes + "_+/-"},
	{cAlnum, alnumBytes},
	{cWord, alnumBytes + "_-"},
	{cAlnumU, alnumBytes + "_"},
	{cAlnumD, alnumBytes + "-"},
	{cUpDigit, upperBytes + digitBytes},
	{cB64, alnumBytes + "+/="},
	{cWordDot, alnumBytes + "_.-"},
	{cPath, alnumBytes + "/_-"},
	{cUpper, upperBytes},
	{cLower, lowerBytes},
	{cDigit, digitBytes},
	{cHex, digitBytes + "abcdefABCDEF"},
	{cSep, ":="},
	{cName, alnumBytes + "_.-"},
}

func init() {
	for _, cm := range classMembers {
		for i := 0; i < len(cm.bytes); i++ {
			class[cm.bytes[i]] |= cm.bit
		}
	}
	for _, r := range prefixRules {
		class[r.prefix[0]] |= cTrig
	}
	for _, w := range append(slices.Clone(secretNames), nameSuffixes...) {
		c := w[len(w)-1]
		class[c] |= cKeyEnd
		class[c-'a'+'A'] |= cKeyEnd
	}
	class['e'] |= cTrig // jwt
	class['-'] |= cTrig // PEM
	for _, c := range "MNO" {
		class[c] |= cTrig // Discord
	}
}

// Minimum token lengths worth handing to the detectors. The shortest
// prefix trigger is "ya29" (the '.' ends the token) and the shortest
// standalone secret tokens are ~20 bytes.
const (
	minTrigTok    = 4
	minSubTok     = 20
	minEntropyTok = 32
	maxSubStarts  = 16
)

// scanner carries per-call state; it lives on the stack of scan.
type scanner struct {
	text string
	fs   []Finding
}

func (s *scanner) add(kind string, start, end int) {
	s.fs = append(s.fs, Finding{Kind: kind, Start: start, End: end})
}

// scan walks text once, splitting it into maximal runs of token bytes.
// Each run start (and each position after '/' or '+' inside a long run) is
// offered to the prefix detectors when its first byte can start one; long
// runs are offered to the entropy detector; ':' and '=' bytes between runs
// are offered to the env_secret and url_password detectors. Typical text
// never gets past the table lookups.
func scan(text string) []Finding {
	s := scanner{text: text}
	n := len(text)
	for i := 0; i < n; {
		cl := class[text[i]]
		if cl&cTok == 0 {
			if cl&cSep != 0 {
				s.sep(i)
			}
			i++
			continue
		}
		i = s.run(i, runEnd(text, i+1, cTok))
	}
	s.cliPasswords()
	return s.fs
}

// run offers the token run [i,j) to the detectors: first its start, then
// the positions after '/' or '+' inside it, then (when nothing matched) the
// entropy detector. It returns where scanning should resume, past j when a
// secret runs on beyond the run. It is called for every token: the common
// case (a short word) costs one call.
func (s *scanner) run(i, j int) int {
	text := s.text
	st := i
	if st > 0 && text[st-1] == '\\' {
		// JSON-escaped text ("\nghp_..."): the escape letter is not
		// part of the token, and a span must never start inside an
		// escape or the redacted JSON would no longer parse.
		st = skipEscape(text, st)
	}
	next := j
	// "https://hooks.slack.com/..." or "x+sk-...": the run starts with
	// the slashes, the candidate after them.
	p := st
	for p < j && (text[p] == '/' || text[p] == '+') {
		p++
	}
	if j-p >= minTrigTok && class[text[p]]&cTrig != 0 {
		next = max(next, s.prefix(p))
	} else if j-p == 2 && text[p] == 'S' && text[p+1] == 'G' {
		next = s.sendGrid(p, j)
	}
	if next == j && j-st >= minSubTok {
		next = s.subStarts(st, j)
	}
	if next == j && j-st >= minEntropyTok {
		s.entropy(st, j)
	}
	return next
}

// sendGrid tries a SendGrid key at p, where the run [p,j) is a bare "SG":
// it ends at the key's dot, so the key is tried whole and neither half is
// left. It returns where scanning should resume.
func (s *scanner) sendGrid(p, j int) int {
	if end := sendGridEnd(s.text, p); end > 0 {
		s.add(KindSendGrid, p, end)
		return end
	}
	return j
}

// subStarts offers positions right after '/' or '+' inside the run [st,j)
// to the prefix detectors, so "/tokens/ghp_..." or "x+sk-ant-..." are still
// found. It returns where scanning should resume.
func (s *scanner) subStarts(st, j int) int {
	text := s.text
	tries := 0
	for k := st + 1; k < j-minTrigTok; k++ {
		c := text[k-1]
		if (c != '/' && c != '+') || class[text[k]]&cTrig == 0 {
			continue
		}
		if end := s.prefix(k); end > 0 {
			if end > j {
				return end
			}
			k = end - 1
		}
		if tries++; tries >= maxSubStarts {
			break
		}
	}
	return j
}

// skipEscape returns where a token starting at i really starts when the
// byte before it is a backslash: after the escape sequence if text[i:]
// continues a JSON escape (`\nghp_...`, `\u003cghp_...`), else i
// (`C:\ghp_...`). Parity of the backslash run is ignored on purpose: for
// doubly escaped text (`\\nAPI_TOKEN=`) the 'n' is still an escape letter
// one level down, and skipping it is always safe.
func skipEscape(text string, i int) int {
	switch text[i] {
	case 'b', 'f', 'n', 'r', 't', '/':
		return i + 1
	case 'u':
		if i+5 > len(text) {
			return i + 1
		}
		for k := i + 1; k < i+5; k++ {
			if class[text[k]]&cHex == 0 {
				return i + 1
			}
		}
		return i + 5
	}
	return i
}

// runEnd returns the end of the maximal run of bytes with class bit m
// starting at i.
func runEnd(text string, i int, m uint32) int {
	for i < len(text) && class[text[i]]&m != 0 {
		i++
	}
	return i
}
