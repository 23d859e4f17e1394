package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/gofrs/flock"
)

// Keeping the vector cache fresh must cost next to nothing in a short-lived
// process (a hook, a CLI search): counting 50k embeddings or rewriting the
// cache for 50 new vectors took 30–330 ms on the 1 GB store. So the store
// keeps an exact count per embedder in kv, updated in the transaction that
// adds vectors, and new vectors are appended to the cache file in place;
// the cache is rewritten only when its count disagrees with the store's
// (a crash between the two, another process's vectors, a new embedder).

// vecCountKey holds the number of stored vectors of one embedder.
func vecCountKey(embedder string) string { return "vec.count:" + embedder }

// vecCount returns the number of stored vectors of embedder, computing and
// remembering it the first time.
func (s *Store) vecCount(ctx context.Context, embedder string) (int, error) {
	if b, ok, err := s.Setting(ctx, vecCountKey(embedder)); err != nil {
		return 0, err
	} else if ok {
		if n, err := strconv.Atoi(string(b)); err == nil {
			return n, nil
		}
	}
	var n int
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM embeddings WHERE embedder = ?`, embedder).Scan(&n); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO kv(key, value) VALUES (?, ?)`, vecCountKey(embedder), []byte(strconv.Itoa(n)))
		return err
	})
	return n, s.wrap(err)
}

// addVecCount adds n to embedder's count inside tx, when the count exists.
func addVecCount(ctx context.Context, tx *sql.Tx, embedder string, n int) error {
	if n == 0 {
		return nil
	}
	var cur []byte
	err := tx.QueryRowContext(ctx, `SELECT value FROM kv WHERE key = ?`, vecCountKey(embedder)).Scan(&cur)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // computed on first use
	}
	if err != nil {
		return err
	}
	c, err := strconv.Atoi(string(cur))
	if err != nil {
		_, err = tx.ExecContext(ctx, `DELETE FROM kv WHERE key = ?`, vecCountKey(embedder))
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE kv SET value = ? WHERE key = ?`, []byte(strconv.Itoa(c+n)), vecCountKey(embedder))
	return err
}

// forgetVecCounts drops the remembered counts (after vectors were deleted).
func forgetVecCounts(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM kv WHERE key >= 'vec.count:' AND key < 'vec.count;'`)
	return err
}

// AppendVecCache adds rows to the cache at path in place, when the cache
// exists and belongs to embedder with dims; otherwise it does nothing (the
// next RefreshVecCache writes it whole). Rows are written past the current
// end first and the header's count is raised last, so a reader never sees a
// row that is not complete. An exclusive lock serialises appenders.
//
// The lock (blocking, exclusive) is held on a sidecar file, path+".lock",
// through gofrs/flock: flock(2) on Unix, LockFileEx on Windows. Not on the
// cache itself: a Windows lock is mandatory, so the locked header could not
// be read through a second handle. The sidecar is not replaced when
// WriteVecCache renames a new cache into place, so the cache is opened once
// the lock is held.
func AppendVecCache(path, embedder string, dims int, rows []VecRow) error {
	if len(rows) == 0 {
		return nil
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil // no cache, no lock file either
	}
	lock := flock.New(path+".lock", flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o600))
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("locking the vector cache %s: %w", path, err)
	}
	defer lock.Unlock() //nolint:errcheck // closing the lock file releases it anyway
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	hdr := make([]byte, 28+len(embedder))
	if _, err := f.ReadAt(hdr, 0); err != nil {
		return nil // too short to be ours: the refresh rewrites it
	}
	if !vecHeaderFor(hdr, embedder, dims) {
		return nil
	}
	n := binary.LittleEndian.Uint64(hdr[16:])
	base := int64((28 + len(embedder) + 7) / 8 * 8)
	rowSize := int64(vecIDBytes + 4 + dims)
	buf, added := encodeVecRows(rows, dims)
	if _, err := f.WriteAt(buf, base+int64(n)*rowSize); err != nil {
		return fmt.Errorf("appending to the vector cache %s: %w", path, err)
	}
	var cnt [8]byte
	binary.LittleEndian.PutUint64(cnt[:], n+uint64(added))
	_, err = f.WriteAt(cnt[:], 16)
	return err
}

// vecHeaderFor says whether hdr, a cache's header read for embedder, is
// one of this format for embedder's vectors of dims components.
func vecHeaderFor(hdr []byte, embedder string, dims int) bool {
	return string(hdr[:8]) == vecMagic && binary.LittleEndian.Uint32(hdr[8:]) == vecVersion &&
		int(binary.LittleEndian.Uint32(hdr[12:])) == dims && int(binary.LittleEndian.Uint32(hdr[24:])) == len(embedder) &&
		string(hdr[28:]) == embedder
}

// encodeVecRows encodes the rows that can be stored, one after the other,
// and counts them.
func encodeVecRows(rows []VecRow, dims int) ([]byte, int) {
	rowSize := vecIDBytes + 4 + dims
	buf := make([]byte, 0, len(rows)*rowSize)
	row := make([]byte, rowSize)
	added := 0
	for _, r := range rows {
		if encodeVecRow(row, r, dims) {
			buf = append(buf, row...)
			added++
		}
	}
	return buf, added
}

// encodeVecRow writes r into row (id, scale, int8 components); false for a
// row that cannot be stored (wrong size, long id, zero vector).
func encodeVecRow(row []byte, r VecRow, dims int) bool {
	if len(r.Vec) != dims || !encodeVecID(row, r.ID) {
		return false
	}
	return quantize(row[vecIDBytes:], r.Vec) // a zero vector matches nothing
}

// quantize writes v into dst (4+len(v) bytes) as the vector cache holds
// it, and the store an entry's vector (encodeStoredVector): a
// little-endian float32 scale, then one int8 a dimension (the value over
// the scale, rounded). False for a vector with no such form: zero, or not
// finite.
func quantize(dst []byte, v []float32) bool {
	var maxAbs float32
	for _, x := range v {
		maxAbs = max(maxAbs, float32(math.Abs(float64(x))))
	}
	if maxAbs == 0 || !(maxAbs <= math.MaxFloat32) { // also NaN
		return false
	}
	scale := maxAbs / 127
	binary.LittleEndian.PutUint32(dst, math.Float32bits(scale))
	for i, x := range v {
		dst[4+i] = byte(int8(math.Round(float64(x / scale))))
	}
	return true
}
