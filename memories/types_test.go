package memories

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestTypeNames(t *testing.T) {
	names := TypeNames()
	if len(names) != len(Types) {
		t.Fatalf("%d names for %d types", len(names), len(Types))
	}
	for i, ty := range Types {
		if names[i] != string(ty) {
			t.Errorf("name %d: %s, want %s", i, names[i], ty)
		}
		if typeHints[ty] == "" {
			t.Errorf("type %s has no hint for the Ollama prompt", ty)
		}
		if got, err := ParseType(strings.ToUpper(string(ty)) + "s"); err != nil || got != ty {
			t.Errorf("ParseType(%s): %v %v", ty, got, err)
		}
	}
	if len(typeHints) != len(Types) {
		t.Errorf("hints for %d types, there are %d", len(typeHints), len(Types))
	}
	if got, want := TypeList(", "), strings.Join(names, ", "); got != want {
		t.Errorf("TypeList %q", got)
	}
	if got := TypeChoice(); !strings.HasSuffix(got, ", "+names[len(names)-2]+" or "+names[len(names)-1]) || !strings.HasPrefix(got, names[0]+", ") {
		t.Errorf("TypeChoice %q", got)
	}
	if _, err := ParseType("nonsense"); err == nil || !strings.Contains(err.Error(), TypeList(", ")) {
		t.Errorf("ParseType error does not list the types: %v", err)
	}
}

// The model is asked for exactly the types there are.
func TestOllamaSchemaAndPromptTypes(t *testing.T) {
	var sch struct {
		Properties struct {
			Memories struct {
				Items struct {
					Properties struct {
						Type struct {
							Enum []string `json:"enum"`
						} `json:"type"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"memories"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(ollamaSchema), &sch); err != nil {
		t.Fatalf("ollamaSchema is not JSON: %v", err)
	}
	if got := sch.Properties.Memories.Items.Properties.Type.Enum; !slices.Equal(got, TypeNames()) {
		t.Errorf("schema enum %v, want %v", got, TypeNames())
	}
	for _, ty := range Types {
		if !strings.Contains(ollamaSystem, "\n- "+string(ty)+": ") {
			t.Errorf("prompt does not explain type %s:\n%s", ty, ollamaSystem)
		}
	}
}

var (
	typeWordRE = regexp.MustCompile(`\b[a-z]+\b`)
	// What may stand between two names of one list: punctuation, quotes,
	// backticks, "or", "and", line breaks.
	typeSepRE = regexp.MustCompile("^(?:[\\s,;|/\"'`]|\\bor\\b|\\band\\b)*$")
)

// typeLists finds the lists of memory type names in text: runs of at least
// minRun names separated only by punctuation, "or" and "and".
func typeLists(text string, minRun int) [][]string {
	var out [][]string
	var run []string
	end := -1
	flush := func() {
		if len(run) >= minRun {
			out = append(out, run)
		}
		run = nil
	}
	for _, m := range typeWordRE.FindAllStringIndex(text, -1) {
		w := text[m[0]:m[1]]
		if !slices.Contains(Types, Type(w)) {
			continue
		}
		if run != nil && !typeSepRE.MatchString(text[end:m[0]]) {
			flush()
		}
		run = append(run, w)
		end = m[1]
	}
	flush()
	return out
}

func TestTypeListsFinder(t *testing.T) {
	for text, want := range map[string]int{
		"one of: decision, architecture, pattern, gotcha, preference; and": 1,
		"`decision`, `architecture`,\n`pattern`, `gotcha` or `fact`":       1,
		`"enum":["decision","gotcha","fact","context"]`:                    1,
		"a decision, a gotcha, a fact, a context":                          0, // prose, not a list
		"decisions, gotchas, preferences, facts":                           0, // plurals: examples
		"decision, gotcha, fact":                                           0, // too short to be the list
	} {
		if got := typeLists(text, 4); len(got) != want {
			t.Errorf("%q: %d lists %v, want %d", text, len(got), got, want)
		}
	}
}

// TestTypeListsInRepo: every list of memory types spelled out in the
// repository (slash commands, which `cairn install` copies verbatim but for
// the command name, the README, struct tags of the MCP tools, flag help)
// is exactly Types, in order. Lists built at run time (TypeList,
// TypeChoice) do not appear in the sources, so only hand-written lists
// can fail here: add a type and this names every text to update.
func TestTypeListsInRepo(t *testing.T) {
	root := filepath.Join("..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Skip("not in the repository")
	}
	want := TypeNames()
	checked := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "third_party" || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(name)
		if (ext != ".go" && ext != ".md" && ext != ".json" && ext != ".toml") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, l := range typeLists(string(b), 4) {
			checked++
			t.Logf("%s: %d names", p, len(l))
			if !slices.Equal(l, want) {
				t.Errorf("%s lists the memory types as %v; memories.Types is %v", p, l, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The slash command /remember and the README list them at least.
	if checked < 2 {
		t.Errorf("found only %d type lists in the repository", checked)
	}
}
