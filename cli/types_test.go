package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/memories"
	"github.com/spf13/cobra"
)

// TestTypeFlagsListMemoryTypes: every --type flag whose help names memory
// types names all of them, from memories.Types.
func TestTypeFlagsListMemoryTypes(t *testing.T) {
	root := NewRoot(&Options{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Stdin: strings.NewReader("")})
	listing := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if f := c.LocalFlags().Lookup("type"); f != nil {
			names := 0
			for _, n := range memories.TypeNames() {
				if strings.Contains(f.Usage, n) {
					names++
				}
			}
			// "new type", "only these types": no list to check.
			if names > 0 {
				listing++
				if !strings.Contains(f.Usage, memories.TypeList(", ")) && !strings.Contains(f.Usage, memories.TypeChoice()) {
					t.Errorf("%s --type: %q does not list the memory types (%s)", c.CommandPath(), f.Usage, memories.TypeList(", "))
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	// remember, memories add and memories list at least.
	if listing < 3 {
		t.Errorf("only %d --type flags list the types", listing)
	}
}
