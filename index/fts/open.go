package fts

import (
	"github.com/cairn-dev/cairn/index/ftsapi"

	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn/internal/diskspace"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	bolterrors "go.etcd.io/bbolt/errors"
)

// ErrLocked means another process holds the index (bleve allows one process
// at a time, readers included). Callers leave their work queued in SQLite
// for whichever process gets the index next.
var ErrLocked = ftsapi.ErrLocked

// ErrNeedsRebuild means the index cannot be used as it is: its files are
// damaged, or it was written by a different schema. The index is derived
// from SQLite, so the fix is always `cairn index --rebuild`.
var ErrNeedsRebuild = ftsapi.ErrNeedsRebuild

// Index is an open full-text index. It holds the index's lock until Close:
// open late, close early. Searches and writes may run concurrently from
// several goroutines; writes are serialised. Close must come after all
// other calls have returned.
type Index struct {
	idx      bleve.Index
	dir      string
	writeMu  sync.Mutex // serialises Index and Delete (and gen)
	gen      uint64     // write generation, see generation.go
	failMu   sync.Mutex
	failed   error          // set by a write that failed underneath bleve (guard.go)
	scorch   *scorch.Scorch // for bleve's callbacks (diskroom.go)
	forcing  atomic.Bool    // a merge cairn asked for, room checked (compact.go)
	written  atomic.Int64   // documents indexed or deleted since the last Settle (compact.go)
	readOnly bool           // OpenReadOnly: Index and Delete are refused
	packIDs  bool           // ids are packed inside the index (docid.go): schemaVersion, not schemaIDs1
}

// Files inside an index directory (bleve's layout).
const (
	metaFile     = "index_meta.json"
	rootBoltFile = "store/root.bolt"
	schemaKey    = "cairn_schema"
)

// lockRetry is how often Open retries a busy lock. bbolt's own retry sleeps
// 50 ms between attempts, far too coarse for a 10–50 ms budget, so Open
// asks bbolt for a single attempt and retries itself.
const lockRetry = 2 * time.Millisecond

// Open opens the index in dir, creating it if dir is missing or empty. If
// another process holds it, Open retries for up to lockWait and then returns
// an error wrapping ErrLocked. A damaged or foreign-schema index returns an
// error wrapping ErrNeedsRebuild; Open never deletes anything to recover.
func Open(dir string, lockWait time.Duration) (*Index, error) {
	deadline := time.Now().Add(lockWait)
	switch state, err := probe(dir); {
	case err != nil:
		return nil, err
	case state == stateMissing:
		if err := create(dir); err != nil {
			if diskspace.IsFull(err) {
				return nil, diskspace.Error("full-text index (creating)", dir, err)
			}
			return nil, err
		}
	case state == stateForeign:
		return nil, fmt.Errorf("%w: %s has files but no %s; run `cairn index --rebuild`", ErrNeedsRebuild, dir, metaFile)
	}
	return open(dir, runtimeConfig(), deadline, lockWait)
}

// OpenReadOnly opens an existing index for searching only. A writable
// open costs a search process more than its reading: on the 1 GB store an
// open and close that wrote nothing still made three bbolt commits (six
// fdatasyncs: scorch's persister and its pruning of old snapshots), and
// started the persister and merger. Read-only, bbolt takes the lock
// shared and nothing is written; Index, Delete and Compact are refused. A
// missing index is not created (ErrNeedsRebuild).
func OpenReadOnly(dir string, lockWait time.Duration) (*Index, error) {
	deadline := time.Now().Add(lockWait)
	switch state, err := probe(dir); {
	case err != nil:
		return nil, err
	case state != stateIndex:
		return nil, fmt.Errorf("%w: no full-text index in %s; run `cairn index`", ErrNeedsRebuild, dir)
	}
	cfg := runtimeConfig()
	cfg["read_only"] = true
	ix, err := open(dir, cfg, deadline, lockWait)
	if err != nil {
		return nil, err
	}
	ix.readOnly = true
	return ix, nil
}

// open opens dir with cfg, retrying a busy lock until deadline.
func open(dir string, cfg map[string]interface{}, deadline time.Time, lockWait time.Duration) (*Index, error) {
	for {
		idx, err := bleve.OpenUsing(dir, cfg)
		if err == nil {
			return checkSchema(idx, dir)
		}
		if !errors.Is(err, bolterrors.ErrTimeout) {
			return nil, openError(dir, err)
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, fmt.Errorf("%w (%s, waited %v)", ErrLocked, dir, lockWait)
		}
		time.Sleep(min(lockRetry, left))
	}
}

