package memories

import (
	"context"
	"slices"
	"testing"
)

// TestMatchIdentifierParts (issue 23.8): a memory holding an identifier
// is found by the identifier, by any of its dotted or slashed parts and by
// its words; a query sharing only a part's word with it is not a full
// match.
func TestMatchIdentifierParts(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	otel := approve(t, s, NewMemory{Project: "/p", Type: Gotcha, Content: "Call :opentelemetry.set_text_map_propagators/1 before the endpoint starts, or no trace context is propagated"})
	approve(t, s, NewMemory{Project: "/p", Type: Fact, Content: "The deploy map lists every service and its text config"})
	approve(t, s, NewMemory{Project: "/p", Type: Fact, Content: "parseTranscript reads one JSONL file into entries"})
	for _, q := range []string{"set_text_map_propagators", "opentelemetry.set_text_map_propagators", "set text map propagators",
		":opentelemetry.set_text_map_propagators/1", "setTextMapPropagators", "propagators"} {
		rs, err := s.Recall.Search(ctx, q, nil, nil, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) == 0 || rs[0].ID != otel || rs[0].Match != "words" {
			t.Errorf("%q: %+v", q, rs)
		}
	}
	rs, err := s.Recall.Search(ctx, "transcript", nil, nil, 5)
	if err != nil || len(rs) != 1 || rs[0].Match != "words" {
		t.Errorf("transcript (a part of parseTranscript): %+v, %v", rs, err)
	}
	// "map" alone is a word of both; "set map tulip volleyball" holds
	// only two of four words: partial at best, never full.
	rs, err = s.Recall.Search(ctx, "set map tulip volleyball", nil, nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Match == "words" {
			t.Errorf("set map tulip volleyball: full match %q", r.Content)
		}
	}
}

// TestPromptNeedsMoreThanOneWord (issue 23.8): a prompt sharing one
// common word with a memory ("because", "block", "sessions", "content")
// does not get it injected, even at a permissive threshold; one sharing
// two of its words, or its identifier, does.
func TestPromptNeedsMoreThanOneWord(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	id := approve(t, s, NewMemory{Project: "/p", Type: Gotcha, Content: "Sessions block on the content index lock because the writer holds it during compaction"})
	otel := approve(t, s, NewMemory{Project: "/p", Type: Gotcha, Content: "Call :opentelemetry.set_text_map_propagators/1 before the endpoint starts"})
	rank := func(p string) []string {
		rs, err := s.Recall.Rank(ctx, p, RankOptions{Project: "/p", Threshold: 0.01, Prompt: true})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range rs {
			ids = append(ids, r.ID)
		}
		return ids
	}
	for _, p := range []string{"I did it this way because it was faster", "add a code block to the readme",
		"how many sessions did we have today?", "write the content of the landing page", "what is my favourite pizza topping"} {
		if got := rank(p); len(got) != 0 {
			t.Errorf("%q injected %v", p, got)
		}
	}
	if got := rank("why do sessions block while compaction runs?"); !slices.Contains(got, id) {
		t.Errorf("a prompt sharing three words: %v", got)
	}
	if got := rank("where should set_text_map_propagators go"); !slices.Contains(got, otel) {
		t.Errorf("a prompt naming the identifier: %v", got)
	}
}

// TestMemorySearchEverydayQuestion (issue 24.1): memory search for an
// everyday question sharing a common word with a memory finds nothing.
func TestMemorySearchEverydayQuestion(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	approve(t, s, NewMemory{Project: "/p", Type: Gotcha, Content: "To fix the flaky upload test, wait for the players list to load before asserting"})
	approve(t, s, NewMemory{Project: "/p", Type: Fact, Content: "The top bar shows the team name and the time of the last sync"})
	for _, q := range []string{"how do I fix a flat bicycle tire", "how many players are on a volleyball team",
		"what is my favourite pizza topping", "best time to plant tulip bulbs in the garden"} {
		rs, err := s.Recall.Search(ctx, q, nil, nil, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 0 {
			t.Errorf("%q found %q (%s, relevance %.2f)", q, rs[0].Content, rs[0].Match, rs[0].Relevance)
		}
	}
	rs, err := s.Recall.Search(ctx, "flaky upload test", nil, nil, 5)
	if err != nil || len(rs) != 1 || rs[0].Relevance != 1 {
		t.Fatalf("flaky upload test: %+v, %v", rs, err)
	}
}
