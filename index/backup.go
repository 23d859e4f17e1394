package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/internal/diskspace"
	"github.com/cairn-dev/cairn/internal/syncfile"
)

// BackupName is the file name of a backup made at t.
func BackupName(t time.Time) string {
	return "cairn-backup-" + t.UTC().Format("20060102-150405") + ".db"
}

// BackupFiles lists the backups in dir, oldest first (their names sort by
// time).
func BackupFiles(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "cairn-backup-*.db"))
	sort.Strings(m)
	return m
}

// BackupInfo describes a backup file: what it holds, checked by opening it.
type BackupInfo struct {
	Path     string `json:"path"`
	Bytes    int64  `json:"bytes"`
	Schema   int    `json:"schema"`
	Sessions int    `json:"sessions"`
	Entries  int    `json:"entries"`
	Memories int    `json:"memories"`
}

// Backup writes a consistent snapshot of the whole store (sessions,
// entries, memories, reviews, drafts, summaries, settings) to dest with
// SQLite's VACUUM INTO: one read transaction, so other cairn processes go
// on reading and writing meanwhile. The snapshot is written beside dest
// and renamed into place only once `PRAGMA integrity_check` passes on it,
// so dest is never a half-written file. The derived files (full-text
// index, vector cache, trained model) are not in it: restore rebuilds them.
func (s *Store) Backup(ctx context.Context, dest string) (BackupInfo, error) {
	dest, err := filepath.Abs(dest)
	if err != nil {
		return BackupInfo{}, err
	}
	if _, err := os.Stat(dest); err == nil {
		return BackupInfo{}, fmt.Errorf("%s already exists: choose another --output or remove it", dest)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return BackupInfo{}, fmt.Errorf("creating %s: %w", filepath.Dir(dest), err)
	}
	// The snapshot is written to a hidden file beside dest, made private
	// before SQLite writes a byte into it; the data dir notes it while it
	// is written, so the next command removes it if this one is killed
	// (leftovers.go).
	tmp := filepath.Join(filepath.Dir(dest), fmt.Sprintf(".%s.%d%s", filepath.Base(dest), os.Getpid(), partialSuffix))
	_ = os.Remove(tmp)
	done, err := noteInProgress(s.Dir(), tmp)
	if err != nil {
		return BackupInfo{}, fmt.Errorf("noting the backup in %s: %w", s.Dir(), err)
	}
	defer done()
	defer os.Remove(tmp)
	if err := s.vacuumInto(ctx, tmp, dest); err != nil {
		return BackupInfo{}, err
	}
	info, err := VerifyBackup(ctx, tmp)
	if err != nil {
		return BackupInfo{}, fmt.Errorf("the backup just written does not verify (%w); the store may be damaged: run `cairn doctor --full`", err)
	}
	if err := syncFile(tmp); err != nil {
		return BackupInfo{}, err
	}
	if err := os.Rename(tmp, dest); err != nil {
		return BackupInfo{}, err
	}
	info.Path = dest
	return info, nil
}

// vacuumInto writes the snapshot of the store to tmp, a private file
// beside dest (the backup's name in the errors).
func (s *Store) vacuumInto(ctx context.Context, tmp, dest string) error {
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("writing the backup to %s: %w (nothing was changed in the store; check the free space and permissions there)", filepath.Dir(dest), err)
	}
	f.Close()
	// A connection of its own: the store's readers are query_only, which
	// VACUUM INTO refuses, and its writer must stay free for writes.
	conn, err := sql.Open("sqlite", "file:"+(&url.URL{Path: s.path}).EscapedPath()+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "VACUUM INTO ?", tmp); err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return fmt.Errorf("writing the backup to %s: %w (nothing was changed in the store; check the free space and permissions there)", filepath.Dir(dest), err)
	}
	return os.Chmod(tmp, 0o600)
}

