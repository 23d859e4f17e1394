package tui

import "charm.land/bubbles/v2/key"

var readerPaneSpec = paneSpec{name: "Reader", short: "Read",
	build: func(c *common) pane { return newReaderPane(c) },
	keys: func(k *KeyMap, typing bool) []key.Binding {
		if typing {
			return []key.Binding{k.FindDone, k.FindOlder, k.FindNewer}
		}
		return append(k.List.bindings(), k.NextPrompt, k.PrevPrompt, k.Expand, k.ExpandAll, k.Thinking, k.Find,
			k.FindNext, k.FindPrev, k.CopyID, k.Export, k.Resume, k.ProjectFilter)
	},
	helpKeys: func(k *KeyMap) []key.Binding {
		return []key.Binding{k.Expand, k.ExpandAll, k.Thinking, k.NextPrompt, k.PrevPrompt, k.Find, k.FindOlder, k.FindNext, k.FindPrev,
			k.CopyID, k.Export, k.Resume}
	},
}