// runtimeConfig is passed to scorch on every open (never persisted).
func runtimeConfig() map[string]interface{} {
	return map[string]interface{}{
		// "bolt_timeout" reaches the bbolt.Options of scorch's root.bolt.
		// Any positive value under bbolt's 50 ms retry step means one
		// non-blocking flock attempt; zero would mean wait forever.
		"bolt_timeout": "1ns",
		// Background merges take up to 20 segments at a time, tiers 20
		// wide (bleve's default is 10): a bulk index rewrites each document
		// fewer times. On the 1 GB corpus: ~7% less CPU for a cold index,
		// the same final segment count, and search no slower.
		"scorchMergePlanOptions": map[string]interface{}{"MaxSegmentsPerTier": mergeTier, "SegmentsPerMergeTask": mergeTier},
		// Merges wait for room; bleve's background write errors reach
		// cairn (diskroom.go).
		"eventCallbackName":      callbackName,
		"asyncErrorCallbackName": callbackName,
	}
}

const mergeTier = 20

type dirState int

const (
	stateIndex   dirState = iota // has index_meta.json
	stateMissing                 // absent or empty: create it
	stateForeign                 // has other files: not ours to touch
)

func probe(dir string) (dirState, error) {
	if _, err := os.Stat(filepath.Join(dir, metaFile)); err == nil {
		return stateIndex, nil
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return stateMissing, nil
	case err != nil:
		return 0, fmt.Errorf("fts: reading index directory: %w", err)
	case len(entries) == 0:
		return stateMissing, nil
	}
	return stateForeign, nil
}

// create builds an empty index beside dir and renames it into place, so no
// other process ever sees a half-made index (which would look corrupt) and
// two processes creating at once both end up with the same one.
func create(dir string) error {
	parent, base := filepath.Split(filepath.Clean(dir))
	if parent == "" {
		parent = "."
	}
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return fmt.Errorf("fts: creating index parent directory: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+base+".creating-*")
	if err != nil {
		return fmt.Errorf("fts: creating index: %w", err)
	}
	defer os.RemoveAll(tmp) // only ever our own temporary directory
	if err := createEmpty(tmp); err != nil {
		return fmt.Errorf("fts: creating index in %s: %w", tmp, err)
	}
	// os.Rename refuses an existing directory, so drop dir if it is empty
	// (os.Remove fails on a non-empty one, leaving it alone). If the rename
	// still fails, another process won the race: use its index.
	_ = os.Remove(dir)
	if err := os.Rename(tmp, dir); err != nil {
		if state, perr := probe(dir); perr == nil && state == stateIndex {
			return nil
		}
		return fmt.Errorf("fts: creating index %s: %w", dir, err)
	}
	return nil
}

// createEmpty creates an empty index of the current schema in dir.
func createEmpty(dir string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = diskspace.Error("full-text index (creating)", dir, r)
		}
	}()
	idx, err := bleve.NewUsing(dir, newMapping(), scorch.Name, scorch.Name, nil)
	if err != nil {
		return err
	}
	err = idx.SetInternal([]byte(schemaKey), []byte(schemaVersion))
	if cerr := idx.Close(); err == nil {
		err = cerr
	}
	return err
}

func openError(dir string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("fts: opening index %s: %w", dir, err)
	}
	return fmt.Errorf("%w: %s is damaged (%w); it is derived from the database, run `cairn index --rebuild`",
		ErrNeedsRebuild, dir, err)
}

// checkSchema accepts an opened index only if it was written with this
// schema and is not an older snapshot than the last write (generation.go).
func checkSchema(idx bleve.Index, dir string) (*Index, error) {
	got, err := idx.GetInternal([]byte(schemaKey))
	if err != nil {
		_ = idx.Close()
		return nil, openError(dir, err)
	}
	if string(got) != schemaVersion && string(got) != schemaIDs1 {
		_ = idx.Close()
		return nil, fmt.Errorf("%w: %s was built with schema %q, this cairn uses %q; run `cairn index --rebuild`",
			ErrNeedsRebuild, dir, got, schemaVersion)
	}
	ix := &Index{idx: idx, dir: dir, packIDs: string(got) == schemaVersion}
	if err := ix.checkGeneration(); err != nil {
		_ = idx.Close()
		return nil, err
	}
	ix.track()
	return ix, nil
}

// Close releases the index and its lock. Safe to call twice.
func (ix *Index) Close() error {
	if ix == nil || ix.idx == nil {
		return nil
	}
	idx := ix.idx
	ix.idx = nil
	defer ix.untrack()
	if failed := ix.broken(); failed != nil {
		return closeFailed(idx)
	}
	err := idx.Close()
	if err != nil && diskspace.IsFull(err) {
		return ix.fail("closing", err)
	}
	return err
}

// Dir is the directory the index lives in.
func (ix *Index) Dir() string { return ix.dir }
