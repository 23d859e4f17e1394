package index

import (
	"bytes"
	stdflate "compress/flate"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Values written by earlier builds (the standard library's DEFLATE) still
// inflate, and ours inflate with the standard library: one format.
func TestDeflateIsPlainDEFLATE(t *testing.T) {
	text := strings.Repeat("mix test test/app_web/live/user_live_test.exs --trace\n", 40)
	var std bytes.Buffer
	w, _ := stdflate.NewWriter(&std, stdflate.BestSpeed)
	w.Write([]byte(text))
	w.Close()
	got, err := inflate(std.Bytes())
	if err != nil || string(got) != text {
		t.Fatalf("inflating the standard library's output: %v", err)
	}
	ours := deflate([]byte(text), s2Text)
	if ours == nil || !bytes.HasPrefix(ours, []byte(zMagic)) {
		t.Fatal("did not compress")
	}
	ours = ours[len(zMagic):]
	back, err := inflate(ours)
	if err != nil || string(back) != text {
		t.Fatalf("round trip: %v", err)
	}
	r := stdflate.NewReader(bytes.NewReader(ours))
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(r); err != nil || buf.String() != text {
		t.Fatalf("the standard library reading ours: %v", err)
	}
}

// TestCompressFormats: short values are stored as S2 (an entry's text and
// render data against their dictionaries, other values without), long
// ones as DEFLATE; all of them (and plain values, and the S2 without a
// dictionary and DEFLATE values of earlier builds) read back through
// cairn_unz, and a damaged value is an error naming the way out, never
// wrong text.
func TestCompressFormats(t *testing.T) {
	s, _ := openStore(t)
	unz := func(v any) (string, error) {
		var out string
		err := s.r.QueryRowContext(t.Context(), `SELECT cairn_unz(?)`, v).Scan(&out)
		return out, err
	}
	short := strings.Repeat("go test ./index/ -run TestSync ", 20) // 620 bytes
	long := strings.Repeat("mix test test/app_web/live/user_live_test.exs --trace\n", 80)
	json := strings.Repeat(`{"b":[{"t":"tool_use","id":"toolu_01","n":"Bash","in":{"command":"ls"}}]}`, 8)
	for _, c := range []struct {
		text, magic string
		pack        func(string) any
	}{
		{short, s2TextMagic, packText},
		{json, s2DataMagic, func(s string) any { return packData([]byte(s)) }},
		{short, s2Magic, func(s string) any { return packBlob([]byte(s)) }}, // as earlier builds stored short text
		{long, zMagic, packText},
	} {
		packed, ok := c.pack(c.text).([]byte)
		if !ok || !bytes.HasPrefix(packed, []byte(c.magic)) {
			t.Fatalf("%d bytes: stored as %q, want magic %q", len(c.text), packed[:min(len(packed), 5)], c.magic)
		}
		if len(packed) > len(c.text)/2 {
			t.Fatalf("%d bytes compressed to %d", len(c.text), len(packed))
		}
		if got, err := unz(packed); err != nil || got != c.text {
			t.Fatalf("%s round trip: %v", c.magic, err)
		}
		// A value cut short, as a torn page might leave it.
		if _, err := unz(packed[:len(packed)-len(packed)/3]); err == nil || !strings.Contains(err.Error(), "doctor --full") {
			t.Fatalf("%s damaged value: %v", c.magic, err)
		}
	}
	// A damaged S2 header claiming a huge value is refused, not allocated.
	for _, m := range []string{s2Magic, s2TextMagic, s2DataMagic} {
		if _, err := unz([]byte(m + "\xff\xff\xff\xff\x0f")); err == nil || !strings.Contains(err.Error(), "doctor --full") {
			t.Fatalf("%q header claiming 4 GB: %v", m, err)
		}
	}
	if got, err := unz("plain text"); err != nil || got != "plain text" {
		t.Fatalf("plain value: %q, %v", got, err)
	}
	if s, ok := packText("tiny").(string); !ok || s != "tiny" {
		t.Fatal("a short value was not stored as it is")
	}
	// Incompressible: stored as it is.
	random := make([]byte, 1000)
	for i := range random {
		random[i] = byte(i*7919 ^ i>>3*31)
	}
	if b := deflate(random, s2Text); b != nil && len(b) > len(random)-len(random)/8 {
		t.Fatal("stored compressed without saving an eighth")
	}
}

// TestCompressDictsUnchanged: every value stored with a dictionary needs
// it byte for byte; a dictionary is never edited (a better one gets a file
// and a magic of its own, compress.go).
func TestCompressDictsUnchanged(t *testing.T) {
	for _, c := range []struct {
		name string
		b    []byte
		sum  string
	}{
		{"compress_text1.dict", textDictBytes, "b3577418e203fd5f89c63ec7244fa4f368f892c9e3807847c53df2e06163f521"},
		{"compress_data1.dict", dataDictBytes, "25b400aa40524ef58bee6f438539500cad1af89a52cb8bbe60dd6ffaa9885b07"},
	} {
		if sum := sha256.Sum256(c.b); hex.EncodeToString(sum[:]) != c.sum {
			t.Errorf("%s changed (sha256 %x): values stored with it would no longer read back", c.name, sum)
		}
	}
	if textDict == nil || dataDict == nil {
		t.Fatal("a dictionary does not load")
	}
}

// TestOlderFormatsStoreReadsTheSame: a store as schema 12 wrote it (short
// text and render data S2-compressed without a dictionary, uuids and
// parent uuids as text) opens, migrates to this schema (which packs the
// uuids again) and gives back every entry exactly as before.
func TestOlderFormatsStoreReadsTheSame(t *testing.T) {
	s, dir := openStore(t)
	mustSync(t, s, copyTree(t, sampleDir), SyncOptions{})
	withDict := func(s *Store) int {
		return count(t, s, `SELECT count(*) FROM entries_raw WHERE substr(text, 1, 4) IN (CAST(? AS BLOB), CAST(? AS BLOB)) OR substr(data, 1, 4) IN (CAST(? AS BLOB), CAST(? AS BLOB))`,
			s2TextMagic, s2DataMagic, s2TextMagic, s2DataMagic)
	}
	before := entryValues(t, s)
	if withDict(s) == 0 {
		t.Fatal("no value stored with a dictionary")
	}
	packed := func(s *Store) (uuids, parents int) {
		return count(t, s, `SELECT count(*) FROM entries_raw WHERE typeof(uuid) = 'blob'`),
			count(t, s, `SELECT count(*) FROM entries_raw WHERE typeof(parent) = 'blob'`)
	}
	words := func(s *Store) int {
		return count(t, s, `SELECT count(*) FROM entries_raw WHERE length(type) > 1 OR length(role) > 1 OR length(block) > 1`)
	}
	if n := words(s); n != 0 {
		t.Fatalf("%d rows with a type, role or block stored as its word", n)
	}
	uuids, parents := packed(s)
	if uuids == 0 || parents == 0 {
		t.Fatalf("%d uuids and %d parents stored as 16 bytes", uuids, parents)
	}
	storeAsSchema12(t, s)
	if n := withDict(s); n != 0 {
		t.Fatalf("%d values still stored with a dictionary", n)
	}
	if u, p := packed(s); u != 0 || p != 0 {
		t.Fatalf("%d uuids and %d parents still stored as bytes", u, p)
	}
	if words(s) == 0 {
		t.Fatal("no kind stored as its word")
	}
	s = reopenAfter(t, s, dir, `PRAGMA user_version = 12`)
	if v, err := userVersion(t.Context(), s.r); err != nil || v != SchemaVersion {
		t.Fatalf("schema %d after opening, want %d (%v)", v, SchemaVersion, err)
	}
	if after := entryValues(t, s); !slices.Equal(after, before) {
		t.Fatalf("%d entries read back, %d before, or some differ", len(after), len(before))
	}
	// Schema 16 packed them again, so a line read again meets its copy.
	if u, p := packed(s); u != uuids || p != parents {
		t.Fatalf("%d uuids and %d parents stored as 16 bytes after migrating, %d and %d before", u, p, uuids, parents)
	}
	if n := count(t, s, `SELECT count(*) FROM entries_raw`); n != len(before) {
		t.Fatalf("%d rows", n)
	}
	if n := words(s); n != 0 {
		t.Fatalf("%d rows with a kind stored as its word after migrating", n)
	}
}

// TestPackKind: the words have one-byte codes the view reads back, others
// are stored and read as they are, and migration 17 and the view agree
// with packKind.
func TestPackKind(t *testing.T) {
	s, _ := openStore(t)
	read := func(v string) (view, packed string) {
		if err := s.r.QueryRowContext(t.Context(), `SELECT `+kindCase("?1", len(kindWords))+`, `+kindPackCase("?2", len(kindWords)), v, packKind(v)).Scan(&view, &packed); err != nil {
			t.Fatal(err)
		}
		return view, packed
	}
	for _, w := range []string{"user", "assistant", "tool", "system", "queue-operation", "text", "thinking", "tool_use", "tool_result", "image"} {
		if c := packKind(w); len(c) != 1 || c[0] >= ' ' {
			t.Fatalf("%q packed as %q", w, c)
		}
		if view, packed := read(w); view != w || packed != packKind(w) {
			t.Fatalf("%q read back as %q, packed by SQL as %q", w, view, packed)
		}
	}
	for _, w := range []string{"", "progress", "attachment", "x"} {
		if packKind(w) != w {
			t.Fatalf("%q packed as %q", w, packKind(w))
		}
		if view, _ := read(w); view != w {
			t.Fatalf("%q read back as %q", w, view)
		}
	}
	if !strings.Contains(migrations[16], kindCase("block", len(kindWords))) {
		t.Fatal("the view of schema 17 does not read every code back: a new word needs a migration recreating the view")
	}
}

// entryValues is every entry as the entries view reads it, in row order.
func entryValues(t *testing.T, s *Store) []string {
	t.Helper()
	var out []string
	rows, err := s.r.QueryContext(t.Context(), `SELECT uuid, parent, type, role, block, ts, flags, text, coalesce(data, '<null>') FROM entries ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var ts, flags int64
		var uuid, parent, typ, role, block, text, data string
		if err := rows.Scan(&uuid, &parent, &typ, &role, &block, &ts, &flags, &text, &data); err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Join([]string{uuid, parent, typ, role, block, fmt.Sprint(ts, flags), text, data}, "\x00"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// storeAsSchema12 stores every entry's text, data, uuid and parent as
// schema 12 did: short values S2-compressed without a dictionary, uuids
// and parents as text.
func storeAsSchema12(t *testing.T, s *Store) {
	t.Helper()
	for _, q := range []string{undoSchema16, undoSchema17} {
		if _, err := s.w.ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	type row struct {
		id         int64
		text, data sql.NullString
	}
	var old []row
	rows, err := s.r.QueryContext(t.Context(), `SELECT id, cairn_unz(text), cairn_unz(data) FROM entries_raw`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.text, &r.data); err != nil {
			t.Fatal(err)
		}
		old = append(old, r)
	}
	rows.Close()
	for _, r := range old {
		var data any
		if r.data.Valid {
			data = packString(r.data.String, s2Plain)
		}
		if _, err := s.w.ExecContext(t.Context(), `UPDATE entries_raw SET text = ?, data = ? WHERE id = ?`, packString(r.text.String, s2Plain), data, r.id); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPackUUID: a canonical uuid is stored in 16 bytes and read back as
// it was; anything else (upper case, braces, another length, a synthetic
// id, ”) is stored as it is.
func TestPackUUID(t *testing.T) {
	s, _ := openStore(t)
	read := func(v any) any {
		var out any
		if err := s.r.QueryRowContext(t.Context(), `SELECT cairn_uuid(?)`, v).Scan(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	u := "0f8fad5b-d9cb-469f-a165-70867728950e"
	b, ok := packUUID(u).([]byte)
	if !ok || len(b) != 16 {
		t.Fatalf("%s packed as %v", u, packUUID(u))
	}
	if got := read(b); got != u {
		t.Fatalf("read back as %v", got)
	}
	var packedSQL any
	if err := s.r.QueryRowContext(t.Context(), `SELECT cairn_pack(?)`, u).Scan(&packedSQL); err != nil || !bytes.Equal(packedSQL.([]byte), b) {
		t.Fatalf("cairn_pack gave %v (%v)", packedSQL, err)
	}
	for _, v := range []string{"", "0F8FAD5B-D9CB-469F-A165-70867728950E", "{0f8fad5b-d9cb-469f-a165-70867728950e}",
		"0f8fad5b-d9cb-469f-a165-70867728950", "0f8fad5bxd9cb-469f-a165-70867728950e", "0f8fad5b-d9cb-469f-a165-70867728950g",
		"nouuid-00112233445566778899aabbccddeeff", "0123456789abcdef"} {
		if p, ok := packUUID(v).(string); !ok || p != v {
			t.Fatalf("%q packed as %v", v, packUUID(v))
		}
		if got := read(v); got != v {
			t.Fatalf("%q read back as %v", v, got)
		}
	}
}
