package tui

import (
	"strings"
	"unicode/utf8"
)

// The list filters' typo tolerance (issue 24.5): when no row holds the
// filter's text, the rows holding its letters in order inside one word
// ("mrco" in "marco-polo", as fzf matches) are shown instead, and the
// pane says so. Within one word only, and only when the plain filter
// finds nothing: across a whole title a few letters in order match
// almost anything.

// minSubseqRunes is the shortest filter matched as letters in order.
const minSubseqRunes = 3

// subseqMatch reports whether some word of text (split at anything but
// letters and digits) holds the runes of q in order, its first rune
// first. q is lower case.
func subseqMatch(q, text string) bool {
	if utf8.RuneCountInString(q) < minSubseqRunes {
		return false
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r >= utf8.RuneSelf)
	}) {
		if inOrder(q, w) {
			return true
		}
	}
	return false
}

// inOrder reports whether w starts with q's first rune and holds the
// rest of q's runes in order.
func inOrder(q, w string) bool {
	first, _ := utf8.DecodeRuneInString(q)
	if !strings.HasPrefix(w, string(first)) {
		return false
	}
	i := 0
	for _, r := range q {
		j := strings.IndexRune(w[i:], r)
		if j < 0 {
			return false
		}
		i += j + utf8.RuneLen(r)
	}
	return true
}

// nearMatchNote is what a pane says when its rows match its filter only
// as letters in order.
func nearMatchNote(q string, n int) string {
	return "nothing contains \"" + q + "\": showing " + plural(n, "near match") + " (its letters in order)"
}
