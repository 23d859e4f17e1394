package termtext

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// inert reports what in out could still drive a terminal: invalid UTF-8 (a
// stray 0x9b byte), a control character other than an allowed newline, a
// line or paragraph separator or a bidi control. The definitions come from
// the unicode package, not from the code under test.
func inert(out string, newlines bool) error {
	if !utf8.ValidString(out) {
		return fmt.Errorf("invalid UTF-8 in %q", out)
	}
	for i, r := range out {
		switch {
		case r == '\n' && newlines:
		case unicode.IsControl(r), unicode.Is(unicode.Bidi_Control, r), r == '\u2028', r == '\u2029':
			return fmt.Errorf("raw %U at byte %d of %q", r, i, out)
		case unicode.Is(unicode.Cf, r) && r != '\u200c' && r != '\u200d', r >= 0xe0000 && r <= 0xe007f:
			return fmt.Errorf("raw invisible %U at byte %d of %q", r, i, out)
		}
	}
	return nil
}

// hostile inputs, with what Safe and Line make of them.
var hostile = []struct {
	name, in, safe, line string
}{
	{"plain", "plain ünïcødé ✓ 日本", "plain ünïcødé ✓ 日本", "plain ünïcødé ✓ 日本"},
	{"clear screen", "a\x1b[2Jb", `a\x1b[2Jb`, `a\x1b[2Jb`},
	{"OSC 52 clipboard", "\x1b]52;c;ZXZpbA==\x07", `\x1b]52;c;ZXZpbA==\x07`, `\x1b]52;c;ZXZpbA==\x07`},
	{"OSC 8 link", "\x1b]8;;https://evil.example\x1b\\x\x1b]8;;\x1b\\", `\x1b]8;;https://evil.example\x1b\x\x1b]8;;\x1b\`, `\x1b]8;;https://evil.example\x1b\x\x1b]8;;\x1b\`},
	{"8-bit CSI byte", "x\x9b2Jy", "x 2Jy", "x 2Jy"},
	{"8-bit CSI rune", "x\u009b2Jy", `x\x9b2Jy`, `x\x9b2Jy`},
	{"C1 OSC rune", "\u009d52;c;x\u009c", `\x9d52;c;x\x9c`, `\x9d52;c;x\x9c`},
	{"NEL", "a\u0085b", `a\x85b`, `a\x85b`},
	{"line separator", "line\u2028sep\u2029par", "line sep par", "line sep par"},
	{"RLO", "a\u202eb\u202cc", `a\u202eb\u202cc`, `a\u202eb\u202cc`},
	{"isolates and marks", "\u2066x\u2069\u200f\u061c", `\u2066x\u2069\u200f\u061c`, `\u2066x\u2069\u200f\u061c`},
	{"BEL", "ding\x07", `ding\x07`, `ding\x07`},
	{"DEL", "x\x7fy", `x\x7fy`, `x\x7fy`},
	{"NUL", "x\x00y", `x\x00y`, `x\x00y`},
	{"backspace", "abc\x08\x08\x08xyz", `abc\x08\x08\x08xyz`, `abc\x08\x08\x08xyz`},
	{"invalid UTF-8", "bad \xff\xfe byte \xc2", "bad    byte  ", "bad    byte  "},
	{"truncated C1", "\xc2\x9b", `\x9b`, `\x9b`},
	{"replacement char", "a\uFFFDb", "a b", "a b"},
	{"newlines and tabs", "a\tb\r\nc\n", "a    b\nc\n", "a b c "},
	{"carriage return overwrite", "safe\rEVIL", "safeEVIL", "safeEVIL"},
	// Invisible to people, read by models.
	{"zero width space", "rm\u200b -rf", "rm<U+200B> -rf", "rm<U+200B> -rf"},
	{"zero width joiner run", "a\u200d\u200c\u200db", "a<U+200D><U+200C><U+200D>b", "a<U+200D><U+200C><U+200D>b"},
	{"word joiner, BOM, soft hyphen", "\u2060x\ufeffy\u00adz", "<U+2060>x<U+FEFF>y<U+00AD>z", "<U+2060>x<U+FEFF>y<U+00AD>z"},
	{"tag characters", "ok\U000E0041\U000E0042\U000E007F", "ok<U+E0041><U+E0042><U+E007F>", "ok<U+E0041><U+E0042><U+E007F>"},
	{"variation selector run", "x\ufe0f\ufe01\U000E0100", "x\ufe0f<U+FE01><U+E0100>", "x\ufe0f<U+FE01><U+E0100>"},
	{"variation selector first", "\ufe0fx", "<U+FE0F>x", "<U+FE0F>x"},
	{"hangul filler", "a\u3164b", "a<U+3164>b", "a<U+3164>b"},
	// Kept: emoji and scripts that need a joiner or one selector.
	{"emoji zwj", "👩\u200d💻 ❤\ufe0f\u200d🔥 #\ufe0f\u20e3", "👩\u200d💻 ❤\ufe0f\u200d🔥 #\ufe0f\u20e3", "👩\u200d💻 ❤\ufe0f\u200d🔥 #\ufe0f\u20e3"},
	{"persian zwnj", "می\u200cخواهم", "می\u200cخواهم", "می\u200cخواهم"},
}

