package memories

import (
	"fmt"
	"strings"
)

// lineDiff returns a unified diff (3 lines of context) from a to b, or ""
// when they are equal. Files here are small (a CLAUDE.md, a synthesis), so
// a plain LCS table is fine; very long inputs fall back to a whole replace.
func lineDiff(nameA, nameB, a, b string) string {
	if a == b {
		return ""
	}
	al, bl := splitLines(a), splitLines(b)
	type op struct {
		kind byte // ' ', '-', '+'
		line string
	}
	var ops []op
	if len(al)*len(bl) > 4_000_000 {
		for _, l := range al {
			ops = append(ops, op{'-', l})
		}
		for _, l := range bl {
			ops = append(ops, op{'+', l})
		}
	} else {
		n, m := len(al), len(bl)
		lcs := make([][]int32, n+1)
		for i := range lcs {
			lcs[i] = make([]int32, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if al[i] == bl[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && al[i] == bl[j]:
				ops = append(ops, op{' ', al[i]})
				i++
				j++
			case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
				ops = append(ops, op{'+', bl[j]})
				j++
			default:
				ops = append(ops, op{'-', al[i]})
				i++
			}
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", nameA, nameB)
	const ctx = 3
	// Emit hunks around changes.
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start := max(0, k-ctx)
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			// Run of context: does another change follow within 2*ctx?
			r := end
			for r < len(ops) && ops[r].kind == ' ' {
				r++
			}
			if r < len(ops) && r-end <= 2*ctx {
				end = r
				continue
			}
			end = min(len(ops), end+ctx)
			break
		}
		// Line numbers of the hunk.
		aStart, bStart := 1, 1
		for _, o := range ops[:start] {
			if o.kind != '+' {
				aStart++
			}
			if o.kind != '-' {
				bStart++
			}
		}
		aLen, bLen := 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				aLen++
			}
			if o.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(&sb, "@@ -%d,%d +%d,%d @@\n", aStart, aLen, bStart, bLen)
		for _, o := range ops[start:end] {
			sb.WriteByte(o.kind)
			sb.WriteString(o.line)
			sb.WriteByte('\n')
		}
		k = end
	}
	return sb.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
