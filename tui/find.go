package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// sessionFind is the reader's find in the open session (/, then n and N):
// the find box with its history, the query and the words it marks, and
// the reader's items that match. It owns no cursor: it answers which item
// is next and the reader moves there.
type sessionFind struct {
	c       *common
	box     textinput.Model
	active  bool     // the box has the keyboard
	hist    []string // earlier finds, oldest first (↑ in the box)
	histIdx int      // the one shown while browsing: len(hist) = the new one
	query   string
	// user: the query was typed in / (matched as typed), not carried
	// from a search (each word of three letters or more matches).
	user    bool
	terms   []string
	matches []int // indexes of the reader's items that match
	idx     int   // the current match in matches
	// from is where the view was when the box opened: esc goes back there.
	from findPos
}

// findPos is a place in the reader: the cursor's item and the view's top.
type findPos struct{ cur, topItem, topLine int }

// findAction is what a key in the find box asks of the reader.
type findAction int

const (
	findTyping findAction = iota // the box changed: nothing to do
	findSubmit                   // enter: find the query from the cursor on
	findCancel                   // esc: go back to where the box opened
)

func newSessionFind(c *common) sessionFind {
	return sessionFind{c: c, box: newInput("find: ", "words in this session")}
}

// typing reports that the find box has the keyboard.
func (f *sessionFind) typing() bool { return f.active }

// open gives the find box the keyboard, empty (↑ brings back earlier
// finds); at is where esc will go back to.
func (f *sessionFind) open(at findPos) tea.Cmd {
	f.active = true
	f.box.SetValue("")
	f.histIdx = len(f.hist)
	f.from = at
	return f.box.Focus()
}

// key handles a key while the box has the keyboard.
func (f *sessionFind) key(k tea.KeyPressMsg) (findAction, tea.Cmd) {
	km := f.c.keys
	switch {
	case key.Matches(k, km.FindDone):
		f.close()
		f.user = true
		q := strings.TrimSpace(f.box.Value())
		if q != "" && (len(f.hist) == 0 || f.hist[len(f.hist)-1] != q) {
			f.hist = append(f.hist, q)
		}
		f.query = q
		return findSubmit, nil
	case key.Matches(k, km.Back):
		f.close()
		return findCancel, nil
	case key.Matches(k, km.FindOlder):
		f.histStep(-1)
		return findTyping, nil
	case key.Matches(k, km.FindNewer):
		f.histStep(1)
		return findTyping, nil
	}
	var cmd tea.Cmd
	f.box, cmd = f.box.Update(k)
	return findTyping, cmd
}

func (f *sessionFind) close() {
	f.active = false
	f.box.Blur()
}

// histStep shows an earlier (d=-1) or later (d=1) find in the box; past
// the last, the box is empty again.
func (f *sessionFind) histStep(d int) {
	i := min(max(f.histIdx+d, 0), len(f.hist))
	if i == f.histIdx {
		return
	}
	f.histIdx = i
	if i == len(f.hist) {
		f.box.SetValue("")
		return
	}
	f.box.SetValue(f.hist[i])
	f.box.CursorEnd()
}

func (f *sessionFind) paste(msg tea.PasteMsg) tea.Cmd {
	var cmd tea.Cmd
	f.box, cmd = f.box.Update(msg)
	return cmd
}

// search finds q in items: typed in / (user) as typed, carried from a
// search word by word.
func (f *sessionFind) search(q string, user bool, items []ritem) {
	f.user = user
	f.query = strings.TrimSpace(q)
	f.matches = nil
	if f.query == "" {
		return
	}
	f.terms = findTerms(f.query, f.user)
	for i := range items {
		hay := itemText(&items[i])
		if slices.ContainsFunc(f.terms, func(t string) bool { return strings.Contains(hay, t) }) {
			f.matches = append(f.matches, i)
		}
	}
}

// findTerms are what find looks for, in lower case: what the user typed
// as one string, or a search's words of 3 letters or more.
func findTerms(query string, user bool) []string {
	if user {
		return []string{strings.ToLower(query)}
	}
	terms := []string{}
	for _, w := range strings.Fields(strings.ToLower(query)) {
		if len(w) >= 3 {
			terms = append(terms, w)
		}
	}
	return terms
}

// itemText is the text find looks in, in lower case: an item's text, its
// label and its tool output.
func itemText(it *ritem) string {
	hay := it.text + " " + it.label
	if it.result != nil {
		hay += " " + it.result.Text
	}
	return strings.ToLower(hay)
}

// rerun finds the query again in items rebuilt.
func (f *sessionFind) rerun(items []ritem) {
	if f.query != "" {
		f.search(f.query, f.user, items)
	}
}

// clear forgets the query (another session opened).
func (f *sessionFind) clear() { f.query, f.matches = "", nil }

// seek makes the next step(1) the first match at or after item cur
// (wrapping to the first).
func (f *sessionFind) seek(cur int) {
	f.idx = -1
	for j, i := range f.matches {
		if i >= cur {
			f.idx = j - 1
			break
		}
	}
}

// step moves to the next (d=1) or previous (d=-1) match, wrapping, and
// returns its item; false when nothing matches.
func (f *sessionFind) step(d int) (int, bool) {
	n := len(f.matches)
	if n == 0 {
		return 0, false
	}
	f.idx = (f.idx + d + n) % n
	return f.matches[f.idx], true
}

// inText reports that s holds the query as typed (a tool call's label
// that shows the match needs no expanding).
func (f *sessionFind) inText(s string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(f.query))
}

// matchSet is the items that match (nil: none).
func (f *sessionFind) matchSet() map[int]bool {
	if len(f.matches) == 0 {
		return nil
	}
	set := make(map[int]bool, len(f.matches))
	for _, i := range f.matches {
		set[i] = true
	}
	return set
}

// highlight marks the find's words in a line of a matching item.
func (f *sessionFind) highlight(line string) string {
	for _, t := range f.terms {
		line = highlightPlain(line, t, f.c.sty.Highlight)
	}
	return line
}

// status is the find's part of the reader's status line ("": none).
func (f *sessionFind) status() string {
	switch {
	case f.query == "" || !f.user && len(f.matches) == 0:
		return ""
	case len(f.matches) == 0:
		return fmt.Sprintf("no match for %q", f.query)
	}
	return fmt.Sprintf("%q %d/%d", f.query, f.idx+1, len(f.matches))
}

// view is the find box, w cells wide.
func (f *sessionFind) view(w int) string {
	f.box.SetWidth(w - 10)
	return " " + f.box.View()
}
