package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/memories"
)

// TestToolTypeParamsListMemoryTypes: the "type" parameter of the memory
// tools, as a client sees it, names every memory type, in the order of
// memories.Types (struct tags cannot be generated, so this pins them).
func TestToolTypeParamsListMemoryTypes(t *testing.T) {
	f := newMemFixture(t)
	tools, err := f.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, tl := range tools.Tools {
		b, _ := json.Marshal(tl.InputSchema)
		var sch struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(b, &sch); err != nil {
			t.Fatal(err)
		}
		p, ok := sch.Properties["type"]
		if !ok || !strings.HasPrefix(tl.Name, "memory_") {
			continue
		}
		seen++
		if !strings.Contains(p.Description, memories.TypeChoice()) {
			t.Errorf("%s: type is described as %q, want the list %q", tl.Name, p.Description, memories.TypeChoice())
		}
	}
	if seen < 2 {
		t.Errorf("only %d memory tools take a type", seen)
	}
	if typeNames() != memories.TypeList(", ") {
		t.Errorf("typeNames() = %q", typeNames())
	}
}
