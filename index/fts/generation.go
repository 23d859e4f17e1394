package fts

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2"
)

// When a segment file is damaged, scorch does not fail: it logs and falls
// back to an older snapshot, silently losing the documents written since,
// while SQLite still records them as indexed. To notice, every write
// stamps a generation number both inside the index (in the same batches as
// the documents) and, once the batches are persisted, in a small file
// beside it. An index whose own generation is behind the file's was rolled
// back: Open reports it as needing a rebuild.
const (
	generationKey  = "cairn_generation"
	generationFile = "cairn.generation"
)

// checkGeneration loads the index's generation and compares it with the
// file. A missing file (new index, or a crash before it was written) is
// fine; only "index behind file" is a rollback.
func (ix *Index) checkGeneration() error {
	raw, err := ix.idx.GetInternal([]byte(generationKey))
	if err != nil {
		return openError(ix.dir, err)
	}
	if len(raw) == 8 {
		ix.gen = binary.BigEndian.Uint64(raw)
	}
	b, err := os.ReadFile(filepath.Join(ix.dir, generationFile))
	if err != nil {
		return nil
	}
	want, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err == nil && ix.gen < want {
		return fmt.Errorf("%w: %s fell back to an older snapshot (generation %d, last written %d), so segment files are damaged or missing; run `cairn index --rebuild`",
			ErrNeedsRebuild, ix.dir, ix.gen, want)
	}
	return nil
}

// stamp adds the next generation to a batch; every batch of one write
// carries the same number.
func (ix *Index) stamp(b *bleve.Batch) {
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], ix.gen+1)
	b.SetInternal([]byte(generationKey), v[:])
}

// commitGeneration records a completed write in the file. Written via a
// rename so a crash leaves the old number (index ahead of file: fine).
func (ix *Index) commitGeneration() error {
	ix.gen++
	path := filepath.Join(ix.dir, generationFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.FormatUint(ix.gen, 10)+"\n"), 0o600); err != nil {
		return fmt.Errorf("fts: recording index generation: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("fts: recording index generation: %w", err)
	}
	return nil
}