// VerifyBackup opens a backup file read-only and checks it is a whole cairn
// store this version can read: a SQLite file that passes integrity_check,
// with cairn's tables and a schema no newer than this binary's.
func VerifyBackup(ctx context.Context, path string) (BackupInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return BackupInfo{}, err
	}
	if !fi.Mode().IsRegular() {
		return BackupInfo{}, fmt.Errorf("%s is not a regular file", path)
	}
	info := BackupInfo{Path: path, Bytes: fi.Size()}
	// trusted_schema off: a view or trigger of a foreign file runs no
	// function before the schema check below refuses it.
	db, err := sql.Open("sqlite", dsn(path, time.Second, true, true)+"&mode=ro&_pragma=trusted_schema(0)")
	if err != nil {
		return info, err
	}
	defer db.Close()
	if err := checkBackupDB(ctx, db, path, &info); err != nil {
		return info, err
	}
	for _, q := range []struct {
		n   *int
		sql string
	}{
		{&info.Sessions, "SELECT count(*) FROM sessions"},
		{&info.Entries, "SELECT count(*) FROM entries_raw"},
		{&info.Memories, "SELECT count(*) FROM memories"},
	} {
		if err := db.QueryRowContext(ctx, q.sql).Scan(q.n); err != nil {
			return info, notBackup(path, err)
		}
	}
	return info, nil
}

// notBackup is the error for path, whose db gave err.
func notBackup(path string, err error) error {
	return fmt.Errorf("%s is not a readable cairn backup: %w", path, err)
}

// checkBackupDB checks db, the backup at path, is whole and of a cairn
// schema this version reads, recording its version in info.
func checkBackupDB(ctx context.Context, db *sql.DB, path string, info *BackupInfo) error {
	var check string
	if err := db.QueryRowContext(ctx, "PRAGMA integrity_check(1)").Scan(&check); err != nil {
		return notBackup(path, err)
	}
	if check != "ok" {
		return notBackup(path, fmt.Errorf("integrity_check: %s", check))
	}
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&info.Schema); err != nil {
		return notBackup(path, err)
	}
	if info.Schema > len(migrations) {
		return fmt.Errorf("%s: %w (schema %d, this cairn reads up to %d): upgrade cairn", path, ErrNewerSchema, info.Schema, len(migrations))
	}
	if info.Schema < 2 {
		return notBackup(path, errors.New("it has no cairn tables"))
	}
	if err := checkSchemaObjects(ctx, db, info.Schema); err != nil {
		return fmt.Errorf("%s is not a cairn backup: %w; restore from a file `cairn backup` wrote (nothing was changed)", path, err)
	}
	return nil
}

// schemaObject is a row of sqlite_master: a table, index, view or trigger.
type schemaObject struct{ typ, name, table, sql string }

func (o schemaObject) String() string {
	if o.typ == "table" || o.name == o.table {
		return fmt.Sprintf("%s %q", o.typ, o.name)
	}
	return fmt.Sprintf("%s %q on %q", o.typ, o.name, o.table)
}

// article is "an" before an index, "a" before the rest.
func (o schemaObject) article() string {
	if o.typ == "index" {
		return "an"
	}
	return "a"
}

