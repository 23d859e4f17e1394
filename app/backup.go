package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/index"
)

// BackupName is the file name of a backup made at t.
func BackupName(t time.Time) string { return index.BackupName(t) }

// Backup writes a verified snapshot of the whole store to dest (a file
// name; ” picks BackupName in the current folder).
func (a *App) Backup(ctx context.Context, dest string) (index.BackupInfo, error) {
	if dest == "" {
		dest = freeName(BackupName(time.Now()))
	}
	return a.Store.Backup(ctx, dest)
}

// freeName is name, or name with -2, -3… before its extension when a file
// of that name exists: two backups in one second get two files.
func freeName(name string) string {
	ext := filepath.Ext(name)
	base := strings.TrimSuffix(name, ext)
	for i := 1; i < 1000; i++ {
		p := name
		if i > 1 {
			p = fmt.Sprintf("%s-%d%s", base, i, ext)
		}
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			return p
		}
	}
	return name
}

// RestoreResult says what Restore did.
type RestoreResult struct {
	index.RestoreResult
	// Rebuilt is what rebuilding the derived indexes did.
	Rebuilt IndexResult `json:"-"`
}

// Restore replaces the store in the data dir with a backup file, keeps the
// old one aside (index.Restore: at no moment is the data dir without a
// whole store), then opens the restored store and rebuilds the full-text
// index and the vectors through the pipeline.
func Restore(ctx context.Context, flags Paths, src string, force bool, progress func(Progress)) (RestoreResult, error) {
	var res RestoreResult
	paths, err := ResolvePaths(flags)
	if err != nil {
		return res, err
	}
	cfg, err := LoadConfig(paths.DataDir)
	if err != nil {
		return res, err
	}
	res.RestoreResult, err = index.Restore(ctx, paths.DataDir, src, index.RestoreOptions{Force: force})
	if err != nil {
		return res, err
	}
	kept := ""
	if res.Aside != "" {
		kept = fmt.Sprintf("; the previous store is kept in %s", res.Aside)
	}
	a, err := OpenWith(paths, cfg, Options{})
	if err != nil {
		return res, fmt.Errorf("the backup %s is in place in %s%s, but opening it failed: %w", src, paths.DataDir, kept, err)
	}
	defer a.Close()
	res.Rebuilt, err = a.Index(ctx, IndexOptions{Profile: Bulk, Rebuild: true, NoSync: true, Progress: progress})
	if err != nil {
		return res, fmt.Errorf("the backup %s is in place in %s%s, but rebuilding its search indexes failed: %w (run `cairn index --rebuild`; until then text search rebuilds its index as it goes)", src, paths.DataDir, kept, err)
	}
	return res, nil
}

// backupEvery is how often the rolling backup runs.
const backupEvery = 24 * time.Hour

// RollingBackup makes the automatic backup when backup.keep > 0 and the
// newest one is a day old, then deletes the oldest beyond keep. It returns
// the new backup's path (” when none was due).
func (a *App) RollingBackup(ctx context.Context, now time.Time) (string, error) {
	keep := a.Config.Backup.Keep
	if keep <= 0 {
		return "", nil
	}
	dir := a.Config.Backup.Folder(a.Paths.DataDir)
	old := index.BackupFiles(dir)
	if len(old) > 0 {
		if fi, err := os.Stat(old[len(old)-1]); err == nil && now.Sub(fi.ModTime()) < backupEvery {
			return "", nil
		}
	}
	info, err := a.Store.Backup(ctx, filepath.Join(dir, BackupName(now)))
	if err != nil {
		return "", err
	}
	all := index.BackupFiles(dir)
	for len(all) > keep {
		if err := os.Remove(all[0]); err != nil {
			return info.Path, err
		}
		all = all[1:]
	}
	return info.Path, nil
}
