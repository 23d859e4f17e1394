package fts

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
)

const ellipsis = '…'

// maxSnippetSource bounds the text Snippet analyses: documents are chunks of
// a few KB, and a pathological one must not cost a full analysis per hit.
const maxSnippetSource = 256 << 10

// Snippet returns the window of at most width runes of text that holds the
// most query terms, with each match passed through mark (ANSI bold for a
// terminal, nil for plain output). Whitespace runs and control characters
// become single spaces so the snippet is one safe line. terms come from
// QueryTerms; text is re-analysed with both analyzers so stemmed and code
// matches ("parsing" for "parse", "Transcript" inside "parseTranscript") are
// marked in their original spelling. width <= 0 means no limit.
func Snippet(text string, terms []string, width int, mark func(string) string) string {
	if mark == nil {
		mark = func(s string) string { return s }
	}
	if len(text) > maxSnippetSource {
		text = text[:maxSnippetSource] // a cut rune becomes U+FFFD in oneLine
	}
	text = oneLine(text)
	runes := []rune(text)
	matches := matchSpans(text, terms) // rune offsets, sorted, disjoint
	lo, hi := 0, len(runes)
	if width > 0 && len(runes) > width {
		lo, hi = bestWindow(runes, matches, width)
	}

	dots := width > 2 // below that an ellipsis would eat the whole budget
	var sb strings.Builder
	if lo > 0 && dots {
		sb.WriteRune(ellipsis)
	}
	writeMarked(&sb, runes[:hi], lo, matches, mark)
	if hi < len(runes) && dots {
		sb.WriteRune(ellipsis)
	}
	return sb.String()
}

// writeMarked writes runes[lo:] with the parts of matches within it
// passed through mark.
func writeMarked(sb *strings.Builder, runes []rune, lo int, matches []span, mark func(string) string) {
	hi := len(runes)
	at := lo
	for _, m := range matches {
		s, e := max(m.s, lo), min(m.e, hi)
		if s >= e {
			continue
		}
		sb.WriteString(string(runes[at:s]))
		sb.WriteString(mark(string(runes[s:e])))
		at = e
	}
	sb.WriteString(string(runes[at:hi]))
}

// oneLine replaces invalid UTF-8, control characters (including escape
// sequences' ESC, which must never reach a terminal from transcript text)
// and whitespace runs with single spaces, and trims the ends.
func oneLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var sb strings.Builder
	sb.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			continue
		}
		if space && sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		space = false
		sb.WriteRune(r)
	}
	return sb.String()
}

// matchSpans analyses text with both analyzers and returns, as rune
// offsets, the merged spans of tokens whose term is one of terms.
func matchSpans(text string, terms []string) []span {
	if len(terms) == 0 || text == "" {
		return nil
	}
	bytesSpans := termSpans(text, terms)
	if len(bytesSpans) == 0 {
		return nil
	}
	slices.SortFunc(bytesSpans, func(x, y span) int { return x.s - y.s })
	runeAt := runeOffsets(text)
	var out []span
	for _, b := range bytesSpans {
		s, e := runeAt[b.s], runeAt[b.e]
		if k := len(out) - 1; k >= 0 && s <= out[k].e {
			out[k].e = max(out[k].e, e) // overlapping or touching: one mark
			continue
		}
		out = append(out, span{s, e})
	}
	return out
}

// termSpans returns the byte spans of the tokens of text, as the English
// and code query analyzers see it, whose term is one of terms.
func termSpans(text string, terms []string) []span {
	want := make(map[string]bool, len(terms))
	var prefixes []string // "websock*": any token starting so, as written
	for _, t := range terms {
		if p, ok := strings.CutSuffix(t, "*"); ok && p != "" {
			prefixes = append(prefixes, p)
			continue
		}
		want[t] = true
	}
	a := analyzers()
	var spans []span
	for _, an := range []analysis.Analyzer{a.english, a.codeQuery} {
		for _, t := range an.Analyze([]byte(text)) {
			if want[string(t.Term)] || len(prefixes) > 0 && hasAnyPrefix(strings.ToLower(text[t.Start:t.End]), prefixes) {
				spans = append(spans, span{t.Start, t.End})
			}
		}
	}
	return spans
}

// runeOffsets maps each byte offset of text (and len(text)) to the offset
// in runes of the rune it is part of, in one pass over the text.
func runeOffsets(text string) []int {
	runeAt := make([]int, len(text)+1)
	n := 0
	for i := 0; i < len(text); n++ {
		_, size := utf8.DecodeRuneInString(text[i:])
		for k := range size {
			runeAt[i+k] = n
		}
		i += size
	}
	runeAt[len(text)] = n
	return runeAt
}

// bestWindow picks [lo,hi) of at most width runes (leaving room for the
// ellipses) that covers the most matches, then nudges it to word boundaries
// and puts some context before the first match.
func bestWindow(runes []rune, matches []span, width int) (int, int) {
	n := len(runes)
	room := width
	if width > 2 {
		room = width - 2 // an ellipsis may be needed at each end
	}
	if len(matches) == 0 {
		return 0, trimToWord(runes, 0, room, false)
	}
	bestI, bestCount := densestMatches(matches, room)
	first := matches[bestI]
	lastEnd := first.e
	if bestCount > 0 {
		lastEnd = matches[bestI+bestCount-1].e
	}
	// Spread spare room: a third before the matches, the rest after.
	spare := max(room-(lastEnd-first.s), 0)
	lo := max(first.s-spare/3, 0)
	hi := min(lo+room, n)
	lo = max(hi-room, 0)
	if lo > 0 && lo < first.s {
		lo = trimToWord(runes, lo, first.s, true)
	}
	if hi < n && hi > lastEnd {
		hi = trimToWord(runes, lastEnd, hi, false)
	}
	return lo, hi
}

// densestMatches returns the first of the most matches that fit in room
// runes, and how many they are: it slides over matches, counting for each
// first match how many fit.
func densestMatches(matches []span, room int) (bestI, bestCount int) {
	j := 0
	for i := range matches {
		j = max(j, i)
		for j < len(matches) && matches[j].e-matches[i].s <= room {
			j++
		}
		if c := j - i; c > bestCount {
			bestI, bestCount = i, c
		}
	}
	return bestI, bestCount
}

// trimToWord moves a cut to a space so words are not split: forward from
// lo to just after a space before hi (fromStart), or back from hi to a
// space at or after lo. Without a space in range the cut stays put.
func trimToWord(runes []rune, lo, hi int, fromStart bool) int {
	if fromStart {
		for i := lo; i < hi; i++ {
			if runes[i] == ' ' {
				return i + 1
			}
		}
		return lo
	}
	if hi >= len(runes) || runes[hi] == ' ' {
		return hi
	}
	for i := hi - 1; i >= lo; i-- {
		if runes[i] == ' ' {
			return i
		}
	}
	return hi
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
