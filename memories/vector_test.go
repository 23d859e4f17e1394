package memories

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/index"
)

// vectorService is a service over the bundled sample (so the built-in
// embedder is trained) holding n memories with fixed ids and times: of
// /v, every fifth global, with some links.
func vectorService(t *testing.T, n int) *Service {
	t.Helper()
	ctx := context.Background()
	s := sampleService(t)
	if _, err := s.st.Derived().BuiltinEmbedder(ctx, false); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	fixedClock(s, now.Add(time.Hour))
	r := rand.New(rand.NewPCG(11, 12))
	var rows []*index.MemRow
	for i := range n {
		row := &index.MemRow{ID: fmt.Sprintf("m-%08x", i), Project: "/v", Type: Types[i%len(Types)],
			Content: benchContent(r, i), Importance: 1 + i%5, Status: Approved, Origin: OriginExtractor,
			Created: now.Add(-time.Duration(i%7) * 24 * time.Hour), Updated: now.Add(-time.Duration(i%7) * 24 * time.Hour)}
		switch {
		case i%5 == 4:
			row.Project = ""
		case i%11 == 3:
			row.Status = Rejected
		case i%13 == 4:
			row.Status = Pending
		}
		if i%9 == 1 && i > 9 {
			row.Links = []index.MemLink{{Kind: Related, Target: fmt.Sprintf("m-%08x", i-9)}}
		}
		rows = append(rows, row)
	}
	if err := s.st.Mem().Save(ctx, rows...); err != nil {
		t.Fatal(err)
	}
	return s
}

// The vector paths of ranking, related memories and dedup (the built-in
// embedder is trained on the sample), pinned: a refactor must not change
// what they return.
func TestVectorPathsPinned(t *testing.T) {
	ctx := context.Background()
	s := vectorService(t, 300)
	var b strings.Builder
	for _, q := range []string{"flaky websocket reconnect race", "stripe webhook retry", "postgres migration schema deploy",
		"how do we build the release", "kalomi nupera", "session memory"} {
		rs, err := s.Recall.Rank(ctx, q, RankOptions{Project: "/v", Limit: 6, Exclude: []string{"m-00000002"}})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "rank %q:", q)
		for _, r := range rs {
			fmt.Fprintf(&b, " %s %.4f %.4f", r.ID, r.Score, r.Similarity)
		}
		b.WriteString("\n")
		ss, err := s.Recall.Search(ctx, q, []Type{Fact, Gotcha, Decision, Pattern}, nil, 4)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "search %q:", q)
		for _, r := range ss {
			fmt.Fprintf(&b, " %s %.4f", r.ID, r.Score)
		}
		b.WriteString("\n")
	}
	for _, id := range []string{"m-00000001", "m-0000000a", "m-00000013", "m-00000064"} {
		rel, err := s.Recall.Related(ctx, id, []string{"cache"}, 6)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "related %s:", id)
		for _, m := range rel {
			fmt.Fprintf(&b, " %s", m.ID)
		}
		b.WriteString("\n")
	}
	top, err := s.Recall.Top(ctx, "/v", 8)
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString("top:")
	for _, r := range top {
		fmt.Fprintf(&b, " %s %.4f", r.ID, r.Score)
	}
	b.WriteString("\n")
	all, _ := s.List(ctx, Filter{})
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, m := range all {
		if i%23 != 0 {
			continue
		}
		for _, c := range []string{m.Content, m.Content + " again", strings.Join(strings.Fields(m.Content)[1:], " ") + " stream socket"} {
			for _, typ := range []Type{m.Type, Gotcha} {
				r, err := s.add(ctx, NewMemory{Project: "/v", Type: typ, Content: c, Tags: []string{"x"}}, true, nil)
				if err != nil {
					t.Fatal(err)
				}
				id := r.Memory.ID
				if r.Action == ActionAdded {
					id = "new"
				}
				fmt.Fprintf(&b, "add %s %s: %s %s %v %v\n", m.ID, typ, r.Action, id, r.Memory.Links, r.Conflicts)
			}
		}
	}
	if got := b.String(); got != wantVectorPaths {
		t.Errorf("got:\n%s\nwant:\n%s\ndiff:\n%s", got, wantVectorPaths, lineDiff("want", "got", wantVectorPaths, got))
	}
}