// readSchema reads sqlite_master (without ANALYZE's statistics tables,
// which any SQLite may add), by type and name.
func readSchema(ctx context.Context, db *sql.DB) (map[string]schemaObject, error) {
	rows, err := db.QueryContext(ctx, `SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite\_stat%' ESCAPE '\'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]schemaObject{}
	for rows.Next() {
		var o schemaObject
		if err := rows.Scan(&o.typ, &o.name, &o.table, &o.sql); err != nil {
			return nil, err
		}
		// Spacing and quoting differ between SQLite versions' rewrites
		// (ALTER TABLE … RENAME); the definition does not.
		o.sql = strings.Join(strings.Fields(strings.ReplaceAll(o.sql, `"`, "")), " ")
		out[o.typ+" "+o.name] = o
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	// Tables and indexes are compared by their columns: earlier builds
	// wrote a few of cairn's tables with other constraints (IF NOT EXISTS,
	// no foreign keys) at the same version. Views and triggers run code:
	// they must match word for word.
	for k, o := range out {
		q, ok := columnQueries[o.typ]
		if !ok {
			continue
		}
		list, err := objectColumns(ctx, db, q, o.name)
		if err != nil {
			return nil, err
		}
		o.sql = "(" + strings.Join(list, ", ") + ")"
		out[k] = o
	}
	return out, nil
}

// columnQueries list the columns of a table or an index, by type.
var columnQueries = map[string]string{
	"table": `SELECT name || ' ' || upper(type) FROM pragma_table_info(?)`,
	"index": `SELECT coalesce(name, '?') FROM pragma_index_info(?)`,
}

// objectColumns are the columns query q lists of the object name.
func objectColumns(ctx context.Context, db *sql.DB, q, name string) ([]string, error) {
	cols, err := db.QueryContext(ctx, q, name)
	if err != nil {
		return nil, err
	}
	var list []string
	for cols.Next() {
		var c string
		if err := cols.Scan(&c); err != nil {
			cols.Close()
			return nil, err
		}
		list = append(list, c)
	}
	cols.Close()
	if err := cols.Err(); err != nil {
		return nil, err
	}
	return list, nil
}

// referenceSchemas caches, by version, the schema cairn's migrations create.
var referenceSchemas sync.Map

// referenceSchema is sqlite_master of a store cairn made at version v: the
// migrations up to v applied to an empty database in memory.
func referenceSchema(ctx context.Context, v int) (map[string]schemaObject, error) {
	if m, ok := referenceSchemas.Load(v); ok {
		return m.(map[string]schemaObject), nil
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection: one in-memory database
	for i := 0; i < v; i++ {
		if _, err := db.ExecContext(ctx, migrations[i]); err != nil {
			return nil, fmt.Errorf("cairn's schema version %d: %w", i+1, err)
		}
	}
	m, err := readSchema(ctx, db)
	if err == nil {
		referenceSchemas.Store(v, m)
	}
	return m, err
}

// checkSchemaObjects refuses a database whose tables, indexes, views and
// triggers are not exactly those cairn's schema version v creates: a
// trigger or view of another origin would run inside every later command.
func checkSchemaObjects(ctx context.Context, db *sql.DB, v int) error {
	want, err := referenceSchema(ctx, v)
	if err != nil {
		return err
	}
	got, err := readSchema(ctx, db)
	if err != nil {
		return err
	}
	problems := schemaDifferences(got, want)
	if len(problems) == 0 {
		return nil
	}
	if len(problems) > 3 {
		problems = append(problems[:3], fmt.Sprintf("%d more differences", len(problems)-3))
	}
	return fmt.Errorf("its schema is not cairn's schema version %d: %s", v, strings.Join(problems, "; "))
}

// schemaDifferences says how the schema got differs from want, in name
// order: its objects cairn never creates or defines otherwise, then
// cairn's objects it lacks.
func schemaDifferences(got, want map[string]schemaObject) []string {
	var problems []string
	for _, k := range schemaNames(got) {
		g := got[k]
		w, ok := want[k]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("it holds %s %s that cairn never creates", g.article(), g))
		case g.sql != w.sql || g.table != w.table:
			problems = append(problems, fmt.Sprintf("its %s is defined differently from cairn's", g))
		}
	}
	for _, k := range schemaNames(want) {
		if _, ok := got[k]; !ok {
			problems = append(problems, fmt.Sprintf("it lacks cairn's %s", want[k]))
		}
	}
	return problems
}

// schemaNames are the names of the schema m's objects, in order.
func schemaNames(m map[string]schemaObject) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// ErrStoreInUse is returned by Restore while another process has the store
// open.
var ErrStoreInUse = errors.New("the store is open in another cairn process")

// RestoreOptions tune Restore.
type RestoreOptions struct {
	// Force replaces a store that holds sessions or memories.
	Force bool
	// Now names the folder the old store is kept in (tests); zero: now.
	Now time.Time
}

// RestoreResult says what Restore did.
type RestoreResult struct {
	Backup BackupInfo `json:"backup"`
	// Aside is the folder the previous store was kept in ('' when there
	// was none).
	Aside string `json:"aside,omitempty"`
}

