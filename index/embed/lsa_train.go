package embed

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
)

// TrainOptions tunes Train. Zero values pick the defaults.
type TrainOptions struct {
	// Dims is the vector size (default 256). Tiny corpora get fewer: never
	// more than the number of terms or documents.
	Dims int
	// MaxDocs caps the documents used for training (default 50,000); larger
	// inputs are sampled deterministically.
	MaxDocs int
	// MaxVocab caps the vocabulary, keeping the terms found in most
	// documents (default 30,000).
	MaxVocab int
	// MinDF drops terms found in fewer documents (default 2; 1 when training
	// on fewer than 50 documents).
	MinDF int
	// MaxDocBytes cuts each training document (default 16 KiB).
	MaxDocBytes int
	// Oversample and PowerIters tune the randomized SVD (defaults 16 and 1;
	// a negative PowerIters means none: faster, slightly less accurate).
	Oversample int
	PowerIters int
	// Seed makes training reproducible; 0 uses a fixed default seed.
	Seed uint64
	// Workers bounds parallelism (default GOMAXPROCS). The result does not
	// depend on it.
	Workers int
}

const defaultSeed = 0x63616972_6e6c7361 // "cairnlsa"

// sigmaPow weights the LSA dimensions: term rows are U·Σ^sigmaPow, so
// vectors are Uᵀx scaled per dimension by Σ^(sigmaPow). 0 is the classic LSA
// fold-in; negative values flatten the dominance of the first dimensions.
// Part of the vector space: changing it requires a modelVersion bump.
const sigmaPow = 0.0

func (o *TrainOptions) withDefaults(nDocs int) {
	defaultInt(&o.Dims, 192)
	defaultInt(&o.MaxDocs, 50_000)
	defaultInt(&o.MaxVocab, 30_000)
	if o.MinDF <= 0 {
		o.MinDF = 2
		if min(nDocs, o.MaxDocs) < 50 {
			o.MinDF = 1
		}
	}
	defaultInt(&o.MaxDocBytes, 16<<10)
	defaultInt(&o.Oversample, 16)
	if o.PowerIters < 0 {
		o.PowerIters = 0
	} else if o.PowerIters == 0 {
		o.PowerIters = 1
	}
	if o.Seed == 0 {
		o.Seed = defaultSeed
	}
	defaultInt(&o.Workers, runtime.GOMAXPROCS(0))
}

// defaultInt sets *v to d unless it is positive.
func defaultInt(v *int, d int) {
	if *v <= 0 {
		*v = d
	}
}

// Train builds the built-in embedder from docs (typically the text of the
// user's transcript entries). It samples at most MaxDocs documents, keeps
// the MaxVocab most widespread terms, weights them by log(1+tf)·idf and
// reduces the term space with a randomized truncated SVD. The same docs and
// options always give the same model (and ID).
func Train(docs []string, opts TrainOptions) (*Model, error) {
	opts.withDefaults(len(docs))
	sample := sampleDocs(docs, opts.MaxDocs, opts.Seed)
	for i, d := range sample {
		sample[i] = clipRunes(d, opts.MaxDocBytes)
	}

	vocab, df := buildVocab(sample, opts)
	if len(vocab) < 2 {
		return nil, fmt.Errorf("embed: cannot train the built-in model: %d documents gave %d usable terms (need at least 2); index more transcripts first", len(sample), len(vocab))
	}
	index := make(map[string]int32, len(vocab))
	for i, t := range vocab {
		index[t] = int32(i)
	}
	idf := make([]float64, len(vocab))
	for i, f := range df {
		idf[i] = math.Log(float64(len(sample)+1) / float64(f))
	}
	x := buildMatrix(sample, index, idf, opts.Workers)
	// Free the term-count maps (large on junk-heavy text) before the SVD
	// allocates its two vocab×(dims+oversample) blocks: lowers peak memory.
	runtime.GC()
	if x.nDocs() < 2 {
		return nil, fmt.Errorf("embed: cannot train the built-in model: only %d documents contain known terms (need at least 2)", x.nDocs())
	}

	k := min(opts.Dims, len(vocab), x.nDocs())
	u, sigma, err := randomizedEig(x, len(vocab), k, opts)
	if err != nil {
		return nil, err
	}
	k = len(sigma)

	proj := foldRows(u, sigma, idf)
	sig32 := make([]float32, k)
	for i, s := range sigma {
		sig32[i] = float32(s)
	}
	return newModel(k, vocab, index, proj, sig32, x.nDocs())
}

// foldRows folds idf and the dimension weighting into the term rows of u
// (one row of len(sigma) per term), so embedding is a weighted sum of rows.
func foldRows(u, sigma, idf []float64) []float32 {
	k := len(sigma)
	dw := make([]float64, k)
	for i, s := range sigma {
		dw[i] = math.Pow(s, sigmaPow)
	}
	proj := make([]float32, len(idf)*k)
	for t := range idf {
		for i := range k {
			proj[t*k+i] = float32(idf[t] * u[t*k+i] * dw[i])
		}
	}
	return proj
}