// At the same score Top puts the project's own memories before global
// ones, then the newest, then by id.
func TestTopProjectBeforeGlobal(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	clock := fixedClock(s, time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC))
	g1 := mustAdd(t, s, NewMemory{Type: Fact, Content: "Global fact about the build cache directory", Status: Approved})
	g2 := mustAdd(t, s, NewMemory{Type: Fact, Content: "Global fact about the shared lint settings", Status: Approved})
	p1 := mustAdd(t, s, NewMemory{Project: "/p", Type: Fact, Content: "Project fact about the deploy pipeline stages", Status: Approved})
	*clock = clock.Add(time.Minute)
	p2 := mustAdd(t, s, NewMemory{Project: "/p", Type: Fact, Content: "Project fact about the staging hostnames", Status: Approved})
	mustAdd(t, s, NewMemory{Project: "/q", Type: Fact, Content: "Another project's fact about its queue", Status: Approved})
	globals := []string{g1.Memory.ID, g2.Memory.ID}
	slices.Sort(globals)
	want := append([]string{p2.Memory.ID, p1.Memory.ID}, globals...)
	top, err := s.Recall.Top(ctx, "/p", 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range top {
		got = append(got, r.ID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("top %v, want %v", got, want)
	}
}

const wantVectorPaths = `rank "flaky websocket reconnect race":
search "flaky websocket reconnect race":
rank "stripe webhook retry": m-00000031 0.5019 0.3011 m-00000054 0.5019 0.3011 m-00000072 0.5019 0.3011 m-0000009f 0.5019 0.3011 m-0000011c 0.5019 0.3011 m-0000008a 0.4015 0.3011
search "stripe webhook retry": m-00000054 0.5019 m-0000011c 0.5019 m-0000008a 0.4015 m-00000075 0.3288
rank "postgres migration schema deploy": m-000000c1 0.9735 0.7301 m-0000004f 0.2843 0.2408 m-000000d9 0.2773 0.2773 m-000000b6 0.2673 0.2673 m-00000111 0.2627 0.1970 m-00000021 0.2340 0.1755
search "postgres migration schema deploy": m-000000b6 0.2673 m-00000111 0.2627 m-000000b0 0.2240 m-00000078 0.0700
rank "how do we build the release":
search "how do we build the release": m-000000c0 0.4629
rank "kalomi nupera":
search "kalomi nupera": m-000000b0 0.2738 m-00000065 0.2520
rank "session memory": m-0000000e 1.4046 0.8428 m-000000e0 1.3875 0.8336 m-000000b8 1.3695 0.8217 m-00000103 1.2836 0.7748 m-000000b7 1.1107 0.8331 m-00000068 1.0755 0.6453
search "session memory": m-0000000e 1.4046 m-000000b7 1.1107 m-00000068 1.0755 m-00000095 1.0491
related m-00000001: m-0000000a m-0000006e m-00000115 m-0000004a m-00000057 m-0000007d
related m-0000000a: m-00000001 m-00000013 m-00000004 m-00000006 m-00000017 m-0000001a
related m-00000013: m-0000000a m-0000001c m-00000026 m-00000027 m-00000061 m-0000006c
related m-00000064: m-0000006d m-00000007 m-00000038 m-00000041 m-0000004c m-00000117
top: m-0000000e 1.6667 m-00000031 1.6667 m-00000054 1.6667 m-00000077 1.6667 m-0000009a 1.6667 m-000000bd 1.6667 m-00000126 1.6667 m-0000001d 1.6667
add m-00000038 pattern: bumped m-00000038 [] []
add m-00000038 gotcha: bumped m-000000b7 [] []
add m-00000038 pattern: bumped m-00000038 [] []
add m-00000038 gotcha: bumped m-000000b7 [] []
add m-00000038 pattern: merged m-00000038 [] []
add m-00000038 gotcha: added new [{related m-00000038} {related m-00000123}] []
add m-0000002a bugfix: bumped m-0000002a [] []
add m-0000002a gotcha: bumped m-0000002a [] []
add m-0000002a bugfix: bumped m-0000002a [] []
add m-0000002a gotcha: bumped m-0000002a [] []
add m-0000002a bugfix: bumped m-0000002a [] []
add m-0000002a gotcha: bumped m-0000002a [] []
add m-000000d9 architecture: bumped m-000000d9 [{related m-000000d0}] []
add m-000000d9 gotcha: bumped m-000000d9 [{related m-000000d0}] []
add m-000000d9 architecture: bumped m-000000d9 [{related m-000000d0}] []
add m-000000d9 gotcha: bumped m-000000d9 [{related m-000000d0}] []
add m-000000d9 architecture: bumped m-000000d9 [{related m-000000d0}] []
add m-000000d9 gotcha: bumped m-000000d9 [{related m-000000d0}] []
add m-0000005c pattern: bumped m-0000005c [] []
add m-0000005c gotcha: bumped m-0000005c [] []
add m-0000005c pattern: bumped m-0000005c [] []
add m-0000005c gotcha: bumped m-0000005c [] []
add m-0000005c pattern: bumped m-0000005c [] []
add m-0000005c gotcha: bumped m-0000005c [] []
add m-00000104 context: bumped m-00000104 [] []
add m-00000104 gotcha: bumped m-00000104 [] []
add m-00000104 context: bumped m-00000104 [] []
add m-00000104 gotcha: bumped m-00000104 [] []
add m-00000104 context: bumped m-00000104 [] []
add m-00000104 gotcha: bumped m-00000104 [] []
add m-00000087 decision: skipped-rejected m-00000087 [] []
add m-00000087 gotcha: skipped-rejected m-00000087 [] []
add m-00000087 decision: skipped-rejected m-00000087 [] []
add m-00000087 gotcha: skipped-rejected m-00000087 [] []
add m-00000087 decision: skipped-rejected m-00000087 [] []
add m-00000087 gotcha: skipped-rejected m-00000087 [] []
add m-00000128 context: bumped m-00000128 [] []
add m-00000128 gotcha: bumped m-00000128 [] []
add m-00000128 context: bumped m-00000128 [] []
add m-00000128 gotcha: bumped m-00000128 [] []
add m-00000128 context: bumped m-00000128 [] []
add m-00000128 gotcha: bumped m-00000128 [] []
add m-000000ab decision: bumped m-000000ab [] []
add m-000000ab gotcha: bumped m-000000ab [] []
add m-000000ab decision: bumped m-000000ab [] []
add m-000000ab gotcha: bumped m-000000ab [] []
add m-000000ab decision: bumped m-000000ab [] []
add m-000000ab gotcha: bumped m-000000ab [] []
add m-00000027 gotcha: bumped m-00000027 [] []
add m-00000027 gotcha: bumped m-00000027 [] []
add m-00000027 gotcha: bumped m-00000027 [] []
add m-00000027 gotcha: bumped m-00000027 [] []
add m-00000027 gotcha: bumped m-00000027 [] []
add m-00000027 gotcha: bumped m-00000027 [] []
add m-000000d6 progress: bumped m-000000d6 [] []
add m-000000d6 gotcha: bumped m-000000d6 [] []
add m-000000d6 progress: bumped m-000000d6 [] []
add m-000000d6 gotcha: bumped m-000000d6 [] []
add m-000000d6 progress: bumped m-000000d6 [] []
add m-000000d6 gotcha: bumped m-000000d6 [] []
add m-00000059 context: bumped m-00000059 [] []
add m-00000059 gotcha: bumped m-00000059 [] []
add m-00000059 context: bumped m-00000059 [] []
add m-00000059 gotcha: bumped m-00000059 [] []
add m-00000059 context: bumped m-00000059 [] []
add m-00000059 gotcha: bumped m-00000059 [] []
add m-00000101 fact: bumped m-00000101 [] []
add m-00000101 gotcha: bumped m-00000101 [] []
add m-00000101 fact: bumped m-00000101 [] []
add m-00000101 gotcha: bumped m-00000101 [] []
add m-00000101 fact: bumped m-00000101 [] []
add m-00000101 gotcha: bumped m-00000101 [] []
add m-00000076 architecture: bumped m-00000076 [{related m-0000006d}] []
add m-00000076 gotcha: bumped m-00000076 [{related m-0000006d}] []
add m-00000076 architecture: bumped m-00000076 [{related m-0000006d}] []
add m-00000076 gotcha: bumped m-00000076 [{related m-0000006d}] []
add m-00000076 architecture: bumped m-00000076 [{related m-0000006d}] []
add m-00000076 gotcha: bumped m-00000076 [{related m-0000006d}] []
add m-00000125 fact: bumped m-00000125 [] []
add m-00000125 gotcha: bumped m-00000125 [] []
add m-00000125 fact: bumped m-00000125 [] []
add m-00000125 gotcha: bumped m-00000125 [] []
add m-00000125 fact: bumped m-00000125 [] []
add m-00000125 gotcha: bumped m-00000125 [] []
`

// TestNonsenseFindsNoMemory (issue 15.4): memory search and ranking apply
// the relevance floor: a query sharing no word with any memory and not
// close in meaning finds nothing (it used to return every memory, each a
// little close to any vector), and what is found says how it matched.
func TestNonsenseFindsNoMemory(t *testing.T) {
	ctx := context.Background()
	s := vectorService(t, 300)
	for _, q := range []string{"zzzzqqqq-nothing-matches", "qwxzv plorfin", "fhqwhgads"} {
		rs, err := s.Recall.Search(ctx, q, nil, nil, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 0 {
			t.Errorf("Search(%q): %d memories, first %q (%s)", q, len(rs), rs[0].Content, rs[0].Match)
		}
		rs, err = s.Recall.Rank(ctx, q, RankOptions{Threshold: 1e-9})
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 0 {
			t.Errorf("Rank(%q): %d memories, first %q (%s %.3f)", q, len(rs), rs[0].Content, rs[0].Match, rs[0].Similarity)
		}
	}
	// A real query: words a memory holds (a query must cover most of its
	// informative words, so a random four-word query no longer finds a
	// memory holding one of them).
	m, err := s.Get(ctx, "m-00000000")
	if err != nil {
		t.Fatal(err)
	}
	real := strings.Join(strings.Fields(m.Content)[:3], " ")
	rs, err := s.Recall.Search(ctx, real, nil, nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) == 0 {
		t.Fatalf("a real query (%q, from %q) found nothing", real, m.Content)
	}
	for _, r := range rs {
		if r.Match != index.MatchWords && r.Match != index.MatchMeaning {
			t.Errorf("%s: match %q", r.ID, r.Match)
		}
		if r.Match == index.MatchMeaning && r.Similarity < vectorWeight*index.BuiltinMeaningFloor*index.BuiltinMeaningFloor {
			t.Errorf("%s matched by meaning below the floor: %.3f", r.ID, r.Similarity)
		}
	}
}
