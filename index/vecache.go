package index

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/blevesearch/mmap-go"
)

// The vector cache is a memory-mapped file derived from the embeddings held
// in SQLite, so a short-lived process (a CLI search, a hook) can scan every
// vector without loading them from the database. Rows are int8-quantised
// (one float32 scale per row): 4x smaller than float32 and accurate enough
// for ranking. It is rebuildable at any time; SQLite stays the truth.
//
// Layout: header | rows. Header: magic(8) version(u32) dims(u32) count(u64)
// embedderLen(u32) embedder bytes, padded to 8. Row: id(vecIDBytes, see
// encodeVecID) scale(float32) int8[dims].
//
// Version 2 packs the ids into 24 bytes (version 1 kept 64 of text): an
// entry's "m:<uuid>" is its 16 bytes. 1 GB corpus: 10.9 -> 9.1 MB. A
// version 1 cache is stale and written again at its next refresh.

const (
	vecMagic   = "CAIRNVEC"
	vecVersion = 2
	vecIDBytes = 24
)

// An id is stored in vecIDBytes as one of:
//   - vecIDUUID, its prefix (up to 7 bytes, NUL padded: "m:", "s:",
//     "sum:"), then the 16 bytes of a canonical uuid (packUUID);
//   - vecIDNoUUID, its prefix, then the 16 bytes of the 32 hex digits of
//     a synthetic "nouuid-" id (syntheticUUID);
//   - else its text, NUL padded (a memory's "mem:m-1a2b3c4d"); an id that
//     does not fit, or starts with a control byte, is not stored.
const (
	vecIDUUID   = 1
	vecIDNoUUID = 2
	vecIDPrefix = 7
	noUUID      = "nouuid-"
)

// encodeVecID writes id into dst (vecIDBytes); false when it has no form.
func encodeVecID(dst []byte, id string) bool {
	dst = dst[:vecIDBytes]
	clear(dst)
	if len(id) >= 36 && len(id) <= 36+vecIDPrefix && (encodeUUIDVecID(dst, id) || encodeNoUUIDVecID(dst, id)) {
		return true
	}
	if len(id) > vecIDBytes || (id != "" && id[0] < ' ') {
		return false
	}
	copy(dst, id)
	return true
}

// encodeUUIDVecID writes id, a short prefix then a uuid, into dst (clear);
// false when it is not one.
func encodeUUIDVecID(dst []byte, id string) bool {
	p := id[:len(id)-36]
	b, ok := packUUID(id[len(p):]).([]byte)
	if !ok || strings.ContainsRune(p, 0) {
		return false
	}
	dst[0] = vecIDUUID
	copy(dst[1:], p)
	copy(dst[1+vecIDPrefix:], b)
	return true
}

// encodeNoUUIDVecID writes id, a short prefix then noUUID and 32 lower-case
// hex digits, into dst (clear); false when it is not one.
func encodeNoUUIDVecID(dst []byte, id string) bool {
	i := strings.Index(id, noUUID)
	if i < 0 || i > vecIDPrefix || len(id) != i+len(noUUID)+32 || strings.ContainsRune(id[:i], 0) {
		return false
	}
	var b [16]byte
	if _, err := hex.Decode(b[:], []byte(id[i+len(noUUID):])); err != nil || hex.EncodeToString(b[:]) != id[i+len(noUUID):] {
		return false
	}
	dst[0] = vecIDNoUUID
	copy(dst[1:], id[:i])
	copy(dst[1+vecIDPrefix:], b[:])
	return true
}

// decodeVecID is the id encodeVecID wrote into raw.
func decodeVecID(raw []byte) string {
	raw = raw[:vecIDBytes]
	switch raw[0] {
	case vecIDUUID:
		return nulTrimmed(raw[1:1+vecIDPrefix]) + formatUUID(raw[1+vecIDPrefix:])
	case vecIDNoUUID:
		return nulTrimmed(raw[1:1+vecIDPrefix]) + noUUID + hex.EncodeToString(raw[1+vecIDPrefix:])
	}
	return nulTrimmed(raw)
}

// nulTrimmed is b up to its first NUL, as text.
func nulTrimmed(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// VecCache is an open vector cache.
type VecCache struct {
	path     string
	data     mmap.MMap
	embedder string
	dims     int
	n        int
	rowSize  int
	base     int
}

// ErrVecCacheStale means the cache belongs to another embedder or format.
var ErrVecCacheStale = errors.New("vector cache is stale")

// VecRow is one vector to write.
type VecRow struct {
	ID  string
	Vec []float32
	key string // where the store keeps it, when known and not ID (entries: "e:<row id>")
}

// WriteVecCache writes rows to path atomically (temp file + rename).
func WriteVecCache(path, embedder string, dims int, rows []VecRow) error {
	return writeVecCache(path, embedder, dims, func(emit func(VecRow) error) error {
		for _, r := range rows {
			if err := emit(r); err != nil {
				return err
			}
		}
		return nil
	})
}

// vecHeader is a vector cache's header for embedder's vectors of dims:
// magic, version, dims, the row count (0: written once the rows are),
// the embedder id, padded to 8 bytes.
func vecHeader(embedder string, dims int) []byte {
	hdr := make([]byte, 0, 64)
	hdr = append(hdr, vecMagic...)
	hdr = binary.LittleEndian.AppendUint32(hdr, vecVersion)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(dims))
	hdr = binary.LittleEndian.AppendUint64(hdr, 0) // count, patched at offset 16
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(embedder)))
	hdr = append(hdr, embedder...)
	for len(hdr)%8 != 0 {
		hdr = append(hdr, 0)
	}
	return hdr
}

