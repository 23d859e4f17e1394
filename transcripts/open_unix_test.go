//go:build unix

package transcripts

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Opening a FIFO for reading blocks until a writer comes: ReadFile and
// Discover must refuse it at once.
func TestFIFOIsRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "projects", "-w")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(proj, "11111111-aaaa.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := ReadFile(fifo, Cursor{}, func(*Entry) error { return nil })
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("ReadFile of a FIFO: %v, want ErrNotRegular", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadFile blocks on a FIFO")
	}
	tree, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Files()) != 0 || len(tree.Problems) != 1 || !errors.Is(tree.Problems[0], ErrNotRegular) {
		t.Fatalf("Discover: files %v, problems %v", tree.Files(), tree.Problems)
	}
	if _, err := ReadSmallFile(fifo, 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("ReadSmallFile of a FIFO: %v", err)
	}
}
