package hook_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/memories"
)

// TestUserPromptNonsenseInjectsNothing (issue 15.4): the UserPromptSubmit
// hook selects memories through the relevance floor (memories.Service.Rank):
// with the built-in vectors trained and even a permissive threshold, a
// prompt sharing no word with any memory injects nothing, while a prompt
// about a memory still gets it.
func TestUserPromptNonsenseInjectsNothing(t *testing.T) {
	e := newSyncedEnv(t)
	ctx := context.Background()
	st, err := index.Open(e.data)
	if err != nil {
		t.Fatal(err)
	}
	m, err := st.Derived().BuiltinEmbedder(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Derived().EmbedQueued(ctx, m, nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := os.WriteFile(filepath.Join(e.data, "config.toml"), []byte("[hooks]\nprompt_threshold = 0.01\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	id := e.addMemory(t, demoProject, memories.Gotcha, "Dialyzer builds its PLT on the first run, which is slow; later runs reuse it", memories.Approved, 4)
	e.addMemory(t, demoProject, memories.Fact, "Run mix phx.server in the background so the session is not blocked", memories.Approved, 3)
	tr := e.transcript(demoFolder, "55555555-3333-4444-5555-666666666666")
	for _, p := range []string{"zzzzqqqq-nothing-matches", "banana submarine orchestra", "lorem ipsum dolor sit amet"} {
		r := e.run(t, input("UserPromptSubmit", "55555555-3333-4444-5555-666666666666", tr, map[string]any{"prompt": p}), nil)
		if r.code != 0 || r.stdout != "" {
			t.Errorf("prompt %q injected %q (exit %d)", p, r.stdout, r.code)
		}
	}
	r := e.run(t, input("UserPromptSubmit", "55555555-3333-4444-5555-666666666666", tr, map[string]any{"prompt": "why is dialyzer so slow the first time?"}), nil)
	if !strings.Contains(r.stdout, id) {
		t.Fatalf("a prompt about the memory did not get it: %q", r.stdout)
	}
}