// writeVecCache writes the rows each gives to emit, one at a time, to path
// atomically: memory stays flat however many vectors there are.
func writeVecCache(path, embedder string, dims int, each func(emit func(VecRow) error) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".vectors-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	w.Write(vecHeader(embedder, dims))
	row := make([]byte, vecIDBytes+4+dims)
	n := 0
	err = each(func(r VecRow) error {
		if encodeVecRow(row, r, dims) {
			n++
			_, err := w.Write(row)
			return err
		}
		return nil
	})
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		tmp.Close()
		return err
	}
	var cnt [8]byte
	binary.LittleEndian.PutUint64(cnt[:], uint64(n))
	if _, err := tmp.WriteAt(cnt[:], 16); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// OpenVecCache maps path. It returns ErrVecCacheStale (wrapped) when the file
// belongs to another embedder, and os.ErrNotExist when there is none.
func OpenVecCache(path, embedder string) (*VecCache, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() < 28 {
		return nil, fmt.Errorf("%w: %s is truncated", ErrVecCacheStale, path)
	}
	// Read-only and shared (PROT_READ, MAP_SHARED on Unix; PAGE_READONLY
	// on Windows), the whole file; the mapping outlives f.
	data, err := mmap.MapRegion(f, int(st.Size()), mmap.RDONLY, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("mapping the vector cache %s: %w", path, err)
	}
	c := &VecCache{path: path, data: data}
	if err := c.parse(embedder); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *VecCache) parse(embedder string) error {
	d := c.data
	if string(d[:8]) != vecMagic || binary.LittleEndian.Uint32(d[8:]) != vecVersion {
		return fmt.Errorf("%w: %s has an unknown format", ErrVecCacheStale, c.path)
	}
	c.dims = int(binary.LittleEndian.Uint32(d[12:]))
	c.n = int(binary.LittleEndian.Uint64(d[16:]))
	el := int(binary.LittleEndian.Uint32(d[24:]))
	if 28+el > len(d) {
		return fmt.Errorf("%w: %s is truncated", ErrVecCacheStale, c.path)
	}
	c.embedder = string(d[28 : 28+el])
	c.base = (28 + el + 7) / 8 * 8
	c.rowSize = vecIDBytes + 4 + c.dims
	if c.embedder != embedder {
		return fmt.Errorf("%w: built for %s, not %s", ErrVecCacheStale, c.embedder, embedder)
	}
	if c.base+c.n*c.rowSize > len(d) {
		return fmt.Errorf("%w: %s is truncated", ErrVecCacheStale, c.path)
	}
	return nil
}

// Len is the number of vectors.
func (c *VecCache) Len() int { return c.n }

// Dims is the vector size.
func (c *VecCache) Dims() int { return c.dims }

// Close unmaps the file.
func (c *VecCache) Close() error {
	if c.data == nil {
		return nil
	}
	return c.data.Unmap() // sets c.data to nil
}

func (c *VecCache) id(i int) string {
	return decodeVecID(c.data[c.base+i*c.rowSize : c.base+i*c.rowSize+vecIDBytes])
}

// Search returns the k rows most similar (dot product) to q among those keep
// accepts (nil keeps all). q must have Dims entries.
//
// The query is quantised to int16 so each row is an integer dot product
// (int8 × int16, unrolled over independent accumulators), and large caches
// are scanned by one goroutine per core: 100k × 256 went from 27 ms to a
// few ms on two cores. keep must then be safe for concurrent use.
func (c *VecCache) Search(q []float32, k int, keep func(id string) bool) []Scored {
	if len(q) != c.dims || k <= 0 || c.n == 0 {
		return nil
	}
	qi, qscale, ok := quantizeQuery(q)
	if !ok {
		return nil
	}
	top := c.scanAll(qi, k, keep)
	sort.Slice(top, func(a, b int) bool { return top[a].s > top[b].s })
	if len(top) > k {
		top = top[:k]
	}
	out := make([]Scored, len(top))
	for i, t := range top {
		out[i] = Scored{ID: c.id(t.i), Score: float64(t.s * qscale)}
	}
	// Reading an id can map a whole large folio of the page cache (MBs):
	// let those go too.
	releasePages(c.data)
	return out
}

