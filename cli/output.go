package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/termtext"
	"github.com/cairn-dev/cairn/theme"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/term"
)

// isTerminal reports whether w is an interactive terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// terminalWidth is the width of w when it is a terminal, else 0 (no limit).
func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if wd, _, err := term.GetSize(int(f.Fd())); err == nil {
			return wd
		}
	}
	return 0
}

// reply prints v as JSON with --json, else the line format makes.
func reply(o *Options, v any, format string, a ...any) error {
	if o.JSON {
		return writeJSON(o.Stdout, v)
	}
	_, err := fmt.Fprintf(o.Stdout, format+"\n", a...)
	return err
}

func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(termtext.EscapeJSON(buf.Bytes()))
	return err
}

// useColor reports whether output for a terminal (tty) may carry colour
// and bold: only on a terminal, and never when NO_COLOR is set. Every escape
// the CLI styles its own text with goes through useColor and sgr.
func useColor(tty bool) bool { return tty && !theme.NoColorEnv() }

// sgr wraps s in the SGR attributes attrs ("1" bold, "2" dim, "32" green,
// ...) and a reset when on is set, and returns s unchanged when not.
func sgr(on bool, attrs, s string) string {
	if !on {
		return s
	}
	return "\x1b[" + attrs + "m" + s + "\x1b[0m"
}

// table prints aligned columns, two spaces apart; the header is bold on a
// terminal. Widths are counted in terminal cells with escapes left out, so
// the bold header and wide (CJK) characters line up; for text without wide
// characters the layout is exactly text/tabwriter's (minwidth 0, padding 2).
type table struct {
	w     io.Writer
	tty   bool // w is a terminal: bold header unless NO_COLOR is set
	width int  // the terminal's width, 0 when w is not a terminal
	lines [][]string
}

func newTable(w io.Writer) *table {
	return &table{w: w, tty: isTerminal(w), width: terminalWidth(w)}
}

func (t *table) header(cols ...string) {
	bold := useColor(t.tty)
	line := make([]string, len(cols))
	for i, c := range cols {
		line[i] = sgr(bold, "1", c)
	}
	t.lines = append(t.lines, line)
}

func (t *table) row(cols ...string) {
	line := make([]string, len(cols))
	for i, c := range cols {
		line[i] = termtext.Line(c)
	}
	t.lines = append(t.lines, line)
}

// flush writes the table. Every cell but a line's last is padded to its
// column's width; the last cell is not padded.
func (t *table) flush() error {
	widths := make([][]int, len(t.lines))
	alignColumns(t.lines, widths, 0, len(t.lines), 0)
	var b strings.Builder
	for i, line := range t.lines {
		for j, c := range line {
			b.WriteString(c)
			if j < len(line)-1 {
				b.WriteString(strings.Repeat(" ", widths[i][j]-ansi.StringWidth(c)))
			}
		}
		b.WriteByte('\n')
	}
	t.lines = nil
	_, err := io.WriteString(t.w, b.String())
	return err
}

// alignColumns sets widths[i][col] for lines [lo, hi) as text/tabwriter
// does: a column block is a run of consecutive lines that have a cell in
// column col (their last cell does not count), it is as wide as its widest
// cell plus two, and the columns to its right are aligned within the block.
func alignColumns(lines [][]string, widths [][]int, lo, hi, col int) {
	for i := lo; i < hi; i++ {
		if col >= len(lines[i])-1 {
			continue
		}
		j, w := i, 0
		for ; j < hi && col < len(lines[j])-1; j++ {
			w = max(w, ansi.StringWidth(lines[j][col])+2)
		}
		for k := i; k < j; k++ {
			widths[k] = append(widths[k], w)
		}
		alignColumns(lines, widths, i, j, col+1)
		i = j // line j has no cell in col
	}
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}

// truncate cuts s to n terminal cells with an ellipsis: wide (CJK) runes
// count two, so a cut title never pushes the columns after it.
func truncate(s string, n int) string {
	if n <= 0 || ansi.StringWidth(s) <= n {
		return s
	}
	return ansi.Truncate(s, n, "…")
}

// truncatePath cuts a path to n terminal cells keeping its end, where the
// parts that tell folders apart are (the worktree under a repository, the
// project under a workspace): leading folders give way to "…/" first.
func truncatePath(p string, n int) string {
	if n <= 0 || ansi.StringWidth(p) <= n {
		return p
	}
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		if t := "…/" + strings.Join(parts[i:], "/"); ansi.StringWidth(t) <= n {
			return t
		}
	}
	return ansi.TruncateLeft(p, ansi.StringWidth(p)-n+1, "…")
}
