package fts

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// openTemp opens a fresh index in a temporary directory, closed at cleanup.
func openTemp(t testing.TB) *Index {
	t.Helper()
	ix, err := Open(filepath.Join(t.TempDir(), "fts"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func mustIndex(t testing.TB, ix *Index, docs ...Doc) {
	t.Helper()
	if err := ix.Index(docs); err != nil {
		t.Fatal(err)
	}
}

// searchIDs runs a search that must not fail and returns the hit IDs in order.
func searchIDs(t testing.TB, ix *Index, q string, f Filter) []string {
	t.Helper()
	hits, total, err := ix.Search(q, f, 100)
	if err != nil {
		t.Fatalf("Search(%q): %v", q, err)
	}
	if total < uint64(len(hits)) {
		t.Fatalf("Search(%q): total %d < %d hits", q, total, len(hits))
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

// sameSet reports whether got and want hold the same IDs in any order.
func sameSet(got, want []string) bool {
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	return slices.Equal(g, w)
}
