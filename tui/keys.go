package tui

import "charm.land/bubbles/v2/key"

// KeyMap is the one definition of cairn's keys: every key is matched
// against it (no pane compares key names), the short help line, the full
// help screen (?) and the README's key section are drawn from it. Which
// of these keys a pane acts on, and its help group, the pane declares in
// its paneSpec (panes.go).
type KeyMap struct {
	// Global
	Quit, ForceQuit, Back, Help, Search, NextPane, PrevPane, Refresh key.Binding
	// HelpAnywhere opens the help from every pane, a text input too.
	HelpAnywhere key.Binding
	Panes        []key.Binding // the digits, one per pane (panes.go)

	// Lists: moving; moving while typing in a filter; the filter.
	List, TypingList listKeys
	Open, Filter     key.Binding
	Done             key.Binding // enter: finish typing in a filter

	// Timeline
	DateFilter, Resume key.Binding

	// Reader (it moves with List.Up/Down/PageUp/PageDown/Top/Bottom)
	Expand, Thinking, NextPrompt, PrevPrompt, Find, FindDone, FindOlder, FindNewer, FindNext, FindPrev, CopyID, Export, ExpandAll key.Binding

	// Search: results move with SearchList while browsing and with
	// SearchTyping while typing the query.
	Scope, Mode, Kind key.Binding
	ClearQuery        key.Binding // esc in Search, as its help says it (matched as Back)
	SearchTyping      listKeys

	// Memories and drafts
	Approve, Reject, ApproveSession, RejectSession, Edit, Delete, Undo, Mark, Merge, CycleType, ImportanceUp, ImportanceDown,
	StatusFilter, TypeFilter, ProjectFilter key.Binding
	TextUp, TextDown key.Binding // scroll the selected draft's text
	Stats            key.Binding // the memory store's stats, over the Memories pane

	// Editor
	Save, Cancel key.Binding
}

