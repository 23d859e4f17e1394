// Package uuidpack turns a canonical uuid (lowercase hex, dashes at 8, 13,
// 18 and 23) into its 16 bytes and back. The store (index) and the
// full-text index (index/fts) both keep uuids this way; only canonical
// text is packed, so every packed uuid gives back exactly the text it came
// from.
package uuidpack

// hexAt is where the two hex digits of each of a uuid's 16 bytes start in
// its canonical text; dashAt is where its dashes stand.
var (
	hexAt  = [16]uint8{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}
	dashAt = [4]uint8{8, 13, 18, 23}
)

// Pack writes the 16 bytes of canonical uuid s into dst (at least 16
// long); false when s is not one.
func Pack(dst []byte, s string) bool {
	if len(s) != 36 || !dashed(s) {
		return false
	}
	for j, i := range hexAt {
		hi, lo := hexVal(s[i]), hexVal(s[i+1])
		if hi|lo > 0xf {
			return false
		}
		dst[j] = hi<<4 | lo
	}
	return true
}

// dashed reports whether the 36 bytes of s have a dash at every dashAt.
func dashed(s string) bool {
	for _, i := range dashAt {
		if s[i] != '-' {
			return false
		}
	}
	return true
}

// hexVal is the value of lowercase hex digit c, or 0xff when c is not one.
func hexVal(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return 0xff
}

// Format writes 16 bytes as a canonical uuid.
func Format(b []byte) string {
	const hex = "0123456789abcdef"
	var out [36]byte
	for _, i := range dashAt {
		out[i] = '-'
	}
	for j, i := range hexAt {
		out[i] = hex[b[j]>>4]
		out[i+1] = hex[b[j]&15]
	}
	return string(out[:])
}
