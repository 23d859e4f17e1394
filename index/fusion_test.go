package index

import (
	"testing"
	"time"
)

func ids(s []Scored) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = x.ID
	}
	return out
}

func TestFuseRRF(t *testing.T) {
	got := ids(FuseRRF(60, nil, []string{"a", "b", "c"}, []string{"c", "b", "d"}))
	// b: 1/62+1/62, c: 1/63+1/61 (slightly more), a: 1/61, d: 1/63
	want := []string{"c", "b", "a", "d"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v want %v", got, want)
		}
	}
	// A BM25-dominant weighting keeps BM25's top hit on top.
	got = ids(FuseRRF(60, []float64{3, 1}, []string{"a", "b"}, []string{"x", "b"}))
	if got[0] != "b" && got[0] != "a" {
		t.Fatalf("%v", got)
	}
	if got[len(got)-1] != "x" {
		t.Fatalf("vector-only hit outranked text hits: %v", got)
	}
}

func TestFuseConvex(t *testing.T) {
	got := FuseConvex(0.7, []Scored{{"a", 10}, {"b", 5}, {"c", 0}}, []Scored{{"c", 0.9}, {"a", 0.1}})
	if got[0].ID != "a" {
		t.Fatalf("%v", got)
	}
	if len(got) != 3 {
		t.Fatalf("%v", got)
	}
}

func TestRecencyWeight(t *testing.T) {
	now := time.Now()
	if w := RecencyWeight(now, now, 30*24*time.Hour, 0.5); w != 1 {
		t.Fatal(w)
	}
	old := RecencyWeight(now.Add(-365*24*time.Hour), now, 30*24*time.Hour, 0.5)
	mid := RecencyWeight(now.Add(-30*24*time.Hour), now, 30*24*time.Hour, 0.5)
	if !(old < mid && mid < 1 && old >= 0.5) || mid != 0.75 {
		t.Fatalf("old %v mid %v", old, mid)
	}
}
