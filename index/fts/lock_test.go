package fts

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Subprocess helper: bbolt's flock is per open file description, so
// another process is the real test of the lock (within one process two
// opens also conflict, tested too). TestMain calls helperMain first.
const (
	helperEnv = "CAIRN_FTS_LOCK_HELPER" // "hold" or "try"
	helperDir = "CAIRN_FTS_LOCK_DIR"
)

// helperMain runs the subprocess side when the test binary is re-executed
// with helperEnv set, and reports whether it did.
//   - hold: open the index, print "ready", hold it until stdin closes.
//   - try:  open with a 30 ms wait, print "locked", "opened" or the error.
func helperMain() bool {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		return false
	}
	dir := os.Getenv(helperDir)
	switch mode {
	case "hold":
		ix, err := Open(dir, 5*time.Second)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("ready")
		io.Copy(io.Discard, os.Stdin)
		ix.Close()
	case "try":
		ix, err := Open(dir, 30*time.Millisecond)
		switch {
		case errors.Is(err, ErrLocked):
			fmt.Println("locked")
		case err != nil:
			fmt.Println("error:", err)
		default:
			fmt.Println("opened")
			ix.Close()
		}
	}
	os.Exit(0)
	return true
}

func helper(t *testing.T, mode, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, helperDir+"="+dir)
	return cmd
}

func newIndexDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "fts")
	ix, err := Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	return dir
}

// assertLockedWithin opens dir expecting ErrLocked after roughly wait.
func assertLockedWithin(t *testing.T, dir string, wait time.Duration) {
	t.Helper()
	start := time.Now()
	_, err := Open(dir, wait)
	el := time.Since(start)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("Open while held: %v, want ErrLocked", err)
	}
	// The upper bound catches waiting in bbolt's coarse 50 ms steps or
	// forever, with room for a loaded machine under the race detector.
	if el < wait || el > wait+time.Second {
		t.Errorf("ErrLocked after %v, want about %v", el, wait)
	}
}

func TestLockInProcess(t *testing.T) {
	dir := newIndexDir(t)
	ix, err := Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	assertLockedWithin(t, dir, 0)
	assertLockedWithin(t, dir, 30*time.Millisecond)
	if _, err := Open(dir, 0); err == nil || !strings.Contains(err.Error(), "in use by another process") {
		t.Errorf("lock error should say the index is in use: %v", err)
	}

	// A waiter gets the index as soon as the holder closes.
	go func() {
		time.Sleep(20 * time.Millisecond)
		ix.Close()
	}()
	ix2, err := Open(dir, 2*time.Second)
	if err != nil {
		t.Fatalf("Open after the holder closed: %v", err)
	}
	ix2.Close()
}

func TestLockAcrossProcesses(t *testing.T) {
	dir := newIndexDir(t)

	// Another process holds it: we get ErrLocked in time.
	hold := helper(t, "hold", dir)
	stdin, _ := hold.StdinPipe()
	stdout, _ := hold.StdoutPipe()
	if err := hold.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "ready\n" {
		stdin.Close()
		hold.Wait()
		t.Fatalf("helper said %q", line)
	}
	assertLockedWithin(t, dir, 0)
	assertLockedWithin(t, dir, 30*time.Millisecond)
	stdin.Close() // helper closes the index and exits
	if err := hold.Wait(); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(dir, time.Second)
	if err != nil {
		t.Fatalf("Open after the other process exited: %v", err)
	}

	// We hold it: another process gets ErrLocked.
	out, err := helper(t, "try", dir).Output()
	if err != nil || string(out) != "locked\n" {
		t.Errorf("other process while we hold the index: %q %v", out, err)
	}
	ix.Close()
	out, err = helper(t, "try", dir).Output()
	if err != nil || string(out) != "opened\n" {
		t.Errorf("other process after we closed: %q %v", out, err)
	}
}
