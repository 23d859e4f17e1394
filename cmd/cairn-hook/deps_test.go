package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The hook binary must not link bleve (or the TUI): their package
// initialisation alone would eat a fifth of a hook's 50 ms budget.
func TestHookBinaryStaysLean(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/cairn-dev/cairn/cmd/cairn-hook").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, heavy := range []string{"github.com/blevesearch/", "charm.land/", "github.com/cairn-dev/cairn/tui", "github.com/cairn-dev/cairn/index/fts"} {
			if strings.HasPrefix(dep, heavy) && dep != "github.com/cairn-dev/cairn/index/ftsapi" {
				t.Errorf("cairn-hook links %s", dep)
			}
		}
	}
}
