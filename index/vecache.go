package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"syscall"
)

// The vector cache is a memory-mapped file derived from the embeddings held
// in SQLite, so a short-lived process (a CLI search, a hook) can scan every
// vector without loading them from the database. Rows are int8-quantised
// (one float32 scale per row): 4x smaller than float32 and accurate enough
// for ranking. It is rebuildable at any time; SQLite stays the truth.
//
// Layout: header | rows. Header: magic(8) version(u32) dims(u32) count(u64)
// embedderLen(u32) embedder bytes, padded to 8. Row: id(vecIDBytes, NUL
// padded) scale(float32) int8[dims].

const (
	vecMagic   = "CAIRNVEC"
	vecVersion = 1
	vecIDBytes = 64
)

// VecCache is an open vector cache.
type VecCache struct {
	path     string
	data     []byte
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
}

// WriteVecCache writes rows to path atomically (temp file + rename).
func WriteVecCache(path, embedder string, dims int, rows []VecRow) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".vectors-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	hdr := make([]byte, 0, 64)
	hdr = append(hdr, vecMagic...)
	hdr = binary.LittleEndian.AppendUint32(hdr, vecVersion)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(dims))
	hdr = binary.LittleEndian.AppendUint64(hdr, 0) // count, patched below
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(embedder)))
	hdr = append(hdr, embedder...)
	for len(hdr)%8 != 0 {
		hdr = append(hdr, 0)
	}
	w.Write(hdr)
	row := make([]byte, vecIDBytes+4+dims)
	n := 0
	for _, r := range rows {
		if encodeVecRow(row, r, dims) {
			w.Write(row)
			n++
		}
	}
	if err := w.Flush(); err != nil {
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
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
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
	err := syscall.Munmap(c.data)
	c.data = nil
	return err
}

func (c *VecCache) id(i int) string {
	raw := c.data[c.base+i*c.rowSize : c.base+i*c.rowSize+vecIDBytes]
	n := 0
	for n < len(raw) && raw[n] != 0 {
		n++
	}
	return string(raw[:n])
}

// Search returns the k rows most similar (dot product) to q among those keep
// accepts (nil keeps all). q must have Dims entries.
func (c *VecCache) Search(q []float32, k int, keep func(id string) bool) []Scored {
	if len(q) != c.dims || k <= 0 {
		return nil
	}
	type cand struct {
		i int
		s float32
	}
	top := make([]cand, 0, k+1)
	minS := float32(math.Inf(-1))
	for i := 0; i < c.n; i++ {
		off := c.base + i*c.rowSize
		scale := math.Float32frombits(binary.LittleEndian.Uint32(c.data[off+vecIDBytes:]))
		row := c.data[off+vecIDBytes+4 : off+c.rowSize]
		var dot float32
		for j, b := range row {
			dot += q[j] * float32(int8(b))
		}
		s := dot * scale
		if len(top) == k && s <= minS {
			continue
		}
		if keep != nil && !keep(c.id(i)) {
			continue
		}
		top = append(top, cand{i, s})
		if len(top) > k {
			sort.Slice(top, func(a, b int) bool { return top[a].s > top[b].s })
			top = top[:k]
			minS = top[k-1].s
		}
	}
	sort.Slice(top, func(a, b int) bool { return top[a].s > top[b].s })
	out := make([]Scored, len(top))
	for i, t := range top {
		out[i] = Scored{ID: c.id(t.i), Score: float64(t.s)}
	}
	return out
}