// quantizeQuery is q as int16 components and their scale; false for a
// zero vector.
func quantizeQuery(q []float32) ([]int16, float32, bool) {
	var qmax float32
	for _, x := range q {
		qmax = max(qmax, float32(math.Abs(float64(x))))
	}
	if qmax == 0 {
		return nil, 0, false
	}
	// 4095 keeps int32 sums safe up to 4096 dimensions (4095·127·4096 < 2³¹).
	qscale := qmax / 4095
	qi := make([]int16, len(q))
	for j, x := range q {
		qi[j] = int16(math.Round(float64(x / qscale)))
	}
	return qi, qscale, true
}

// scanAll is the best k rows of each worker's share of the cache (one
// worker for a small cache, one per core up to 8 for a large one),
// unordered.
func (c *VecCache) scanAll(qi []int16, k int, keep func(id string) bool) []vecCand {
	workers := 1
	if c.n >= 20_000 {
		workers = min(runtime.GOMAXPROCS(0), 8)
	}
	parts := make([][]vecCand, workers)
	var wg sync.WaitGroup
	per := (c.n + workers - 1) / workers
	for w := range workers {
		lo, hi := w*per, min((w+1)*per, c.n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[w] = c.scan(qi, lo, hi, k, keep)
		}()
	}
	wg.Wait()
	var top []vecCand
	for _, p := range parts {
		top = append(top, p...)
	}
	return top
}

type vecCand struct {
	i int
	s float32
}

// scan returns the best k rows in [lo, hi) by dot product with qi (scores
// still to be multiplied by the query's scale), unordered. The running best
// are a min-heap, so a row that beats the worst costs O(log k).
func (c *VecCache) scan(qi []int16, lo, hi, k int, keep func(string) bool) []vecCand {
	top := make(candHeap, 0, k)
	// The rows scanned are released from the resident set chunk by chunk
	// (releasePages): whole-process RSS stays bounded however big the
	// cache grows. rel is where the next release starts, page-aligned down
	// (a page shared with the range before is faulted in again if needed;
	// the data never changes).
	rel := (c.base + lo*c.rowSize) &^ (vecPageSize - 1)
	for i := lo; i < hi; i++ {
		off := c.base + i*c.rowSize
		if off-rel >= releaseChunk {
			end := off &^ (vecPageSize - 1)
			releasePages(c.data[rel:end])
			rel = end
		}
		scale := math.Float32frombits(binary.LittleEndian.Uint32(c.data[off+vecIDBytes:]))
		s := float32(dotI8(qi, c.data[off+vecIDBytes+4:off+c.rowSize])) * scale
		if len(top) == k && s <= top[0].s {
			continue
		}
		if keep != nil && !keep(c.id(i)) {
			continue
		}
		if len(top) < k {
			top.push(vecCand{i, s})
		} else {
			top[0] = vecCand{i, s}
			top.down(0)
		}
	}
	releasePages(c.data[rel:min(c.base+hi*c.rowSize, len(c.data))])
	return top
}

// releaseChunk is how much of the cache a scan keeps resident before
// releasing it; vecPageSize is the largest page size mappings use here
// (releases start on its multiples).
const (
	releaseChunk = 4 << 20
	vecPageSize  = 64 << 10
)

// candHeap is a min-heap of candidates by score.
type candHeap []vecCand

func (h *candHeap) push(c vecCand) {
	*h = append(*h, c)
	a := *h
	for j := len(a) - 1; j > 0; {
		p := (j - 1) / 2
		if a[p].s <= a[j].s {
			break
		}
		a[p], a[j] = a[j], a[p]
		j = p
	}
}

func (h candHeap) down(j int) {
	for {
		l := 2*j + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r].s < h[l].s {
			m = r
		}
		if h[j].s <= h[m].s {
			return
		}
		h[j], h[m] = h[m], h[j]
		j = m
	}
}

// dotI8 is the dot product of q and row (int8 components), len(row) ==
// len(q), with four independent accumulators so the adds pipeline.
func dotI8(q []int16, row []byte) int32 {
	row = row[:len(q)]
	var s0, s1, s2, s3 int32
	j := 0
	for ; j+8 <= len(q); j += 8 {
		r, qq := row[j:j+8:j+8], q[j:j+8:j+8]
		s0 += int32(qq[0])*int32(int8(r[0])) + int32(qq[4])*int32(int8(r[4]))
		s1 += int32(qq[1])*int32(int8(r[1])) + int32(qq[5])*int32(int8(r[5]))
		s2 += int32(qq[2])*int32(int8(r[2])) + int32(qq[6])*int32(int8(r[6]))
		s3 += int32(qq[3])*int32(int8(r[3])) + int32(qq[7])*int32(int8(r[7]))
	}
	for ; j < len(q); j++ {
		s0 += int32(q[j]) * int32(int8(row[j]))
	}
	return s0 + s1 + s2 + s3
}
