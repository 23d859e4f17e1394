package index

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestAppendVecCacheConcurrent: appenders are serialised by the cache's
// exclusive lock, so rows appended at the same time are all kept and the
// header's count matches them.
func TestAppendVecCacheConcurrent(t *testing.T) {
	const dims, workers, per = 16, 8, 25
	r := rand.New(rand.NewSource(3))
	path := filepath.Join(t.TempDir(), "vectors.bin")
	if err := WriteVecCache(path, "e", dims, []VecRow{{ID: "seed", Vec: randVec(r, dims)}}); err != nil {
		t.Fatal(err)
	}
	batches := make([][]VecRow, workers)
	for w := range batches {
		for i := range per {
			batches[w] = append(batches[w], VecRow{ID: fmt.Sprintf("w%d-%d", w, i), Vec: randVec(r, dims)})
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers*per)
	for _, b := range batches {
		wg.Go(func() {
			for _, row := range b { // one append per row: many lock rounds
				if err := AppendVecCache(path, "e", dims, []VecRow{row}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	c := mustOpenVecCache(t, path, "e")
	if want := 1 + workers*per; c.Len() != want {
		t.Fatalf("len %d, want %d", c.Len(), want)
	}
	seen := map[string]bool{}
	for i := range c.Len() {
		seen[c.id(i)] = true
	}
	for _, b := range batches {
		for _, row := range b {
			if !seen[row.ID] {
				t.Fatalf("row %s lost", row.ID)
			}
			if got := c.Search(row.Vec, 1, nil); len(got) != 1 || got[0].ID != row.ID {
				t.Fatalf("row %s does not find itself: %+v", row.ID, got)
			}
		}
	}
}

// TestAppendVecCacheMissingOrForeign: no cache, or one of another embedder
// or size, is left for the refresh to write.
func TestAppendVecCacheMissingOrForeign(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	path := filepath.Join(t.TempDir(), "vectors.bin")
	row := []VecRow{{ID: "a", Vec: randVec(r, 8)}}
	if err := AppendVecCache(path, "e", 8, row); err != nil {
		t.Fatalf("missing cache: %v", err)
	}
	if err := WriteVecCache(path, "e", 8, row); err != nil {
		t.Fatal(err)
	}
	if err := AppendVecCache(path, "other", 8, []VecRow{{ID: "b", Vec: randVec(r, 8)}}); err != nil {
		t.Fatal(err)
	}
	if err := AppendVecCache(path, "e", 4, []VecRow{{ID: "c", Vec: randVec(r, 4)}}); err != nil {
		t.Fatal(err)
	}
	c := mustOpenVecCache(t, path, "e")
	if c.Len() != 1 {
		t.Fatalf("len %d: a foreign append changed the cache", c.Len())
	}
}

func benchCache(b *testing.B, n, dims int) string {
	r := rand.New(rand.NewSource(1))
	rows := make([]VecRow, n)
	for i := range rows {
		rows[i] = VecRow{ID: fmt.Sprintf("m:%08x-d9cb-469f-a165-70867728950e", i), Vec: randVec(r, dims)}
	}
	path := filepath.Join(b.TempDir(), "vectors.bin")
	if err := WriteVecCache(path, "e", dims, rows); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkOpenVecCache is what a short-lived process pays to map the cache
// (50k × 256: about 15 MB) and unmap it.
func BenchmarkOpenVecCache(b *testing.B) {
	path := benchCache(b, 50_000, 256)
	b.ResetTimer()
	for b.Loop() {
		c, err := OpenVecCache(path, "e")
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

// BenchmarkAppendVecCache is one indexing round's append: lock, check the
// header, write 50 rows, raise the count.
func BenchmarkAppendVecCache(b *testing.B) {
	path := benchCache(b, 1000, 256)
	r := rand.New(rand.NewSource(2))
	rows := make([]VecRow, 50)
	for i := range rows {
		rows[i] = VecRow{ID: fmt.Sprintf("new-%d", i), Vec: randVec(r, 256)}
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var cnt [8]byte
	binary.LittleEndian.PutUint64(cnt[:], 1000)
	b.ResetTimer()
	for b.Loop() {
		if err := AppendVecCache(path, "e", 256, rows); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if _, err := f.WriteAt(cnt[:], 16); err != nil { // back to 1000 rows: the file does not grow
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
