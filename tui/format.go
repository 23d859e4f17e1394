package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

func fmtCount(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1_000_000)
}

// trunc cuts s (which may hold styles) to w cells with an ellipsis.
func trunc(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if lipgloss.Width(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// truncLeft keeps the end of a plain string (paths: the last folders matter).
func truncLeft(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.TruncateLeft(s, ansi.StringWidth(s)-w+1, "…")
}

// pad fills s with spaces to exactly w cells (truncating when longer).
func pad(s string, w int) string {
	s = trunc(s, w)
	if n := w - lipgloss.Width(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// padLeft right-aligns s in w cells.
func padLeft(s string, w int) string {
	s = trunc(s, w)
	if n := w - lipgloss.Width(s); n > 0 {
		return strings.Repeat(" ", n) + s
	}
	return s
}

// fitLines returns exactly h lines of at most w cells.
func fitLines(lines []string, w, h int) string {
	out := make([]string, h)
	for i := 0; i < h; i++ {
		if i < len(lines) {
			out[i] = pad(lines[i], w)
		} else {
			out[i] = strings.Repeat(" ", w)
		}
	}
	return strings.Join(out, "\n")
}

// newInput is a one-line text input with a steady cursor (blinking needs
// a timer message loop for no benefit).
func newInput(prompt, placeholder string) textinput.Model {
	ti := textinput.New()
	ti.Prompt = prompt
	ti.Placeholder = placeholder
	st := ti.Styles()
	st.Cursor.Blink = false
	ti.SetStyles(st)
	return ti
}

// clickMap remembers where a list was drawn, to map a mouse click to a row.
type clickMap struct {
	top      int // screen line of the first row
	from, to int // rows shown
	per      int // screen lines per row
}

// row returns the list row at screen line y, or -1.
func (c clickMap) row(y int) int {
	if c.per <= 0 || y < c.top {
		return -1
	}
	i := c.from + (y-c.top)/c.per
	if i >= c.to {
		return -1
	}
	return i
}

// plural is "1 session", "2 sessions".
func plural(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	many := one + "s"
	if strings.HasSuffix(one, "y") && !strings.ContainsAny(one[len(one)-2:len(one)-1], "aeiou") {
		many = one[:len(one)-1] + "ies"
	}
	return fmtCount(int64(n)) + " " + many
}
