package config

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/configuration.md's configuration table from the Config struct")

const (
	tableStart = "<!-- config-table:start -->"
	tableEnd   = "<!-- config-table:end -->"
	regenerate = "go test ./config -run TestREADMEConfigTable -update"
)

// readmeSection is what docs/configuration.md holds between the markers.
func readmeSection() string {
	return "\n<!-- Generated from config/config.go: " + regenerate + " -->\n\n" + MarkdownTable() + "\n"
}

// TestREADMEConfigTable keeps docs/configuration.md's configuration table in step with
// the Config struct: every key, its default and its comment tag.
func TestREADMEConfigTable(t *testing.T) {
	path := filepath.Join("..", "docs", "configuration.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i, j := strings.Index(readme, tableStart), strings.Index(readme, tableEnd)
	if i < 0 || j < i || strings.Count(readme, tableStart) != 1 || strings.Count(readme, tableEnd) != 1 {
		t.Fatalf("docs/configuration.md needs one %s … %s pair in its Configuration section", tableStart, tableEnd)
	}
	i += len(tableStart)
	want := readmeSection()
	if readme[i:j] == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(readme[:i]+want+readme[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("docs/configuration.md's configuration table rewritten")
		return
	}
	t.Errorf("docs/configuration.md's configuration table differs from the Config struct; regenerate it with\n\t%s\ndocs/configuration.md has:\n%s\nwant:\n%s", regenerate, readme[i:j], want)
}

// Every setting has a description, every key is listed once, and the
// defaults as listed read back as Default().
func TestReference(t *testing.T) {
	ref := Reference()
	seen := map[string]bool{}
	var file strings.Builder
	section := ""
	for _, s := range ref {
		if s.Doc == "" {
			t.Errorf("%s has no comment tag", s.Key)
		}
		if seen[s.Key] {
			t.Errorf("%s listed twice", s.Key)
		}
		seen[s.Key] = true
		sec, key, ok := strings.Cut(s.Key, ".")
		if !ok || strings.Contains(key, ".") {
			t.Fatalf("key %q is not section.key", s.Key)
		}
		if sec != section {
			file.WriteString("[" + sec + "]\n")
			section = sec
		}
		file.WriteString(key + " = " + s.Default + "\n")
	}
	for _, k := range []string{"embedder.kind", "ollama.timeout", "search.fusion", "memories.auto_approve", "hooks.summaries"} {
		if !seen[k] {
			t.Errorf("%s missing from %v", k, ref)
		}
	}
	t.Setenv("OLLAMA_HOST", "")
	c, err := LoadFile(write(t, file.String()) + "/" + FileName)
	if err != nil {
		t.Fatalf("%v\n%s", err, file.String())
	}
	d := Default()
	if d.Memories.AutoApprove == nil {
		d.Memories.AutoApprove = []string{}
	}
	if !reflect.DeepEqual(c, d) {
		t.Errorf("the listed defaults read back as\n%+v\nnot\n%+v", c, d)
	}
}