// derivedNames are the files and folders in a data dir that are rebuilt
// from the database; a restore moves them aside with it.
var derivedNames = []string{"bleve", "vectors.bin", "vectors.bin.lock", "model.bin", filesSnapName, surveySnapName}

// Names of what a restore leaves in the data dir: the folder the previous
// store is kept in, and the folder the backup is prepared in.
const (
	asidePrefix   = "before-restore-"
	stagingPrefix = ".restoring-"
)

// Seams for the tests: restoreStep runs after each step of a restore (an
// error stops it there, as a failure would; the kill tests end the process
// in it), restoreCopy copies the backup beside the store (a full disk is
// injected there), restoreFree says how much room the data dir has.
var (
	restoreStep = func(step string) error { return nil }
	restoreCopy = copyFile
	restoreFree = diskspace.Free
)

// Restore replaces the store in dataDir with the backup at src, so that at
// every moment dataDir holds a whole store, the old one or the new one:
//
//  1. the backup is checked (VerifyBackup: integrity, cairn's own schema
//     and nothing else);
//  2. it is copied into a folder beside the store (.restoring-*), opened
//     there (an older schema is migrated), every value decompressed, every
//     document queued for the full-text index, and synced to disk;
//  3. the old store is kept in before-restore-<time> by a hard link (a copy
//     where links are not possible), its derived files moved beside it;
//  4. one rename puts the new database in the place of the old one.
//
// A failure or a kill before 4 leaves the old store in place (its derived
// files may be gone: they are rebuilt from it on the next open); after 4 the
// new one is in place, and its full-text index is rebuilt from its queue by
// the next command that searches or indexes. Restore refuses while another
// process has the store open, and refuses to replace a store holding
// sessions or memories without Force. Nothing is deleted. The derived files
// are not rebuilt here: open the store and run the pipeline with Rebuild.
func Restore(ctx context.Context, dataDir, src string, o RestoreOptions) (res RestoreResult, err error) {
	info, err := VerifyBackup(ctx, src)
	if err != nil {
		return res, err
	}
	res.Backup = info
	exists, tombs, err := restoreTarget(ctx, dataDir, src, o.Force)
	if err != nil {
		return res, err
	}
	removeStaging(dataDir)
	if err := checkRestoreRoom(dataDir, src, info.Bytes); err != nil {
		return res, err
	}
	stage, err := os.MkdirTemp(dataDir, stagingPrefix)
	if err != nil {
		return res, restoreFull(fmt.Errorf("preparing the restore in %s: %w (the store was not changed)", dataDir, err), dataDir)
	}
	defer os.RemoveAll(stage) // only ever the folder made just above
	if err := stageBackup(ctx, dataDir, stage, src, tombs); err != nil {
		return res, err
	}
	res.Aside, err = replaceStore(ctx, dataDir, filepath.Join(stage, DBName), exists, o.Now)
	return res, err
}

// replaceStore puts the staged backup in the place of the store in
// dataDir, locked meanwhile, keeping what was there aside (swapAside),
// and syncs the data dir. It returns the aside folder (” when nothing
// was there).
func replaceStore(ctx context.Context, dataDir, staged string, exists bool, now time.Time) (aside string, err error) {
	db := filepath.Join(dataDir, DBName)
	if exists {
		release, err := lockStore(ctx, db)
		if err != nil {
			return "", err
		}
		defer release()
	}
	if exists || anyExists(dataDir, derivedNames) {
		if now.IsZero() {
			now = time.Now()
		}
		if aside, err = swapAside(dataDir, staged, now, exists); err != nil {
			return aside, err
		}
	} else if err := os.Rename(staged, db); err != nil {
		return "", restoreFull(fmt.Errorf("putting the backup in place as %s: %w (nothing was changed)", db, err), dataDir)
	}
	if err := syncDir(dataDir); err != nil {
		return aside, fmt.Errorf("the backup is in place as %s, but syncing %s failed: %w (run `cairn doctor`)", db, dataDir, err)
	}
	return aside, restoreStep("swapped")
}

