package fts

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// benchDocs is the size of the shared benchmark index.
const benchDocs = 100_000

// benchRoot holds indexes built for benchmarks; TestMain removes it.
var benchRoot string

// bigIndex builds (once per test binary) a benchDocs index and returns its
// directory. Building it is itself the indexing measurement at scale.
var bigIndex = sync.OnceValues(func() (string, error) {
	dir := filepath.Join(benchRoot, "big")
	docs := synthDocs(benchDocs, 1)
	start := time.Now()
	if err := openDoClose(dir, indexAll(docs)); err != nil {
		return "", err
	}
	el := time.Since(start)
	mb := float64(textBytes(docs)) / 1e6
	fmt.Fprintf(os.Stderr, "bench index: %d docs, %.1f MB text in %v = %.0f docs/s, %.2f MB/s; %.1f MB on disk = %.0f KB per MB of text\n",
		len(docs), mb, el.Round(time.Millisecond), float64(len(docs))/el.Seconds(), mb/el.Seconds(),
		float64(dirSize(dir))/1e6, float64(dirSize(dir))/1e3/mb)
	return dir, nil
})

// openDoClose opens the index in dir, runs do on it (when not nil) and
// closes it: a short-lived process's whole use of the index.
func openDoClose(dir string, do func(*Index) error) error {
	ix, err := Open(dir, time.Second)
	if err != nil {
		return err
	}
	if do != nil {
		if err := do(ix); err != nil {
			ix.Close()
			return err
		}
	}
	return ix.Close()
}

// indexAll is an openDoClose step that indexes docs.
func indexAll(docs []Doc) func(*Index) error {
	return func(ix *Index) error { return ix.Index(docs) }
}

func needBigIndex(b *testing.B) string {
	b.Helper()
	dir, err := bigIndex()
	if err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkIndex indexes 20k fresh documents per iteration and reports
// docs/s and bytes on disk per MB of text (after Close has persisted all).
func BenchmarkIndex(b *testing.B) {
	docs := synthDocs(20_000, 2)
	mb := float64(textBytes(docs)) / 1e6
	var size int64
	b.ResetTimer()
	for i := range b.N {
		dir := filepath.Join(b.TempDir(), fmt.Sprint(i))
		if err := openDoClose(dir, indexAll(docs)); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		size = dirSize(dir)
		b.StartTimer()
	}
	b.ReportMetric(float64(len(docs)*b.N)/b.Elapsed().Seconds(), "docs/s")
	b.ReportMetric(float64(size)/mb, "diskB/MBtext")
}

// BenchmarkOpenClose is what every short-lived process pays up front.
func BenchmarkOpenClose(b *testing.B) {
	dir := needBigIndex(b)
	b.ResetTimer()
	for range b.N {
		if err := openDoClose(dir, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// benchQueries are two-word queries drawn from the corpus vocabulary (a
// fixed seed), mixing common and rare words like real searches.
func benchQueries(n int) []string {
	rng := rand.New(rand.NewPCG(3, 3))
	var words []string
	for _, l := range synthDocs(500, 4) {
		for _, w := range strings.Fields(l.Text) {
			if len(w) >= 4 && len(w) <= 14 && strings.IndexFunc(w, func(r rune) bool { return !isWordRune(r) }) < 0 {
				words = append(words, w)
			}
		}
	}
	qs := make([]string, n)
	for i := range qs {
		qs[i] = words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
	}
	return qs
}

// BenchmarkSearch reports p50/p95 latency of two-term queries on the open
// 100k index (top 20, no filter) and with a project filter.
func BenchmarkSearch(b *testing.B) {
	for _, bc := range []struct {
		name string
		f    Filter
	}{{"nofilter", Filter{}}, {"project", Filter{Projects: []string{"/home/u/projects/p07"}}}} {
		b.Run(bc.name, func(b *testing.B) {
			ix, err := Open(needBigIndex(b), time.Second)
			if err != nil {
				b.Fatal(err)
			}
			defer ix.Close()
			qs := benchQueries(500)
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				t := time.Now()
				if _, _, err := ix.Search(qs[i%len(qs)], bc.f, 20); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t))
			}
			reportPercentiles(b, lat)
		})
	}
}

// BenchmarkOpenSearchClose is one hook or CLI invocation's whole bleve cost.
func BenchmarkOpenSearchClose(b *testing.B) {
	dir := needBigIndex(b)
	qs := benchQueries(500)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		t := time.Now()
		err := openDoClose(dir, func(ix *Index) error {
			_, _, err := ix.Search(qs[i%len(qs)], Filter{}, 20)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
	}
	reportPercentiles(b, lat)
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / 1e6 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
	b.ReportMetric(pct(1), "max-ms")
}

// BenchmarkSmallWrite is a hook-sized write: open, index 5 messages, close,
// into an index that grows by 5 per iteration (so it includes the
// occasional synchronous segment merge, see compact.go).
func BenchmarkSmallWrite(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "small")
	docs := synthDocs(5*b.N, 5)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		t := time.Now()
		if err := openDoClose(dir, indexAll(docs[5*i:5*i+5])); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
	}
	reportPercentiles(b, lat)
}
