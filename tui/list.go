package tui

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// list is the filterable list every list pane is built on (Projects,
// Timeline, Search, Memories, Drafts), like soft-serve's selector: the
// cursor, scrolling and paging, so up/down, pgup/pgdown, home/end and g/G
// do the same everywhere, and the optional filter box with its keys.
type list struct {
	cursor, offset, n int
	// rows is how many rows the last draw showed: a page.
	rows int
	// skip reports rows the cursor cannot rest on (the timeline's day
	// headers); nil: every row.
	skip func(i int) bool
	// filter is the pane's filter box; nil when it has none.
	filter *filterBox
}

// listKeys are the keys that move a list.
type listKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
}

func (lk listKeys) bindings() []key.Binding {
	return []key.Binding{lk.Up, lk.Down, lk.PageUp, lk.PageDown, lk.Top, lk.Bottom}
}

// defaultPage is a page before the list was ever drawn.
const defaultPage = 10

func (l *list) page() int {
	if l.rows <= 0 {
		return defaultPage
	}
	return l.rows
}

// setLen sets the number of rows, keeping the cursor on one.
func (l *list) setLen(n int) {
	l.n = n
	l.cursor = min(max(l.cursor, 0), max(n-1, 0))
	l.settle(1)
}

// move moves the cursor by d rows, clamped, off rows it cannot rest on.
func (l *list) move(d int) {
	l.cursor = min(max(l.cursor+d, 0), max(l.n-1, 0))
	if d < 0 {
		l.settle(-1)
	} else {
		l.settle(1)
	}
}

func (l *list) top() {
	l.cursor = 0
	l.settle(1)
}

func (l *list) bottom() {
	l.cursor = max(l.n-1, 0)
	l.settle(-1)
}

// set puts the cursor on row i (a click, a row found again after a reload).
func (l *list) set(i int) {
	if i >= 0 && i < l.n {
		l.cursor = i
	}
}

// step moves the cursor one row in n's direction, whatever n's size (a
// wheel scroll that moves the selection rather than the view).
func (l *list) step(n int) {
	if n > 0 {
		l.move(1)
	} else {
		l.move(-1)
	}
}

// click handles a click on row i (-1: none): it selects the row, and a
// click on the row already selected opens it with open.
func (l *list) click(i int, open func(i int) tea.Cmd) tea.Cmd {
	if i < 0 {
		return nil
	}
	if i == l.cursor {
		return open(i)
	}
	l.set(i)
	return nil
}

// paste pastes into the filter box and applies the filter with apply.
func (l *list) paste(msg tea.PasteMsg, apply func()) tea.Cmd {
	cmd := l.filter.paste(msg)
	apply()
	return cmd
}

// settle moves the cursor off a row it cannot rest on, in direction d,
// turning back at the end of the list.
func (l *list) settle(d int) {
	if l.skip == nil {
		return
	}
	for l.cursor >= 0 && l.cursor < l.n && l.skip(l.cursor) {
		next := l.cursor + d
		if next < 0 || next >= l.n {
			d = -d
			next = l.cursor + d
			if next < 0 || next >= l.n {
				return
			}
		}
		l.cursor = next
	}
}

// window returns the visible range [from, to) for h rows, scrolling so the
// cursor stays in view, and remembers h as the page size.
func (l *list) window(h int) (int, int) {
	h = max(h, 1)
	l.rows = h
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+h {
		l.offset = l.cursor - h + 1
	}
	if l.offset > l.n-h {
		l.offset = max(0, l.n-h)
	}
	return l.offset, min(l.n, l.offset+h)
}

// navigate applies a movement key; false when k is not one of lk.
func (l *list) navigate(k tea.KeyPressMsg, lk listKeys) bool {
	switch {
	case key.Matches(k, lk.Up):
		l.move(-1)
	case key.Matches(k, lk.Down):
		l.move(1)
	case key.Matches(k, lk.PageUp):
		l.move(-l.page())
	case key.Matches(k, lk.PageDown):
		l.move(l.page())
	case key.Matches(k, lk.Top):
		l.top()
	case key.Matches(k, lk.Bottom):
		l.bottom()
	default:
		return false
	}
	return true
}

// listResult is what a key did to a list.
type listResult int

const (
	listIgnored  listResult = iota // not a key of the list: the pane's
	listHandled                    // moved, or the filter opened or closed
	listFiltered                   // the filter's text changed: apply it
)

// update handles the list's keys: the filter box's while it is being
// typed in, else movement and f to open the filter. km gives the keys.
func (l *list) update(k tea.KeyPressMsg, km *KeyMap) (listResult, tea.Cmd) {
	if f := l.filter; f != nil && f.active {
		return l.updateFilter(k, km)
	}
	if l.navigate(k, km.List) {
		return listHandled, nil
	}
	if f := l.filter; f != nil {
		switch {
		case key.Matches(k, km.Filter):
			f.active = true
			return listHandled, f.input.Focus()
		case key.Matches(k, km.Back) && f.input.Value() != "":
			f.input.SetValue("")
			return listFiltered, nil
		}
	}
	return listIgnored, nil
}

func (l *list) updateFilter(k tea.KeyPressMsg, km *KeyMap) (listResult, tea.Cmd) {
	f := l.filter
	switch {
	case key.Matches(k, km.Done):
		f.active = false
		f.input.Blur()
		return listHandled, nil
	case key.Matches(k, km.Back):
		f.active = false
		f.input.Blur()
		f.input.SetValue("")
		return listFiltered, nil
	case l.navigate(k, km.TypingList):
		return listHandled, nil
	}
	var cmd tea.Cmd
	f.input, cmd = f.input.Update(k)
	return listFiltered, cmd
}

// typing reports that the filter box has the keyboard.
func (l *list) typing() bool { return l.filter != nil && l.filter.active }

// filterBox is a list's one-line filter.
type filterBox struct {
	input  textinput.Model
	active bool // being typed in
}

func newFilterBox(placeholder string) *filterBox {
	return &filterBox{input: newInput("filter: ", placeholder)}
}

// value is the filter's text.
func (f *filterBox) value() string { return f.input.Value() }

// shown reports that the box is drawn: typed in, or holding a filter.
func (f *filterBox) shown() bool { return f.active || f.input.Value() != "" }

func (f *filterBox) view(w int) string {
	f.input.SetWidth(w - 12)
	return " " + f.input.View()
}

func (f *filterBox) paste(msg tea.PasteMsg) tea.Cmd {
	var cmd tea.Cmd
	f.input, cmd = f.input.Update(msg)
	return cmd
}
