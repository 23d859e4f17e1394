package tui

import "charm.land/bubbles/v2/key"

// KeyMap is the one definition of cairn's keys: Update matches against it,
// the short help line and the full help screen (?) are drawn from it.
type KeyMap struct {
	// Global
	Quit, ForceQuit, Back, Help, Search, NextPane, PrevPane, Refresh key.Binding
	Panes                                                            [6]key.Binding

	// Moving in lists and the reader
	Up, Down, PageUp, PageDown, Top, Bottom, Open, Filter key.Binding

	// Timeline
	DateFilter, Resume key.Binding

	// Reader
	Expand, Thinking, NextPrompt, PrevPrompt, Find, FindNext, FindPrev, CopyID, Export, ExpandAll key.Binding

	// Search
	Scope, Mode, Kind, ResultUp, ResultDown key.Binding

	// Memories and drafts
	Approve, Reject, Edit, Delete, Undo, Mark, Merge, CycleType, ImportanceUp, ImportanceDown,
	StatusFilter, TypeFilter, ProjectFilter key.Binding

	// Editor
	Save, Cancel key.Binding
}

// DefaultKeyMap returns cairn's keys.
func DefaultKeyMap() KeyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	k := KeyMap{
		Quit:      b([]string{"q"}, "q", "quit"),
		ForceQuit: b([]string{"ctrl+c"}, "ctrl+c", "quit now"),
		Back:      b([]string{"esc"}, "esc", "back"),
		Help:      b([]string{"?"}, "?", "all keys"),
		Search:    b([]string{"/"}, "/", "search"),
		NextPane:  b([]string{"tab"}, "tab", "next pane"),
		PrevPane:  b([]string{"shift+tab"}, "shift+tab", "previous pane"),
		Refresh:   b([]string{"ctrl+r"}, "ctrl+r", "re-index now"),

		Up:       b([]string{"up", "k"}, "↑/k", "up"),
		Down:     b([]string{"down", "j"}, "↓/j", "down"),
		PageUp:   b([]string{"pgup", "ctrl+u", "ctrl+b"}, "pgup/^u", "page up"),
		PageDown: b([]string{"pgdown", "ctrl+d", "ctrl+f", "space"}, "pgdn/^d/spc", "page down"),
		Top:      b([]string{"g", "home"}, "g/home", "top"),
		Bottom:   b([]string{"G", "end"}, "G/end", "bottom"),
		Open:     b([]string{"enter"}, "enter", "open"),
		Filter:   b([]string{"f"}, "f", "filter"),

		DateFilter: b([]string{"d"}, "d", "date range"),
		Resume:     b([]string{"r"}, "r", "resume in claude"),

		Expand:     b([]string{"enter", "o"}, "enter/o", "expand"),
		ExpandAll:  b([]string{"O"}, "O", "expand all tools"),
		Thinking:   b([]string{"t"}, "t", "thinking"),
		NextPrompt: b([]string{"]", "J"}, "]/J", "next prompt"),
		PrevPrompt: b([]string{"[", "K"}, "[/K", "prev prompt"),
		Find:       b([]string{"f"}, "f", "find in session"),
		FindNext:   b([]string{"n"}, "n", "next match"),
		FindPrev:   b([]string{"N"}, "N", "prev match"),
		CopyID:     b([]string{"y"}, "y", "copy id"),
		Export:     b([]string{"e"}, "e", "export .md"),

		Scope:      b([]string{"ctrl+s"}, "ctrl+s", "scope"),
		Mode:       b([]string{"ctrl+t"}, "ctrl+t", "mode"),
		Kind:       b([]string{"ctrl+k"}, "ctrl+k", "kind"),
		ResultUp:   b([]string{"up", "ctrl+p"}, "↑/ctrl+p", "prev result"),
		ResultDown: b([]string{"down", "ctrl+n"}, "↓/ctrl+n", "next result"),

		Approve:        b([]string{"a"}, "a", "approve"),
		Reject:         b([]string{"x"}, "x", "reject"),
		Edit:           b([]string{"e"}, "e", "edit"),
		Delete:         b([]string{"d"}, "d", "delete"),
		Undo:           b([]string{"u"}, "u", "undo delete"),
		Mark:           b([]string{"m"}, "m", "mark for merge"),
		Merge:          b([]string{"M"}, "M", "merge marked into this"),
		CycleType:      b([]string{"t"}, "t", "change type"),
		ImportanceUp:   b([]string{"+", "="}, "+", "importance up"),
		ImportanceDown: b([]string{"-"}, "-", "importance down"),
		StatusFilter:   b([]string{"s"}, "s", "status filter"),
		TypeFilter:     b([]string{"T"}, "T", "type filter"),
		ProjectFilter:  b([]string{"p"}, "p", "project filter"),

		Save:   b([]string{"ctrl+s"}, "ctrl+s", "save"),
		Cancel: b([]string{"esc"}, "esc", "cancel"),
	}
	names := []string{"projects", "timeline", "reader", "search", "memories", "drafts"}
	for i := range k.Panes {
		d := string(rune('1' + i))
		k.Panes[i] = b([]string{d}, d, names[i])
	}
	return k
}

// helpGroup is one titled column of the full help screen.
type helpGroup struct {
	Title string
	Keys  []key.Binding
}

// FullHelp lists every key, grouped, for the ? screen.
func (k KeyMap) FullHelp() []helpGroup {
	return []helpGroup{
		{"Everywhere", []key.Binding{
			key.NewBinding(key.WithKeys("1"), key.WithHelp("1…6", "switch pane")),
			k.NextPane, k.PrevPane, k.Search, k.Back, k.Help, k.Refresh, k.Quit, k.ForceQuit}},
		{"Lists", []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Open, k.Filter, k.DateFilter, k.Resume}},
		{"Reader", []key.Binding{k.Expand, k.ExpandAll, k.Thinking, k.NextPrompt, k.PrevPrompt, k.Find, k.FindNext, k.FindPrev,
			k.CopyID, k.Export, k.Resume}},
		{"Search", []key.Binding{k.ResultUp, k.ResultDown, k.Open, k.Scope, k.Mode, k.Kind}},
		{"Memories & drafts", []key.Binding{k.Approve, k.Reject, k.Edit, k.Delete, k.Undo, k.Mark, k.Merge, k.CycleType,
			k.ImportanceUp, k.ImportanceDown, k.StatusFilter, k.TypeFilter, k.ProjectFilter, k.Open}},
		{"Editor", []key.Binding{k.Save, k.Cancel}},
	}
}
