package fts

// Document ids inside bleve. Every document's id is stored in each
// segment twice: in its stored fields and as a term of the _id
// dictionary. An entry's id is "m:" and a random uuid in 36 characters,
// which share nothing with their neighbours in the dictionary; a
// session's is "s:" and its uuid. An index of schemaVersion keeps such an
// id as a byte and the uuid's 16 bytes (docKey), and gives it back as the
// text it was (docID), so callers never see the difference. An index of
// schemaIDs1 (written before) keeps ids as they are, and stays readable
// and writable as it is: a rebuild shrinks it.

const (
	keyEscape = 0x00 // an id that starts with a byte under keyFirst, kept after it
	keyEntry  = 0x01 // "m:" + uuid
	keySess   = 0x02 // "s:" + uuid
	keyFirst  = 0x03 // ids starting at or above it are kept as they are
)

// docKey is id as the index holds it.
func (ix *Index) docKey(id string) string {
	if !ix.packIDs {
		return id
	}
	return packID(id)
}

// docID is the id of the document the index holds as key.
func (ix *Index) docID(key string) string {
	if !ix.packIDs {
		return key
	}
	return unpackID(key)
}

func packID(id string) string {
	var tag byte
	switch {
	case len(id) == 2+36 && id[:2] == "m:":
		tag = keyEntry
	case len(id) == 2+36 && id[:2] == "s:":
		tag = keySess
	case id != "" && id[0] < keyFirst:
		return "\x00" + id
	default:
		return id
	}
	var b [17]byte
	b[0] = tag
	if !packUUID(b[1:], id[2:]) {
		if id[0] < keyFirst {
			return "\x00" + id
		}
		return id
	}
	return string(b[:])
}

func unpackID(key string) string {
	if key == "" {
		return key
	}
	switch key[0] {
	case keyEscape:
		return key[1:]
	case keyEntry, keySess:
		if len(key) != 17 {
			return key
		}
		p := "m:"
		if key[0] == keySess {
			p = "s:"
		}
		return p + unpackUUID([]byte(key[1:]))
	}
	return key
}

// packUUID writes the 16 bytes of a canonical uuid (lowercase hex, dashes
// at 8, 13, 18, 23) into dst; false when s is not one, so that every
// packed id gives back exactly the text it came from.
func packUUID(dst []byte, s string) bool {
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

func unpackUUID(b []byte) string {
	const hex = "0123456789abcdef"
	var out [36]byte
	j := 0
	for i, c := range b {
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
