package fts

import (
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"
)

// chainCheck holds a fused analyzer to the chain of bleve parts it
// replaces: diff analyses an input with both and describes the first
// difference, or returns ""; cases are hand-written inputs, and random
// inputs are strung together from up to most (less one) pieces.
type chainCheck struct {
	cases  []string
	pieces []string
	most   int
	diff   func([]byte) string
}

func (c chainCheck) random(rng *rand.Rand) []byte {
	var b []byte
	for range rng.IntN(c.most) {
		b = append(b, c.pieces[rng.IntN(len(c.pieces))]...)
	}
	return b
}

// onCases checks every hand-written case.
func (c chainCheck) onCases(t *testing.T) {
	t.Helper()
	for _, in := range c.cases {
		if d := c.diff([]byte(in)); d != "" {
			t.Error(d)
		}
	}
}

// onRandom checks n random inputs (short: nShort) drawn from a generator
// seeded with seed; it stops at the first difference past maxErrors.
func (c chainCheck) onRandom(t *testing.T, seed [2]uint64, n, nShort, maxErrors int) {
	t.Helper()
	if testing.Short() {
		n = nShort
	}
	rng := rand.New(rand.NewPCG(seed[0], seed[1]))
	failures := 0
	for range n {
		if d := c.diff(c.random(rng)); d != "" {
			t.Error(d)
			if failures++; failures > maxErrors {
				t.Fatal("too many differences")
			}
		}
	}
}

// fuzz seeds f with the cases and 50 random inputs and fuzzes diff.
func (c chainCheck) fuzz(f *testing.F, seed [2]uint64) {
	for _, in := range c.cases {
		f.Add([]byte(in))
	}
	rng := rand.New(rand.NewPCG(seed[0], seed[1]))
	for range 50 {
		f.Add(c.random(rng))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if d := c.diff(in); d != "" {
			t.Fatal(d)
		}
	})
}

// sampleLines returns the first (at most) n raw lines of the sample
// transcripts.
func sampleLines(t *testing.T, n int) [][]byte {
	t.Helper()
	var lines [][]byte
	for _, f := range transcriptFiles() {
		lines = append(lines, jsonlLines(t, f)...)
	}
	return lines[:min(len(lines), n)]
}

// benchFiles is the shared corpus when present, else the sample
// transcripts.
func benchFiles() []string {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*", "*.jsonl"))
	if len(files) == 0 {
		files = transcriptFiles()
	}
	return files
}

// benchTexts is what the indexer feeds the analyzers: the texts, thinking
// and tool results of benchFiles, in documents of about 4 KB.
var benchTexts = sync.OnceValue(func() [][]byte {
	var docs [][]byte
	var cur []byte
	for _, f := range benchFiles() {
		for _, text := range transcriptTexts(f) {
			cur = append(cur, text...)
			cur = append(cur, '\n')
			if len(cur) >= 4096 {
				docs = append(docs, cur)
				cur = nil
			}
		}
	}
	return docs
})
