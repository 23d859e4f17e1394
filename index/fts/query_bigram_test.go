package fts

import (
	"testing"

	"github.com/blevesearch/bleve/v2/search/query"
)

// TestBigramQueries pins the phrase boosts built from a query's plain
// words (only used with prosePositions): each pair of neighbouring content
// words, with the stop words between them, and at most maxBigrams.
func TestBigramQueries(t *testing.T) {
	words := []queryWord{{"the", false}, {"fix", true}, {"the", false}, {"bug", true}, {"now", true}, {"of", false}}
	got := bigramQueries(words)
	if len(got) != 2 {
		t.Fatalf("got %d bigrams, want 2 (fix the bug, bug now)", len(got))
	}
	mp, ok := got[0].(*query.MultiPhraseQuery)
	if !ok {
		t.Fatalf("first bigram is %T, want a multi-phrase query", got[0])
	}
	if len(mp.Terms) != 3 || len(mp.Terms[1]) != 0 {
		t.Errorf("fix the bug: slots %q, want three with an empty gap", mp.Terms)
	}
	if b := mp.Boost(); b != boostPhrase {
		t.Errorf("boost %v, want %v", b, boostPhrase)
	}
	if n := len(bigramQueries([]queryWord{{"fix", true}, {"the", false}})); n != 0 {
		t.Errorf("a content word with nothing after it gave %d bigrams", n)
	}
	var many []queryWord
	for range 3 * maxBigrams {
		many = append(many, queryWord{"word", true})
	}
	if n := len(bigramQueries(many)); n != maxBigrams {
		t.Errorf("%d bigrams, want at most %d", n, maxBigrams)
	}
}
