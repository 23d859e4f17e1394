package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// paneSpec is everything the root knows about a pane, declared once, in
// the pane's own file, in the manner of soft-serve's tabs: the tabs, the
// digit that shows it (its place in paneRegistry), the help line's
// fallbacks, the ? screen, the README's key table and the key-clash test
// all read it. A new pane is its file (a type implementing pane, its
// spec) and one line in paneRegistry; nothing else.
type paneSpec struct {
	name  string // tab title and help heading ("Projects"); lower-cased, the digit's help
	short string // tab title when the full titles do not fit ("Proj")
	build func(c *common) pane
	// keys is every binding the pane acts on, while typing in it or not.
	// The root hands a key the pane has not declared (when not typing) to
	// no pane at all, so this list is what the pane handles, and
	// TestNoSharedKeysPerPane checks that no two of these (with the
	// root's) share a key.
	keys func(k *KeyMap, typing bool) []key.Binding
	// helpKeys is its group on the ? screen and in the README's key
	// table, titled name (nil: no group of its own).
	helpKeys func(k *KeyMap) []key.Binding
}

// paneRegistry is the panes in tab order: digit i+1 shows paneRegistry[i].
var paneRegistry = []paneSpec{
	projectsPaneSpec,
	timelinePaneSpec,
	readerPaneSpec,
	searchPaneSpec,
	memoriesPaneSpec,
	draftsPaneSpec,
}

// numPanes is how many panes there are (at most 9: one digit each).
var numPanes = len(paneRegistry)

// The panes the root itself talks to (navigation, data it routes), by
// their place in the registry.
var (
	paneProjects = paneIndex("Projects")
	paneTimeline = paneIndex("Timeline")
	paneReader   = paneIndex("Reader")
	paneSearch   = paneIndex("Search")
	paneMemories = paneIndex("Memories")
	paneDrafts   = paneIndex("Drafts")
)

func paneIndex(name string) int {
	for i, s := range paneRegistry {
		if s.name == name {
			return i
		}
	}
	panic("tui: no pane named " + name + " in paneRegistry")
}

// paneName is pane i's tab title.
func paneName(i int) string { return paneRegistry[i].name }

// paneDigits is the binding help shows for the digits: 1…N switch pane.
func paneDigits() key.Binding {
	keys := make([]string, numPanes)
	for i := range keys {
		keys[i] = fmt.Sprint(i + 1)
	}
	return bind(keys, "1…"+keys[len(keys)-1], "switch pane")
}

// paneKeyBindings are the digits that show each pane.
func paneKeyBindings() []key.Binding {
	bs := make([]key.Binding, numPanes)
	for i, s := range paneRegistry {
		d := fmt.Sprint(i + 1)
		bs[i] = bind([]string{d}, d, strings.ToLower(s.name))
	}
	return bs
}

// Optional pane behaviour. A pane the root does not name gets its data
// through these, so adding one touches no root code.
type (
	clicker interface{ click(y int) tea.Cmd }
	paster  interface{ paste(tea.PasteMsg) tea.Cmd }
	// dataLoader loads what the pane shows: when the TUI starts and
	// again when entries arrive or ctrl+r re-indexes.
	dataLoader interface{ loadData() tea.Cmd }
	// receiver takes the messages its own commands return: the root gives
	// every message it does not route itself to each receiver.
	receiver interface{ receive(tea.Msg) tea.Cmd }
)
