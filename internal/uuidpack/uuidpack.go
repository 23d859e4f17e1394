// Package uuidpack turns a canonical uuid (lowercase hex, dashes at 8, 13,
// 18 and 23) into its 16 bytes and back. The store (index) and the
// full-text index (index/fts) both keep uuids this way; only canonical
// text is packed, so every packed uuid gives back exactly the text it came
// from.
package uuidpack

// Pack writes the 16 bytes of canonical uuid s into dst (at least 16
// long); false when s is not one.
func Pack(dst []byte, s string) bool {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return false
	}
	j := 0
	for i := 0; i < 36; {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			i++
			continue
		}
		hi, ok1 := hexVal(s[i])
		lo, ok2 := hexVal(s[i+1])
		if !ok1 || !ok2 {
			return false
		}
		dst[j] = hi<<4 | lo
		j++
		i += 2
	}
	return true
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// Format writes 16 bytes as a canonical uuid.
func Format(b []byte) string {
	const hex = "0123456789abcdef"
	var out [36]byte
	j := 0
	for i, c := range b[:16] {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out[j] = '-'
			j++
		}
		out[j] = hex[c>>4]
		out[j+1] = hex[c&15]
		j += 2
	}
	return string(out[:])
}
