package memories

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/testutil"
)

// TestSummaryShowsWhatTheUserSaid: in the heuristic summary, a rejection's
// reason, an AskUserQuestion answer and a prompt only ever queued are what
// the user said (testdata/usersaid: real lines), not the request; queued
// prompts later sent as prompts are prompts.
func TestSummaryShowsWhatTheUserSaid(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	if _, err := s.st.Sync(ctx, filepath.Join(testutil.RepoRoot(), "testdata", "usersaid"), index.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sid     string
		said    []string
		request string
	}{
		{"7acd37a8", []string{"rejected `npm install`: use pnpm"}, "ok, fine, let's do vite"},
		{"4d5611e5", []string{"answer: main was clean; fix the issues"}, "Work on bead spotter-dov."},
		{"258c7280", []string{"queued: check again", "queued: new beads for the epic were added. tackle them"}, "Implement spotter-gqc"},
	} {
		sm, err := s.Drafts.Summary(ctx, c.sid)
		if err != nil {
			t.Fatal(err)
		}
		if got := sm.Sections["User said"]; !slices.Equal(got, c.said) {
			t.Errorf("%s: User said %q, want %q\n%s", c.sid, got, c.said, sm.Markdown)
		}
		req := strings.Join(sm.Sections["Request"], "\n")
		if !strings.Contains(req, c.request) {
			t.Errorf("%s: Request %q lacks %q", c.sid, req, c.request)
		}
		for _, said := range c.said {
			if words := said[strings.Index(said, ": ")+2:]; strings.Contains(req, words) {
				t.Errorf("%s: %q is in the Request: %q", c.sid, words, req)
			}
		}
		if !strings.Contains(sm.Markdown, "## User said\n\n- "+c.said[0]) {
			t.Errorf("%s: the summary does not render what the user said:\n%s", c.sid, sm.Markdown)
		}
	}
}
