package install

import (
	"fmt"
	"strings"
)

// Diff is a line diff of a and b with two lines of context, in the style of
// `diff -u` without hunk headers ("" when they are equal).
func Diff(name string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	x := splitLines(string(a))
	y := splitLines(string(b))
	// LCS table; settings files are small.
	n, m := len(x), len(y)
	if n*m > 4_000_000 {
		return fmt.Sprintf("--- %s\n+++ %s\n(%d → %d lines; too large to show a diff)\n", name, name, n, m)
	}
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte
		text string
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && x[i] == y[j]:
			ops = append(ops, op{' ', x[i]})
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			ops = append(ops, op{'+', y[j]})
			j++
		default:
			ops = append(ops, op{'-', x[i]})
			i++
		}
	}
	const ctx = 2
	show := make([]bool, len(ops))
	for k, o := range ops {
		if o.kind != ' ' {
			for d := max(0, k-ctx); d <= min(len(ops)-1, k+ctx); d++ {
				show[d] = true
			}
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s (new)\n", name, name)
	gap := false
	for k, o := range ops {
		if !show[k] {
			gap = true
			continue
		}
		if gap {
			sb.WriteString("  …\n")
			gap = false
		}
		sb.WriteByte(o.kind)
		sb.WriteByte(' ')
		sb.WriteString(o.text)
		sb.WriteByte('\n')
	}
	return sb.String()
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
