package index

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"testing"
)

func randVec(r *rand.Rand, dims int) []float32 {
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

func TestVecCacheRoundTripAndSearch(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var rows []VecRow
	for i := 0; i < 500; i++ {
		rows = append(rows, VecRow{ID: fmt.Sprintf("id-%03d", i), Vec: randVec(r, 32)})
	}
	rows = append(rows, VecRow{ID: "zero", Vec: make([]float32, 32)})
	path := filepath.Join(t.TempDir(), "vectors.bin")
	if err := WriteVecCache(path, "emb:1", 32, rows); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenVecCache(path, "emb:2"); !errors.Is(err, ErrVecCacheStale) {
		t.Fatalf("other embedder: %v", err)
	}
	c := mustOpenVecCache(t, path, "emb:1")
	if c.Len() != 500 {
		t.Fatalf("len %d (zero vectors are skipped)", c.Len())
	}
	// Each vector finds itself first despite quantisation.
	for _, i := range []int{0, 17, 499} {
		got := c.Search(rows[i].Vec, 3, nil)
		if got[0].ID != rows[i].ID || math.Abs(got[0].Score-1) > 0.02 {
			t.Fatalf("query %d: %+v", i, got)
		}
	}
	got := c.Search(rows[5].Vec, 5, func(id string) bool { return id != "id-005" })
	for _, s := range got {
		if s.ID == "id-005" {
			t.Fatal("filter ignored")
		}
	}
}

func BenchmarkVecCacheSearch(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	var rows []VecRow
	for i := 0; i < 100000; i++ {
		rows = append(rows, VecRow{ID: fmt.Sprintf("m:%08x-d9cb-469f-a165-70867728950e", i), Vec: randVec(r, 256)})
	}
	path := filepath.Join(b.TempDir(), "vectors.bin")
	if err := WriteVecCache(path, "e", 256, rows); err != nil {
		b.Fatal(err)
	}
	c := mustOpenVecCache(b, path, "e")
	q := randVec(r, 256)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Search(q, 50, nil)
	}
}

// TestVecIDs: the cache's ids read back as written, in 24 bytes: entries'
// uuids and synthetic ids packed, short ids as text; the rest is refused.
func TestVecIDs(t *testing.T) {
	raw := make([]byte, vecIDBytes)
	for _, id := range []string{"m:0f8fad5b-d9cb-469f-a165-70867728950e", "sum:0f8fad5b-d9cb-469f-a165-70867728950e",
		"m:nouuid-00112233445566778899aabbccddeeff", "mem:m-1a2b3c4d", "", "m:0F8FAD5B-D9CB-469F-A165-70867728950E"[:24],
		"m:nouuid-00112233", "0123456789abcdef01234567"} {
		if !encodeVecID(raw, id) {
			t.Fatalf("%q not stored", id)
		}
		if got := decodeVecID(raw); got != id {
			t.Fatalf("%q read back as %q", id, got)
		}
	}
	for _, id := range []string{"m:0F8FAD5B-D9CB-469F-A165-70867728950E", "m:nouuid-00112233445566778899AABBCCDDEEFF",
		"\x01m:0f8fad5b", "0123456789abcdef012345678"} {
		if encodeVecID(raw, id) {
			t.Fatalf("%q stored as %q", id, decodeVecID(raw))
		}
	}
}
