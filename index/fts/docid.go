package fts

import "github.com/cairn-dev/cairn/internal/uuidpack"

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
	if !uuidpack.Pack(b[1:], id[2:]) {
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
		return p + uuidpack.Format([]byte(key[1:]))
	}
	return key
}
