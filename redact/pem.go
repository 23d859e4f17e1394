package redact

import (
	"slices"
	"strings"
)

const (
	pemBegin    = "-----BEGIN "
	pemEnd      = "-----END "
	pemDash     = "-----"
	maxPEMLabel = 64
)

// pem redacts a whole PEM private key block starting at i: header, body and
// footer. Any "-----BEGIN <label>-----" whose label contains "PRIVATE KEY"
// qualifies (RSA, EC, OPENSSH, ENCRYPTED, PGP ... BLOCK). Other PEM blocks
// (certificates, public keys) are not secrets: they are consumed without a
// finding. Returns the end of the block, or 0 if there is none at i.
func (s *scanner) pem(i int) int {
	text := s.text
	if !strings.HasPrefix(text[i:], pemBegin) {
		return 0
	}
	h := i + len(pemBegin)
	d := pemLabelEnd(text, h)
	if d < 0 {
		return 0
	}
	end := pemBlockEnd(text, d+len(pemDash))
	if strings.Contains(text[h:d], "PRIVATE KEY") {
		s.add(KindPrivateKey, i, end)
	}
	// Certificates and public keys are skipped whole, unredacted: their
	// base64 bodies would otherwise trip the entropy detector.
	return end
}

// pemLabelEnd returns the index of the "-----" closing a PEM label that
// starts at i, or -1. Labels are upper-case words ("RSA PRIVATE KEY",
// "PGP PRIVATE KEY BLOCK"); anything else is not a PEM boundary.
func pemLabelEnd(text string, i int) int {
	lim := min(len(text), i+maxPEMLabel)
	for k := i; k < lim; k++ {
		c := text[k]
		if class[c]&cUpDigit != 0 || c == ' ' {
			continue
		}
		if c == '-' && k > i && strings.HasPrefix(text[k:], pemDash) {
			return k
		}
		return -1
	}
	return -1
}

// pemBlockEnd returns the end of the PEM block whose body starts at i: the
// end of its "-----END ...-----" footer. The body is taken line by line
// (lines end at a newline or at a literal "\n" escape, as in JSON) and
// may only hold base64, blank lines and "Name: value" headers such as
// "Proc-Type: 4,ENCRYPTED" or PGP's "Version: GnuPG v1". A block cut off
// before its footer (a transcript truncated mid-key) ends at the first
// other line, after taking that line's base64 prefix ("...AB12\"}" in
// JSON), so it never swallows text up to some later key's footer.
func pemBlockEnd(text string, i int) int {
	for i < len(text) {
		kind, e := pemLine(text, i)
		switch kind {
		case pemFooter:
			return e
		case pemOther:
			return pemBodyEnd(text, i)
		}
		i = e // past the line and its separator
	}
	return i
}

const (
	pemOther = iota
	pemFooter
	pemContent
)

// pemLine classifies the line starting at i and returns where the next
// line starts (or, for a footer, where the footer ends). The footer may
// follow base64 on the same line: keys pasted with newlines collapsed to
// spaces are one line.
func pemLine(text string, i int) (kind, next int) {
	k := i
	for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
		k++
	}
	header := isPEMHeader(text, k)
	for e := k; e < len(text); e++ {
		c := text[e]
		if lb := lineBreakLen(text, e); lb > 0 {
			return pemContent, e + lb
		}
		switch {
		case c == '-' && strings.HasPrefix(text[e:], pemEnd):
			if d := pemLabelEnd(text, e+len(pemEnd)); d >= 0 {
				return pemFooter, d + len(pemDash)
			}
			return pemOther, i
		case !pemLineByte(c, header):
			return pemOther, i
		}
	}
	return pemContent, len(text)
}

// pemLineByte reports whether c may appear in a body line (base64 and
// blanks) or, when header is set, in a header line (anything but '"' and
// '\\').
func pemLineByte(c byte, header bool) bool {
	return class[c]&cB64 != 0 || c == ' ' || c == '\t' || (header && c != '"' && c != '\\')
}

// lineBreakLen returns the length of the line break at e: 1 for a raw
// '\n' or '\r', 2 for a JSON-escaped one, 0 when there is none.
func lineBreakLen(text string, e int) int {
	switch text[e] {
	case '\n', '\r':
		return 1
	case '\\':
		if e+1 < len(text) && (text[e+1] == 'n' || text[e+1] == 'r') {
			return 2
		}
	}
	return 0
}

// isPEMHeader reports whether the line content starting at k is a header
// ("Proc-Type: 4,ENCRYPTED"), whose value may hold any byte.
func isPEMHeader(text string, k int) bool {
	c := strings.IndexByte(text[k:min(len(text), k+20)], ':')
	return c > 0 && slices.Contains(pemHeaders, text[k:k+c])
}

// pemHeaders are the header names RFC 1421 and OpenPGP armor put inside a
// block.
var pemHeaders = []string{"Proc-Type", "DEK-Info", "Version", "Comment", "Hash", "Charset", "MessageID"}

// pemBodyEnd returns the end of the run of base64 starting at i. A literal
// backslash is only taken together with the byte it escapes, so the span
// never ends inside a JSON escape such as \" (the redacted JSON must still
// parse).
func pemBodyEnd(text string, i int) int {
	for i < len(text) {
		c := text[i]
		switch {
		case c == '\\':
			if i+1 < len(text) && text[i+1] != '\\' && class[text[i+1]]&cB64 != 0 {
				i += 2
				continue
			}
			return i
		case class[c]&cB64 == 0:
			return i
		}
		i++
	}
	return i
}
