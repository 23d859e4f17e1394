package mcpserver

import (
	"context"
	"strings"
	"testing"
)

// TestNonsenseRecallsNothing (issue 15.4): with the built-in vectors
// trained (hybrid search), memory_recall and memory_search for a query
// that matches nothing by words nor, above the relevance floor, by meaning
// return no result and say what to try (recall used to return 5 sessions
// at relevance 1.0, memory_search every memory); real hits say how they
// matched.
func TestNonsenseRecallsNothing(t *testing.T) {
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
		"Run mix phx.server in the background so the session is not blocked",
	} {
		var out map[string]any
		f.call(t, "memory_remember", map[string]any{"content": c, "type": "gotcha"}, &out, false)
	}
	var rec RecallOut
	f.call(t, "memory_recall", map[string]any{"query": "zzzzqqqq-nothing-matches"}, &rec, false)
	if rec.Mode != "hybrid" || len(rec.Results) != 0 || !strings.HasPrefix(rec.Suggestion, "No matches by words or meaning; try") {
		t.Fatalf("nonsense recall: %+v", rec)
	}
	f.call(t, "memory_recall", map[string]any{"query": "dialyzer PLT"}, &rec, false)
	if len(rec.Results) == 0 || rec.Results[0].Match != "words" {
		t.Fatalf("dialyzer recall: %+v", rec)
	}
	var ms MemListOut
	f.call(t, "memory_search", map[string]any{"query": "zzzzqqqq-nothing-matches"}, &ms, false)
	if len(ms.Memories) != 0 || !strings.HasPrefix(ms.Hint, "No memory matches by words or meaning") {
		t.Fatalf("nonsense memory_search: %+v", ms)
	}
	f.call(t, "memory_search", map[string]any{"query": "dialyzer"}, &ms, false)
	if len(ms.Memories) != 1 || ms.Memories[0].Match != "words" {
		t.Fatalf("dialyzer memory_search: %+v", ms)
	}
}
