package embed

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// syntheticCorpus makes n developer-ish documents of ~150 words each drawn
// from a Zipf distribution over 200k words, with topic clusters so the SVD
// has structure. Deterministic.
func syntheticCorpus(n int) []string {
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, 200_000-1)
	words := make([]string, 200_000)
	syll := []string{"ka", "lo", "mi", "ne", "po", "ru", "sa", "te", "vi", "zo", "qu", "ex"}
	for i := range words {
		var b strings.Builder
		for x := i + 1; x > 0; x /= len(syll) {
			b.WriteString(syll[x%len(syll)])
		}
		words[i] = b.String()
	}
	docs := make([]string, n)
	var b strings.Builder
	for i := range docs {
		b.Reset()
		topic := rng.IntN(500) * 300
		for range 100 + rng.IntN(100) {
			w := int(zipf.Uint64())
			if rng.IntN(3) == 0 {
				w = (topic + w%300) % len(words)
			}
			b.WriteString(words[w])
			if rng.IntN(8) == 0 {
				b.WriteString("Handler ")
			} else {
				b.WriteByte(' ')
			}
		}
		docs[i] = b.String()
	}
	return docs
}

// BenchmarkTrain50k trains on 50k synthetic documents (vocabulary capped at
// 30k terms): the size the index samples for training.
func BenchmarkTrain50k(b *testing.B) {
	docs := syntheticCorpus(50_000)
	b.ResetTimer()
	for range b.N {
		m, err := Train(docs, TrainOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(m.Info().Vocab), "terms")
	}
}

// BenchmarkEmbed measures single-goroutine embedding of typical entries
// (200–2000 characters): on the real corpus when present (model trained on
// it), and on synthetic text with a large vocabulary.
func BenchmarkEmbed(b *testing.B) {
	b.Run("corpus", func(b *testing.B) {
		train := corpusTexts(loadCorpusIfPresent())
		if len(train) == 0 {
			b.Skip("no corpus")
		}
		benchEmbed(b, train)
	})
	b.Run("synthetic", func(b *testing.B) { benchEmbed(b, syntheticCorpus(20_000)) })
}

func benchEmbed(b *testing.B, train []string) {
	var docs []string
	var bytes int
	for _, d := range train {
		if len(d) >= 200 && len(d) <= 2000 {
			docs = append(docs, d)
			bytes += len(d)
		}
	}
	m, err := Train(train, TrainOptions{})
	if err != nil {
		b.Fatal(err)
	}
	s := m.getScratch()
	out := make([]float32, m.Dims())
	b.ResetTimer()
	for i := range b.N {
		s.embed(Document, docs[i%len(docs)], out)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "entries/s")
	b.ReportMetric(float64(bytes/len(docs)), "bytes/entry")
	b.ReportMetric(float64(m.Info().Vocab), "terms")
}

// BenchmarkEmbedBatch measures Model.Embed on batches of 256 (all cores).
func BenchmarkEmbedBatch(b *testing.B) {
	docs := syntheticCorpus(4096)
	m, err := Train(docs, TrainOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		lo := (i * 256) % (len(docs) - 256)
		if _, err := m.Embed(context.Background(), Document, docs[lo:lo+256]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*256)/b.Elapsed().Seconds(), "entries/s")
}

func ExampleTrain() {
	docs := []string{
		"websocket reconnect with backoff when the socket connection drops",
		"the socket connection drops and the websocket reconnects",
		"run the database migration and roll back the schema on failure",
		"database schema migration rolled back",
	}
	m, err := Train(docs, TrainOptions{})
	if err != nil {
		panic(err)
	}
	vs, _ := m.Embed(context.Background(), Document, []string{"websocket reconnect", "database migration"})
	q, _ := m.EmbedText(Query, "socket drops")
	fmt.Println(Dot(q, vs[0]) > Dot(q, vs[1]))
	// Output: true
}