func TestHostile(t *testing.T) {
	for _, c := range hostile {
		t.Run(c.name, func(t *testing.T) {
			if got := Safe(c.in); got != c.safe {
				t.Errorf("Safe(%q) = %q, want %q", c.in, got, c.safe)
			}
			if got := Line(c.in); got != c.line {
				t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
			}
			for _, color := range []bool{false, true} {
				if got := Highlight(c.in, color); got != c.line {
					t.Errorf("Highlight(%q, %v) = %q, want %q", c.in, color, got, c.line)
				}
			}
			if err := inert(Safe(c.in), true); err != nil {
				t.Error("Safe:", err)
			}
			if err := inert(Line(c.in), false); err != nil {
				t.Error("Line:", err)
			}
		})
	}
}

func TestHighlight(t *testing.T) {
	for _, c := range []struct{ in, color, plain string }{
		{"a " + MarkOn + "hit" + MarkOff + " b", "a \x1b[1;33mhit\x1b[0m b", "a hit b"},
		// Escapes inside a highlight stay inert; only the program's SGR survives.
		{MarkOn + "\x1b[2J\u009b" + MarkOff, "\x1b[1;33m\\x1b[2J\\x9b\x1b[0m", `\x1b[2J\x9b`},
		// An unclosed span is closed, a stray end and a repeated start dropped.
		{MarkOn + "x" + MarkOn + "y", "\x1b[1;33mxy\x1b[0m", "xy"},
		{"x" + MarkOff + "y", "xy", "xy"},
		{"multi\nline" + MarkOn + "\t" + MarkOff, "multi line\x1b[1;33m \x1b[0m", "multi line "},
	} {
		if got := Highlight(c.in, true); got != c.color {
			t.Errorf("Highlight(%q, true) = %q, want %q", c.in, got, c.color)
		}
		if got := Highlight(c.in, false); got != c.plain {
			t.Errorf("Highlight(%q, false) = %q, want %q", c.in, got, c.plain)
		}
	}
}

func TestCleanTextIsNotCopied(t *testing.T) {
	s := strings.Repeat("keep ünïcødé ✓ 日本 👩\u200d💻 ❤\ufe0f\n", 10)
	if n := testing.AllocsPerRun(10, func() { _ = Safe(s) }); n != 0 {
		t.Errorf("Safe allocates %v times on clean text", n)
	}
}

// checkHighlight asserts that Highlight's output, once the two sequences it
// may add are taken out, is inert one-line text.
func checkHighlight(t *testing.T, in string) {
	for _, color := range []bool{false, true} {
		out := Highlight(in, color)
		rest := strings.NewReplacer(sgrMark, "", sgrReset, "").Replace(out)
		if err := inert(rest, false); err != nil {
			t.Fatalf("Highlight(%q, %v): %v", in, color, err)
		}
		if !color && out != rest {
			t.Fatalf("Highlight(%q, false) = %q carries SGR", in, out)
		}
	}
}

func FuzzSafe(f *testing.F) {
	for _, c := range hostile {
		f.Add(c.in)
	}
	f.Add(MarkOn + "\x1b[31m" + MarkOff + MarkOff + MarkOn)
	f.Fuzz(func(t *testing.T, in string) {
		safe := Safe(in)
		if err := inert(safe, true); err != nil {
			t.Fatalf("Safe(%q): %v", in, err)
		}
		if again := Safe(safe); again != safe {
			t.Fatalf("Safe is not idempotent on %q: %q then %q", in, safe, again)
		}
		line := Line(in)
		if err := inert(line, false); err != nil {
			t.Fatalf("Line(%q): %v", in, err)
		}
		if want := strings.ReplaceAll(safe, "\n", " "); !strings.ContainsAny(in, "\t") && line != want {
			t.Fatalf("Line(%q) = %q, want Safe with spaces for newlines: %q", in, line, want)
		}
		checkHighlight(t, in)
	})
}
