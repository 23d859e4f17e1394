package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/termtext"
	"github.com/cairn-dev/cairn/theme"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// terminaler is a writer that stands for a terminal it is not itself:
// the pager's pipe, whose output the person reads on the terminal.
type terminaler interface{ terminal() (tty bool, width int) }

// isTerminal reports whether w is an interactive terminal (or the pager
// in front of one).
func isTerminal(w io.Writer) bool {
	if t, ok := w.(terminaler); ok {
		tty, _ := t.terminal()
		return tty
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// terminalWidth is the width of w when it is a terminal (the pager's: the
// terminal's), else 0 (no limit). A terminal that does not say its size
// is taken as $COLUMNS wide, or 80.
func terminalWidth(w io.Writer) int {
	if t, ok := w.(terminaler); ok {
		_, wd := t.terminal()
		return wd
	}
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	if wd, _, err := term.GetSize(int(f.Fd())); err == nil && wd > 0 {
		return wd
	}
	if wd, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && wd > 0 {
		return wd
	}
	return 80
}

// addWideFlag adds --wide to a command that prints a table or a list.
func addWideFlag(cmd *cobra.Command, o *Options) {
	cmd.Flags().BoolVar(&o.Wide, "wide", false, "print every cell whole (by default a table fits the terminal, cutting its widest column with …)")
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

// Colour modes of --color.
const (
	colorAuto   = "auto"   // on a terminal, unless NO_COLOR is set
	colorAlways = "always" // also into a pipe (less -R), whatever NO_COLOR says
	colorNever  = "never"
)

// colorOn reports whether output for a terminal (tty) carries colour and
// bold in mode (--color): auto colours a terminal unless NO_COLOR is set;
// always and never are what they say. Every escape the CLI styles its own
// text with goes through colorOn and sgr.
func colorOn(mode string, tty bool) bool {
	switch mode {
	case colorAlways:
		return true
	case colorNever:
		return false
	}
	return tty && !theme.NoColorEnv()
}

// useColor is colorOn with the command's --color.
func (o *Options) useColor(tty bool) bool { return colorOn(o.Color, tty) }

// colorFor reports whether text written to w carries colour.
func (o *Options) colorFor(w io.Writer) bool { return o.useColor(isTerminal(w)) }

// fitLine cuts a line of output to the terminal's width (w's), with an
// ellipsis; off a terminal and with --wide it is left whole.
func (o *Options) fitLine(w io.Writer, s string) string {
	if o.Wide {
		return s
	}
	return truncate(s, terminalWidth(w))
}

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
//
// The one rule for fitting a table (every command's): on a terminal the
// table fits its width — the optional columns go first (the last marked
// first) when the cuttable ones would otherwise be cut below a useful
// width, then the widest cuttable column loses a cell at a time, cut with
// "…" (a path keeps its end); no line is wider than the terminal. Off a
// terminal, cuttable columns keep to their cap (what a script reading the
// table saw before). --wide (and --json) prints every cell whole.
type table struct {
	w     io.Writer
	tty   bool // w is a terminal
	color bool // bold header
	width int  // the terminal's width, 0 when w is not a terminal
	wide  bool // --wide: no cutting at all
	lines [][]string
	cuts  map[int]cutRule
	drop  []int // optional columns, dropped last first
}

// cutRule says how a column may be cut.
type cutRule struct {
	cap   int  // off a terminal, at most this many cells (0: no cap)
	path  bool // cut a path's leading folders first (truncatePath)
	floor int  // the width optional columns give way to (0: minCut)
}

// minCut is the narrowest a cuttable column is cut to before optional
// columns give way (or its header's width, or its widest cell, if less).
const minCut = 24

func newTable(w io.Writer) *table {
	tty := isTerminal(w)
	return &table{w: w, tty: tty, color: colorOn(colorAuto, tty), width: terminalWidth(w), cuts: map[int]cutRule{}}
}

// newTable is a table on o.Stdout with the command's --color and --wide.
func (o *Options) newTable() *table {
	t := newTable(o.Stdout)
	t.color, t.wide = o.useColor(t.tty), o.Wide
	return t
}

// cut makes column col cuttable; off a terminal it keeps to cap cells
// (0: whole). path cuts from the left, keeping the path's end.
func (t *table) cut(col, cap int, path bool) { t.cuts[col] = cutRule{cap: cap, path: path} }

// keep makes optional columns give way before cuttable column col is cut
// below n cells (the text a table is for: a memory's content).
func (t *table) keep(col, n int) {
	r := t.cuts[col]
	r.floor = n
	t.cuts[col] = r
}

// optional marks columns that are left out on a terminal too narrow for
// the table; the last one given goes first.
func (t *table) optional(cols ...int) { t.drop = append(t.drop, cols...) }

func (t *table) header(cols ...string) {
	line := make([]string, len(cols))
	for i, c := range cols {
		line[i] = sgr(t.color, "1", c)
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

// cutCell cuts s to n cells by the column's rule.
func (r cutRule) cutCell(s string, n int) string {
	if r.path {
		return truncatePath(s, n)
	}
	return truncate(s, n)
}

// fit applies the fitting rule (see table) to t.lines.
func (t *table) fit() {
	if t.wide || len(t.cuts) == 0 && t.width == 0 {
		return
	}
	if t.width == 0 {
		t.capCells()
		return
	}
	w := t.dropOptional()
	t.cutTo(w, t.shrinkWidest(w))
}

// cutTo cuts the cuttable columns now w wide to the widths want.
func (t *table) cutTo(w, want []int) {
	for _, line := range t.lines {
		for col, r := range t.cuts {
			if col < len(line) && want[col] < w[col] {
				line[col] = r.cutCell(line[col], want[col])
			}
		}
	}
}

// capCells cuts the cells below the header to their column's cap (off a
// terminal).
func (t *table) capCells() {
	for i, line := range t.lines {
		for col, r := range t.cuts {
			if i > 0 && col < len(line) && r.cap > 0 {
				line[col] = r.cutCell(line[col], r.cap)
			}
		}
	}
}

// colWidths are the widths of the table's columns, in cells.
func (t *table) colWidths() []int {
	var w []int
	for _, line := range t.lines {
		for j, c := range line {
			if j >= len(w) {
				w = append(w, 0)
			}
			w[j] = max(w[j], ansi.StringWidth(c))
		}
	}
	return w
}

// lineWidth is the width of a line of columns w wide, two spaces apart.
func lineWidth(w []int) int {
	n := 0
	for _, x := range w {
		n += x
	}
	return n + 2*max(0, len(w)-1)
}

// cutFloor is the narrowest cuttable column col (now w[col] wide) is cut
// to before optional columns give way: its floor, or its header's width
// if wider, and never wider than it is.
func (t *table) cutFloor(w []int, col int) int {
	h := 0
	if len(t.lines) > 0 && col < len(t.lines[0]) {
		h = ansi.StringWidth(t.lines[0][col])
	}
	f := minCut
	if r := t.cuts[col]; r.floor > 0 {
		f = r.floor
	}
	return min(w[col], max(h, f))
}

// dropOptional removes optional columns, the last given first, while
// cutting alone would leave a cuttable column narrower than its floor,
// and returns the columns' widths.
func (t *table) dropOptional() []int {
	w := t.colWidths()
	for len(t.drop) > 0 && lineWidth(w) > t.width {
		room := 0
		for col := range t.cuts {
			if col < len(w) {
				room += w[col] - t.cutFloor(w, col)
			}
		}
		if lineWidth(w)-room <= t.width {
			break
		}
		col := t.drop[len(t.drop)-1]
		t.drop = t.drop[:len(t.drop)-1]
		t.remove(col)
		w = t.colWidths()
	}
	return w
}

// shrinkWidest returns the widths w with the widest cuttable column
// (the rightmost of equals) losing a cell at a time, down to one cell for
// its ellipsis, until the line fits the terminal.
func (t *table) shrinkWidest(w []int) []int {
	want := slices.Clone(w)
	for excess := lineWidth(want) - t.width; excess > 0; excess-- {
		best := t.widestCut(want)
		if best < 0 {
			break
		}
		want[best]--
	}
	return want
}

// widestCut is the widest of the cuttable columns that can lose a cell
// at widths w (the rightmost of equals), -1 when none can.
func (t *table) widestCut(w []int) int {
	best := -1
	for col := range t.cuts {
		if col < len(w) && w[col] > 1 && (best < 0 || w[col] > w[best] || w[col] == w[best] && col > best) {
			best = col
		}
	}
	return best
}

// remove takes column col out of the table (cut rules and optional
// columns to its right move left with it).
func (t *table) remove(col int) {
	for i, line := range t.lines {
		if col < len(line) {
			t.lines[i] = append(line[:col:col], line[col+1:]...)
		}
	}
	cuts := map[int]cutRule{}
	for c, r := range t.cuts {
		switch {
		case c < col:
			cuts[c] = r
		case c > col:
			cuts[c-1] = r
		}
	}
	t.cuts = cuts
	for i, c := range t.drop {
		if c > col {
			t.drop[i] = c - 1
		}
	}
}

// flush writes the table. Every cell but a line's last is padded to its
// column's width; the last cell is not padded. On a terminal (without
// --wide) no line is wider than it.
func (t *table) flush() error {
	t.fit()
	widths := make([][]int, len(t.lines))
	alignColumns(t.lines, widths, 0, len(t.lines), 0)
	var b strings.Builder
	for i, line := range t.lines {
		var l strings.Builder
		for j, c := range line {
			l.WriteString(c)
			if j < len(line)-1 {
				l.WriteString(strings.Repeat(" ", widths[i][j]-ansi.StringWidth(c)))
			}
		}
		s := l.String()
		if t.width > 0 && !t.wide {
			s = truncate(s, t.width)
		}
		b.WriteString(s)
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
