//go:build unix

package index

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Environment of the restore child process.
const (
	envRestoreChild = "CAIRN_RESTORE_TEST_CHILD"
	envRestoreStep  = "CAIRN_RESTORE_TEST_STEP"
)

// TestRestoreChild is not a test: it is the child process of the kill
// tests, restoring envData's store from envClaude (the backup file) and
// killing itself after the step envRestoreStep, if set.
func TestRestoreChild(t *testing.T) {
	if os.Getenv(envRestoreChild) == "" {
		t.Skip("child process only")
	}
	if step := os.Getenv(envRestoreStep); step != "" {
		restoreStep = func(s string) error {
			if s == step {
				_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
				time.Sleep(time.Minute)
			}
			return nil
		}
	}
	if _, err := Restore(context.Background(), os.Getenv(envData), os.Getenv(envClaude), RestoreOptions{Force: true}); err != nil {
		fmt.Fprintln(os.Stderr, "restore:", err)
		os.Exit(3)
	}
}

func restoreChild(t *testing.T, f *restoreFixture, step string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(context.Background(), withoutRace.Child(t), "-test.run=^TestRestoreChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envRestoreChild+"=1", envData+"="+f.data, envClaude+"="+f.backup, envRestoreStep+"="+step)
	return cmd
}

// Restore killed with SIGKILL after each step, then at moments spread
// over a whole restore's time (one in each equal slice of it: drawn at
// random over the whole time, six kills all fell before the swap and left
// the old store, under the race detector): the data dir always holds the
// old or the new store, whole and searchable. The spread trials are many
// more with CAIRN_RESTORE_KILLS.
func TestRestoreKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	for _, step := range []string{"copied", "prepared", "kept", "derived", "swapped"} {
		f := newRestoreFixture(t)
		err := restoreChild(t, f, step).Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("killed after %s: %v", step, err)
		}
		checkWhole(t, f, "killed after "+step)
	}
	trials := 6
	if n, err := strconv.Atoi(os.Getenv("CAIRN_RESTORE_KILLS")); err == nil {
		trials = n
	}
	// How long a whole restore takes here (the child's start included):
	// the kills fall anywhere in it.
	f := newRestoreFixture(t)
	start := time.Now()
	if out, err := restoreChild(t, f, "").CombinedOutput(); err != nil {
		t.Fatalf("restore child: %v\n%s", err, out)
	}
	whole := time.Since(start)
	checkWhole(t, f, "a whole restore")
	r := rand.New(rand.NewPCG(29, 1))
	f = newRestoreFixture(t)
	seen := map[string]int{}
	for i := range trials {
		cmd := restoreChild(t, f, "")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(killTime(r, whole, i, trials))
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		which := checkWhole(t, f, fmt.Sprintf("random kill %d", i))
		seen[which]++
		if which == "new" {
			// Back to the old store for the next trial: restore the old
			// one kept aside.
			f = newRestoreFixture(t)
		}
	}
	t.Logf("a restore takes %v; after %d kills: %v", whole, trials, seen)
}
