// Package embed turns text into L2-normalised vectors for cairn's hybrid
// search. It offers two embedders behind one interface:
//
//   - Ollama: a client for a local Ollama server's /api/embed endpoint
//     (e.g. nomic-embed-text), used when the user has Ollama running.
//   - Model: a built-in LSA model trained on the user's own transcripts. It
//     needs nothing installed and downloads nothing.
//
// Vectors from different embedders (different ID()) live in different spaces
// and must never be compared or stored together. This package does no
// storage: EncodeVector/DecodeVector give the little-endian float32 bytes the
// index persists.
package embed

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
)

// Kind tells an embedder whether a text is stored content or a search query.
// Some models embed the two differently (nomic-embed-text wants prefixes;
// the built-in model corrects typos in queries only).
type Kind int

const (
	// Document is text that will be stored and searched.
	Document Kind = iota
	// Query is a search query.
	Query
)

func (k Kind) String() string {
	switch k {
	case Document:
		return "document"
	case Query:
		return "query"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Embedder turns texts into vectors of one vector space.
type Embedder interface {
	// ID identifies the vector space: model name + dims + version, e.g.
	// "ollama:nomic-embed-text:768" or "cairn-lsa:v1:256:<trainhash>".
	// Vectors with different IDs are never mixed.
	ID() string
	// Dims is the length of every vector Embed returns.
	Dims() int
	// Embed returns one L2-normalised vector per text, in order. A text with
	// nothing the embedder recognises may come back as an all-zero vector;
	// callers should not index those (see IsZero).
	Embed(ctx context.Context, kind Kind, texts []string) ([][]float32, error)
}

// Cosine is the cosine similarity of a and b; 0 when either is all zeros or
// the lengths differ. For normalised vectors it equals Dot.
func Cosine(a, b []float32) float32 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return float32(dot / math.Sqrt(na*nb))
}

// Dot is the dot product of two equal-length vectors (0 if lengths differ).
// On normalised vectors it is the cosine similarity, and it is what a
// brute-force scan should use.
func Dot(a, b []float32) float32 {
	if len(a) != len(b) {
		return 0
	}
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// Normalize scales v in place to unit L2 length. An all-zero vector is left
// as it is.
func Normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

// IsZero reports whether v has no non-zero component. The built-in model
// returns such vectors for texts without a single known term; they carry no
// meaning and should be skipped rather than stored.
func IsZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// EncodeVector returns v as little-endian float32s, 4 bytes per component
// (the index stores vectors in its own, smaller layout: index.encodeVector).
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector parses bytes written by EncodeVector.
func DecodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("embed: vector blob has %d bytes, not a multiple of 4: the stored vector is corrupt; re-embed it", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// checkFinite returns the index of the first NaN or Inf in v, or -1.
func checkFinite(v []float32) int {
	for i, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return i
		}
	}
	return -1
}
