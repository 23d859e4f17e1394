package mcpserver

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/transcripts"
)

// The text the server returns goes through termtext: escapes show as
// inert text, and a raw 0x9b byte, U+009B, U+2028 and bidi controls (which
// the server's own sanitiser let through, or silently dropped) cannot reach
// a client that prints it.
func TestEntryTextIsInert(t *testing.T) {
	hostile := "clear\x1b[2J csi\x9b31m c1\u009b31m sep\u2028 rlo\u202eevil osc\x1b]52;c;ZXZpbA==\x07"
	for name, got := range map[string]string{
		"system": entryText(&transcripts.Entry{Type: "system", Text: hostile}),
		"blocks": entryText(&transcripts.Entry{Type: "assistant", Blocks: []transcripts.Block{
			{Type: transcripts.BlockText, Text: hostile},
			{Type: transcripts.BlockToolResult, Text: hostile}}}),
		"clip": clip(hostile, 1000),
	} {
		if !utf8.ValidString(got) {
			t.Errorf("%s: invalid UTF-8 in %q", name, got)
		}
		for _, r := range got {
			if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028') {
				t.Errorf("%s: %U in %q", name, r, got)
				break
			}
		}
		for _, want := range []string{`\x1b[2J`, `\x9b31m`, `\u202eevil`} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: %q not shown in %q", name, want, got)
			}
		}
	}
}
