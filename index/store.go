// Package index owns cairn's durable store: a SQLite database that is the
// source of truth for everything indexed from Claude Code transcripts
// (projects, files and their read cursors, sessions, entries, redaction
// findings, embeddings and the work queues of the derived indexes). Nobody
// else writes SQL.
//
// Every front end opens the store, does its job and closes it; there is no
// daemon. Several processes may do so at once: SQLite in WAL mode lets
// readers run beside one writer, and every write is one short immediate
// transaction, so a kill -9 at any moment leaves a consistent store.
//
// Store keeps the lifecycle, the sync, the read models, search and
// settings; two sub-stores keep the rest: Store.Mem() the memories'
// persistence and Store.Derived() the derived indexes (full text, vectors,
// their queues and the built-in embedder). Every I/O method takes a
// context.
//
// Files, by what they hold:
//
//   - store.go: opening, pragmas, errors; schema.go: tables and migrations.
//   - sync.go: reading transcripts into the store (per-file cursors);
//     prepare.go: entries into rows (redaction, searchable text, compact
//     blocks); write.go: the sync's transactions; compress.go: stored text
//     and blobs compressed.
//   - update.go: Update, the sync with the full-text index filled beside it
//     (handoff.go: documents handed from the sync to the indexer;
//     speculate.go: an incremental run's documents indexed ahead).
//   - queue.go: the derived indexes' work queues, embeddings, settings;
//     derived.go and derived_sql.go: the full-text index (draining,
//     rebuilding) and the built-in embedder's training; vectors.go: which
//     embedder makes vectors; vecache.go and veccount.go: the memory-mapped
//     int8 vector cache; modelcache.go: the trained model beside the store.
//   - search.go: hybrid search and its defaults; fusion.go: rank fusion;
//     recall.go: sessions recalled for a query and its rephrasings.
//   - queries.go: the read models (projects, sessions, conversations,
//     stats); projectmatch.go: the one rule that turns a typed project
//     name into stored projects.
//   - mem.go, mem_docs.go, mem_more.go: memories' persistence (rows, links,
//     their search documents, drafts, summaries, injections, cursors).
package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn/index/embed"
	"github.com/cairn-dev/cairn/internal/diskspace"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// DBName is the database file inside the data dir.
const DBName = "cairn.db"

// DefaultBusyTimeout is how long an interactive command waits for another
// process's write transaction. Hooks should pass much less.
const DefaultBusyTimeout = 5 * time.Second

// OpenOptions tune Open.
type OpenOptions struct {
	// BusyTimeout is how long a write waits for another process's
	// transaction before failing with ErrBusy; 0 means DefaultBusyTimeout.
	// Hooks run inside Claude Code's budget and should use ~100 ms: what
	// they could not write is picked up by the next sync.
	BusyTimeout time.Duration
	// ReadOnly opens without creating or migrating anything; writes fail.
	ReadOnly bool
	// DeferRewrites leaves a migration that rewrites the stored rows
	// (3.3 s of CPU at 1 GB, ten times that at 10 GB) to a process with time for it:
	// Open fails with ErrUpgradePending instead. Hooks set it, so a
	// prompt never waits on an upgrade.
	DeferRewrites bool
	// SmallCache gives every connection a 2 MB page cache instead of 32 MB
	// (writer) and 8 MB (each reader): for long-running processes (the
	// TUI, the MCP server) that should stay small and do little bulk work.
	SmallCache bool
	// MapReads reads the store through a memory map (readMmap): for a
	// process that searches and exits (cairn search), not one that reads
	// the whole store (a cold index), whose mapped pages would all count
	// as resident.
	MapReads bool
	// Embedder is the embedder this process embeds and searches with (the
	// zero value is the built-in one).
	Embedder EmbedderConfig
	// Search fills what a query leaves unset (the [search] config).
	Search SearchDefaults
	// Exclusion is the opt-out rule this process's syncs and hooks apply.
	Exclusion Exclusion
}

