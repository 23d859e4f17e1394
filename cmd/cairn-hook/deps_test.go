package main

import (
	"os/exec"
	"strings"
	"testing"
)

// lightDep are allowed under the prefixes below: no package initialisation
// to speak of (mmap-go maps the vector cache).
var lightDep = map[string]bool{
	"github.com/cairn-dev/cairn/index/ftsapi": true,
	"github.com/blevesearch/mmap-go":          true,
}

// The hook binary must not link bleve (or the TUI): their package
// initialisation alone would eat a fifth of a hook's 50 ms budget.
func TestHookBinaryStaysLean(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "github.com/cairn-dev/cairn/cmd/cairn-hook").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, heavy := range []string{"github.com/blevesearch/", "charm.land/", "github.com/cairn-dev/cairn/tui", "github.com/cairn-dev/cairn/index/fts"} {
			if strings.HasPrefix(dep, heavy) && !lightDep[dep] {
				t.Errorf("cairn-hook links %s", dep)
			}
		}
	}
}
