package tui

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/memories"
	"github.com/cairn-dev/cairn/theme"
)

// TestStaleLines: the inbox marks a memory whose source files changed or
// are gone, and says nothing when none did.
func TestStaleLines(t *testing.T) {
	sty := theme.New(true, true).Styles()
	if got := staleLines([]memories.SourceFile{{Path: "a.go"}}, sty, 100); got != nil {
		t.Fatalf("unchanged files marked: %q", got)
	}
	got := strings.Join(staleLines([]memories.SourceFile{{Path: "a.go"}, {Path: "deploy.sh", Changed: true}, {Path: "old.txt", Missing: true}}, sty, 200), "\n")
	for _, want := range []string{"stale?", "2 of 3", "deploy.sh (changed)", "old.txt (gone)"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q misses %q", got, want)
		}
	}
}
