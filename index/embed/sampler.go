package embed

import (
	"math/rand/v2"
	"strings"
)

// Sampler keeps a uniform random sample of at most n documents from a
// stream (reservoir sampling), so training text can be gathered from a
// million transcript entries without holding them all. Each kept document is
// cut to maxBytes. The sample depends only on the stream and the seed.
type Sampler struct {
	n, maxBytes int
	seen        int
	docs        []string
	rng         *rand.Rand
}

// NewSampler keeps up to n documents (TrainOptions.MaxDocs is a good n),
// each cut to maxBytes (0 = 16 KiB); seed 0 picks a fixed default.
func NewSampler(n, maxBytes int, seed uint64) *Sampler {
	if seed == 0 {
		seed = defaultSeed
	}
	if maxBytes <= 0 {
		maxBytes = 16 << 10
	}
	return &Sampler{n: max(n, 1), maxBytes: maxBytes, rng: rand.New(rand.NewPCG(seed, 0xa11ce))}
}

// Add offers one document to the sample.
func (s *Sampler) Add(doc string) {
	s.seen++
	if len(s.docs) < s.n {
		s.docs = append(s.docs, s.clip(doc))
		return
	}
	if j := s.rng.IntN(s.seen); j < s.n {
		s.docs[j] = s.clip(doc)
	}
}

// clip cuts doc to maxBytes and copies the cut text, so a large input's
// backing array is not kept alive by the sample.
func (s *Sampler) clip(doc string) string {
	if len(doc) <= s.maxBytes {
		return doc
	}
	return strings.Clone(clipRunes(doc, s.maxBytes))
}

// Seen is the number of documents offered so far.
func (s *Sampler) Seen() int { return s.seen }

// Docs returns the sample, ready for Train.
func (s *Sampler) Docs() []string { return s.docs }
