package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// usersaid holds real lines in which the person speaks other than in a
// typed prompt: see testdata/usersaid/README.md.
func usersaid() string { return filepath.Join(testutil.RepoRoot(), "testdata", "usersaid") }

// TestShowPrintsWhatTheUserSaid: show prints a rejection's reason under
// the call it rejected, the answer to Claude's question under the
// question, and a prompt only ever queued as the person's turn; queued
// prompts later sent as prompts are printed once, as prompts.
func TestShowPrintsWhatTheUserSaid(t *testing.T) {
	for _, c := range []struct {
		sid  string
		want []string
		once []string
	}{
		{"7acd37a8", []string{"  ● Bash(npm install)\n    ↩ rejected `npm install`: use pnpm\n"},
			[]string{"ok, fine, let's do vite", "I have both Node and Python"}},
		{"4d5611e5", []string{"    ↩ answer: Pre-commit hook blocks on pre-existing dialyzer/credo issues in waiting_summary.ex (not our code). How should we proceed? → main was clean; fix the issues\n"}, nil},
		{"258c7280", []string{"▶ You · ", "\n  queued: check again\n", "\n  queued: new beads for the epic were added. tackle them\n"},
			[]string{"queued: check again"}},
	} {
		out, _, err := run(t, "show", c.sid, "--claude-dir", usersaid())
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("show %s lacks %q:\n%s", c.sid, w, out)
			}
		}
		for _, w := range c.once {
			if n := strings.Count(out, "\n  "+w); n != 1 {
				t.Errorf("show %s prints %q %d times, want once:\n%s", c.sid, w, n, out)
			}
		}
		if strings.Contains(out, "The user provided the following reason") || strings.Contains(out, "User has answered your questions") {
			t.Errorf("show %s prints Claude Code's wrapping of the person's words:\n%s", c.sid, out)
		}
	}
	out, _, err := run(t, "show", "258c7280", "--claude-dir", usersaid())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Index(out, "queued: check again") > strings.Index(out, "did you push?") {
		t.Errorf("the queued prompts are not where they were typed:\n%s", out)
	}
}

// TestVSCodePromptWrittenAgainIsOnePrompt: the VS Code extension wrote a
// prompt as the whole message, then each block again with the same
// timestamp; show prints it once and sessions counts one prompt.
func TestVSCodePromptWrittenAgainIsOnePrompt(t *testing.T) {
	data := t.TempDir()
	out, _, err := run(t, "show", "9e953218", "--claude-dir", usersaid(), "--data", data)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "▶ You"); n != 1 {
		t.Errorf("%d turns of the person, want 1:\n%s", n, out)
	}
	if n := strings.Count(out, "\n  I have @public/tokenizer.css"); n != 1 {
		t.Errorf("the prompt is printed %d times, want once:\n%s", n, out)
	}
	if !strings.Contains(out, "Counts  1 prompts,") {
		t.Errorf("show counts the prompt more than once:\n%s", out)
	}
	out, _, err = run(t, "sessions", "--claude-dir", usersaid(), "--data", data, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var ss []SessionJSON
	if err := json.Unmarshal([]byte(out), &ss); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"7acd37a8": 2, "4d5611e5": 1, "258c7280": 4, "9e953218": 1}
	for _, s := range ss {
		if n, ok := want[s.ID[:8]]; ok && s.Prompts != n {
			t.Errorf("sessions counts %d prompts in %s, want %d", s.Prompts, s.ID[:8], n)
		}
		delete(want, s.ID[:8])
	}
	if len(want) > 0 {
		t.Errorf("sessions lists none of %v", want)
	}
}
