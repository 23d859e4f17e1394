package fts

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/cairn-dev/cairn/internal/diskspace"
)

// bleve writes from goroutines of its own — the persister's in-memory
// merges and the background file merger — where guard cannot reach: a write
// that fails there for lack of space is retried in a loop or, inside zapx,
// has ended in a panic that kills the process. So cairn keeps bleve off a
// full disk instead of recovering from one:
//
//   - before a batch, the index's folder must have room for the batch's
//     segment and its merges (batchRoom);
//   - before a background merge, room for the merge (mergeRoom); without it
//     the merge waits, and the index stays correct with more segments;
//   - an error bleve reports from those goroutines that says the disk is
//     full marks the index failed (the next call says so, cleanly);
//   - Close of a failed index waits at most closeWait for bleve's
//     goroutines: a persister retrying a write it cannot make never holds
//     the process.

// callbackName is cairn's entry in scorch's callback registries.
const callbackName = "cairn"

const (
	// batchFloor is the least free space a batch needs beyond its own size.
	batchFloor = 4 << 20
	// batchFactor scales a batch's text to what bleve writes for it: the
	// segment (about the text's size), the persisted copy and a merge.
	batchFactor = 4
	// mergeFloor is the least free space a background merge needs; a merge
	// rewrites up to a tier of segments, so a quarter of the index more.
	mergeFloor = 8 << 20
	// closeWait bounds Close of an index whose writes failed.
	closeWait = 3 * time.Second
	// mergeBackoff is how long a merge refused for lack of room waits
	// before scorch asks again (it asks in a loop).
	mergeBackoff = 250 * time.Millisecond
)

// freeSpaceFn is diskspace.Free, replaceable in tests (atomically: bleve's
// merger goroutine reads it).
var freeSpaceFn atomic.Pointer[func(string) (uint64, bool)]

func freeSpace(dir string) (uint64, bool) { return (*freeSpaceFn.Load())(dir) }

// open indexes by scorch instance and by folder, for bleve's callbacks.
var (
	openMu      sync.Mutex
	openScorch  = map[*scorch.Scorch]*Index{}
	openFolders = map[string]*Index{}
)

func init() {
	free := diskspace.Free
	freeSpaceFn.Store(&free)
	scorch.RegistryEventCallbacks[callbackName] = onScorchEvent
	scorch.RegistryAsyncErrorCallbacks[callbackName] = onScorchError
}

// track registers ix for bleve's callbacks; untrack removes it.
func (ix *Index) track() {
	openMu.Lock()
	defer openMu.Unlock()
	if adv, err := ix.idx.Advanced(); err == nil {
		if s, ok := adv.(*scorch.Scorch); ok {
			ix.scorch = s
			openScorch[s] = ix
		}
	}
	openFolders[filepath.Clean(ix.dir)] = ix
}

func (ix *Index) untrack() {
	openMu.Lock()
	defer openMu.Unlock()
	if ix.scorch != nil {
		delete(openScorch, ix.scorch)
	}
	if openFolders[filepath.Clean(ix.dir)] == ix {
		delete(openFolders, filepath.Clean(ix.dir))
	}
}

// onScorchEvent refuses a background merge while the folder lacks room
// for it (scorch then asks again; the backoff keeps that from spinning).
func onScorchEvent(e scorch.Event) bool {
	if e.Kind != scorch.EventKindPreMergeCheck {
		return true
	}
	openMu.Lock()
	ix := openScorch[e.Scorch]
	openMu.Unlock()
	switch {
	case ix == nil:
		return true
	case ix.broken() != nil:
		time.Sleep(mergeBackoff) // until Close: no more writes
		return false
	case ix.forcing.Load() || ix.room(mergeFloor+ix.size()/4):
		return true
	}
	time.Sleep(mergeBackoff)
	return false
}

// onScorchError marks the index failed when bleve's own goroutines could
// not write for lack of space (their errors reach no caller otherwise).
func onScorchError(err error, path string) {
	if !diskspace.IsFull(err) {
		return
	}
	openMu.Lock()
	ix := openFolders[filepath.Clean(path)]
	openMu.Unlock()
	if ix != nil {
		_ = ix.fail("writing in the background", err)
	}
}

// room reports whether the index's folder has at least need bytes free
// (true when the system cannot say).
func (ix *Index) room(need uint64) bool {
	free, ok := freeSpace(ix.dir)
	return !ok || free >= need
}

// batchRoom is the error of a batch of docs the folder has no room for.
func (ix *Index) batchRoom(docs []Doc) error {
	var text uint64
	for _, d := range docs {
		text += uint64(len(d.Text) + len(d.ID) + len(d.Title))
	}
	if ix.room(batchFloor + batchFactor*text) {
		return nil
	}
	return ix.fail("indexing", fmt.Errorf("%w: %d documents need about %d bytes", diskspace.ErrFull, len(docs), batchFloor+batchFactor*text))
}

// size is the bytes the index's files take (an estimate: errors count 0).
func (ix *Index) size() uint64 {
	var n uint64
	_ = filepath.WalkDir(ix.dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += uint64(fi.Size())
			}
		}
		return nil
	})
	return n
}

// errCloseTimeout is the error of a failed index whose goroutines did not
// stop within closeWait; the process may exit, nothing is lost (the work
// stays queued in the store).
var errCloseTimeout = errors.New("fts: the index did not close in time after a failed write")

// closeFailed closes a failed index, waiting at most closeWait: bleve may
// panic again closing the segment that failed, or its persister may keep
// retrying a write it cannot make. The error was reported once already.
func closeFailed(idx interface{ Close() error }) error {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { _ = recover() }()
		_ = idx.Close()
	}()
	select {
	case <-done:
		return nil
	case <-time.After(closeWait):
		return errCloseTimeout
	}
}
