package index

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestMatchProjectsRule(t *testing.T) {
	s, _ := openStore(t)
	mustSync(t, s, "../testdata/claude", SyncOptions{})
	ps, err := s.Projects(t.Context())
	if err != nil || len(ps) < 2 {
		t.Fatalf("need two projects: %v %v", ps, err)
	}
	exact := ps[0].Path
	cases := []struct {
		in      string
		want    int // matches; -1: ErrNoProject
		exactly string
	}{
		{"", 0, ""},
		{exact, 1, exact},
		{"/no/such/project/anywhere", 1, "/no/such/project/anywhere"},
		{"zzz-nothing-like-this", -1, ""},
	}
	for _, c := range cases {
		got, err := s.MatchProjects(t.Context(), c.in)
		if c.want < 0 {
			if !errors.Is(err, ErrNoProject) {
				t.Fatalf("%q: got %v %v, want ErrNoProject", c.in, got, err)
			}
			continue
		}
		if err != nil || len(got) != c.want || (c.exactly != "" && got[0] != c.exactly) {
			t.Fatalf("%q: got %v %v", c.in, got, err)
		}
	}
	// A part of a path, in any case, names every project containing it.
	part := ps[0].Name
	up, err := s.MatchProjects(t.Context(), upper(part))
	if err != nil || len(up) == 0 {
		t.Fatalf("%q: %v %v", upper(part), up, err)
	}
	// "." is the working directory's project (this checkout's repository).
	wd, _ := os.Getwd()
	if got, err := s.MatchProjects(t.Context(), "."); err != nil || len(got) != 1 || got[0] != ProjectOf(wd) {
		t.Fatalf(".: %v %v", got, err)
	}
	// ResolveProject wants one.
	if _, err := s.ResolveProject(t.Context(), "/"); err == nil {
		t.Fatal("\"/\" is in every path: want ErrAmbiguousProject")
	} else if !errors.Is(err, ErrAmbiguousProject) {
		t.Fatalf("got %v", err)
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

// Ranking defaults live in the store, so every front end's queries get
// the [search] config (the TUI used to get none of it).
func TestSearchDefaultsApplyToEveryQuery(t *testing.T) {
	s, err := OpenWith(filepath.Join(t.TempDir(), "data"), OpenOptions{Search: SearchDefaults{Recency: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustSync(t, s, "../testdata/claude", SyncOptions{})
	ctx := t.Context()
	sr, err := s.OpenSearcher(ctx, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	q := SearchQuery{Text: "test", Mode: ModeText}
	off := false
	q.Recency = &off // a query's own setting wins over the store's default
	plain, err := sr.Search(ctx, q)
	if err != nil || len(plain.Results) == 0 {
		t.Fatal(err, "no results")
	}
	q.Recency = nil // unset: the store's default applies
	favoured, err := sr.Search(ctx, q)
	if err != nil || len(favoured.Results) == 0 {
		t.Fatal(err, "no results")
	}
	// The sample's sessions are months old: the recency prior lowers every
	// score by far more than a background segment merge moves BM25 (which
	// is why the comparison has slack). If the explicit false had not won,
	// both would be lowered alike.
	if favoured.Results[0].Score >= 0.95*plain.Results[0].Score {
		t.Fatalf("search.recency default not applied, or the query's own false overridden: %v vs %v", favoured.Results[0].Score, plain.Results[0].Score)
	}
}
