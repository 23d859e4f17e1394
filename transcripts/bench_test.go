package transcripts

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// benchCorpus is $CAIRN_BENCH_CORPUS, else ../shared/corpus/claude, else the
// bundled sample.
func benchCorpus(b *testing.B) string {
	if d := os.Getenv("CAIRN_BENCH_CORPUS"); d != "" {
		return d
	}
	d := filepath.Join(testutil.RepoRoot(), "..", "shared", "corpus", "claude")
	if _, err := os.Stat(filepath.Join(d, "projects")); err == nil {
		return d
	}
	return sampleDir()
}

func corpusLines(b *testing.B) ([][]byte, int64) {
	tree, err := Discover(benchCorpus(b))
	if err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	var total int64
	for _, f := range tree.Files() {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			b.Fatal(err)
		}
		total += int64(len(data))
		lines = append(lines, bytes.SplitAfter(data, []byte{'\n'})...)
	}
	return lines, total
}

// BenchmarkParse measures single-core parsing of every line of the corpus
// (MB/s is per core).
func BenchmarkParse(b *testing.B) {
	lines, total := corpusLines(b)
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			if len(l) > 1 {
				_, _ = ParseLine(l)
			}
		}
	}
}

// BenchmarkScan measures discovery, parallel reading and session building.
func BenchmarkScan(b *testing.B) {
	dir := benchCorpus(b)
	tree, err := Discover(dir)
	if err != nil {
		b.Fatal(err)
	}
	var total int64
	for _, f := range tree.Files() {
		total += f.Size
	}
	b.SetBytes(total)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tree, _ := Discover(dir)
		if _, err := Scan(context.Background(), tree, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDiscoverCached is an incremental sync's discovery of an unchanged
// tree: the folder cache loaded, every folder and file stat-ed.
func BenchmarkDiscoverCached(b *testing.B) {
	dir := benchCorpus(b)
	c := LoadDirCache(nil)
	if _, err := DiscoverCached(dir, c); err != nil {
		b.Fatal(err)
	}
	cache, _ := c.MarshalBinary()
	b.ReportAllocs()
	for b.Loop() {
		c := LoadDirCache(cache)
		if _, err := DiscoverCached(dir, c); err != nil {
			b.Fatal(err)
		}
	}
}
