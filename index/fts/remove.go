package fts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// Remove deletes the index in dir so it can be rebuilt from SQLite. It
// refuses (ErrLocked) while another process has the index open, and refuses
// any directory that does not look like an index, so a wrong path cannot
// wipe unrelated files. A missing dir is not an error.
func Remove(dir string) error {
	switch state, err := probe(dir); {
	case err != nil:
		return err
	case state == stateMissing:
		// Absent, or an empty directory: nothing of ours to delete.
		removeLeftovers(dir)
		return nil
	case state == stateForeign && !exists(filepath.Join(dir, rootBoltFile)):
		return fmt.Errorf("fts: %s does not look like a full-text index (no %s); not removing it", dir, metaFile)
	}

	// Hold the same flock scorch takes, so a process using the index is
	// not pulled from under it. If root.bolt is unreadable the lock could
	// not matter to anyone (nobody can open a damaged index), so go on.
	db, busy := lockRoot(filepath.Join(dir, rootBoltFile))
	if busy {
		return fmt.Errorf("%w (%s): close it before rebuilding", ErrLocked, dir)
	}
	if db != nil {
		defer db.Close()
	}

	// Rename first: the index disappears in one step, so no other process
	// ever opens a half-deleted index and reports it damaged.
	trash := fmt.Sprintf("%s.removing-%d", filepath.Clean(dir), time.Now().UnixNano())
	if err := os.Rename(dir, trash); err != nil {
		return fmt.Errorf("fts: removing index %s: %w", dir, err)
	}
	if err := os.RemoveAll(trash); err != nil {
		return fmt.Errorf("fts: removing old index files in %s: %w", trash, err)
	}
	removeLeftovers(dir)
	return nil
}

// Replace puts the closed index in built in the place of the index in dir
// (which may be missing or damaged) and deletes the old one. The old index
// is moved aside in one rename and the new one moved in with a second, so
// a reader sees the old index, no index (and creates none while built
// exists beside), or the new one; never a half-deleted one. It refuses
// (ErrLocked) while another process has dir's index open.
func Replace(dir, built string) error {
	if state, err := probe(built); err != nil || state != stateIndex {
		return fmt.Errorf("fts: %s is not a complete index; %s was left as it was", built, dir)
	}
	trash, db, err := moveAside(dir)
	if db != nil {
		defer db.Close() // the lock is held until the new index is in
	}
	if err != nil {
		return err
	}
	if err := moveIn(built, dir, trash); err != nil {
		return err
	}
	if err := removeTrash(trash); err != nil {
		return err
	}
	removeLeftovers(dir)
	return nil
}

// moveAside renames the index in dir to trash, holding its lock (db,
// for the caller to close, when root.bolt could be opened); trash is ""
// when dir held no index (an empty directory is removed).
func moveAside(dir string) (trash string, db *bolt.DB, err error) {
	switch state, err := probe(dir); {
	case err != nil:
		return "", nil, err
	case state == stateForeign && !exists(filepath.Join(dir, rootBoltFile)):
		return "", nil, fmt.Errorf("fts: %s does not look like a full-text index (no %s); not replacing it", dir, metaFile)
	case state == stateMissing:
		_ = os.Remove(dir) // an empty directory
		return "", nil, nil
	}
	db, busy := lockRoot(filepath.Join(dir, rootBoltFile))
	if busy {
		return "", nil, fmt.Errorf("%w (%s): close it and rebuild again", ErrLocked, dir)
	}
	trash = fmt.Sprintf("%s.removing-%d", filepath.Clean(dir), time.Now().UnixNano())
	if err := os.Rename(dir, trash); err != nil {
		return "", db, fmt.Errorf("fts: moving the old index %s aside: %w", dir, err)
	}
	return trash, db, nil
}

// moveIn renames built to dir; when it cannot, the old index goes back
// from trash.
func moveIn(built, dir, trash string) error {
	if err := os.Rename(built, dir); err != nil {
		if trash != "" {
			_ = os.Rename(trash, dir) // put the old one back
		}
		return fmt.Errorf("fts: moving the new index %s into place: %w", built, err)
	}
	return nil
}

// removeTrash deletes the old index moved aside ("" for none).
func removeTrash(trash string) error {
	if trash == "" {
		return nil
	}
	if err := os.RemoveAll(trash); err != nil {
		return fmt.Errorf("fts: removing the old index files in %s: %w", trash, err)
	}
	return nil
}

// removeLeftovers deletes temporary directories that crashed creations or
// removals of this index left beside it. Only old ones: a young one may
// belong to a process still at work.
func removeLeftovers(dir string) {
	clean := filepath.Clean(dir)
	parent, base := filepath.Split(clean)
	patterns := []string{
		filepath.Join(parent, "."+base+".creating-*"),
		clean + ".removing-*",
	}
	for _, pattern := range patterns {
		matches, _ := filepath.Glob(pattern)
		for _, m := range matches {
			if info, err := os.Stat(m); err == nil && info.IsDir() && time.Since(info.ModTime()) > time.Hour {
				_ = os.RemoveAll(m)
			}
		}
	}
}

// lockRoot takes root.bolt's lock (one attempt) if the file exists. It
// returns the open database, whose Close releases the lock, or busy if
// another process holds it; (nil, false) if the file is missing or
// unreadable.
func lockRoot(path string) (db *bolt.DB, busy bool) {
	if !exists(path) {
		return nil, false
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Nanosecond})
	if err != nil {
		return nil, errors.Is(err, bolterrors.ErrTimeout)
	}
	return db, false
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
