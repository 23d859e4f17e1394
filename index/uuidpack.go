package index

import (
	"database/sql/driver"

	"github.com/cairn-dev/cairn/internal/uuidpack"
	"modernc.org/sqlite"
)

// An entry's uuid and its parent's are stored as their 16 bytes when they
// are uuids written the canonical way (lowercase hex, 8-4-4-4-12: every one
// Claude Code writes), else as the text they are; the entries view gives
// the text back through cairn_uuid, so readers see what was read. 36 bytes
// of text become 16: on the 1 GB corpus the parents 7.7 -> 3.5 MB (schema
// 15), the uuids and their unique index ~9 MB (schema 16).
//
// An entry is looked up by its uuid packed the same way: packUUID in Go,
// cairn_pack in SQL (uuid = cairn_pack(?) still uses the unique index),
// always against entries_raw (the view's uuid is an expression, which no
// index serves). Schema 16 packed the uuids and parents stored before, so
// every canonical uuid in a store is 16 bytes and INSERT OR IGNORE keeps
// finding the copy stored first.

func init() {
	sqlite.MustRegisterDeterministicScalarFunction("cairn_uuid", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		if b, ok := args[0].([]byte); ok && len(b) == 16 {
			return formatUUID(b), nil
		}
		return args[0], nil
	})
	sqlite.MustRegisterDeterministicScalarFunction("cairn_pack", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		if s, ok := args[0].(string); ok {
			return packUUID(s), nil
		}
		return args[0], nil
	})
}

// packUUIDs packs each uuid (strings) of a lookup's arguments.
func packUUIDs(uuids []any) []any {
	out := make([]any, len(uuids))
	for i, u := range uuids {
		if s, ok := u.(string); ok {
			out[i] = packUUID(s)
		} else {
			out[i] = u
		}
	}
	return out
}

// packUUID is what to store for s: its 16 bytes when s is a canonical
// uuid (formatUUID gives s back), else s.
func packUUID(s string) any {
	b := make([]byte, 16)
	if !uuidpack.Pack(b, s) {
		return s
	}
	return b
}

// formatUUID writes 16 bytes as a canonical uuid.
func formatUUID(b []byte) string { return uuidpack.Format(b) }
