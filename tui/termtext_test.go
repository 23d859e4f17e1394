package tui

import "testing"

// The TUI's sanitisers are termtext's: a bidi override, which the TUI's
// own sanitiser let through, is shown as text, on a line and in a block.
func TestSanitizeIsTermtext(t *testing.T) {
	for _, c := range []struct{ in, block, line string }{
		{"ok \u202eevil\u202c end", `ok \u202eevil\u202c end`, `ok \u202eevil\u202c end`},
		{"\u2067isolate\u2069\n\u200fmark", "\\u2067isolate\\u2069\n\\u200fmark", `\u2067isolate\u2069 \u200fmark`},
		{"x\x9b2J\u009b2J\u2028", `x 2J\x9b2J `, `x 2J\x9b2J `},
	} {
		if got := sanitize(c.in); got != c.block {
			t.Errorf("sanitize(%q) = %q, want %q", c.in, got, c.block)
		}
		if got := sanitizeLine(c.in); got != c.line {
			t.Errorf("sanitizeLine(%q) = %q, want %q", c.in, got, c.line)
		}
	}
}
