package plugin

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/memories"
)

// TestSummarizeAsksForMinedSections: /summarize asks Claude for every
// section that approving its draft proposes memories from (Decisions
// among them), as README says.
func TestSummarizeAsksForMinedSections(t *testing.T) {
	var body string
	for _, c := range Commands() {
		if c.Name == "summarize" {
			body = string(c.Content)
		}
	}
	if body == "" {
		t.Fatal("no summarize command")
	}
	for _, s := range memories.MinedSections() {
		if !strings.Contains(body, "\n## "+s+"\n") {
			t.Errorf("/summarize does not ask for ## %s", s)
		}
	}
}