// restoreTarget makes the data dir and checks that the store there may
// be replaced by the backup src: not src itself, not open in another
// process, empty unless force. It says whether a store is there, and
// what that store had forgotten.
func restoreTarget(ctx context.Context, dataDir, src string, force bool) (bool, []tombstoneRow, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return false, nil, fmt.Errorf("creating data dir %s: %w", dataDir, err)
	}
	db := filepath.Join(dataDir, DBName)
	if same, _ := sameFile(src, db); same {
		return false, nil, fmt.Errorf("%s is the store itself: restore from a backup file", src)
	}
	if _, statErr := os.Stat(db); statErr != nil {
		return false, nil, nil
	}
	if err := checkReplaceable(ctx, db, force); err != nil {
		return true, nil, err
	}
	// What was forgotten stays forgotten: the backup may be older.
	tombs, err := readTombstones(ctx, db)
	if err != nil {
		return true, nil, fmt.Errorf("reading what was forgotten in %s: %w (the store was not changed)", db, err)
	}
	return true, tombs, nil
}

// checkRestoreRoom refuses a restore of the backup src (size bytes) that
// the data dir has no room for, before anything is written.
func checkRestoreRoom(dataDir, src string, size int64) error {
	if free, ok := restoreFree(dataDir); ok && free < uint64(size)+restoreMargin {
		return fmt.Errorf("restoring %s needs about %s free in %s, and %s is free: %w; free space there and run restore again (the store was not changed)",
			src, human.Bytes(size+restoreMargin), dataDir, human.Bytes(int64(min(free, 1<<62))), diskspace.ErrFull)
	}
	return nil
}

// stageBackup copies the backup src into stage and prepares the copy
// there (prepareStaged).
func stageBackup(ctx context.Context, dataDir, stage, src string, tombs []tombstoneRow) error {
	if err := restoreCopy(src, filepath.Join(stage, DBName)); err != nil {
		return restoreFull(fmt.Errorf("copying the backup %s into %s: %w (the store was not changed)", src, dataDir, err), dataDir)
	}
	if err := restoreStep("copied"); err != nil {
		return err
	}
	if err := prepareStaged(ctx, stage, src, tombs); err != nil {
		return restoreFull(err, dataDir)
	}
	return restoreStep("prepared")
}

// swapAside keeps the current store (when there is one) and the derived
// files in a new before-restore folder, then renames the staged backup
// into the store's place. It returns that folder, also on a failure after
// it was made; a failure puts the derived files moved so far back.
func swapAside(dataDir, staged string, now time.Time, exists bool) (string, error) {
	aside, err := makeAside(dataDir, now)
	if err != nil {
		return "", restoreFull(fmt.Errorf("keeping the current store aside: %w (the store was not changed)", err), dataDir)
	}
	sw := &asideSwap{dataDir: dataDir, aside: aside}
	if exists {
		if err := sw.keepStore(); err != nil {
			return aside, sw.undo(err)
		}
	}
	if err := restoreStep("kept"); err != nil {
		return aside, err
	}
	if err := sw.moveDerived(); err != nil {
		return aside, sw.undo(err)
	}
	if err := restoreStep("derived"); err != nil {
		return aside, err
	}
	if err := placeStaged(dataDir, staged); err != nil {
		return aside, sw.undo(err)
	}
	return aside, nil
}

