package fts

import (
	"github.com/cairn-dev/cairn/internal/diskspace"
)

// bleve does not always fail cleanly when the disk fills: a segment whose
// files could not be written is closed under the batch that is still using
// it, and the next step panics ("assignment to entry in nil map" inside
// zapx). Every call into bleve that writes (or, after a failed write, may
// touch such a segment) therefore runs under guard: a panic becomes an error
// that names the folder, and the index refuses further use until it is
// closed, so one failure is reported once and never as a stack trace. The
// documents stay queued in the store, so nothing is lost.

// guard turns a panic in the surrounding call into *err and marks the
// index as failed. Use as `defer ix.guard("indexing", &err)`.
func (ix *Index) guard(op string, err *error) {
	r := recover()
	if r == nil {
		if *err != nil && diskspace.IsFull(*err) {
			*err = ix.fail(op, *err)
		}
		return
	}
	*err = ix.fail(op, r)
}

// fail records that the index can no longer be used and returns the error
// that says why and what to do. cause is a recovered panic value or an
// error the system gave for lack of space.
func (ix *Index) fail(op string, cause any) error {
	ix.failMu.Lock()
	defer ix.failMu.Unlock()
	if ix.failed == nil {
		// A panic inside bleve's writer has only ever come from a write
		// that failed underneath it: a full disk, quota or file size limit.
		ix.failed = diskspace.Error("full-text index ("+op+")", ix.dir, cause)
	}
	return ix.failed
}

// broken is the error of an earlier failed write, if any.
func (ix *Index) broken() error {
	ix.failMu.Lock()
	defer ix.failMu.Unlock()
	return ix.failed
}