// sampleDocs picks n of docs by a seeded partial shuffle, returned in their
// original order.
func sampleDocs(docs []string, n int, seed uint64) []string {
	if len(docs) <= n {
		return slices.Clone(docs)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	idx := make([]int, len(docs))
	for i := range idx {
		idx[i] = i
	}
	for i := range n {
		j := i + rng.IntN(len(idx)-i)
		idx[i], idx[j] = idx[j], idx[i]
	}
	idx = idx[:n]
	slices.Sort(idx)
	out := make([]string, n)
	for i, j := range idx {
		out[i] = docs[j]
	}
	return out
}

// buildVocab counts document frequencies in parallel and keeps the terms
// with df >= MinDF, most frequent first (ties by term), at most MaxVocab.
func buildVocab(docs []string, opts TrainOptions) ([]string, []int32) {
	parts := splitRange(len(docs), opts.Workers)
	counters := make([]*dfCounter, len(parts))
	var wg sync.WaitGroup
	for w, r := range parts {
		wg.Go(func() {
			c := &dfCounter{ids: make(map[string]int32)}
			c.count(docs, r)
			counters[w] = c
		})
	}
	wg.Wait()
	total := counters[0]
	for _, c := range counters[1:] {
		total.merge(c)
	}
	return total.top(opts.MinDF, opts.MaxVocab)
}

// dfCounter counts the documents each term occurs in.
type dfCounter struct {
	ids  map[string]int32 // term -> index into df
	df   []int32
	last []int32 // the last document counted for each term
}

// count counts the terms of docs[r[0]:r[1]].
func (c *dfCounter) count(docs []string, r [2]int) {
	var tk tokenizer
	doc := int32(0)
	emit := func(term []byte) {
		id, ok := c.ids[string(term)]
		if !ok {
			id = int32(len(c.df))
			c.ids[string(term)] = id
			c.df = append(c.df, 0)
			c.last = append(c.last, -1)
		}
		if c.last[id] != doc {
			c.last[id] = doc
			c.df[id]++
		}
	}
	for i := r[0]; i < r[1]; i++ {
		doc = int32(i)
		tk.forEachTerm(docs[i], emit)
	}
}

// merge adds the counts of o (over other documents) to c.
func (c *dfCounter) merge(o *dfCounter) {
	for t, id := range o.ids {
		if tid, ok := c.ids[t]; ok {
			c.df[tid] += o.df[id]
		} else {
			c.ids[t] = int32(len(c.df))
			c.df = append(c.df, o.df[id])
		}
	}
}

// top returns the terms with df >= minDF, most frequent first (ties by
// term), at most maxVocab, and their document frequencies.
func (c *dfCounter) top(minDF, maxVocab int) ([]string, []int32) {
	type tdf struct {
		t  string
		df int32
	}
	var keep []tdf
	for t, id := range c.ids {
		if int(c.df[id]) >= minDF {
			keep = append(keep, tdf{t, c.df[id]})
		}
	}
	slices.SortFunc(keep, func(a, b tdf) int {
		if c := cmp.Compare(b.df, a.df); c != 0 {
			return c
		}
		return cmp.Compare(a.t, b.t)
	})
	keep = keep[:min(len(keep), maxVocab)]
	vocab := make([]string, len(keep))
	df := make([]int32, len(keep))
	for i, k := range keep {
		vocab[i], df[i] = k.t, k.df
	}
	return vocab, df
}

// splitRange cuts [0,n) into at most w contiguous ranges.
func splitRange(n, w int) [][2]int {
	w = max(1, min(w, n))
	per := (n + w - 1) / max(w, 1)
	var out [][2]int
	for lo := 0; lo < n; lo += per {
		out = append(out, [2]int{lo, min(lo+per, n)})
	}
	if len(out) == 0 {
		out = append(out, [2]int{0, 0})
	}
	return out
}

// sparseDocs is the training matrix X (terms × docs) stored by document:
// doc d has terms ids[start[d]:start[d+1]] with weights w[...], each doc
// L2-normalised.
type sparseDocs struct {
	start []int
	ids   []int32
	w     []float32
}

func (x *sparseDocs) nDocs() int { return len(x.start) - 1 }

func buildMatrix(docs []string, index map[string]int32, idf []float64, workers int) *sparseDocs {
	parts := splitRange(len(docs), workers)
	outs := make([]sparseDocs, len(parts))
	var wg sync.WaitGroup
	for p, r := range parts {
		wg.Go(func() {
			var tk tokenizer
			tf := make([]int32, len(idf))
			var touched []int32
			emit := func(term []byte) {
				if id, ok := index[string(term)]; ok {
					if tf[id] == 0 {
						touched = append(touched, id)
					}
					tf[id]++
				}
			}
			o := &outs[p]
			for i := r[0]; i < r[1]; i++ {
				touched = touched[:0]
				tk.forEachTerm(docs[i], emit)
				if len(touched) == 0 {
					continue
				}
				slices.Sort(touched)
				var norm float64
				base := len(o.w)
				for _, id := range touched {
					v := math.Log1p(float64(tf[id])) * idf[id]
					tf[id] = 0
					norm += v * v
					o.ids = append(o.ids, id)
					o.w = append(o.w, float32(v))
				}
				inv := 1 / math.Sqrt(norm)
				for j := base; j < len(o.w); j++ {
					o.w[j] = float32(float64(o.w[j]) * inv)
				}
				o.start = append(o.start, base)
			}
		})
	}
	wg.Wait()
	x := &sparseDocs{}
	for _, o := range outs {
		off := len(x.ids)
		for _, s := range o.start {
			x.start = append(x.start, s+off)
		}
		x.ids = append(x.ids, o.ids...)
		x.w = append(x.w, o.w...)
	}
	x.start = append(x.start, len(x.ids))
	return x
}

var errNoSpectrum = errors.New("embed: the training matrix has no usable structure (all documents alike or empty); index more varied transcripts first")