// placeStaged renames the staged backup into the store's place in dataDir.
func placeStaged(dataDir, staged string) error {
	// The old WAL (kept aside with its database) must not be read as the
	// new database's: checkReplaceable left none, unless a process
	// opened the store since.
	for _, n := range []string{DBName + "-wal", DBName + "-shm"} {
		if err := os.Remove(filepath.Join(dataDir, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return os.Rename(staged, filepath.Join(dataDir, DBName))
}

// asideSwap is a restore's moves into its before-restore folder.
type asideSwap struct {
	dataDir, aside string
	moved          []string // derived files moved aside, to put back on failure
}

// keepStore keeps the store's database and log in the aside folder by a
// hard link (a copy where links are not possible), synced.
func (sw *asideSwap) keepStore() error {
	for _, n := range []string{DBName, DBName + "-wal", DBName + "-shm"} {
		if err := linkOrCopy(filepath.Join(sw.dataDir, n), filepath.Join(sw.aside, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("keeping %s in %s: %w", n, sw.aside, err)
		}
	}
	return syncDir(sw.aside)
}

// moveDerived moves the derived files there are into the aside folder.
func (sw *asideSwap) moveDerived() error {
	for _, n := range derivedNames {
		err := os.Rename(filepath.Join(sw.dataDir, n), filepath.Join(sw.aside, n))
		if err == nil {
			sw.moved = append(sw.moved, n)
		} else if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("moving %s to %s: %w", n, sw.aside, err)
		}
	}
	return nil
}

// undo puts the derived files moved aside back and says that the store
// was not replaced, and where its copy is.
func (sw *asideSwap) undo(err error) error {
	for _, n := range sw.moved {
		_ = os.Rename(filepath.Join(sw.aside, n), filepath.Join(sw.dataDir, n))
	}
	return fmt.Errorf("%w; the store in %s was not replaced: fix that and run restore again (a copy of the store is in %s: remove that folder once you no longer need it)", restoreFull(err, sw.dataDir), sw.dataDir, sw.aside)
}

// restoreMargin is the room a restore needs beyond the backup's size (the
// copy's log while it is prepared).
const restoreMargin = 16 << 20

// restoreFull names a full disk as such (what is free where).
func restoreFull(err error, dataDir string) error {
	if diskspace.IsFull(err) && !errors.Is(err, diskspace.ErrFull) {
		return diskspace.Error("restore", dataDir, err)
	}
	return err
}

// prepareStaged opens the copy of the backup src in stage as a store:
// migrates an older schema, checks that every compressed value
// decompresses, forgets again what the store being replaced had forgotten
// (tombs), queues every document for the full-text index (the new
// store's index is built from its queue, whenever the rebuild is
// interrupted), and leaves it as one synced file.
func prepareStaged(ctx context.Context, stage, src string, tombs []tombstoneRow) error {
	st, err := OpenWith(stage, OpenOptions{})
	if err != nil {
		return fmt.Errorf("opening the copy of %s: %w (the store was not changed)", src, err)
	}
	err = st.prepareCopy(ctx, src, tombs)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	// One file, its log written back into it: the rename moves all of it.
	staged := filepath.Join(stage, DBName)
	if err := journalDelete(ctx, staged); err != nil {
		return fmt.Errorf("preparing the copy of %s: %w (the store was not changed)", src, err)
	}
	if err := syncFile(staged); err != nil {
		return err
	}
	return syncDir(stage)
}

// prepareCopy is prepareStaged's work on the opened copy s of src.
func (s *Store) prepareCopy(ctx context.Context, src string, tombs []tombstoneRow) error {
	for _, c := range []struct {
		count func(context.Context) (int, error)
		what  string
	}{{s.undecodableEntries, "entries"}, {s.undecodableSessions, "sessions"}} {
		bad, err := c.count(ctx)
		if err == nil && bad > 0 {
			err = fmt.Errorf("%d %s hold compressed values that do not decompress", bad, c.what)
		}
		if err != nil {
			return fmt.Errorf("%s is not a whole cairn backup: %w; restore from another backup (the store was not changed)", src, err)
		}
	}
	if err := s.forgetAgain(ctx, tombs); err != nil {
		return fmt.Errorf("forgetting in the copy of %s what was forgotten in the store: %w (the store was not changed)", src, err)
	}
	if err := s.requeueAll(ctx, "fts_queue"); err != nil {
		return fmt.Errorf("preparing the copy of %s: %w (the store was not changed)", src, err)
	}
	return nil
}

// journalDelete leaves the database at path in rollback-journal mode: its
// WAL written back into it and deleted, so the file alone is all of it.
func journalDelete(ctx context.Context, path string) error {
	conn, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_pragma=busy_timeout(1000)")
	if err != nil {
		return err
	}
	var mode string
	err = conn.QueryRowContext(ctx, "PRAGMA journal_mode=DELETE").Scan(&mode)
	if cerr := conn.Close(); err == nil {
		err = cerr
	}
	return err
}

// tombstoneRow is a row of the tombstones table.
type tombstoneRow struct{ kind, key string }

// readTombstones reads what `cairn forget` removed from the store at db
// (none before schema 8).
func readTombstones(ctx context.Context, db string) ([]tombstoneRow, error) {
	conn, err := sql.Open("sqlite", dsn(db, time.Second, true, true)+"&mode=ro")
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'tombstones'`).Scan(&n); err != nil || n == 0 {
		return nil, err
	}
	rows, err := conn.QueryContext(ctx, `SELECT kind, key FROM tombstones`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tombstoneRow
	for rows.Next() {
		var t tombstoneRow
		if err := rows.Scan(&t.kind, &t.key); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// forgetAgain records tombs in the store and forgets their projects and
// sessions in it (a restored backup older than a forget).
func (s *Store) forgetAgain(ctx context.Context, tombs []tombstoneRow) error {
	if len(tombs) == 0 {
		return nil
	}
	var targets []ForgetTarget
	for _, t := range tombs {
		switch t.kind {
		case TombPath:
			targets = append(targets, ForgetTarget{Project: t.key})
		case TombSession:
			targets = append(targets, ForgetTarget{Session: t.key})
		}
	}
	now := time.Now().UnixMilli()
	if err := s.writeTx(ctx, func(tx *sql.Tx) error {
		for _, t := range tombs {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO tombstones(kind, key, created) VALUES (?, ?, ?)`, t.kind, t.key, now); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if _, err := s.forgetAll(ctx, targets); err != nil {
		return err
	}
	return s.FinishForget(ctx) // the restore rebuilds the derived indexes
}

// makeAside makes the folder the previous store is kept in, named by now
// (a second restore in the same second gets a suffix).
func makeAside(dataDir string, now time.Time) (string, error) {
	base := filepath.Join(dataDir, asidePrefix+now.UTC().Format("20060102T150405Z"))
	for i := 1; ; i++ {
		p := base
		if i > 1 {
			p = fmt.Sprintf("%s-%d", base, i)
		}
		err := os.Mkdir(p, 0o700)
		if err == nil || !errors.Is(err, os.ErrExist) || i > 100 {
			return p, err
		}
	}
}

// removeStaging deletes the preparation folders interrupted restores left:
// they hold only a copy of a backup file.
func removeStaging(dataDir string) {
	m, _ := filepath.Glob(filepath.Join(dataDir, stagingPrefix+"*"))
	for _, p := range m {
		_ = os.RemoveAll(p)
	}
}

func anyExists(dir string, names []string) bool {
	for _, n := range names {
		if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
			return true
		}
	}
	return false
}

// linkOrCopy makes dst the same file as src (a hard link), or a synced
// copy where links are not possible.
func linkOrCopy(src, dst string) error {
	if _, err := os.Stat(src); err != nil {
		return err
	}
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	return copyFile(src, dst)
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}

// AsideStores are the databases interrupted or finished restores left in
// dataDir: the previous stores kept aside and backups being prepared,
// newest first.
func AsideStores(dataDir string) []string {
	var out []string
	for _, pat := range []string{asidePrefix + "*", stagingPrefix + "*"} {
		m, _ := filepath.Glob(filepath.Join(dataDir, pat, DBName))
		out = append(out, m...)
	}
	// An earlier cairn copied the backup to this name before renaming it.
	if _, err := os.Stat(filepath.Join(dataDir, DBName+".restoring")); err == nil {
		out = append(out, filepath.Join(dataDir, DBName+".restoring"))
	}
	sort.Sort(sort.Reverse(sort.StringSlice(out)))
	return out
}

// missingStoreError is Open's answer when dataDir has no cairn.db but a
// restore left a store beside it: an empty store would hide it.
func missingStoreError(dataDir string) error {
	aside := AsideStores(dataDir)
	if len(aside) == 0 {
		return nil
	}
	db := filepath.Join(dataDir, DBName)
	return fmt.Errorf("%s is missing, but a restore left a store beside it (%s); cairn did not create an empty one, which would hide it. "+
		"Put it back with `cp -a %s %s` (then `cairn index --rebuild`), or restore a backup with `cairn restore FILE`; "+
		"to start an empty store instead, move %s out of %s first",
		db, strings.Join(aside, ", "), aside[0], db, filepath.Dir(aside[0]), dataDir)
}

// StoreCounts reads how many sessions and memories the database at path
// holds, opening it read-only (doctor compares stores kept aside with the
// one in use).
func StoreCounts(ctx context.Context, path string) (sessions, memories int, err error) {
	db, err := sql.Open("sqlite", dsn(path, time.Second, true, true)+"&mode=ro")
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sessions").Scan(&sessions); err != nil {
		return 0, 0, err
	}
	err = db.QueryRowContext(ctx, "SELECT count(*) FROM memories").Scan(&memories)
	return sessions, memories, err
}

