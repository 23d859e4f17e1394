package install

import (
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// diffContext is the number of unchanged lines shown around each change.
const diffContext = 2

// Diff is a line diff of a and b with two lines of context, in the style of
// `diff -u` without hunk headers ("" when they are equal): a "--- name" /
// "+++ name (new)" header, then one line per kept ("  "), removed ("- ") or
// added ("+ ") line, with "  …" wherever unchanged lines were left out
// (before, between and after the changes).
func Diff(name string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	old := string(a)
	edits := udiff.Lines(old, string(b))
	u, err := udiff.ToUnifiedDiff(name, name, old, edits, diffContext)
	if err != nil {
		// Can't happen: the edits come from udiff.Lines on the same text.
		return fmt.Sprintf("--- %s\n+++ %s (new)\n  (no diff: %v)\n", name, name, err)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s (new)\n", name, name)
	end := 0 // lines of a shown so far (or left out before them)
	for i, h := range u.Hunks {
		// Hunks closer than 2*context lines are merged, so there is always
		// a gap between two hunks; before the first one only if it does
		// not start the file.
		if i > 0 || h.FromLine > 1 {
			sb.WriteString("  …\n")
		}
		end = writeHunk(&sb, h)
	}
	if end < countLines(old) {
		sb.WriteString("  …\n")
	}
	return sb.String()
}

// diffMarks starts a removed and an added line; a kept one starts "  ".
var diffMarks = map[udiff.OpKind]string{udiff.Delete: "- ", udiff.Insert: "+ "}

// writeHunk writes hunk h's lines, and returns the number of lines of the
// old text shown up to its end.
func writeHunk(sb *strings.Builder, h *udiff.Hunk) (end int) {
	end = h.FromLine - 1
	for _, l := range h.Lines {
		if l.Kind != udiff.Insert {
			end++
		}
		mark, ok := diffMarks[l.Kind]
		if !ok {
			mark = "  "
		}
		sb.WriteString(mark)
		text, nl := strings.CutSuffix(l.Content, "\n")
		sb.WriteString(text)
		if !nl {
			sb.WriteString("  (no newline at end of file)")
		}
		sb.WriteByte('\n')
	}
	return end
}

// countLines is the number of lines in s, the last one with or without a
// newline.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
