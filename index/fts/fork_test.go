package fts

import (
	"testing"

	"github.com/blevesearch/bleve/v2"
)

// cairn builds with a fork of vellum (third_party/vellum) whose Levenshtein
// builders compute their tables on first use. Fuzzy queries must still
// match within their edit distance, and only within it.
func TestForkedVellumFuzzyQueries(t *testing.T) {
	idx, err := bleve.New(t.TempDir()+"/ix", bleve.NewIndexMapping())
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	if err := idx.Index("a", map[string]string{"body": "the websocket reconnect loop"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		term      string
		fuzziness int
		hits      uint64
	}{
		{"websockat", 1, 1}, {"webzockat", 2, 1}, {"webzockat", 1, 0}, {"recnonect", 2, 1}, {"wxbzockat", 2, 0},
	} {
		q := bleve.NewFuzzyQuery(c.term)
		q.SetFuzziness(c.fuzziness)
		res, err := idx.Search(bleve.NewSearchRequest(q))
		if err != nil {
			t.Fatal(err)
		}
		if res.Total != c.hits {
			t.Errorf("fuzzy %q~%d: %d hits, want %d", c.term, c.fuzziness, res.Total, c.hits)
		}
	}
}
