package install

import (
	"os/exec"
	"strings"
	"testing"
)

// The installer sits beside the hook handler, not above it: what both
// need (the events, their matchers, the hook log) is internal/hookspec.
func TestInstallDoesNotImportHook(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "github.com/cairn-dev/cairn/install").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, dep := range deps {
		if dep == "github.com/cairn-dev/cairn/hook" {
			t.Error("install imports github.com/cairn-dev/cairn/hook")
		}
	}
	if len(deps) < 10 {
		t.Fatalf("go list found %d dependencies: %q", len(deps), deps)
	}
}
