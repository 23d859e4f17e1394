package transcriptstest

import (
	"context"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
	"github.com/cairn-dev/cairn/transcripts"
)

// BenchmarkScan measures discovery, parallel reading and session building.
func BenchmarkScan(b *testing.B) {
	dir := testutil.BenchCorpus()
	tree, err := transcripts.Discover(dir)
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
		tree, _ := transcripts.Discover(dir)
		if _, err := Scan(context.Background(), tree, 0); err != nil {
			b.Fatal(err)
		}
	}
}
