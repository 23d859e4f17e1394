package index

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/transcripts"
)

// corpusDir is the shared benchmark corpus (real transcripts, ~17 MB);
// CAIRN_CORPUS points elsewhere (e.g. a tree grown with
// ../shared/tools/scale-corpus).
func corpusDir(b *testing.B) string {
	dir := os.Getenv("CAIRN_CORPUS")
	if dir == "" {
		dir = "../../shared/corpus/claude"
	}
	if _, err := os.Stat(filepath.Join(dir, "projects")); err != nil {
		b.Skipf("no corpus at %s", dir)
	}
	return dir
}

func treeBytes(b *testing.B, dir string) int64 {
	tree, err := transcripts.Discover(dir)
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, f := range tree.Files() {
		n += f.Size
	}
	return n
}

// BenchmarkSync is a cold index of the corpus into a new store. MB/s is
// transcript bytes; dbB/MB is bytes of database (after Close) per MB of
// transcripts.
// openSyncClose is a short-lived process's sync: open the store in data,
// sync it from claude, close it.
func openSyncClose(data, claude string, o OpenOptions) (SyncStats, error) {
	s, err := OpenWith(data, o)
	if err != nil {
		return SyncStats{}, err
	}
	st, err := s.Sync(context.Background(), claude, SyncOptions{})
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return st, err
}

func BenchmarkSync(b *testing.B) {
	dir := corpusDir(b)
	size := treeBytes(b, dir)
	b.SetBytes(size)
	var dbSize int64
	for i := 0; b.Loop(); i++ {
		data := filepath.Join(b.TempDir(), "data")
		if _, err := openSyncClose(data, dir, OpenOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		fi, _ := os.Stat(filepath.Join(data, DBName))
		dbSize = fi.Size()
		os.RemoveAll(data)
		b.StartTimer()
	}
	b.ReportMetric(float64(dbSize)/(float64(size)/1e6), "dbB/MB")
}

// BenchmarkIncremental is what a Stop hook does: 50 lines were appended to
// a session of a store holding the whole corpus; open the store, sync,
// close.
func BenchmarkIncremental(b *testing.B) {
	src := corpusDir(b)
	claude := copyTree(b, src)
	data := filepath.Join(b.TempDir(), "data")
	if _, err := openSyncClose(data, claude, OpenOptions{}); err != nil {
		b.Fatal(err)
	}
	// The largest main transcript: the session with the most state.
	tree, _ := transcripts.Discover(claude)
	var target transcripts.File
	for _, f := range tree.Files() {
		if f.Kind == transcripts.MainFile && f.Size > target.Size {
			target = f
		}
	}
	var worst time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		appendFile(b, target.Path, freshLines(b, target.Path, 50, "bench"+string(rune('a'+i%26))+time.Now().Format("150405.000000")))
		b.StartTimer()
		start := time.Now()
		st, err := openSyncClose(data, claude, OpenOptions{BusyTimeout: 100 * time.Millisecond})
		if err != nil {
			b.Fatal(err)
		}
		worst = max(worst, time.Since(start))
		if st.EntriesAdded != 50 {
			b.Fatalf("added %d entries, want 50", st.EntriesAdded)
		}
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
}

// BenchmarkSearchStore runs hybrid top-10 searches in-process on an existing
// store (CAIRN_BENCH_DATA, e.g. the 1 GB reference corpus indexed by
// scripts/bench-index.sh) and reports the median and p95 latency. The store
// is opened read-write once, as a long-running process would.
func BenchmarkSearchStore(b *testing.B) {
	dir := os.Getenv("CAIRN_BENCH_DATA")
	if dir == "" {
		b.Skip("set CAIRN_BENCH_DATA to an indexed data dir")
	}
	s, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	sr, err := s.OpenSearcher(ctx, 5*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer sr.Close()
	queries := []string{"websocket reconnect", "mix phx.server", "how did I get the dev server to start",
		"dialyzer PLT", "credo nesting depth", "opentelemetry span", "sandbox isolation liveview", "git push upstream"}
	var lat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		t := time.Now()
		resp, err := sr.Search(ctx, SearchQuery{Text: queries[i%len(queries)], Limit: 10})
		if err != nil {
			b.Fatal(err)
		}
		if len(resp.Results) == 0 {
			b.Fatalf("no results for %q", queries[i%len(queries)])
		}
		lat = append(lat, time.Since(t))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}