func bind(keys []string, help, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

// DefaultKeyMap returns cairn's keys.
func DefaultKeyMap() KeyMap {
	b := bind
	k := KeyMap{
		Quit:      b([]string{"q"}, "q", "quit"),
		ForceQuit: b([]string{"ctrl+c"}, "ctrl+c", "quit now"),
		Back:      b([]string{"esc"}, "esc", "back"),
		Help:      b([]string{"?"}, "?", "all keys"),
		// F1 is never text: the help from an input too.
		HelpAnywhere: b([]string{"f1"}, "f1", "all keys"),
		// / finds in the pane shown (Find, Filter); F searches everything.
		Search:   b([]string{"F"}, "F", "search everything"),
		NextPane: b([]string{"tab"}, "tab", "next pane"),
		PrevPane: b([]string{"shift+tab"}, "shift+tab", "previous pane"),
		Refresh:  b([]string{"ctrl+r"}, "ctrl+r", "re-index now"),

		List: listKeys{
			Up:       b([]string{"up", "k"}, "↑/k", "up"),
			Down:     b([]string{"down", "j"}, "↓/j", "down"),
			PageUp:   b([]string{"pgup", "ctrl+u", "ctrl+b"}, "pgup/^u", "page up"),
			PageDown: b([]string{"pgdown", "ctrl+d", "ctrl+f", "space"}, "pgdn/^d/spc", "page down"),
			Top:      b([]string{"g", "home"}, "g/home", "top"),
			Bottom:   b([]string{"G", "end"}, "G/end", "bottom"),
		},
		// While typing, letters and home/end belong to the text.
		TypingList: listKeys{
			Up:       b([]string{"up"}, "↑", "up"),
			Down:     b([]string{"down"}, "↓", "down"),
			PageUp:   b([]string{"pgup"}, "pgup", "page up"),
			PageDown: b([]string{"pgdown"}, "pgdn", "page down"),
			Top:      key.NewBinding(key.WithDisabled()),
			Bottom:   key.NewBinding(key.WithDisabled()),
		},
		Open:   b([]string{"enter"}, "enter", "open"),
		Filter: b([]string{"/", "f"}, "/", "filter"),
		Done:   b([]string{"enter"}, "enter", "done"),

		DateFilter: b([]string{"d"}, "d", "date range"),
		Resume:     b([]string{"r"}, "r", "resume in claude"),

		Expand:     b([]string{"enter", "o"}, "enter/o", "expand"),
		ExpandAll:  b([]string{"O"}, "O", "expand all tools"),
		Thinking:   b([]string{"t"}, "t", "thinking"),
		NextPrompt: b([]string{"]", "J"}, "]/J", "next prompt"),
		PrevPrompt: b([]string{"[", "K"}, "[/K", "prev prompt"),
		Find:       b([]string{"/", "f"}, "/", "find in session"),
		FindDone:   b([]string{"enter"}, "enter", "find"),
		FindOlder:  b([]string{"up"}, "↑", "earlier find (in /)"),
		FindNewer:  b([]string{"down"}, "↓", "later find (in f)"),
		FindNext:   b([]string{"n"}, "n", "next match"),
		FindPrev:   b([]string{"N"}, "N", "prev match"),
		CopyID:     b([]string{"y"}, "y", "copy id"),
		Export:     b([]string{"E"}, "E", "export .md"),

		Scope:      b([]string{"ctrl+s"}, "ctrl+s", "scope: project/all"),
		ClearQuery: b([]string{"esc"}, "esc", "clear, then back"),
		Mode:       b([]string{"ctrl+t"}, "ctrl+t", "mode"),
		Kind:       b([]string{"ctrl+k"}, "ctrl+k", "kind"),
		SearchTyping: listKeys{
			Up:       b([]string{"up", "ctrl+p"}, "↑/ctrl+p", "prev result"),
			Down:     b([]string{"down", "ctrl+n"}, "↓/ctrl+n", "next result"),
			PageUp:   b([]string{"pgup"}, "pgup", "page up"),
			PageDown: b([]string{"pgdown"}, "pgdn", "page down"),
			Top:      key.NewBinding(key.WithDisabled()),
			Bottom:   key.NewBinding(key.WithDisabled()),
		},

		Approve:        b([]string{"a"}, "a", "approve"),
		Reject:         b([]string{"x"}, "x", "reject"),
		ApproveSession: b([]string{"A"}, "A", "approve the session's pending"),
		RejectSession:  b([]string{"X"}, "X", "reject the session's pending"),
		Edit:           b([]string{"e"}, "e", "edit"),
		Delete:         b([]string{"D"}, "D", "delete"),
		Undo:           b([]string{"u"}, "u", "undo"),
		Mark:           b([]string{"m"}, "m", "mark for merge"),
		Merge:          b([]string{"M"}, "M", "merge marked into this"),
		CycleType:      b([]string{"t"}, "t", "change type"),
		ImportanceUp:   b([]string{"+", "="}, "+", "importance up"),
		ImportanceDown: b([]string{"-"}, "-", "importance down"),
		StatusFilter:   b([]string{"s"}, "s", "status filter"),
		TypeFilter:     b([]string{"T"}, "T", "type filter"),
		ProjectFilter:  b([]string{"p"}, "p", "scope: project/all"),
		Stats:          b([]string{"S"}, "S", "stats"),
		TextUp:         b([]string{"K", "["}, "K/[", "scroll text up"),
		TextDown:       b([]string{"J", "]"}, "J/]", "scroll text down"),

		Save:   b([]string{"ctrl+s"}, "ctrl+s", "save"),
		Cancel: b([]string{"esc"}, "esc", "cancel"),
	}
	k.Panes = paneKeyBindings()
	return k
}

// keyGroup is one titled set of keys: a column of the help screen and a
// table of the README.
type keyGroup struct {
	Title string
	Keys  []key.Binding
}

// FullHelp lists every key, grouped, for the ? screen and the README.
// Keys that go in pairs share a line, so a pane's keys with the ones of
// every pane fit 80×24 (view.go).
func (k KeyMap) FullHelp() []keyGroup {
	l := k.List
	both := func(a, b key.Binding, help, desc string) key.Binding {
		return bind(append(append([]string{}, a.Keys()...), b.Keys()...), help, desc)
	}
	groups := []keyGroup{
		{"Everywhere", []key.Binding{
			paneDigits(),
			both(k.NextPane, k.PrevPane, "tab/⇧tab", "next/previous pane"), k.Search, k.Back,
			both(k.Help, k.HelpAnywhere, "?/f1", "all keys (f1 in inputs)"), k.ProjectFilter, k.Refresh,
			both(k.Quit, k.ForceQuit, "q/^c", "quit")}},
		{"Lists", []key.Binding{both(l.Up, l.Down, "↑↓/kj", "up, down"), l.PageUp, l.PageDown,
			both(l.Top, l.Bottom, "g/G", "top, bottom"), k.Open, k.Filter}},
	}
	for _, s := range paneRegistry {
		if s.helpKeys == nil {
			continue
		}
		if bs := s.helpKeys(&k); len(bs) > 0 {
			groups = append(groups, keyGroup{s.name, bs})
		}
	}
	return append(groups, keyGroup{"Editor", []key.Binding{k.Save, k.Cancel}})
}

// globalKeys are the keys the root acts on; while typing only those that
// cannot be text.
func (k *KeyMap) globalKeys(typing bool) []key.Binding {
	if typing {
		return []key.Binding{k.ForceQuit, k.HelpAnywhere, k.NextPane, k.PrevPane, k.Back}
	}
	bs := []key.Binding{k.ForceQuit, k.Quit, k.Help, k.HelpAnywhere, k.Search, k.NextPane, k.PrevPane, k.Refresh, k.Back}
	return append(bs, k.Panes[:]...)
}

// activeKeys is every binding pane acts on in a mode (typing or not),
// as its paneSpec declares them, with the root's: no two of them may share
// a key (keys_test.go).
func (k *KeyMap) activeKeys(pane int, typing bool) []key.Binding {
	return append(paneRegistry[pane].keys(k, typing), k.globalKeys(typing)...)
}

// editorKeys are the keys of the editor (everything else is text).
func (k *KeyMap) editorKeys() []key.Binding { return []key.Binding{k.ForceQuit, k.Save, k.Cancel} }

// helpScreenKeys are the keys of the help screen.
func (k *KeyMap) helpScreenKeys() []key.Binding {
	return []key.Binding{k.ForceQuit, k.Help, k.HelpAnywhere, k.Back, k.Quit, k.List.Down, k.List.Up}
}