// checkReplaceable refuses to replace a store that another process has
// open (leaving WAL mode needs every other connection closed) or that
// holds data, unless force.
func checkReplaceable(ctx context.Context, db string, force bool) error {
	conn, err := sql.Open("sqlite", "file:"+(&url.URL{Path: db}).EscapedPath()+"?_pragma=busy_timeout(200)")
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	var sessions, mems int
	_ = conn.QueryRowContext(ctx, "SELECT count(*) FROM sessions").Scan(&sessions)
	_ = conn.QueryRowContext(ctx, "SELECT count(*) FROM memories").Scan(&mems)
	if (sessions > 0 || mems > 0) && !force {
		return fmt.Errorf("the store in %s is not empty (%d sessions, %d memories): pass --force to replace it (it is kept aside, not deleted), or `cairn backup` it first", filepath.Dir(db), sessions, mems)
	}
	var mode string
	if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode=DELETE").Scan(&mode); err != nil {
		if strings.Contains(err.Error(), "locked") || strings.Contains(err.Error(), "busy") {
			return fmt.Errorf("%w (the TUI, `cairn mcp` or an index run): close it and run restore again", ErrStoreInUse)
		}
		return fmt.Errorf("checking %s: %w", db, err)
	}
	return nil
}

// lockStore takes the store's exclusive lock (in rollback-journal mode,
// so no process writes a log beside it) until release: from the moment the
// store is kept aside until the backup is in its place, no other process
// reads or writes it (a hook waits, fails open and logs it).
func lockStore(ctx context.Context, db string) (release func(), err error) {
	pool, err := sql.Open("sqlite", "file:"+(&url.URL{Path: db}).EscapedPath()+"?_pragma=busy_timeout(500)")
	if err != nil {
		return nil, err
	}
	conn, err := pool.Conn(ctx)
	if err == nil {
		var mode string
		if err = conn.QueryRowContext(ctx, "PRAGMA journal_mode=DELETE").Scan(&mode); err == nil {
			_, err = conn.ExecContext(ctx, "BEGIN EXCLUSIVE")
		}
		if err != nil {
			conn.Close()
		}
	}
	if err != nil {
		pool.Close()
		if strings.Contains(err.Error(), "locked") || strings.Contains(err.Error(), "busy") {
			return nil, fmt.Errorf("%w (the TUI, `cairn mcp` or an index run): close it and run restore again (the store was not changed)", ErrStoreInUse)
		}
		return nil, fmt.Errorf("locking %s: %w (the store was not changed)", db, err)
	}
	return func() {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		conn.Close()
		pool.Close()
	}, nil
}

func sameFile(a, b string) (bool, error) {
	fa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(fa, fb), nil
}

func copyFile(src, dst string) error { return syncfile.Copy(src, dst) }
