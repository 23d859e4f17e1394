package hook

import (
	"github.com/cairn-dev/cairn/termtext"
	"strings"
	"unicode"
)

// Tokens estimates how many tokens s costs, erring high: ASCII text at 3.5
// characters a token (English and code run at 3.5–4.5), every other
// character a token of its own.
func Tokens(s string) int {
	ascii, other := 0, 0
	for _, r := range s {
		if r < 0x80 {
			ascii++
		} else {
			other++
		}
	}
	return (2*ascii+6)/7 + other // ceil(ascii/3.5)
}

// budget accumulates lines of injected context up to a token limit.
type budget struct {
	max, used int
	lines     []string
}

// add appends line when it fits and reports whether it did.
func (b *budget) add(line string) bool {
	t := Tokens(line) + 1 // the newline
	if b.used+t > b.max {
		return false
	}
	b.used += t
	b.lines = append(b.lines, line)
	return true
}

func (b *budget) String() string { return strings.Join(b.lines, "\n") }

// oneLine makes untrusted text safe and short for injection: control
// characters (terminal escapes among them) are dropped, whitespace runs
// become one space, and the text is cut to max runes with an ellipsis.
func oneLine(s string, max int) string {
	s = termtext.Line(s) // bidi overrides and line separators too
	var sb strings.Builder
	space := false
	n := 0
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = sb.Len() > 0
			continue
		}
		if unicode.IsControl(r) || r == '\uFFFD' {
			continue
		}
		if space {
			sb.WriteByte(' ')
			n++
			space = false
		}
		if max > 0 && n >= max-1 {
			sb.WriteString("…")
			return sb.String()
		}
		sb.WriteRune(r)
		n++
	}
	return sb.String()
}
