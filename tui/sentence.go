package tui

import (
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// showSentence shows the line of the cursor's block that says sentence (a
// memory's text): a collapsed block (a compaction summary, most built-in
// memories' source; a tool call; a subagent) is expanded, and the view
// scrolls so that line is near the top.
func (p *readerPane) showSentence(sentence string) {
	if p.cur < 0 || p.cur >= len(p.items) {
		return
	}
	it := p.items[p.cur]
	switch it.kind {
	case kSummary, kTool, kAgent:
		if !p.expanded[it.key] {
			p.expanded[it.key] = true
			p.rebuildKeep()
			p.needVisible = false
			if i := p.indexOfKey(it.key); i >= 0 {
				p.cur = i
			}
		}
	}
	line := bestLine(p.lines(p.cur), sentence)
	if line < 0 {
		p.topItem, p.topLine = p.cur, 0
		return
	}
	// Two lines of context above it.
	p.topItem, p.topLine = p.cur, max(0, line-2)
}

// bestLine is the index of the line (with the one after it, a sentence
// wrapped) that holds most of sentence's words; -1 when none holds any.
func bestLine(lines []string, sentence string) int {
	want := map[string]bool{}
	for _, w := range sentenceWords(sentence) {
		want[w] = true
	}
	if len(want) == 0 {
		return -1
	}
	words := make([][]string, len(lines))
	for i, l := range lines {
		words[i] = sentenceWords(ansi.Strip(l))
	}
	best, bestN := -1, 0
	for i := range lines {
		n := wantedIn(words[i:min(len(lines), i+2)], want)
		// The first line of the sentence: it must hold one of its words.
		if n > bestN && len(words[i]) > 0 && hasAny(words[i], want) {
			best, bestN = i, n
		}
	}
	return best
}

// wantedIn is how many distinct wanted words the lines' words hold.
func wantedIn(lines [][]string, want map[string]bool) int {
	seen := map[string]bool{}
	for _, ws := range lines {
		for _, w := range ws {
			if want[w] {
				seen[w] = true
			}
		}
	}
	return len(seen)
}

func hasAny(ws []string, want map[string]bool) bool {
	for _, w := range ws {
		if want[w] {
			return true
		}
	}
	return false
}

// sentenceWords are the words of s worth matching: lower case, three
// letters or more.
func sentenceWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) >= 3 {
			out = append(out, w)
		}
	}
	return out
}
