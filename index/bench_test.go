package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"cairn/transcripts"
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
func BenchmarkSync(b *testing.B) {
	dir := corpusDir(b)
	size := treeBytes(b, dir)
	b.SetBytes(size)
	var dbSize int64
	for i := 0; b.Loop(); i++ {
		data := filepath.Join(b.TempDir(), "data")
		s, err := Open(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Sync(context.Background(), dir, SyncOptions{}); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
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
	s, err := Open(data)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Sync(context.Background(), claude, SyncOptions{}); err != nil {
		b.Fatal(err)
	}
	s.Close()
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
		s, err := OpenWith(data, OpenOptions{BusyTimeout: 100 * time.Millisecond})
		if err != nil {
			b.Fatal(err)
		}
		st, err := s.Sync(context.Background(), claude, SyncOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		worst = max(worst, time.Since(start))
		if st.EntriesAdded != 50 {
			b.Fatalf("added %d entries, want 50", st.EntriesAdded)
		}
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
}
