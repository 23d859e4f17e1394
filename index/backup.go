package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

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
	tmp := dest + ".partial"
	_ = os.Remove(tmp)
	defer os.Remove(tmp)
	// A connection of its own: the store's readers are query_only, which
	// VACUUM INTO refuses, and its writer must stay free for writes.
	conn, err := sql.Open("sqlite", "file:"+(&url.URL{Path: s.path}).EscapedPath()+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return BackupInfo{}, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "VACUUM INTO ?", tmp); err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return BackupInfo{}, err
		}
		return BackupInfo{}, fmt.Errorf("writing the backup to %s: %w (nothing was changed in the store; check the free space and permissions there)", filepath.Dir(dest), err)
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
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
	db, err := sql.Open("sqlite", dsn(path, time.Second, true, true)+"&mode=ro")
	if err != nil {
		return info, err
	}
	defer db.Close()
	notBackup := func(err error) error {
		return fmt.Errorf("%s is not a readable cairn backup: %w", path, err)
	}
	var check string
	if err := db.QueryRowContext(ctx, "PRAGMA integrity_check(1)").Scan(&check); err != nil {
		return info, notBackup(err)
	}
	if check != "ok" {
		return info, notBackup(fmt.Errorf("integrity_check: %s", check))
	}
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&info.Schema); err != nil {
		return info, notBackup(err)
	}
	if info.Schema > len(migrations) {
		return info, fmt.Errorf("%s: %w (schema %d, this cairn reads up to %d): upgrade cairn", path, ErrNewerSchema, info.Schema, len(migrations))
	}
	if info.Schema < 2 {
		return info, notBackup(errors.New("it has no cairn tables"))
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
			return info, notBackup(err)
		}
	}
	return info, nil
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
	// Aside is the folder the previous store was moved to ('' when there
	// was none).
	Aside string `json:"aside,omitempty"`
}

// derivedNames are the files and folders in a data dir that are rebuilt
// from the database; a restore moves them aside with it.
var derivedNames = []string{"bleve", "vectors.bin", "vectors.bin.lock", "model.bin"}

// Restore replaces the store in dataDir with the backup at src. It checks
// the backup first, refuses while another process has the store open, and
// refuses to replace a store holding sessions or memories without Force.
// The previous database and its derived files are moved (never deleted) to
// dataDir/before-restore-<time>. The derived files are not rebuilt here:
// open the store and run the indexing pipeline with Rebuild.
func Restore(ctx context.Context, dataDir, src string, o RestoreOptions) (RestoreResult, error) {
	var res RestoreResult
	info, err := VerifyBackup(ctx, src)
	if err != nil {
		return res, err
	}
	res.Backup = info
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return res, fmt.Errorf("creating data dir %s: %w", dataDir, err)
	}
	db := filepath.Join(dataDir, DBName)
	if same, _ := sameFile(src, db); same {
		return res, fmt.Errorf("%s is the store itself: restore from a backup file", src)
	}
	if _, err := os.Stat(db); err == nil {
		if err := checkReplaceable(ctx, db, o.Force); err != nil {
			return res, err
		}
		if o.Now.IsZero() {
			o.Now = time.Now()
		}
		aside := filepath.Join(dataDir, "before-restore-"+o.Now.UTC().Format("20060102T150405Z"))
		if err := os.Mkdir(aside, 0o700); err != nil {
			return res, fmt.Errorf("keeping the current store aside: %w", err)
		}
		names := append([]string{DBName, DBName + "-wal", DBName + "-shm"}, derivedNames...)
		for _, n := range names {
			if err := os.Rename(filepath.Join(dataDir, n), filepath.Join(aside, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return res, fmt.Errorf("moving %s aside to %s: %w (move back what was moved before using cairn)", n, aside, err)
			}
		}
		res.Aside = aside
	}
	tmp := db + ".restoring"
	if err := copyFile(src, tmp); err != nil {
		os.Remove(tmp)
		return res, fmt.Errorf("copying %s into %s: %w", src, dataDir, err)
	}
	if err := os.Rename(tmp, db); err != nil {
		os.Remove(tmp)
		return res, err
	}
	return res, nil
}

// checkReplaceable refuses to replace a store that another process has
// open (leaving WAL mode needs every other connection closed) or that
// holds data, unless force.
func checkReplaceable(ctx context.Context, db string, force bool) error {
	conn, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(200)")
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

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
