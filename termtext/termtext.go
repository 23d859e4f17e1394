// Package termtext makes untrusted text safe to show on a terminal. It is
// the one place every front end (the CLI, the TUI, the MCP server's text
// and the CLAUDE.md writer) neutralises transcript text.
//
// Transcript text is untrusted: a reply, a tool's output or a file Claude
// read can hold terminal control sequences (clear screen, OSC 52 clipboard
// writes, OSC 8 links, cursor movement), 8-bit C1 controls (0x9b is a CSI
// to some terminals, whether it arrives as the rune U+009B or as a stray
// byte in invalid UTF-8), line separators that some terminals treat as
// newlines, and bidirectional overrides that make text read differently
// from what it is ("Trojan Source"). It can also hold characters no one
// sees but a model reads: zero-width characters, Unicode tag characters
// (U+E0020–U+E007F spell ASCII invisibly) and runs of variation selectors.
// After Safe or Line none of these is left: controls and bidi formatting
// characters are shown as inert, visible escapes (\x1b[2J, \u202e),
// invisible characters as <U+200B>, and the rest becomes spaces.
package termtext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Safe neutralises multi-line text: newlines are kept, tabs become four
// spaces, carriage returns are dropped, every other C0 or C1 control
// character and DEL is shown as a visible \xNN escape, bidi controls
// (embeddings, overrides, isolates and marks: U+202A–U+202E, U+2066–U+2069,
// U+061C, U+200E, U+200F) as a visible \uNNNN escape, invisible characters
// (zero width, tags, format characters; see state.kind) as <U+NNNN>, and
// invalid UTF-8 bytes, U+FFFD and the line and paragraph separators U+2028
// and U+2029 become spaces. The result is valid UTF-8, and
// Safe(Safe(s)) == Safe(s).
func Safe(s string) string { return clean(s, false) }

// Line is Safe for text shown on one line: newlines and tabs become single
// spaces as well.
func Line(s string) string { return clean(s, true) }

// Highlight markers: a caller that wants part of untrusted text highlighted
// wraps it in MarkOn and MarkOff (private-use characters) and passes the
// result through Highlight, which sanitises it first and only then turns the
// markers into colour, so the text itself can never smuggle a sequence in.
const MarkOn, MarkOff = "\uE000", "\uE001"

// The only sequences Highlight adds: bold yellow, and a reset.
const (
	sgrMark  = "\x1b[1;33m"
	sgrReset = "\x1b[0m"
)

// Highlight is Line for text carrying MarkOn/MarkOff highlight markers.
// With color set, each marked span becomes bold yellow (an unclosed span is
// closed at the end, a stray MarkOff dropped); without it the markers are
// removed. No other escape sequence can appear in the result.
func Highlight(s string, color bool) string {
	s = Line(s)
	if !strings.Contains(s, MarkOn) && !strings.Contains(s, MarkOff) {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s) + 16)
	open := false
	for len(s) > 0 {
		i := strings.IndexAny(s, MarkOn+MarkOff)
		if i < 0 {
			sb.WriteString(s)
			break
		}
		sb.WriteString(s[:i])
		on := strings.HasPrefix(s[i:], MarkOn)
		if color && on != open {
			if on {
				sb.WriteString(sgrMark)
			} else {
				sb.WriteString(sgrReset)
			}
		}
		open = on
		s = s[i+len(MarkOn):] // both markers are three bytes long
	}
	if open && color {
		sb.WriteString(sgrReset)
	}
	return sb.String()
}

// clean is Safe (line false) or Line (line true).
func clean(s string, line bool) string {
	if isClean(s, line) {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s) + 16)
	var st state
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			r = utf8.RuneError // an invalid byte
		}
		switch {
		case r == '\n':
			if line {
				sb.WriteByte(' ')
			} else {
				sb.WriteByte('\n')
			}
			st.escaped()
		case r == '\t':
			if line {
				sb.WriteByte(' ')
			} else {
				sb.WriteString("    ")
			}
			st.escaped()
		case r == '\r':
		default:
			switch k := st.kind(r, next(s, i+n)); k {
			case keep:
				sb.WriteString(s[i : i+n])
			case space:
				sb.WriteByte(' ')
			default:
				sb.WriteString(spell(k, r))
			}
		}
		i += n
	}
	return sb.String()
}

