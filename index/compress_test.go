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
