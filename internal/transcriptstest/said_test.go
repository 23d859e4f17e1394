package transcriptstest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
	"github.com/cairn-dev/cairn/transcripts"
)

// TestUserSaidCountsAndConversation reads testdata/usersaid (real lines)
// without a store: prompts queued and later sent count once, prompts only
// queued count and are shown, and a VS Code prompt written again block by
// block is one prompt.
func TestUserSaidCountsAndConversation(t *testing.T) {
	dir := filepath.Join(testutil.RepoRoot(), "testdata", "usersaid")
	tree, err := transcripts.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Scan(context.Background(), tree, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"7acd37a8": 2, "4d5611e5": 1, "258c7280": 4, "9e953218": 1}
	for _, s := range res.Sessions {
		if n, ok := want[s.ID[:8]]; ok && s.Prompts != n {
			t.Errorf("session %s: %d prompts, want %d", s.ID[:8], s.Prompts, n)
		}
	}
	turns := func(id string) []string {
		c, err := LoadConversation(context.Background(), tree, id)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range c.Entries {
			if q := transcripts.QueuedText(&e); q != "" {
				out = append(out, "queued: "+q)
			} else if transcripts.IsRealPrompt(&e) {
				out = append(out, transcripts.OneLine(e.PromptText(), 30))
			}
			for _, s := range transcripts.EntrySaid(&e) {
				if s.Source != transcripts.SaidQueued {
					out = append(out, s.Source+": "+s.Text)
				}
			}
		}
		return out
	}
	for id, w := range map[string]string{
		"7acd37a8": "I have both Node and Python, …|ok, fine, let's do vite|rejection: use pnpm",
		"4d5611e5": "Work on bead spotter-dov. Run…|answer: main was clean; fix the issues",
		"258c7280": "Implement spotter-gqc|queued: check again|queued: new beads for the epic were added. tackle them|did you push?",
		"9e953218": "I have @public/tokenizer.css,…",
	} {
		if got := strings.Join(turns(id), "|"); got != w {
			t.Errorf("%s: the person's turns are\n%s\nwant\n%s", id, got, w)
		}
	}
}
