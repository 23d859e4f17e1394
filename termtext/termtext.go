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
// from what it is ("Trojan Source"). After Safe or Line none of these is
// left: controls and bidi formatting characters are shown as inert, visible
// escapes (\x1b[2J, \u202e) and the rest becomes spaces.
package termtext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Safe neutralises multi-line text: newlines are kept, tabs become four
// spaces, carriage returns are dropped, every other C0 or C1 control
// character and DEL is shown as a visible \xNN escape, bidi controls
// (embeddings, overrides, isolates and marks: U+202A–U+202E, U+2066–U+2069,
// U+061C, U+200E, U+200F) as a visible \uNNNN escape, and invalid UTF-8
// bytes, U+FFFD and the line and paragraph separators U+2028 and U+2029
// become spaces. The result is valid UTF-8, and Safe(Safe(s)) == Safe(s).
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
	for _, r := range s {
		switch {
		case r == '\n':
			if line {
				sb.WriteByte(' ')
			} else {
				sb.WriteByte('\n')
			}
		case r == '\t':
			if line {
				sb.WriteByte(' ')
			} else {
				sb.WriteString("    ")
			}
		case r == '\r':
		case isControl(r):
			fmt.Fprintf(&sb, `\x%02x`, r)
		case isBidi(r):
			fmt.Fprintf(&sb, `\u%04x`, r)
		case r == utf8.RuneError || r == '\u2028' || r == '\u2029':
			// RuneError is also what ranging yields for an invalid byte.
			sb.WriteByte(' ')
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

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
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && (line || c != '\n') {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || isControl(r) || isBidi(r) || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += n
	}
	return true
}

// EscapeJSON rewrites encoded JSON so that it is safe on a terminal too:
// encoding/json escapes C0 controls but writes C1 controls (U+0080–U+009F,
// which some terminals take for CSI and friends) and bidi controls as raw
// UTF-8. Both can only occur inside JSON strings, where \uNNNN means the
// same character: the data is unchanged, only its spelling.
func EscapeJSON(b []byte) []byte {
	clean := true
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if isControl(r) || isBidi(r) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			out = append(out, b[i])
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if isControl(r) || isBidi(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}
