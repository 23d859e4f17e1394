package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// briefInHistory finds the latest brief after the last compaction, also
// when it sits across the boundary of the chunks it reads backwards.
func TestBriefInHistory(t *testing.T) {
	const sid = "0f9a3c1e-2b4d-4e6f-8a0b-1c2d3e4f5a6b"
	brief := `{"type":"attachment","attachment":{"type":"hook_additional_context","content":["cairn: session id ` + sid + ` · project /p"]}}` + "\n"
	boundary := `{"type":"system","subtype":"compact_boundary","content":"Conversation compacted"}` + "\n"
	filler := func(n int) string {
		return strings.Repeat(`{"type":"user","message":{"content":"some work"}}`+"\n", n/50+1)
	}
	// pad is a line of exactly n bytes.
	pad := func(n int) string { return `{"p":"` + strings.Repeat("a", n-9) + `"}` + "\n" }
	for _, tc := range []struct {
		name    string
		content string
		found   bool
	}{
		{"none", filler(1000), false},
		{"brief", brief + filler(1000), true},
		{"brief far back", brief + filler(3*historyChunk), true},
		{"brief then compaction", brief + filler(100) + boundary + filler(100), false},
		{"compaction then brief", filler(100) + boundary + brief + filler(historyChunk), true},
		{"brief across a chunk boundary", filler(100) + brief + pad(historyChunk-len(brief)/2), true},
	} {
		p := filepath.Join(t.TempDir(), "t.jsonl")
		if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		found, got, err := briefInHistory(p)
		if err != nil || found != tc.found || (found && got != sid) {
			t.Errorf("%s: found %v, session %q, %v; want %v", tc.name, found, got, err, tc.found)
		}
	}
	if found, _, err := briefInHistory(filepath.Join(t.TempDir(), "missing.jsonl")); found || err != nil {
		t.Errorf("a missing transcript: %v, %v", found, err)
	}
}
