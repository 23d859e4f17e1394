package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/cairn-dev/cairn/index/ftsapi"
)

// What a killed command leaves behind is cleaned by the next one that
// opens the store: a backup's temporary copy of the whole store (written
// beside its destination, anywhere, so the data dir keeps a note of where
// while it is written) and a rebuild's half-built full-text index. A
// leftover is only taken for one when the process that made it is gone.

// inProgressDir holds one note per temporary file a running command is
// writing outside the data dir: <pid>-<n>, holding the file's path.
const inProgressDir = ".in-progress"

// partialSuffix ends every temporary backup file's name.
const partialSuffix = ".partial"

var inProgressSeq atomic.Int64

// noteInProgress records that this process writes the temporary file
// path; the returned func forgets it (call it once the file is renamed
// into place or removed).
func noteInProgress(dataDir, path string) (func(), error) {
	dir := filepath.Join(dataDir, inProgressDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	note := filepath.Join(dir, fmt.Sprintf("%d-%d", os.Getpid(), inProgressSeq.Add(1)))
	if err := os.WriteFile(note, []byte(path), 0o600); err != nil {
		return nil, err
	}
	return func() { _ = os.Remove(note) }, nil
}

// removeLeftovers deletes the temporary backup files of processes that
// are gone, and their notes.
func removeLeftovers(dataDir string) {
	dir := filepath.Join(dataDir, inProgressDir)
	notes, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, n := range notes {
		pid, _, ok := strings.Cut(n.Name(), "-")
		if !ok || processAlive(pid) {
			continue
		}
		note := filepath.Join(dir, n.Name())
		b, err := os.ReadFile(note)
		if err != nil {
			continue
		}
		if p := string(b); backupPartial(p) {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				continue
			}
		}
		_ = os.Remove(note)
	}
}

// backupPartial reports whether p is named as Backup names its temporary
// files: only those are ever removed.
func backupPartial(p string) bool {
	return filepath.IsAbs(p) && strings.HasSuffix(p, partialSuffix) && strings.HasPrefix(filepath.Base(p), ".")
}

// processAlive reports whether the process of a pid (decimal) may still
// run: true when it cannot be told.
func processAlive(pid string) bool {
	n, err := strconv.Atoi(pid)
	if err != nil || n <= 0 {
		return true
	}
	if n == os.Getpid() {
		return true
	}
	return pidAlive(n)
}

// rebuildOwnerGone reports whether the rebuild folder at p was made by a
// process that is gone (its name is rebuildingPrefix<pid>-<ns>).
func rebuildOwnerGone(p string) bool {
	rest := strings.TrimPrefix(filepath.Base(p), rebuildingPrefix)
	pid, _, ok := strings.Cut(rest, "-")
	return ok && !processAlive(pid)
}

// removeKilledRebuilds deletes the half-built full-text indexes of
// rebuilds whose process is gone and that nobody holds open; run by every
// open of the store.
func removeKilledRebuilds(dataDir string) {
	m, _ := filepath.Glob(filepath.Join(dataDir, rebuildingPrefix+"*"))
	for _, p := range m {
		if !rebuildOwnerGone(p) {
			continue
		}
		ix, err := ftsapi.Open(p, 0)
		if errors.Is(err, ftsapi.ErrLocked) {
			continue
		}
		if err == nil {
			ix.Close()
		}
		_ = os.RemoveAll(p)
	}
}
