package mcpserver

import (
	"context"
	"testing"
)

// TestEverydayQuestionRecallsNothing (issue 24.1): memory_recall and
// memory_search for everyday questions unrelated to the history return
// nothing and say so; a real query's sessions and memories come back
// with a relevance on the fixed scale (1 when they hold every word, not
// merely because they are first), and sessions that hold only some of
// the words come back flagged partial with a low relevance.
func TestEverydayQuestionRecallsNothing(t *testing.T) {
	ctx := context.Background()
	f := newMemFixture(t)
	m, err := f.st.Derived().BuiltinEmbedder(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.Derived().EmbedQueued(ctx, m, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{
		"Dialyzer builds its PLT on the first run, which is slow; later runs reuse it",
		"To fix a flaky LiveView test, wait for the players list to render before asserting",
	} {
		var out map[string]any
		f.call(t, "memory_remember", map[string]any{"content": c, "type": "gotcha"}, &out, false)
	}
	for _, q := range []string{"how do I fix a flat bicycle tire", "best time to plant tulip bulbs in the garden",
		"how many players are on a volleyball team", "what is my favourite pizza topping"} {
		var rec RecallOut
		f.call(t, "memory_recall", map[string]any{"query": q}, &rec, false)
		if len(rec.Results) != 0 || rec.Suggestion == "" {
			t.Errorf("memory_recall %q: %d results (first %+v), suggestion %q", q, len(rec.Results), rec.Results, rec.Suggestion)
		}
		var ms MemListOut
		f.call(t, "memory_search", map[string]any{"query": q}, &ms, false)
		if len(ms.Memories) != 0 || ms.Hint == "" {
			t.Errorf("memory_search %q: %+v", q, ms.Memories)
		}
	}
	var rec RecallOut
	f.call(t, "memory_recall", map[string]any{"query": "dialyzer PLT"}, &rec, false)
	if len(rec.Results) == 0 || rec.Results[0].Match != "words" || rec.Results[0].Relevance != 1 {
		t.Fatalf("dialyzer PLT: %+v", rec.Results)
	}
	// Each session holds one of "sobelow turbopack": partial, low.
	f.call(t, "memory_recall", map[string]any{"query": "sobelow turbopack"}, &rec, false)
	if len(rec.Results) == 0 {
		t.Fatal("sobelow turbopack: no partial sessions returned")
	}
	for _, r := range rec.Results {
		if r.Match != "partial" || r.Relevance >= 0.8 || r.Relevance <= 0 {
			t.Errorf("sobelow turbopack: %s at relevance %.3f", r.Match, r.Relevance)
		}
	}
	var ms MemListOut
	f.call(t, "memory_search", map[string]any{"query": "dialyzer PLT"}, &ms, false)
	if len(ms.Memories) != 1 || ms.Memories[0].Match != "words" || ms.Memories[0].Relevance != 1 {
		t.Fatalf("dialyzer PLT memory_search: %+v", ms.Memories)
	}
}
