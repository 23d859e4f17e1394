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

// TestUserPromptEverydayQuestionInjectsNothing (issues 24.1, 23.8): with
// the built-in vectors trained and a permissive threshold, an everyday
// question sharing one common word with a memory ("fix", "players",
// "because", "sessions") injects nothing; a prompt about a memory, or
// naming its identifier, gets it.
func TestUserPromptEverydayQuestionInjectsNothing(t *testing.T) {
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
	flaky := e.addMemory(t, demoProject, memories.Gotcha, "To fix the flaky LiveView test, wait for the players list to render because it loads after mount", memories.Approved, 4)
	otel := e.addMemory(t, demoProject, memories.Gotcha, "Call :opentelemetry.set_text_map_propagators/1 in Application.start before the endpoint starts", memories.Approved, 3)
	const sid = "55555555-3333-4444-5555-777777777777"
	tr := e.transcript(demoFolder, sid)
	for _, p := range []string{"how do I fix a flat bicycle tire", "how many players are on a volleyball team",
		"what is my favourite pizza topping", "I asked because the sessions page is slow"} {
		r := e.run(t, input("UserPromptSubmit", sid, tr, map[string]any{"prompt": p}), nil)
		if r.code != 0 || r.stdout != "" {
			t.Errorf("prompt %q injected %q (exit %d)", p, r.stdout, r.code)
		}
	}
	r := e.run(t, input("UserPromptSubmit", sid, tr, map[string]any{"prompt": "the LiveView test is flaky again, can you look?"}), nil)
	if !strings.Contains(r.stdout, flaky) {
		t.Fatalf("a prompt about the memory did not get it: %q", r.stdout)
	}
	r = e.run(t, input("UserPromptSubmit", sid, tr, map[string]any{"prompt": "where does set_text_map_propagators go?"}), nil)
	if !strings.Contains(r.stdout, otel) {
		t.Fatalf("a prompt naming the identifier did not get its memory: %q", r.stdout)
	}
}
