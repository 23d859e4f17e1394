package mcpserver

import (
	"os"
	"strings"
	"testing"
)

// Every tool is named where a person looks for it: `cairn mcp --help`
// (cli/mcp.go) and the tool table of docs/claude-code-integration.md. A
// new tool that is served but named in neither compiles and passes
// everything else (docs/ARCHITECTURE.md, "Edits that compile and pass").
func TestEveryToolNamedInHelpAndDocs(t *testing.T) {
	files := map[string]func(name string) string{
		"../cli/mcp.go":                      func(n string) string { return n },
		"../docs/claude-code-integration.md": func(n string) string { return "| `" + n },
	}
	for path, mention := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for name := range toolDescriptions {
			if !strings.Contains(string(b), mention(name)) {
				t.Errorf("%s does not name the tool %s (%q)", path, name, mention(name))
			}
		}
	}
}
