package index

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHalfFloats: every half float survives widening and narrowing; any
// float32 in range narrows to the nearest half (ties to even).
func TestHalfFloats(t *testing.T) {
	for h := range 1 << 16 {
		f := fromHalf(uint16(h))
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			continue
		}
		if back := toHalf(f); back != uint16(h) && !(f == 0 && back&0x7fff == 0) {
			t.Fatalf("half %#04x → %g → %#04x", h, f, back)
		}
	}
	nearest := func(f float32) {
		h := toHalf(f)
		got := float64(fromHalf(h))
		err := math.Abs(got - float64(f))
		for _, n := range []uint16{h - 1, h + 1} {
			alt := float64(fromHalf(n))
			if math.IsNaN(alt) || math.IsInf(alt, 0) || (n^h)&0x8000 != 0 {
				continue
			}
			altErr := math.Abs(alt - float64(f))
			if altErr < err || (altErr == err && h&1 == 1) {
				t.Fatalf("%g → %g (%#04x), but %g (%#04x) is nearer or the even tie", f, got, h, alt, n)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2_000_000 {
		f := math.Float32frombits(r.Uint32())
		if math.Abs(float64(f)) <= maxHalf {
			nearest(f)
		}
		nearest(float32(r.NormFloat64() * 0.1)) // embedding-like values
	}
	for _, f := range []float32{0, 1, -1, 0.5, maxHalf, -maxHalf, 6.1e-5, 5.96e-8, 2.98e-8, 2.99e-8, 1e-9, 65519} {
		if math.Abs(float64(f)) <= maxHalf {
			nearest(f)
		}
	}
}

// TestVectorEncoding: vectors round trip within half precision; a value
// out of half range keeps the whole vector in float32; a BLOB of the wrong
// length is corruption.
func TestVectorEncoding(t *testing.T) {
	v := []float32{0.12345, -0.5, 0, 1, -0.000123, 0.99999}
	b := encodeVector(v)
	if len(b) != 2*len(v) {
		t.Fatalf("%d bytes for %d dims, want half floats", len(b), len(v))
	}
	got, err := decodeVector(b, len(v))
	if err != nil {
		t.Fatal(err)
	}
	for i := range v {
		if d := math.Abs(float64(got[i] - v[i])); d > 1e-3*math.Abs(float64(v[i]))+1e-7 {
			t.Fatalf("dim %d: %g back as %g", i, v[i], got[i])
		}
	}
	big := []float32{1, 70000, -3.5}
	b = encodeVector(big)
	if got, err := decodeVector(b, 3); err != nil || len(b) != 12 || !slices.Equal(got, big) {
		t.Fatalf("out-of-range vector: %d bytes, %v, %v", len(b), got, err)
	}
	nan := []float32{float32(math.NaN()), 1}
	if b := encodeVector(nan); len(b) != 8 {
		t.Fatalf("NaN vector stored in %d bytes, want float32", len(b))
	}
	if _, err := decodeVector(make([]byte, 7), 3); err == nil {
		t.Fatal("a 7-byte vector of 3 dims decoded")
	}
}

// TestMemVectorsSkipDamaged: one damaged memory vector is left out (that
// memory gets embedded again) instead of failing every deduplication.
func TestMemVectorsSkipDamaged(t *testing.T) {
	s, _ := openStore(t)
	if err := s.Mem().PutVectors(t.Context(), "test-2", map[string][]float32{"a": {1, 0}, "b": {0, 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(t.Context(), `UPDATE embeddings SET vector = x'00' WHERE doc = 'mem:a'`); err != nil {
		t.Fatal(err)
	}
	got, err := s.Mem().Vectors(context.Background(), "test-2")
	if err != nil || len(got) != 1 || !slices.Equal(got["b"], []float32{0, 1}) {
		t.Fatalf("after damaging one vector: %v, %v", got, err)
	}
}
