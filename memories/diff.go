package memories

import (
	udiff "github.com/aymanbagabas/go-udiff"
)

// lineDiff returns a unified diff (`diff -u` style: --- / +++ headers, @@
// hunks, 3 lines of context) from a to b, or "" when they are equal.
//
// go-udiff bounds the cost of its line LCS, so a long file with a small
// change gives a small diff quickly instead of a whole-file replace.
func lineDiff(nameA, nameB, a, b string) string {
	if a == b {
		return ""
	}
	return udiff.Unified(nameA, nameB, a, b)
}
