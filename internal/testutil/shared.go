package testutil

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// SharedDir is a package's folder for what its tests share (the non-race
// binary, stores built once), made on first use under the system's
// temporary folder; the package's TestMain calls Remove after m.Run.
type SharedDir struct {
	Prefix string // of the folder's name: "cairn-app-test-"

	once sync.Once
	dir  string
	err  error
}

// Path is name's path under the shared folder.
func (s *SharedDir) Path(t testing.TB, name string) string {
	t.Helper()
	s.once.Do(func() { s.dir, s.err = os.MkdirTemp("", s.Prefix) })
	if s.err != nil {
		t.Fatal(s.err)
	}
	return filepath.Join(s.dir, name)
}

// Remove removes the shared folder, if it was made.
func (s *SharedDir) Remove() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}
