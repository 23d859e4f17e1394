package transcripts

import (
	"bytes"
	"testing"
)

// BenchmarkRead measures Read over every file of the corpus, from memory:
// the line loop and the parse of each line (MB/s is per core).
func BenchmarkRead(b *testing.B) {
	files, total := corpusFiles(b)
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
