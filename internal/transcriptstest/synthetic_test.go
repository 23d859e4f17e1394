package transcriptstest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
	"github.com/cairn-dev/cairn/transcripts"
)

// syntheticDir holds transcripts the real Claude Code CLI wrote offline
// (see its README): an API error, local commands answered "No response
// requested." and a `/clear` session.
var syntheticDir = filepath.Join(testutil.RepoRoot(), "memories", "testdata", "synthetic")

// TestSyntheticReplies: the entries Claude Code writes in Claude's place
// (model "<synthetic>", isApiErrorMessage) are known as such, are not
// Claude's turns (an API error is an error), and sessions made of them
// alone did no work.
func TestSyntheticReplies(t *testing.T) {
	tree, err := transcripts.Discover(syntheticDir)
	if err != nil {
		t.Fatal(err)
	}
	var synthetic, real []string
	for _, p := range tree.Projects {
		for _, f := range p.Files {
			if _, _, err := transcripts.ReadFile(f.Path, transcripts.Cursor{}, func(e *transcripts.Entry) error {
				if e.Type != "assistant" {
					return nil
				}
				if transcripts.IsSyntheticReply(e) {
					synthetic = append(synthetic, e.JoinedText())
				} else {
					real = append(real, e.JoinedText())
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(synthetic) != 3 || len(real) != 1 || real[0] != "The cache expires after ten minutes." {
		t.Fatalf("synthetic %q, real %q", synthetic, real)
	}
	res, err := Scan(context.Background(), tree, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Sessions {
		if strings.HasSuffix(s.ID, "0001") && (s.AssistantTurns != 0 || s.Errors != 1) {
			t.Errorf("API error session: %d turns, %d errors; want 0 and 1", s.AssistantTurns, s.Errors)
		}
		if strings.HasSuffix(s.ID, "0002") && s.AssistantTurns != 1 {
			t.Errorf("local commands session: %d turns, want 1 (the real answer)", s.AssistantTurns)
		}
	}
	for id, want := range map[string]bool{"11111111-aaaa-4bbb-8ccc-000000000001": false, "11111111-aaaa-4bbb-8ccc-000000000002": true,
		"4ee11dde-58b9-4c0a-90a4-9a46a8446d1f": false} {
		for _, s := range res.Sessions {
			if s.ID == id && s.HasWork() != want {
				t.Errorf("%s: HasWork %v, want %v", id, s.HasWork(), want)
			}
		}
	}
	for _, txt := range []string{"No response requested.", "API Error: 529 overloaded", "Prompt is too long"} {
		if !transcripts.IsSyntheticReplyText(txt) {
			t.Errorf("%q is Claude Code's own text", txt)
		}
	}
	for _, txt := range []string{"No response requested. But here is why:", "The API error was a timeout", ""} {
		if transcripts.IsSyntheticReplyText(txt) {
			t.Errorf("%q is Claude's", txt)
		}
	}
}
