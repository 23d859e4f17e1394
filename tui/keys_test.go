package tui

import (
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
						t.Errorf("pane %s (typing %v): key %q is bound twice: %s and %s", paneNames[pane], typing, kk, o, id)
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
