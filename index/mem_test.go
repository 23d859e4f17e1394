package index

import (
	"context"
	"testing"
	"time"
)

// TestMemoryDocsSearchable: memories and session summaries are documents of
// the full-text index, found with Kinds memories and summaries; a rejected
// memory leaves the index.
func TestMemoryDocsSearchable(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	now := time.Now().UTC()
	m := &MemRow{ID: "m-0000aaaa", Project: "/p", Type: "decision", Content: "We settled on zeppelinoid queues for billing",
		Tags: []string{"billing"}, Importance: 3, Status: "approved", Created: now, Updated: now}
	if err := st.Mem().Save(ctx, m); err != nil {
		t.Fatal(err)
	}
	if err := st.Mem().SaveSummary(ctx, &SummaryRow{Session: "s-1", Project: "/p", Source: "draft",
		Markdown: "## Learned\n- quixotrons need warming up", Created: now}); err != nil {
		t.Fatal(err)
	}
	search := func(q string, kinds ...string) []SearchResult {
		sr, err := st.OpenSearcher(ctx, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer sr.Close()
		resp, err := sr.Search(ctx, SearchQuery{Text: q, Mode: ModeText, Kinds: kinds})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Results
	}
	rs := search("zeppelinoid", "memories")
	if len(rs) != 1 || rs[0].Kind != DocMemory || rs[0].UUID != m.ID || rs[0].Project != "/p" {
		t.Fatalf("memory not found: %+v", rs)
	}
	if rs := search("zeppelinoid", "messages"); len(rs) != 0 {
		t.Fatalf("kind filter ignored: %+v", rs)
	}
	rs = search("quixotrons", "summaries")
	if len(rs) != 1 || rs[0].Kind != "summary" || rs[0].SessionID != "s-1" {
		t.Fatalf("summary not found: %+v", rs)
	}
	m.Status = "rejected"
	if err := st.Mem().Save(ctx, m); err != nil {
		t.Fatal(err)
	}
	if rs := search("zeppelinoid", "memories"); len(rs) != 0 {
		t.Fatalf("rejected memory still found: %+v", rs)
	}
	// Embedding queue: memories and summaries are queued for vectors too.
	q, err := st.Derived().QueuedEmbeds(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, d := range q {
		seen[d.ID] = true
	}
	if !seen["mem:m-0000aaaa"] || !seen["sum:s-1"] {
		t.Fatalf("not queued for embedding: %v", seen)
	}
}