// Store is an open cairn database. Its methods are safe for concurrent use.
type Store struct {
	path string
	// w has exactly one connection: SQLite allows one writer at a time, and
	// a second connection of the same process would only queue behind the
	// first inside SQLite's unfair busy handler. Writers in this process
	// queue in database/sql instead. r serves reads, which WAL lets run
	// beside the writer.
	w, r     *sql.DB
	readOnly bool
	// deferRewrites: OpenOptions.DeferRewrites.
	deferRewrites bool
	// embedCfg is the embedder this process builds vectors with and
	// searches by (OpenOptions.Embedder); the zero value is the built-in one.
	embedCfg EmbedderConfig
	// searchDefaults fill what a query leaves unset (OpenOptions.Search).
	searchDefaults SearchDefaults
	// exclusion is the opt-out rule (OpenOptions.Exclusion).
	exclusion Exclusion
	// model is the decoded built-in embedder (see LoadBuiltinEmbedder).
	modelMu sync.Mutex
	model   *embed.Model
	// damaged counts documents skipped because their rows could not be
	// read (integrity.go).
	damaged atomic.Int64
	// repaired counts damaged entries re-read from their transcripts.
	repaired atomic.Int64
}

// ErrNewerSchema is returned by Open for a store written by a newer cairn.
var ErrNewerSchema = errors.New("store was written by a newer cairn")

// ErrUpgradePending is returned by Open with DeferRewrites when the store
// needs a migration that rewrites its rows.
var ErrUpgradePending = errors.New("the store needs an upgrade that rewrites its rows")

// ErrBusy wraps write failures caused by another process holding the
// write lock longer than the busy timeout. Nothing was written; running
// again later catches up.
var ErrBusy = errors.New("store is busy (another cairn process is writing)")

// ErrCorrupt wraps errors that mean the database file is damaged.
var ErrCorrupt = errors.New("store is damaged")

// WritableError names the data dir when err says it cannot be written (a
// read-only folder or file system) and says how to pick another one; other
// errors are returned as they are.
func WritableError(dir string, err error) error {
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		return fmt.Errorf("cannot write to %s: read-only; set --data or CAIRN_HOME to a folder you can write (%w)", dir, err)
	}
	return err
}

// CheckWritable reports, as WritableError, whether a store could be
// created or written in dataDir: the folder, or the nearest existing
// folder above it when it is not made yet, takes a new file. Nothing is
// created or left behind.
func CheckWritable(dataDir string) error {
	dir := dataDir
	for {
		if _, err := os.Stat(dir); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	f, err := os.CreateTemp(dir, ".cairn-write-check-*")
	if err != nil {
		return WritableError(dataDir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// RebuildAdvice says what rebuilding the store at path from the
// transcripts keeps and what it loses, and how to keep a copy first: a
// rebuild must never be advised as if it lost nothing.
func RebuildAdvice(path string) string {
	dir := filepath.Dir(path)
	return fmt.Sprintf("Rebuilding it (mv %s %s.broken, then `cairn index`) re-reads the transcripts still on disk "+
		"and keeps their sessions, but loses what only the store holds: memories and their reviews, drafts, summaries, "+
		"and the sessions whose transcripts Claude Code has deleted. Keep a copy first: `cairn backup` while the store "+
		"can still be read, else copy the folder %s (cp -a %s %s.copy)", path, path, dir, dir, dir)
}

// Open opens (creating if needed) the store in dataDir. The directory is
// made private (0700) and the database files 0600: they hold transcript
// text, which is redacted but still personal.
func Open(dataDir string) (*Store, error) { return OpenWith(dataDir, OpenOptions{}) }

// OpenWith is Open with options.
func OpenWith(dataDir string, o OpenOptions) (*Store, error) {
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = DefaultBusyTimeout
	}
	path := filepath.Join(dataDir, DBName)
	if err := ensureStoreFile(dataDir, path, o.ReadOnly); err != nil {
		return nil, err
	}
	s := &Store{path: path, readOnly: o.ReadOnly, deferRewrites: o.DeferRewrites, embedCfg: o.Embedder, searchDefaults: o.Search, exclusion: o.Exclusion}
	if err := s.openPools(o); err != nil {
		return nil, err
	}
	if err := s.upgrade(dataDir); err != nil {
		s.Close()
		return nil, s.wrap(err)
	}
	return s, nil
}

// ensureStoreFile makes sure the database file at path may be opened: a
// writer creates the data directory and the file, both private; a reader
// needs the file to exist. Neither answers a restore that never finished
// by an empty store.
func ensureStoreFile(dataDir, path string, readOnly bool) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		// A restore that never finished (or a store moved away by hand
		// after one) must not be answered by an empty store.
		if err := missingStoreError(dataDir); err != nil {
			return err
		}
	}
	if readOnly {
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("no cairn store at %s: run `cairn index` first", path)
		}
		return nil
	}
	return createPrivate(dataDir, path)
}

