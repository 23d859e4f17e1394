package index

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A full scan of the vector cache leaves little of it resident: the
// whole-process RSS of a search must not grow with the cache (114 MB at
// 10 GB of history). The found rows must be the same as a scan that keeps
// every page.
func TestVecCacheScanReleasesPages(t *testing.T) {
	const n, dims = 60_000, 256 // 19 MB: several release chunks per worker
	r := rand.New(rand.NewSource(7))
	rows := make([]VecRow, n)
	for i := range rows {
		rows[i] = VecRow{ID: fmt.Sprintf("m:%08x-d9cb-469f-a165-70867728950e", i), Vec: randVec(r, dims)}
	}
	path := filepath.Join(t.TempDir(), "vectors.bin")
	if err := WriteVecCache(path, "e", dims, rows); err != nil {
		t.Fatal(err)
	}
	c := mustOpenVecCache(t, path, "e")
	size := len(c.data)
	// Touch every page, as a scan without releases would.
	for i := 0; i < size; i += 4096 {
		touchSink += c.data[i]
	}
	if before := mappedRSS(t, path); before < size/2 {
		t.Fatalf("touched mapping has only %d KB resident of %d KB: cannot measure", before>>10, size>>10)
	}
	q := rows[1234].Vec
	got := c.Search(q, 10, nil)
	if len(got) == 0 || got[0].ID != rows[1234].ID {
		t.Fatalf("the query's own row is not first: %+v", got)
	}
	after := mappedRSS(t, path)
	if limit := releaseChunk; after > limit {
		t.Fatalf("after a scan %d KB of the %d KB cache stay resident (limit %d KB)", after>>10, size>>10, limit>>10)
	}
	// Released pages read back the same: a second search finds the same rows.
	again := c.Search(q, 10, nil)
	for i := range got {
		if got[i] != again[i] {
			t.Fatalf("second search differs at %d: %+v vs %+v", i, got[i], again[i])
		}
	}
}

var touchSink byte

// mappedRSS is the resident size in bytes of this process's mappings of path.
func mappedRSS(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps:", err)
	}
	defer f.Close()
	total, in := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if fields := strings.Fields(line); len(fields) > 0 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			in = len(fields) >= 6 && fields[len(fields)-1] == path
			continue
		}
		if in && strings.HasPrefix(line, "Rss:") {
			kb, _ := strconv.Atoi(strings.Fields(line)[1])
			total += kb << 10
		}
	}
	return total
}
