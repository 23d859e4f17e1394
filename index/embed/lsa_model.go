package embed

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
)

// modelVersion is part of the built-in model's ID and binary format. Bump it
// whenever the tokenizer, weighting or embedding math changes, so vectors of
// the old and new behaviour are never mixed.
const modelVersion = 1

// maxEmbedBytes bounds the text read per embedding: a bag of words over the
// first 64 KiB says as much as one over a megabyte tool output, at a bounded
// cost.
const maxEmbedBytes = 64 << 10

// Model is the built-in embedder: an LSA projection (TF-IDF term vectors
// reduced by truncated SVD) trained on the user's own transcripts by Train.
// It is immutable and safe for concurrent use. *Model implements Embedder.
type Model struct {
	dims      int
	terms     []string
	index     map[string]int32
	q         []int8    // len(terms)*dims; row t is term t's vector (idf folded in) in units of scales[t]
	scales    []float32 // per-row int8 quantisation scale
	sigma     []float32 // singular values of the training matrix (informational)
	trainDocs int
	hash      string
	id        string

	pool      sync.Pool // *embedScratch
	fuzzyOnce sync.Once
	fuzzy     *trigramIndex
}

// ModelInfo describes a trained model.
type ModelInfo struct {
	Version   int
	Dims      int
	Vocab     int // number of terms
	TrainDocs int // documents that contributed to training
	Hash      string
}

// ID is "cairn-lsa:v<version>:<dims>:<hash>", where hash is a short digest of
// the trained model: retraining gives a new ID, i.e. a new vector space.
func (m *Model) ID() string { return m.id }

// Dims is the vector length.
func (m *Model) Dims() int { return m.dims }

// Info returns the model's size and provenance.
func (m *Model) Info() ModelInfo {
	return ModelInfo{Version: modelVersion, Dims: m.dims, Vocab: len(m.terms), TrainDocs: m.trainDocs, Hash: m.hash}
}