// createPrivate makes dataDir (0700) and the database file at path (0600)
// and gives an existing WAL and shared-memory file the file's mode.
func createPrivate(dataDir, path string) error {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("creating data dir %s: %w", dataDir, err)
	}
	if err := os.Chmod(dataDir, 0o700); err != nil {
		return fmt.Errorf("making data dir %s private: %w", dataDir, err)
	}
	// Create the file ourselves so it never exists with the umask's
	// permissions; SQLite gives the -wal and -shm files the mode of the
	// database file.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("making %s private: %w", p, err)
		}
	}
	return nil
}

// openPools opens the store's connections: unless read-only, the single
// writer (after giving a new file its page size); then the readers. On an
// error nothing is left open.
func (s *Store) openPools(o OpenOptions) error {
	var err error
	if !o.ReadOnly {
		if err := initPageSize(s.path, o.BusyTimeout); err != nil {
			return s.wrap(err)
		}
		if s.w, err = sql.Open("sqlite", dsn(s.path, o.BusyTimeout, false, o.SmallCache)); err != nil {
			return err
		}
		s.w.SetMaxOpenConns(1)
		s.w.SetMaxIdleConns(1)
		s.w.SetConnMaxLifetime(0)
		s.w.SetConnMaxIdleTime(0)
	}
	rdsn := dsn(s.path, o.BusyTimeout, true, o.SmallCache)
	if o.MapReads {
		rdsn += readMmap
	}
	if s.r, err = sql.Open("sqlite", rdsn); err != nil {
		s.Close()
		return err
	}
	s.r.SetMaxOpenConns(4)
	s.r.SetMaxIdleConns(2)
	return nil
}

// upgrade brings an opened store up to this build: the schema's
// migrations, and for a writer the projects' keys and the removal of what
// killed commands left.
func (s *Store) upgrade(dataDir string) error {
	ctx := context.Background()
	if err := s.migrate(ctx); err != nil {
		return err
	}
	if s.readOnly {
		return nil
	}
	if err := s.rekeyProjects(ctx); err != nil {
		return err
	}
	// What killed commands left: backups' temporary copies of the
	// store, rebuilds' half-built indexes (leftovers.go).
	removeLeftovers(dataDir)
	removeKilledRebuilds(dataDir)
	return nil
}

// pageSize of new stores. Entries rows are often 1-4 KB (tool output heads
// and tails): 4 KB pages left 17% of their leaf pages empty on a 1 GB
// corpus, 16 KB pages pack them ~8% smaller. Hook writes touch a handful of
// pages, so the larger WAL frames cost nothing noticeable.
const pageSize = 16384

// initPageSize sets the page size of a new (empty) database file. It must
// happen before journal_mode=WAL writes the header: after that the page size
// is fixed. A second process racing here finds the header written and its
// PRAGMA page_size is a no-op.
func initPageSize(path string, busy time.Duration) error {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() > 0 {
		return err
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+
		fmt.Sprintf("?_pragma=busy_timeout(%d)", busy.Milliseconds()))
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, fmt.Sprintf("PRAGMA page_size = %d", pageSize)); err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, "PRAGMA journal_mode = WAL")
	return err
}

