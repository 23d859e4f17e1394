package install

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/memories"
)

// The /remember command cairn installs offers exactly memories.Types.
func TestInstalledCommandsListMemoryTypes(t *testing.T) {
	for _, name := range []string{"", "mycairn"} {
		o := &Options{CommandName: name}
		md, ok := o.CommandFiles()["remember.md"]
		if !ok {
			t.Fatal("no remember.md")
		}
		if want := "one of: " + memories.TypeList(", ") + ";"; !strings.Contains(string(md), want) {
			t.Errorf("CommandName %q: remember.md does not contain %q:\n%s", name, want, md)
		}
	}
}
