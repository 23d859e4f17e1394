//go:build unix

package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// envBackupChild marks the backup child process; envClaude is the file it
// writes the backup to.
const envBackupChild = "CAIRN_BACKUP_TEST_CHILD"

// TestBackupChild is not a test: it is the child process of
// TestBackupKilled, backing up envData's store to envClaude.
func TestBackupChild(t *testing.T) {
	if os.Getenv(envBackupChild) == "" {
		t.Skip("child process only")
	}
	s, err := Open(os.Getenv(envData))
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(3)
	}
	if _, err := s.Backup(context.Background(), os.Getenv(envClaude)); err != nil {
		fmt.Fprintln(os.Stderr, "backup:", err)
		os.Exit(3)
	}
	s.Close()
}

// A backup killed with SIGKILL at moments spread over a whole backup's
// time (30 trials, 10 under the race detector, one in each equal slice of
// that time; more with CAIRN_BACKUP_KILLS) leaves either no backup or a whole one, and a
// temporary copy of the store, if any, that only its owner can read and
// that the next command opening the store removes.
func TestBackupKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	data := filepath.Join(t.TempDir(), "data")
	s, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	mustSync(t, s, copyTree(t, sampleDir), SyncOptions{})
	s.Close()
	out := t.TempDir()
	child := func(dest string) *exec.Cmd {
		cmd := exec.CommandContext(context.Background(), withoutRace.Child(t), "-test.run=^TestBackupChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), envBackupChild+"=1", envData+"="+data, envClaude+"="+dest)
		return cmd
	}
	start := time.Now()
	if b, err := child(filepath.Join(out, "whole.db")).CombinedOutput(); err != nil {
		t.Fatalf("backup child: %v\n%s", err, b)
	}
	whole := time.Since(start)
	trials := 30
	if raceEnabled {
		trials = 10
	}
	if n, err := strconv.Atoi(os.Getenv("CAIRN_BACKUP_KILLS")); err == nil {
		trials = n
	}
	r := rand.New(rand.NewPCG(29, 8))
	seen := map[string]int{}
	for i := range trials {
		dest := filepath.Join(out, fmt.Sprintf("b%02d.db", i))
		cmd := child(dest)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(killTime(r, whole, i, trials))
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		left, _ := filepath.Glob(filepath.Join(out, "*"+partialSuffix))
		for _, p := range left {
			if fi, err := os.Stat(p); err == nil && fi.Mode().Perm() != 0o600 {
				t.Fatalf("trial %d: %s is mode %v", i, p, fi.Mode().Perm())
			}
		}
		switch _, err := os.Stat(dest); {
		case err == nil:
			if _, err := VerifyBackup(context.Background(), dest); err != nil {
				t.Fatalf("trial %d: a backup in place that does not verify: %v", i, err)
			}
			seen["whole backup"]++
		case len(left) > 0:
			seen["killed while writing"]++
		default:
			seen["killed before writing"]++
		}
		// The next command that opens the store cleans up.
		s, err := Open(data)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		if left, _ := filepath.Glob(filepath.Join(out, "*"+partialSuffix)); len(left) > 0 {
			t.Fatalf("trial %d: %v left after the next open", i, left)
		}
		if notes, _ := os.ReadDir(filepath.Join(data, inProgressDir)); len(notes) > 0 {
			t.Fatalf("trial %d: notes left: %v", i, notes)
		}
	}
	var parts []string
	for k, v := range seen {
		parts = append(parts, fmt.Sprintf("%s %d", k, v))
	}
	t.Logf("a backup takes %v; %d kills: %s", whole, trials, strings.Join(parts, ", "))
}

// killTime is when trial i of n kills a child whose whole run takes
// whole: a random moment in the i-th of n equal slices of it, so few
// trials still reach every part of the run.
func killTime(r *rand.Rand, whole time.Duration, i, n int) time.Duration {
	return time.Duration((float64(i) + r.Float64()) / float64(n) * float64(whole))
}
