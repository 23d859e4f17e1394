package hook_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/memories"
)

// A project kept out of cairn (index.exclude) gets nothing injected at
// session start or on a prompt, although approved memories match it.
func TestOptedOutProjectGetsNoContext(t *testing.T) {
	e := newSyncedEnv(t)
	e.addMemory(t, demoProject, memories.Decision, "The TODO app keeps state in a React context, not Redux", memories.Approved, 5)
	sid := "11111111-2222-3333-4444-555555555557"
	start := input("SessionStart", sid, e.transcript(demoFolder, sid), map[string]any{"source": "startup"})
	prompt := input("UserPromptSubmit", sid, e.transcript(demoFolder, sid), map[string]any{"prompt": "where does the TODO app keep its state, React context or Redux?"})
	if r := e.run(t, start, nil); !strings.Contains(r.stdout, "React context") {
		t.Fatalf("before opting out, SessionStart lacks the memory: %q", r.stdout)
	}
	if err := os.WriteFile(filepath.Join(e.data, "config.toml"), []byte("[index]\nexclude = [\"/path/to\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{start, prompt} {
		r := e.run(t, in, nil)
		if r.code != 0 || strings.TrimSpace(r.stdout) != "" {
			t.Fatalf("opted-out project: exit %d, stdout %q", r.code, r.stdout)
		}
	}
	if !strings.Contains(e.logText(), "opted out (index.exclude /path/to)") {
		t.Fatalf("the log does not say why nothing was injected:\n%s", e.logText())
	}
}
