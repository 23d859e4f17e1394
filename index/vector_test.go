package index

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"path/filepath"
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

// TestEntryVectorsKeptAtCachePrecision: an entry's vector is stored in
// dims+4 bytes (a scale and a byte a dimension), read back within that
// precision, and re-quantised to the very bytes the vector cache gets
// from the embedder's vector; a vector an older build stored as half
// floats reads as before beside it; memories' vectors and vectors of 4
// dimensions or fewer keep half floats; a zero or non-finite vector has
// no 8-bit form.
func TestEntryVectorsKeptAtCachePrecision(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, dims := range []int{5, 16, 192} {
		v := make([]float32, dims)
		for i := range v {
			v[i] = float32(r.NormFloat64() * 0.1)
		}
		checkEntryVector(t, v)
		if b := encodeStoredVector(docMemoryPrefix+"m-1", v); len(b) != 2*dims {
			t.Fatalf("a memory's vector in %d bytes, want half floats", len(b))
		}
		old, err := decodeVector(encodeVector(v), dims) // as an older build stored it
		if err != nil || len(old) != dims {
			t.Fatalf("half-float vector: %v %v", old, err)
		}
	}
	for _, v := range [][]float32{{1, 2, 3, 4}, make([]float32, 8), {1, float32(math.NaN()), 0, 0, 0}, {1, float32(math.Inf(1)), 0, 0, 0}} {
		b := encodeStoredVector(queueEntryPrefix+"0000000000001", v)
		if len(b) != 2*len(v) && len(b) != 4*len(v) {
			t.Fatalf("%v stored in %d bytes, want half floats or float32", v, len(b))
		}
		if got, err := decodeVector(b, len(v)); err != nil || len(got) != len(v) {
			t.Fatalf("%v: %v %v", v, got, err)
		}
	}
}

// checkEntryVector: v, stored as an entry's vector, takes dims+4 bytes,
// reads back within half a step and re-quantises to the cache's bytes.
func checkEntryVector(t *testing.T, v []float32) {
	t.Helper()
	dims := len(v)
	b := encodeStoredVector(queueEntryPrefix+"0000000000001", v)
	if len(b) != dims+4 {
		t.Fatalf("%d dims: %d bytes, want %d", dims, len(b), dims+4)
	}
	got, err := decodeVector(b, dims)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, dims+4)
	again := make([]byte, dims+4)
	if !quantize(want, v) || !quantize(again, got) || !slices.Equal(want[4:], again[4:]) {
		t.Fatalf("%d dims: re-quantised %v, the embedder's vector %v", dims, again[4:], want[4:])
	}
	s0, s1 := math.Float32frombits(binary.LittleEndian.Uint32(want)), math.Float32frombits(binary.LittleEndian.Uint32(again))
	if math.Abs(float64(s0-s1)) > 1e-6*float64(s0) {
		t.Fatalf("%d dims: scale %g back as %g", dims, s0, s1)
	}
	for i := range v {
		if d := math.Abs(float64(got[i] - v[i])); d > float64(s0)/2+1e-9 {
			t.Fatalf("%d dims, dim %d: %g back as %g", dims, i, v[i], got[i])
		}
	}
}

// TestStoreMixesVectorFormats: a store holding vectors of an older build
// (half floats) and of this one (8-bit) reads both back, and the vector
// cache it writes finds each entry first.
func TestStoreMixesVectorFormats(t *testing.T) {
	s, dir := openStore(t)
	mustSync(t, s, copyTree(t, sampleDir), SyncOptions{})
	emb, err := s.Derived().QueuedEmbeds(t.Context(), 100000)
	if err != nil || len(emb) < 4 {
		t.Fatalf("%d queued, %v", len(emb), err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	var vecs []VecRow
	for _, d := range emb[:4] {
		vecs = append(vecs, VecRow{ID: d.ID, Vec: randVec32(r, 24)})
	}
	if err := s.Derived().PutEmbeddings(t.Context(), "test-24", vecs); err != nil {
		t.Fatal(err)
	}
	storeAsHalfFloats(t, s, "test-24", vecs[:2]) // as an older build stored them
	for _, n := range []struct{ bytes, want int }{{48, 2}, {28, 2}} {
		if got := count(t, s, `SELECT count(*) FROM embeddings WHERE embedder = 'test-24' AND length(vector) = ?`, n.bytes); got != n.want {
			t.Fatalf("%d vectors of %d bytes, want %d", got, n.bytes, n.want)
		}
	}
	got, err := s.Derived().Embeddings(t.Context(), "test-24")
	if err != nil || len(got) != 4 {
		t.Fatalf("%d vectors back, %v", len(got), err)
	}
	findThemselves(t, filepath.Join(dir, "test-vectors.bin"), got, vecs)
}

// findThemselves writes stored to a vector cache at path, where each of
// vecs must find itself first.
func findThemselves(t *testing.T, path string, stored, vecs []VecRow) {
	t.Helper()
	if err := WriteVecCache(path, "test", len(vecs[0].Vec), stored); err != nil {
		t.Fatal(err)
	}
	c := mustOpenVecCache(t, path, "test")
	for _, v := range vecs {
		if hit := c.Search(v.Vec, 1, nil); len(hit) != 1 || hit[0].ID != v.ID || math.Abs(hit[0].Score-1) > 0.02 {
			t.Fatalf("%s finds %+v", v.ID, hit)
		}
	}
}

// storeAsHalfFloats rewrites the stored vectors of entries as schema 12
// stored them.
func storeAsHalfFloats(t *testing.T, s *Store, embedder string, vecs []VecRow) {
	t.Helper()
	for _, v := range vecs {
		if _, err := s.w.ExecContext(t.Context(), `UPDATE embeddings SET vector = ? WHERE embedder = ? AND doc = (SELECT printf('e:%013d', id) FROM entries_raw WHERE uuid = cairn_pack(substr(?, 3)))`, encodeVector(v.Vec), embedder, v.ID); err != nil {
			t.Fatal(err)
		}
	}
}

func randVec32(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	var n float64
	for i := range v {
		v[i] = float32(r.NormFloat64())
		n += float64(v[i] * v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}
