package mcpserver

import (
	"slices"
	"testing"
)

// memory_search says why each memory was chosen: the query's words it
// holds.
func TestSearchSaysWhichWordsMatched(t *testing.T) {
	f := newMemFixture(t)
	var rem map[string]any
	f.call(t, "memory_remember", map[string]any{"content": "The TODO app keeps its state in a React context, not Redux", "type": "decision"}, &rem, false)
	var out MemListOut
	f.call(t, "memory_search", map[string]any{"query": "React context state"}, &out, false)
	if out.Total == 0 {
		t.Fatalf("nothing found: %+v", out)
	}
	if got := out.Memories[0].Matched; !slices.Equal(got, []string{"React", "context", "state"}) {
		t.Fatalf("matched %q, want the query's words the memory holds", got)
	}
}
