package redact

import "testing"

// TestClassTable checks the plain character classes built from
// classMembers against a byte-by-byte derivation (the way init computed
// them before the table), so a typo in a member list shows up.
func TestClassTable(t *testing.T) {
	const plain = ^(cTrig | cKeyEnd)
	for c := 0; c < 256; c++ {
		if got, want := class[c]&plain, classOf(byte(c)); got != want {
			t.Errorf("class[%q] = %#x, want %#x", byte(c), got, want)
		}
	}
	for _, r := range prefixRules {
		if class[r.prefix[0]]&cTrig == 0 {
			t.Errorf("prefix %q: first byte has no cTrig", r.prefix)
		}
	}
	for _, b := range []byte{'e', '-'} {
		if class[b]&cTrig == 0 {
			t.Errorf("%q has no cTrig", b)
		}
	}
}

func classOf(b byte) uint32 {
	var m uint32
	upper := b >= 'A' && b <= 'Z'
	lower := b >= 'a' && b <= 'z'
	digit := b >= '0' && b <= '9'
	alnum := upper || lower || digit
	if upper {
		m |= cUpper
	}
	if lower {
		m |= cLower
	}
	if digit {
		m |= cDigit
	}
	if digit || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F') {
		m |= cHex
	}
	if alnum {
		m |= cTok | cAlnum | cWord | cAlnumU | cAlnumD | cB64 | cWordDot | cPath | cName
	}
	if upper || digit {
		m |= cUpDigit
	}
	switch b {
	case '_':
		m |= cTok | cWord | cAlnumU | cWordDot | cPath | cName
	case '-':
		m |= cTok | cWord | cAlnumD | cWordDot | cPath | cName
	case '+':
		m |= cTok | cB64
	case '/':
		m |= cTok | cB64 | cPath
	case '=':
		m |= cB64 | cSep
	case '.':
		m |= cWordDot | cName
	case ':':
		m |= cSep
	}
	return m
}
