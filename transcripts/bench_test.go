package transcripts

import (
	"bytes"
	"os"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

func corpusLines(b *testing.B) ([][]byte, int64) {
	files, total := corpusFiles(b)
	var lines [][]byte
	for _, data := range files {
		lines = append(lines, bytes.SplitAfter(data, []byte{'\n'})...)
	}
	return lines, total
}

// corpusFiles is the bytes of every file of the benchmark corpus, and
// their total.
func corpusFiles(b *testing.B) ([][]byte, int64) {
	tree, err := Discover(testutil.BenchCorpus())
	if err != nil {
		b.Fatal(err)
	}
	var files [][]byte
	var total int64
	for _, f := range tree.Files() {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, data)
		total += int64(len(data))
	}
	return files, total
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

// BenchmarkDiscoverCached is an incremental sync's discovery of an unchanged
// tree: the folder cache loaded, every folder and file stat-ed.
func BenchmarkDiscoverCached(b *testing.B) {
	dir := testutil.BenchCorpus()
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