// dsn builds the modernc DSN. _txlock=immediate makes BEGIN take the write
// lock up front: a deferred transaction that reads and then writes can fail
// with SQLITE_BUSY without waiting, whereas BEGIN IMMEDIATE waits in the
// busy handler. synchronous=NORMAL is durable across application crashes
// in WAL mode (only an OS crash can lose the last transactions, which the
// next sync re-reads from the transcripts anyway).
func dsn(path string, busy time.Duration, readOnly, small bool) string {
	cache := func(kb int) string {
		if small {
			kb = 2000
		}
		return fmt.Sprintf("cache_size(-%d)", kb)
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
		q.Add("_pragma", cache(8000))
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
		// Bulk sync touches the entries index all over: a 32 MB page cache
		// (the default is 2 MB) keeps it in memory.
		q.Add("_pragma", cache(32000))
		// Keep the WAL from staying huge after a cold index.
		q.Add("_pragma", "journal_size_limit(67108864)")
		q.Set("_txlock", "immediate")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// readMmap is the read pool's memory map of the store. A search reads a
// few hundred rows scattered over the file; through SQLite's page cache
// each page is a pread(2) and a copy, and on a busy machine every syscall
// can cost a scheduling round (measured on the 1 GB store, two loaded
// cores: fetching 300 hits took 0.6–1.2 s in 935 preads, 60–96 ms in 27
// with the map; the process's system time halved). Mapped pages are the
// kernel's page cache, shared with every other cairn process, not heap.
// Writes still go through write(2). Only processes that ask map the store
// (OpenOptions.MapReads): a cold index reads the whole store back for the
// full-text index, and every page it maps counts as resident (1 GB: peak
// RSS 289 -> 423 MB when its read pool was mapped).
// SQLite caps the size at its compile-time maximum (2 GB) and maps no more
// than the file holds; the rest is read as before.
const readMmap = "&_pragma=mmap_size(2147418112)"

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Close closes the store. The last connection to close checkpoints the WAL.
func (s *Store) Close() error {
	var errs []error
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	if s.w != nil {
		errs = append(errs, s.w.Close())
	}
	return errors.Join(errs...)
}

// checkpointPassive copies what the WAL holds back into the database file
// without waiting for (or blocking) anyone, and says how many frames the WAL
// has and how many of them are now in the database file. Update runs it once
// the sync has committed, on a reader connection, while the full-text index
// and the embedder are still busy: the checkpoint of the last connection to
// close then has only their few pages left to copy (5 of the 7 ms it took
// at the end of an incremental run on 1 GB). Update ignores errors: a
// checkpoint is an optimisation, and the next one catches up.
func (s *Store) checkpointPassive() (frames, copied int, err error) {
	if s.readOnly {
		return 0, 0, nil
	}
	var busy int
	err = s.r.QueryRowContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
	return frames, copied, err
}

// wrap turns SQLite result codes into errors that say what to do.
func (s *Store) wrap(err error) error {
	if err == nil {
		return nil
	}
	// Already said what to do (and, wrapping the SQLite error, it would be
	// matched below and said twice).
	if advised(err) {
		return err
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		if w := s.wrapCode(se.Code()&0xff, err); w != nil {
			return w
		}
	}
	if strings.Contains(err.Error(), "file is not a database") {
		return fmt.Errorf("%w: %s is not a SQLite database. It was left untouched. %s", ErrCorrupt, s.path, RebuildAdvice(s.path))
	}
	return err
}

// advised says whether err already says what to do.
func advised(err error) bool {
	return errors.Is(err, ErrNewerSchema) || errors.Is(err, ErrCorrupt) || errors.Is(err, ErrBusy) || errors.Is(err, diskspace.ErrFull)
}

// wrapCode is err, of SQLite primary result code code, as an error that
// says what to do; nil for a code that needs no advice.
func (s *Store) wrapCode(code int, err error) error {
	switch code {
	case sqlite3.SQLITE_FULL:
		// The transaction was rolled back: the store is as it was.
		return diskspace.Error("store", s.Dir(), err)
	case sqlite3.SQLITE_IOERR:
		if free, ok := diskspace.Free(s.Dir()); ok && free < lowSpace {
			return diskspace.Error("store", s.Dir(), err)
		}
	case sqlite3.SQLITE_NOTADB:
		return fmt.Errorf("%w: %s is not a readable SQLite database (%w). It was left untouched. %s", ErrCorrupt, s.path, err, RebuildAdvice(s.path))
	case sqlite3.SQLITE_CORRUPT:
		// Most of a damaged store is still readable (and memories live
		// only there): doctor says what to save and how.
		return fmt.Errorf("%w: %s cannot be read where it is damaged (%w). It was left untouched: run `cairn doctor --full` for what is damaged and what to do (`cairn index --rebuild` keeps search working meanwhile)", ErrCorrupt, s.path, err)
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return fmt.Errorf("%w: %s: %w", ErrBusy, s.path, err)
	}
	return nil
}

// lowSpace is the free space under which an I/O error writing the store is
// taken for a full disk (SQLite reports some of those as SQLITE_IOERR).
const lowSpace = 64 << 20

// writeTx runs fn in one immediate write transaction.
func (s *Store) writeTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if s.readOnly {
		return errors.New("store opened read-only")
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return s.wrap(err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return s.wrap(err)
	}
	return s.wrap(tx.Commit())
}
