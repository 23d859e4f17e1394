package index

import (
	"bytes"
	stdflate "compress/flate"
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
	ours := deflate([]byte(text))
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

// TestCompressFormats: short values are stored as S2, long ones as DEFLATE,
// both (and plain values, and DEFLATE values of earlier builds) read back
// through cairn_unz, and a damaged value is an error naming the way out,
// never wrong text.
func TestCompressFormats(t *testing.T) {
	s, _ := openStore(t)
	unz := func(v any) (string, error) {
		var out string
		err := s.r.QueryRowContext(t.Context(), `SELECT cairn_unz(?)`, v).Scan(&out)
		return out, err
	}
	short := strings.Repeat("go test ./index/ -run TestSync ", 20) // 620 bytes
	long := strings.Repeat("mix test test/app_web/live/user_live_test.exs --trace\n", 80)
	for _, c := range []struct {
		text, magic string
	}{{short, s2Magic}, {long, zMagic}} {
		packed, ok := packText(c.text).([]byte)
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
	if _, err := unz([]byte(s2Magic + "\xff\xff\xff\xff\x0f")); err == nil || !strings.Contains(err.Error(), "doctor --full") {
		t.Fatalf("S2 header claiming 4 GB: %v", err)
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
	if b := deflate(random); b != nil && len(b) > len(random)-len(random)/8 {
		t.Fatal("stored compressed without saving an eighth")
	}
}
