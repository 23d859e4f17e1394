package tui

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Transcript text is untrusted: a reply, a tool's output or a file Claude
// read can hold terminal control sequences (clear screen, OSC 52 clipboard
// writes, OSC 8 links, cursor movement). Everything taken from a transcript
// goes through sanitize before it is styled or rendered, so such sequences
// show up as inert, visible text (\x1b[2J) and never reach the terminal.

// sanitize neutralises control characters in multi-line text: newlines are
// kept, tabs become four spaces, carriage returns are dropped, and every
// other C0/C1 control character or DEL is shown as a visible \xNN escape.
func sanitize(s string) string {
	if isClean(s, true) {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s) + 16)
	for _, r := range s {
		switch {
		case r == '\n':
			sb.WriteByte('\n')
		case r == '\t':
			sb.WriteString("    ")
		case r == '\r':
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&sb, "\\x%02x", r)
		case r == '\uFFFD' || r == '\u2028' || r == '\u2029':
			sb.WriteRune(' ')
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// sanitizeLine is sanitize for text shown on one line: newlines and tabs
// become spaces.
func sanitizeLine(s string) string {
	if isClean(s, false) {
		return s
	}
	s = sanitize(s)
	return strings.ReplaceAll(s, "\n", " ")
}

func isClean(s string, newlines bool) bool {
	if !utf8.ValidString(s) {
		return false // a stray 0x9b byte is an 8-bit CSI to some terminals
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			if newlines && c == '\n' {
				continue
			}
			return false
		}
		if c >= 0x80 {
			// C1 controls are encoded as 0xC2 0x80–0x9F; line and paragraph
			// separators as 0xE2 0x80 0xA8/0xA9.
			if c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] < 0xa0 {
				return false
			}
			if c == 0xe2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xa8 || s[i+2] == 0xa9) {
				return false
			}
			if c == 0xef && i+2 < len(s) && s[i+1] == 0xbf && s[i+2] == 0xbd {
				return false
			}
		}
	}
	return true
}