// Embed returns one L2-normalised vector per text. Texts without a single
// known term give an all-zero vector: skip those when indexing (IsZero).
// For Query texts, unknown words are matched to the closest vocabulary term
// by character trigrams, so small typos still find their topic. Large
// batches are spread over all cores.
func (m *Model) Embed(ctx context.Context, kind Kind, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	// One backing array keeps a batch's vectors together for the GC.
	backing := make([]float32, len(texts)*m.dims)
	for i := range out {
		out[i] = backing[i*m.dims : (i+1)*m.dims : (i+1)*m.dims]
	}
	workers := min(runtime.GOMAXPROCS(0), len(texts)/32)
	if workers <= 1 {
		if err := m.embedRange(ctx, kind, texts, out); err != nil {
			return nil, err
		}
		return out, nil
	}
	var wg sync.WaitGroup
	errs := make([]error, workers)
	per := (len(texts) + workers - 1) / workers
	for w := range workers {
		lo, hi := w*per, min((w+1)*per, len(texts))
		wg.Go(func() { errs[w] = m.embedRange(ctx, kind, texts[lo:hi], out[lo:hi]) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (m *Model) embedRange(ctx context.Context, kind Kind, texts []string, out [][]float32) error {
	s := m.getScratch()
	defer m.pool.Put(s)
	for i, t := range texts {
		if i%64 == 63 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("embed: canceled after %d texts: %w", i, err)
			}
		}
		s.embed(kind, t, out[i])
	}
	return nil
}

// EmbedText embeds one text. ok is false when no term of text is known to
// the model; the vector is then all zeros and should not be stored.
func (m *Model) EmbedText(kind Kind, text string) (vec []float32, ok bool) {
	s := m.getScratch()
	defer m.pool.Put(s)
	vec = make([]float32, m.dims)
	return vec, s.embed(kind, text, vec)
}

// embedScratch is per-goroutine working memory for embedding.
type embedScratch struct {
	m       *Model
	tk      tokenizer
	weight  []float32 // term frequency per term id, zero between texts
	touched []int32
	query   bool
	emit    func([]byte)
}

func (m *Model) getScratch() *embedScratch {
	if s, ok := m.pool.Get().(*embedScratch); ok {
		return s
	}
	s := &embedScratch{m: m, weight: make([]float32, len(m.terms))}
	s.emit = s.addTerm
	return s
}

func (s *embedScratch) addTerm(term []byte) {
	id, ok := s.m.index[string(term)]
	w := float32(1)
	if !ok {
		if !s.query {
			return
		}
		var sim float32
		if id, sim = s.m.fuzzyMatch(term); id < 0 {
			return
		}
		w = sim
	}
	if s.weight[id] == 0 {
		s.touched = append(s.touched, id)
	}
	s.weight[id] += w
}

// embed writes text's vector into out (len dims) and reports whether any
// term was known.
func (s *embedScratch) embed(kind Kind, text string, out []float32) bool {
	if len(text) > maxEmbedBytes {
		text = clipRunes(text, maxEmbedBytes)
	}
	clear(out)
	s.query = kind == Query
	s.touched = s.touched[:0]
	s.tk.forEachTerm(text, s.emit)
	if len(s.touched) == 0 {
		return false
	}
	d := s.m.dims
	q, scales := s.m.q, s.m.scales
	for _, id := range s.touched {
		w := float32(math.Log1p(float64(s.weight[id])))
		s.weight[id] = 0
		axpyQ(out, w*scales[id], q[int(id)*d:int(id+1)*d])
	}
	Normalize(out)
	return !IsZero(out)
}

// axpyQ computes y += a*x for equal-length slices, x quantised.
func axpyQ(y []float32, a float32, x []int8) {
	x = x[:len(y)]
	i := 0
	for ; i+4 <= len(y); i += 4 {
		y[i] += a * float32(x[i])
		y[i+1] += a * float32(x[i+1])
		y[i+2] += a * float32(x[i+2])
		y[i+3] += a * float32(x[i+3])
	}
	for ; i < len(y); i++ {
		y[i] += a * float32(x[i])
	}
}

// trigramIndex maps character trigrams of vocabulary words to term ids, for
// typo-tolerant query lookups.
type trigramIndex struct {
	postings map[uint32][]int32
	ngrams   []uint8 // number of trigrams per term id (0 = not indexed)
}

func (m *Model) fuzzyMatch(term []byte) (int32, float32) {
	if len(term) < 5 || len(term) > maxPartLen {
		return -1, 0
	}
	for _, c := range term {
		if !isLower(c) {
			return -1, 0
		}
	}
	m.fuzzyOnce.Do(m.buildFuzzy)
	return m.fuzzy.best(term)
}

func (m *Model) buildFuzzy() {
	ti := &trigramIndex{postings: make(map[uint32][]int32), ngrams: make([]uint8, len(m.terms))}
	var grams []uint32
	for id, t := range m.terms {
		if len(t) < 4 || len(t) > maxPartLen || !allLower(t) {
			continue
		}
		grams = trigrams(grams[:0], []byte(t))
		ti.ngrams[id] = uint8(len(grams))
		for _, g := range grams {
			ti.postings[g] = append(ti.postings[g], int32(id))
		}
	}
	m.fuzzy = ti
}

func allLower(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLower(s[i]) {
			return false
		}
	}
	return true
}

// trigrams appends the distinct trigrams of "^word$".
func trigrams(dst []uint32, w []byte) []uint32 {
	at := func(i int) uint32 {
		switch {
		case i < 0:
			return '^'
		case i >= len(w):
			return '$'
		}
		return uint32(w[i])
	}
	for i := -1; i+1 <= len(w); i++ {
		g := at(i)<<16 | at(i+1)<<8 | at(i+2)
		dup := false
		for _, h := range dst {
			dup = dup || h == g
		}
		if !dup {
			dst = append(dst, g)
		}
	}
	return dst
}

// best returns the vocabulary term with the highest trigram Dice similarity
// to w, if it is at least 0.5, with that similarity; ties go to the lower id
// (the more frequent term).
func (ti *trigramIndex) best(w []byte) (int32, float32) {
	grams := trigrams(make([]uint32, 0, 32), w)
	counts := make(map[int32]int, 64)
	for _, g := range grams {
		for _, id := range ti.postings[g] {
			counts[id]++
		}
	}
	bestID, bestSim := int32(-1), float32(0.5)
	for id, c := range counts {
		sim := float32(2*c) / float32(len(grams)+int(ti.ngrams[id]))
		if sim > bestSim || sim == bestSim && bestID >= 0 && id < bestID {
			bestID, bestSim = id, sim
		}
	}
	return bestID, bestSim
}