// next is the rune starting at s[i] (0 at the end).
func next(s string, i int) rune {
	if i >= len(s) {
		return 0
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r
}

// What becomes of a rune.
type kindOf uint8

const (
	keep      kindOf = iota // shown as is
	control                 // C0, C1 or DEL: \xNN
	bidi                    // a bidi control: \uNNNN
	invisible               // zero width, a tag, a format character: <U+NNNN>
	space                   // invalid UTF-8, U+FFFD, U+2028, U+2029: a space
)

// spell is the visible, inert form of r.
func spell(k kindOf, r rune) string {
	switch k {
	case control:
		return fmt.Sprintf(`\x%02x`, r)
	case bidi:
		return fmt.Sprintf(`\u%04x`, r)
	case space:
		return " "
	}
	return fmt.Sprintf("<U+%04X>", r)
}

// state is what the rule needs to know of the text shown before a rune:
// the last rune written as is (0 after an escape) and whether it can carry
// a variation selector.
type state struct {
	prev rune
	base bool
}

func (st *state) escaped() { st.prev, st.base = 0, false }

// kind decides what becomes of r, given the rune after it (0 at the end),
// and updates the state. The rule for invisible characters:
//
//   - Unicode format characters (category Cf: zero width space, word
//     joiner, soft hyphen, BOM, the tag characters U+E0000–U+E007F that
//     spell ASCII no one sees, interlinear annotations…), the combining
//     grapheme joiner and the Hangul fillers are invisible: people do not
//     see them, models read them. They are spelled <U+200B>.
//   - Two exceptions keep emoji and scripts intact: a zero width joiner or
//     non-joiner between two visible non-ASCII characters (👩‍💻, Persian,
//     Indic scripts), and one variation selector right after a visible
//     character (❤️). A run of either, or one after ASCII or at the start,
//     is spelled out: that is how text is hidden in them.
func (st *state) kind(r, nextR rune) kindOf {
	k := classify(r)
	switch {
	case k == keep && isVariationSelector(r):
		if !st.base {
			k = invisible
		}
	case k == invisible && (r == '\u200c' || r == '\u200d'):
		if st.prev >= utf8.RuneSelf && !isJoiner(st.prev) && nextR >= utf8.RuneSelf && classify(nextR) == keep && !isVariationSelector(nextR) {
			k = keep
		}
	}
	if k != keep {
		st.escaped()
		return k
	}
	st.prev, st.base = r, !isVariationSelector(r) && !isJoiner(r) && !unicode.IsSpace(r)
	return keep
}

// classify is a rune's kind regardless of its neighbours.
func classify(r rune) kindOf {
	switch {
	case r < utf8.RuneSelf:
		if r < 0x20 || r == 0x7f {
			return control
		}
		return keep
	case isControl(r):
		return control
	case isBidi(r):
		return bidi
	case r == utf8.RuneError || r == '\u2028' || r == '\u2029':
		return space
	case unicode.Is(unicode.Cf, r) || r == '\u034f' || r == '\u115f' || r == '\u1160' || r == '\u3164' || r == '\uffa0':
		return invisible
	}
	return keep
}

// isVariationSelector reports the variation selectors VS1–VS256 and the
// Mongolian free variation selectors.
func isVariationSelector(r rune) bool {
	return r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef || r >= 0x180b && r <= 0x180d || r == 0x180f
}

func isJoiner(r rune) bool { return r == '\u200c' || r == '\u200d' }

// isControl reports C0 and C1 control characters and DEL.
func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// isBidi reports the Unicode Bidi_Control characters, which change how the
// text around them is ordered: the embeddings and overrides LRE, RLE, PDF,
// LRO, RLO, the isolates LRI, RLI, FSI, PDI and the marks ALM, LRM, RLM.
func isBidi(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x061c || r == 0x200e || r == 0x200f
}

// isClean reports whether s needs no change, so the common case allocates
// nothing.
func isClean(s string, line bool) bool {
	var st state
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && (line || c != '\n') {
				return false
			}
			if c == '\n' || c == ' ' {
				st.escaped()
			} else {
				st.prev, st.base = rune(c), true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if st.kind(r, next(s, i+n)) != keep {
			return false
		}
		i += n
	}
	return true
}

// EscapeJSON rewrites encoded JSON so that it is safe on a terminal and
// plain to a model too: encoding/json escapes C0 controls but writes C1
// controls (U+0080–U+009F, which some terminals take for CSI and friends),
// bidi controls and invisible characters (zero width, tags: the rule of
// Safe) as raw UTF-8. They can only occur inside JSON strings, where
// \uNNNN means the same character: the data is unchanged, only its
// spelling.
func EscapeJSON(b []byte) []byte {
	var st state
	first := -1
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r >= utf8.RuneSelf && st.kind(r, nextByte(b, i+n)) != keep {
			first = i
			break
		}
		if r < utf8.RuneSelf {
			st.prev, st.base = r, r > ' '
		}
		i += n
	}
	if first < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	out = append(out, b[:first]...)
	for i := first; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r < utf8.RuneSelf {
			st.prev, st.base = r, r > ' '
			out = append(out, b[i])
			i++
			continue
		}
		if r != utf8.RuneError && st.kind(r, nextByte(b, i+n)) != keep {
			if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
				out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

func nextByte(b []byte, i int) rune {
	if i >= len(b) {
		return 0
	}
	r, _ := utf8.DecodeRune(b[i:])
	return r
}
