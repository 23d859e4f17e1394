package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
)

// No two enabled bindings one pane acts on (in a mode, with the root's
// global keys) share a key: the second would never fire.
func TestNoSharedKeysPerPane(t *testing.T) {
	k := DefaultKeyMap()
	if numPanes > 9 {
		t.Fatalf("%d panes: only 1…9 are digits", numPanes)
	}
	for pane := range numPanes {
		for _, typing := range []bool{false, true} {
			owner := map[string]string{}
			for _, b := range k.activeKeys(pane, typing) {
				if !b.Enabled() {
					continue
				}
				id := fmt.Sprint(b.Keys(), b.Help())
				for _, kk := range b.Keys() {
					if o, ok := owner[kk]; ok && o != id {
						t.Errorf("pane %s (typing %v): key %q is bound twice: %s and %s", paneName(pane), typing, kk, o, id)
					}
					owner[kk] = id
				}
			}
		}
	}
	// The editor and the help screen too.
	for name, bs := range map[string][]key.Binding{"editor": k.editorKeys(), "help": k.helpScreenKeys()} {
		owner := map[string]string{}
		for _, b := range bs {
			for _, kk := range b.Keys() {
				if o, ok := owner[kk]; ok && o != b.Help().Desc {
					t.Errorf("%s: key %q is bound twice: %s and %s", name, kk, o, b.Help().Desc)
				}
				owner[kk] = b.Help().Desc
			}
		}
	}
}

// Every key the full help (?) and the README list is one the keymap
// defines and has help for.
func TestFullHelpHasHelp(t *testing.T) {
	for _, g := range DefaultKeyMap().FullHelp() {
		for _, b := range g.Keys {
			if len(b.Keys()) == 0 || b.Help().Key == "" || b.Help().Desc == "" {
				t.Errorf("group %s: a binding without keys or help: %+v", g.Title, b.Help())
			}
		}
	}
}

// Keys are matched against the keymap only: no other file names a key.
func TestKeysOnlyInKeymap(t *testing.T) {
	bad := regexp.MustCompile(`\.String\(\) ==|key\.WithKeys\(|key\.NewBinding\(|case "(enter|esc|up|down|pgup|pgdown|home|end|tab|[a-zA-Z0-9?/\[\]+=-])"`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f == "keys.go" || strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(b), "\n") {
			if bad.MatchString(l) {
				t.Errorf("%s:%d matches a key by name outside keys.go: %s", f, i+1, strings.TrimSpace(l))
			}
		}
	}
}

const readmePath = "../README.md"

// keysMarkdown is the README's key list, generated from the keymap: one
// table row per group, so the README stays short.
func keysMarkdown(k KeyMap) string {
	var b strings.Builder
	b.WriteString("<!-- Generated from tui/keys.go: go test ./tui/ -run TestREADMEKeys -update -->\n\n| where | keys |\n|---|---|\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, g := range k.FullHelp() {
		var items []string
		for _, kb := range g.Keys {
			var ks []string
			for _, kk := range kb.Keys() {
				ks = append(ks, "`"+cell(kk)+"`")
			}
			items = append(items, strings.Join(ks, " ")+" "+cell(kb.Help().Desc))
		}
		fmt.Fprintf(&b, "| %s | %s |\n", g.Title, strings.Join(items, " · "))
	}
	return b.String()
}

const keysStart, keysEnd = "<!-- keys:start -->\n", "<!-- keys:end -->"

// The README's key section is the keymap's; -update rewrites it.
func TestREADMEKeys(t *testing.T) {
	b, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, keysStart), strings.Index(s, keysEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the %q … %q markers", strings.TrimSpace(keysStart), keysEnd)
	}
	want := keysMarkdown(DefaultKeyMap())
	got := s[i+len(keysStart) : j]
	if got == want {
		return
	}
	if updating() {
		s = s[:i+len(keysStart)] + want + s[j:]
		if err := os.WriteFile(readmePath, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's key section differs from the keymap (go test ./tui/ -run TestREADMEKeys -update rewrites it)\n--- README\n%s\n--- keymap\n%s", got, want)
}

// A pane handles exactly the keys its paneSpec declares: the root hands
// it no other (while it does not type), and called directly, over loaded
// data (a session open, memories and drafts listed), no pane takes a key
// it has not declared. So the clash test above checks what panes handle,
// not a list kept beside them.
func TestPanesHandleOnlyDeclaredKeys(t *testing.T) {
	st := testStore(t)
	svc := testService(t, st)
	sid, _, _ := seedMemories(t, st, svc)
	if _, err := svc.Drafts.AddDraft(context.Background(), sid, "# A draft\n\n- a line"); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, 100, 30, st, svc)
	send(t, m, openSessionMsg{id: sid})
	if m.reader.conv == nil || len(m.mems.mems) == 0 || len(m.drafts.drafts) == 0 {
		t.Fatal("the fixture has no session open, memories or drafts")
	}
	// Every key name the keymap knows, and every letter and digit.
	names := map[string]bool{}
	k := DefaultKeyMap()
	for _, g := range k.FullHelp() {
		for _, b := range g.Keys {
			for _, kk := range b.Keys() {
				names[kk] = true
			}
		}
	}
	for i := range numPanes {
		for _, typing := range []bool{false, true} {
			for _, b := range k.activeKeys(i, typing) {
				for _, kk := range b.Keys() {
					names[kk] = true
				}
			}
		}
	}
	for r := ' ' + 1; r < 127; r++ {
		names[string(r)] = true
	}
	probed := 0
	for i := range numPanes {
		declared := paneRegistry[i].keys(&k, false)
		p := m.panes[i]
		if p.typing() {
			continue // Search: its query takes every key
		}
		for name := range names {
			msg := keyMsg(name)
			if msg.String() != name {
				continue // a name the test cannot type
			}
			if key.Matches(msg, declared...) || key.Matches(msg, k.Back) {
				continue
			}
			probed++
			if handled, _ := p.key(msg); handled || p.typing() {
				t.Errorf("%s handles %q, which its paneSpec.keys does not declare", paneName(i), name)
			}
		}
	}
	if probed < 100 {
		t.Fatalf("probed only %d undeclared keys", probed)
	}
	// Through the root, an undeclared key never reaches the pane: x
	// (reject in Memories and Drafts) does nothing in the timeline.
	press(t, m, "2")
	was := m.timeline.list.cursor
	wasFocus := m.focus
	press(t, m, "x", "a", "O")
	if m.focus != wasFocus || m.timeline.list.cursor != was || m.timeline.typing() {
		t.Fatal("undeclared keys changed the timeline")
	}
}
