package transcripts

import (
	"bytes"
	"os"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// BenchmarkRead measures Read over every file of the corpus, from memory:
// the line loop and the parse of each line (MB/s is per core).
func BenchmarkRead(b *testing.B) {
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
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		for _, data := range files {
			var stats ReadStats
			if _, err := Read(bytes.NewReader(data), "bench", Cursor{}, &stats, func(*Entry) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	}
}
