package memories

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/testutil/teststore"
)

// Benchmarks for the budgets (run: go test -bench . -run ^$ ./memories/):
//   - extraction of one Stop increment (200 new entries) ≤ 30 ms,
//   - a dedup check against 10,000 memories ≤ 5 ms,
//   - memory search/rank over 10,000 memories ≤ 10 ms.

var benchWords = strings.Fields(`parser store index session memory hook token cache query vector embed rank
	decision bugfix gotcha pattern stripe checkout webhook postgres sqlite bleve migration schema deploy staging
	docker kubernetes nginx proxy buffer stream socket reconnect timeout retry backoff queue worker cron
	billing invoice customer tenant auth oauth jwt session cookie csrf cors header middleware router handler
	template render component layout style theme test fixture mock sandbox race flaky lint format vet build
	release tag branch commit rebase merge review ci runner cache artifact coverage benchmark profile memory`)

// benchVocab is a 5,000-word vocabulary: the words above plus made-up
// identifiers, drawn with a Zipf distribution as words of real text are.
var benchVocab = func() []string {
	v := slices.Clone(benchWords)
	syl := strings.Fields("ka lo mi nu pe ra si to vu xe za bo ce di fu ga")
	r := rand.New(rand.NewPCG(7, 8))
	for len(v) < 5000 {
		v = append(v, syl[r.IntN(len(syl))]+syl[r.IntN(len(syl))]+syl[r.IntN(len(syl))])
	}
	return v
}()

func benchContent(r *rand.Rand, i int) string {
	z := rand.NewZipf(r, 1.1, 2, uint64(len(benchVocab)-1))
	n := 6 + r.IntN(10)
	ws := make([]string, n)
	for j := range ws {
		ws[j] = benchVocab[z.Uint64()]
	}
	return fmt.Sprintf("%s (note %d)", strings.Join(ws, " "), i)
}

// benchStore opens a store with the bundled sample (so the built-in
// embedder is trained) and n approved memories.
func benchStore(b *testing.B, n int) *Service {
	b.Helper()
	ctx := context.Background()
	st := teststore.Synced(b, sampleDir)
	if _, err := st.Derived().BuiltinEmbedder(ctx, false); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	now := time.Now().UTC()
	var rows []*index.MemRow
	for i := range n {
		rows = append(rows, &index.MemRow{ID: fmt.Sprintf("m-%08x", i), Project: "/bench", Type: Types[i%len(Types)],
			Content: benchContent(r, i), Importance: 1 + i%5, Status: Approved, Origin: OriginExtractor,
			Created: now.Add(-time.Duration(i) * time.Hour), Updated: now.Add(-time.Duration(i) * time.Hour)})
		if len(rows) == 1000 {
			if err := st.Mem().Save(ctx, rows...); err != nil {
				b.Fatal(err)
			}
			rows = rows[:0]
		}
	}
	if err := st.Mem().Save(ctx, rows...); err != nil {
		b.Fatal(err)
	}
	return New(st, config.Default())
}

func BenchmarkDedupCheck10k(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b, 10000)
	if _, err := s.memories(ctx); err != nil { // warm: a process checks many candidates
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		s.mu.Lock()
		_, err := s.add(ctx, NewMemory{Project: "/bench", Type: Gotcha, Content: benchContent(r, 1_000_000+i)}, true, nil)
		s.mu.Unlock()
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRank10k(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b, 10000)
	if _, err := s.memories(ctx); err != nil {
		b.Fatal(err)
	}
	queries := []string{"flaky websocket reconnect race", "stripe webhook retry", "postgres migration schema deploy", "how do we build the release"}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := s.Recall.Rank(ctx, queries[i%len(queries)], RankOptions{Project: "/bench", Limit: 10}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRankColdProcess is a hook's view: a new service (as in a new
// process) loads the memories, then ranks once.
func BenchmarkRankColdProcess1k(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b, 1000)
	// Store the memories' vectors as the index queue would.
	mc, err := s.memories(ctx)
	if err != nil {
		b.Fatal(err)
	}
	vecs := map[string][]float32{}
	for _, c := range mc.items {
		if c.vec != nil {
			vecs[c.row.ID] = c.vec
		}
	}
	if err := s.st.Mem().PutVectors(ctx, mc.embedder, vecs); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		fresh := New(s.st, s.cfg)
		if _, err := fresh.Recall.Rank(ctx, "flaky websocket reconnect race", RankOptions{Project: "/bench", Limit: 5}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExtract200 extracts one Stop increment of 200 entries (a mix of
// prompts, replies, tool calls and results, some of which propose
// memories) in a new service, as a Stop hook does, over a store holding
// 500 memories.
func BenchmarkExtract200(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b, 500)
	claude := b.TempDir()
	tr := newTranscript("61111111-2222-4333-8444-555555555555", "/bench")
	for i := 0; len(tr.lines) < 200; i++ {
		switch i % 8 {
		case 0:
			tr.user(fmt.Sprintf("Please look at the failing test number %d in the parser package and fix it", i))
		case 1:
			tr.assistant(fmt.Sprintf("I'll read the parser first. The root cause was `parse%d` returning nil on an empty line. Fixed by checking the length first.", i))
		case 2, 3, 4:
			tr.bash(fmt.Sprintf("go test ./parser/ -run TestCase%d", i), "ok  cairn/parser 0.01s", false)
		case 5:
			tr.assistant(strings.Repeat("The change touches the tokenizer and the error path. ", 8))
		case 6:
			tr.user(fmt.Sprintf("Always run the race detector on package %d before committing.", i))
		case 7:
			tr.bash("make lint", "Exit code 2\nmake: *** No rule to make target 'lint'. usage: make [target]", true)
			tr.bash("golangci-lint run ./...", "", false)
		}
	}
	tr.write(b, s, claude)
	sid := tr.sid
	b.ResetTimer()
	for b.Loop() {
		fresh := New(s.st, s.cfg)
		res, err := fresh.extract(ctx, sid, "/bench", 0, ExtractOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if res.Entries < 200 || len(res.Proposed) == 0 {
			b.Fatalf("read %d entries, proposed %d", res.Entries, len(res.Proposed))
		}
	}
}
