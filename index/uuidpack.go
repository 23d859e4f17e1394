package index

import (
	"database/sql/driver"
	"encoding/hex"

	"modernc.org/sqlite"
)

// An entry's parent uuid is stored as its 16 bytes when it is a uuid
// written the canonical way (lowercase hex, 8-4-4-4-12: every one Claude
// Code writes), else as the text it is; the entries view gives the text
// back through cairn_uuid, so readers see what was read. 36 bytes of text
// become 16 (on the 1 GB corpus, 7.7 -> 3.5 MB). Parents stored before,
// as text, read as they are. (An entry's own uuid stays text: it is looked
// up by value, and its unique index would need every lookup to pack it.)

func init() {
	sqlite.MustRegisterDeterministicScalarFunction("cairn_uuid", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		if b, ok := args[0].([]byte); ok && len(b) == 16 {
			return formatUUID(b), nil
		}
		return args[0], nil
	})
}

// packUUID is what to store for s: its 16 bytes when s is a canonical
// uuid (formatUUID gives s back), else s.
func packUUID(s string) any {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return s
	}
	var b [16]byte
	if _, err := hex.Decode(b[:], []byte(s[0:8]+s[9:13]+s[14:18]+s[19:23]+s[24:36])); err != nil || formatUUID(b[:]) != s {
		return s
	}
	return b[:]
}

// formatUUID writes 16 bytes as a canonical uuid.
func formatUUID(b []byte) string {
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:36], b[10:16])
	return string(out[:])
}
