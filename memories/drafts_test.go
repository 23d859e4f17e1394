package memories

import (
	"context"
	"errors"
	"strings"
	"testing"
)

const goodDraft = `# Session summary

## Request
- Make the websocket tests reliable

## Decisions
- Use exponential backoff capped at 30s for reconnects

## Discoveries
- The root cause was a race between ` + "`close()`" + ` and the reconnect timer

## Learned
- CI runners have only two cores, so parallel tests time out

## Next steps
- Add a soak test
`

func TestDrafts(t *testing.T) {
	ctx := context.Background()
	s := sampleService(t)
	d, err := s.Drafts.AddDraft(ctx, sampleSpotter[:8], goodDraft)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != "pending" || d.SessionID != sampleSpotter || d.Project == "" {
		t.Fatalf("draft: %+v", d)
	}
	ds, _ := s.Drafts.Drafts(ctx, "pending")
	if len(ds) != 1 || ds[0].ID != d.ID {
		t.Fatalf("pending drafts: %+v", ds)
	}
	c, _ := s.Counts(ctx)
	if c.PendingDrafts != 1 {
		t.Fatalf("counts: %+v", c)
	}
	got, err := s.Drafts.Draft(ctx, d.ID[2:7])
	if err != nil || got.ID != d.ID {
		t.Fatalf("by prefix: %v", err)
	}
	edited := strings.Replace(goodDraft, "30s", "60s", 1)
	if d, err = s.Drafts.EditDraft(ctx, d.ID, edited); err != nil || !strings.Contains(d.Markdown, "60s") {
		t.Fatalf("edit: %v %+v", err, d)
	}
	d, results, err := s.Drafts.ApproveDraft(ctx, d.ID)
	if err != nil || d.Status != "approved" {
		t.Fatalf("approve: %v %+v", err, d)
	}
	types := map[Type]int{}
	for _, r := range results {
		types[r.Memory.Type]++
		if r.Memory.Status != Pending || r.Memory.Origin != OriginDraft || r.Memory.SourceSession != sampleSpotter {
			t.Fatalf("proposed memory: %+v", r.Memory)
		}
	}
	if len(results) != 3 || types[Decision] != 1 || types[Bugfix] != 1 || types[Fact] != 1 {
		t.Fatalf("proposals from Decisions/Discoveries/Learned: %v", types)
	}
	sum, err := s.Drafts.Summary(ctx, sampleSpotter)
	if err != nil || sum.Source != "draft" || len(sum.Sections["Next steps"]) != 1 || !strings.Contains(sum.Markdown, "soak test") {
		t.Fatalf("summary: %v %+v", err, sum)
	}
	sums, _ := s.Drafts.Summaries(ctx, "", 10)
	if len(sums) != 1 {
		t.Fatalf("summaries: %d", len(sums))
	}
	d2, err := s.Drafts.AddDraft(ctx, sampleSpotter, goodDraft)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Drafts.RejectDraft(ctx, d2.ID); err != nil {
		t.Fatal(err)
	}
	if d2, _ = s.Drafts.Draft(ctx, d2.ID); d2.Status != "rejected" {
		t.Fatalf("rejected: %+v", d2)
	}
}

func TestDraftBadInput(t *testing.T) {
	ctx := context.Background()
	s := sampleService(t)
	for name, md := range map[string]string{
		"empty":     "  \n\t\n",
		"oversized": "## Notes\n" + strings.Repeat("- a line of text that goes on\n", MaxDraftBytes/20),
		"binary":    "## Notes\n\x00\x01\x02 binary",
		"invalid":   "## Notes\n\xff\xfe",
		"headings":  "# Title\n## Request\n## Learned\n",
	} {
		if _, err := s.Drafts.AddDraft(ctx, sampleSpotter, md); !errors.Is(err, ErrBadDraft) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := s.Drafts.AddDraft(ctx, "deadbeef-0000-0000", goodDraft); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "deadbeef") {
		t.Errorf("unknown session: %v", err)
	}
	if _, err := s.Drafts.AddDraft(ctx, "", goodDraft); err == nil {
		t.Error("no session accepted")
	}
	if _, _, err := s.Drafts.ApproveDraft(ctx, "d-ffffffff"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown draft: %v", err)
	}
	if ds, _ := s.Drafts.Drafts(ctx, "all"); len(ds) != 0 {
		t.Fatalf("bad input stored %d drafts", len(ds))
	}
}

func TestParseSections(t *testing.T) {
	sec, order := ParseSections("intro line\n# Title\n## Key Decisions\n- one\n* two\n1. three\n**Learned:**\n- four\n```\n- not an item\n```\n### Custom Part\ntext\n")
	if strings.Join(sec["Decisions"], "|") != "one|two|three" || strings.Join(sec["Learned"], "|") != "four" ||
		strings.Join(sec["Custom Part"], "|") != "text" || strings.Join(sec["Notes"], "|") != "intro line" {
		t.Fatalf("sections %v", sec)
	}
	if order[0] != "Notes" {
		t.Fatalf("order %v", order)
	}
}

func TestHeuristicSummary(t *testing.T) {
	ctx := context.Background()
	s := sampleService(t)
	sum, err := s.Drafts.Summary(ctx, sampleSpotter)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Source != "heuristic" || len(sum.Sections["Request"]) == 0 || !strings.HasPrefix(sum.Markdown, "# ") {
		t.Fatalf("summary: %+v", sum)
	}
	if stored, _ := s.Drafts.Summaries(ctx, "", 0); len(stored) != 0 {
		t.Fatal("Summary stored a heuristic summary")
	}
	if _, err := s.StoreSummary(ctx, sampleSpotter); err != nil {
		t.Fatal(err)
	}
	if stored, _ := s.Drafts.Summaries(ctx, "", 0); len(stored) != 1 {
		t.Fatal("StoreSummary did not store")
	}
	if _, err := s.Drafts.Summary(ctx, "0000000000"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
}
