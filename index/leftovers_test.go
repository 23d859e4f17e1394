package index

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// deadPID is the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("no pid check on windows: the age rules apply")
	}
	c := exec.CommandContext(t.Context(), "true")
	if err := c.Run(); err != nil {
		t.Skip("no `true` to run:", err)
	}
	return c.Process.Pid
}

// A backup killed while writing leaves its temporary copy of the store
// (anywhere: beside its destination) and a note in the data dir; the next
// command that opens the store removes both. A backup still running
// (its process alive) keeps its file. A rebuild killed halfway leaves a
// half-built index: the next open of the store removes it at once, a
// rebuild of a live process keeps it.
func TestOpenRemovesKilledLeftovers(t *testing.T) {
	data, elsewhere := t.TempDir(), t.TempDir()
	s, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	dead := deadPID(t)
	killed := filepath.Join(elsewhere, fmt.Sprintf(".b.db.%d.partial", dead))
	running := filepath.Join(elsewhere, fmt.Sprintf(".c.db.%d.partial", os.Getpid()))
	notOurs := filepath.Join(elsewhere, "notes.txt")
	for _, p := range []string{killed, running, notOurs} {
		if err := os.WriteFile(p, []byte("a copy of the store"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	notes := filepath.Join(data, inProgressDir)
	if err := os.MkdirAll(notes, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(name, path string) {
		if err := os.WriteFile(filepath.Join(notes, name), []byte(path), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(fmt.Sprintf("%d-1", dead), killed)
	write(fmt.Sprintf("%d-2", dead), notOurs) // never a file Backup did not name
	write(fmt.Sprintf("%d-3", os.Getpid()), running)
	half := filepath.Join(data, fmt.Sprintf("%s%d-1", rebuildingPrefix, dead))
	live := filepath.Join(data, fmt.Sprintf("%s%d-2", rebuildingPrefix, os.Getpid()))
	for _, p := range []string{half, live} {
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}

	s, err = Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, p := range []string{killed, half, filepath.Join(notes, fmt.Sprintf("%d-1", dead))} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there after the next open: %v", p, err)
		}
	}
	for _, p := range []string{running, live, notOurs} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}

// A backup's temporary file is private from its first byte, and nothing
// of it is left once the backup is in place.
func TestBackupTemporaryFile(t *testing.T) {
	data, out := t.TempDir(), t.TempDir()
	s, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dest := filepath.Join(out, "b.db")
	info, err := s.Backup(t.Context(), dest)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(info.Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup %v %v", fi, err)
	}
	left, _ := filepath.Glob(filepath.Join(out, "*"+partialSuffix))
	notes, _ := os.ReadDir(filepath.Join(data, inProgressDir))
	if len(left) != 0 || len(notes) != 0 {
		t.Fatalf("left %v and notes %v", left, notes)
	}
}
