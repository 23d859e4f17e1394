package memories

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/index"
)

// syntheticDir holds transcripts the real Claude Code CLI wrote offline
// (testdata/synthetic/README.md).
const syntheticDir = "testdata/synthetic"

const (
	synthAPIError = "11111111-aaaa-4bbb-8ccc-000000000001" // the API said "prompt is too long"
	synthLocal    = "11111111-aaaa-4bbb-8ccc-000000000002" // one answer, then /cost, /context, /compact
	synthClear    = "4ee11dde-58b9-4c0a-90a4-9a46a8446d1f" // `claude -p /clear`
	synthProject  = "/home/USER/proj"
)

// notWork are the texts Claude Code writes in Claude's place.
var notWork = []string{"No response requested", "Prompt is too long"}

// TestSummariesLeaveOutSyntheticLines: what Claude Code wrote in Claude's
// place (model "<synthetic>", API errors) never becomes a summary line, a
// session where Claude did nothing (a `/clear`, an API error) gets no
// summary, and neither reaches the SessionStart brief or the synthesis.
func TestSummariesLeaveOutSyntheticLines(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	if _, err := s.st.Sync(ctx, syntheticDir, index.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, sid := range []string{synthAPIError, synthLocal, synthClear} {
		if _, err := s.StoreSummary(ctx, sid); err != nil {
			t.Fatalf("%s: %v", sid, err)
		}
	}
	sums, err := s.Drafts.Summaries(ctx, synthProject, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 1 || sums[0].SessionID != synthLocal {
		t.Fatalf("summaries %+v, want only the session where Claude answered", sums)
	}
	sm := sums[0]
	if got := sm.Sections["Completed"]; len(got) != 1 || got[0] != "The cache expires after ten minutes." {
		t.Errorf("Completed %q, want Claude's answer", got)
	}
	for _, bad := range notWork {
		if strings.Contains(sm.Markdown, bad) {
			t.Errorf("summary holds %q:\n%s", bad, sm.Markdown)
		}
	}
	for _, sid := range []string{synthAPIError, synthClear} {
		rows, _ := s.st.Mem().Summaries(ctx, sid, "", 1)
		if len(rows) != 0 {
			t.Errorf("session %s did no work but has a stored summary: %+v", sid, rows[0])
		}
	}
	b, err := s.Recall.Brief(ctx, synthProject, BriefOptions{Summaries: 5})
	if err != nil || len(b.Summaries) != 1 {
		t.Fatalf("brief summaries %d, %v", len(b.Summaries), err)
	}
	syn, err := s.Drafts.Synthesize(ctx, synthProject, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range notWork {
		if strings.Contains(syn.Markdown, bad) {
			t.Errorf("synthesis holds %q:\n%s", bad, syn.Markdown)
		}
	}
}

// TestStoredSummariesAreCleanedOnRead: summaries stored before synthetic
// lines were left out (empty lines and "No response requested." among
// them, or nothing but the request) never reach the brief.
func TestStoredSummariesAreCleanedOnRead(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for _, r := range []*index.SummaryRow{
		{Session: "s-old", Project: "/p", Source: "heuristic", Created: now, Markdown: "# Fix the cache\n\n## Completed\n\n- No response requested.\n",
			Sections: map[string][]string{"Request": {"fix the cache"}, "Completed": {"No response requested.", "", "Fixed the expiry check in cache.go."}}},
		{Session: "s-idle", Project: "/p", Source: "heuristic", Created: now.Add(time.Hour), Markdown: "# /clear\n",
			Sections: map[string][]string{"Request": {"why is it slow?"}, "Completed": {"Prompt is too long · the request is ~212345 tokens"}, "Notes": {"0 prompts"}}},
	} {
		if err := s.st.Mem().SaveSummary(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	sums, err := s.Drafts.Summaries(ctx, "/p", 5)
	if err != nil || len(sums) != 1 || sums[0].SessionID != "s-old" {
		t.Fatalf("summaries %+v %v: want only s-old", sums, err)
	}
	if got := sums[0].Sections["Completed"]; len(got) != 1 || strings.Contains(sums[0].Markdown, "No response") {
		t.Errorf("cleaned summary: %q\n%s", got, sums[0].Markdown)
	}
}
