//go:build linux

package fts

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/diskspace"
	"github.com/cairn-dev/cairn/internal/testutil"
)

// A real full disk: a small tmpfs, half the sample indexed with room
// (once, copied onto each trial's tmpfs), the
// rest of the filesystem filled but for a few kilobytes to megabytes, then
// the other half indexed and searched, then a search alone — each in a
// child process with a deadline. A panic in any of bleve's goroutines
// (they are out of reach of guard) kills the child with a stack trace; a
// persister retrying a write forever runs into the deadline. Needs root to
// mount; CAIRN_FULLDISK_TRIALS sets the count (the closing notes quote 100).
// What is checked is each child's answer, not an interleaving: the test
// runs in the package's binary without the race detector (withoutRace.RanAlone;
// bleve's concurrent writes and merges keep their tests under it).

const tmpfsChildEnv = "CAIRN_FTS_TMPFS_CHILD"

func TestTmpfsFullDiskTrials(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	if withoutRace.RanAlone(t) {
		return
	}
	trials := 6
	if testing.Short() {
		trials = 2
	}
	if v, err := strconv.Atoi(os.Getenv("CAIRN_FULLDISK_TRIALS")); err == nil && v > 0 {
		trials = v
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	mnt := t.TempDir()
	if out, err := exec.CommandContext(t.Context(), "mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	_ = exec.CommandContext(t.Context(), "umount", mnt).Run()
	// The first half is indexed once, with room to spare, and copied onto
	// each trial's fresh tmpfs: the same files every trial prepared for
	// itself (six child runs of half the sample under the race detector).
	// Its deadline is generous: it is the setup, not what is tested.
	prepared := filepath.Join(t.TempDir(), "bleve")
	if r := runTmpfsChild(t, exe, prepared, "first", 5*time.Minute); !strings.HasPrefix(r.out, "ok") {
		t.Fatalf("preparing the index with room to spare: %s", r.out)
	}
	var full, clean, panics, hangs int
	for i := range trials {
		// Free space left when the second half starts: 0 to ~6 MB, spread
		// so trials land before, inside and after bleve's writes.
		left := int64(i) * (6 << 20) / int64(max(trials-1, 1))
		if kb, err := strconv.Atoi(os.Getenv("CAIRN_FULLDISK_LEFT_KB")); err == nil {
			left = int64(kb) << 10 // one free-space level, to study a failure
		}
		res := tmpfsTrial(t, exe, mnt, prepared, left)
		for _, r := range res {
			switch {
			case r.hung:
				hangs++
				t.Errorf("trial %d (%d KB free), %s: no answer in %s:\n%.600s", i, left>>10, r.step, r.limit, r.out)
			case strings.Contains(r.out, "goroutine ") || strings.Contains(r.out, "panic"):
				panics++
				t.Errorf("trial %d (%d KB free), %s: crashed:\n%.1500s", i, left>>10, r.step, r.out)
			case strings.HasPrefix(r.out, "ok"):
				clean++
			case strings.HasPrefix(r.out, "full:") && strings.Contains(r.out, "free space in ") && strings.Contains(r.out, "nothing was lost"):
				full++
			default:
				t.Errorf("trial %d (%d KB free), %s: want ok or a clean full-disk error, got:\n%.600s", i, left>>10, r.step, r.out)
			}
		}
	}
	if full == 0 {
		t.Errorf("no step met the full disk: the test no longer simulates one")
	}
	t.Logf("%d trials (index+search, then search): %d steps ok, %d clean full-disk errors, %d panics, %d hangs", trials, clean, full, panics, hangs)
}

type trialStep struct {
	step, out string
	limit     time.Duration
	hung      bool
}

// tmpfsTrial mounts a fresh tmpfs at mnt, copies the prepared index (half
// the sample) onto it, leaves `left` bytes free and runs the two steps.
func tmpfsTrial(t *testing.T, exe, mnt, prepared string, left int64) []trialStep {
	t.Helper()
	if out, err := exec.CommandContext(t.Context(), "mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Fatalf("mount: %v %s", err, out)
	}
	defer func() {
		if out, err := exec.CommandContext(t.Context(), "umount", "-l", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount: %v %s", err, out)
		}
	}()
	dir := filepath.Join(mnt, "bleve")
	if err := testutil.CopyDir(prepared, dir); err != nil {
		t.Fatalf("copying the prepared index: %v", err)
	}
	fill(t, mnt, left)
	return []trialStep{
		runTmpfsChild(t, exe, dir, "second", 2*time.Minute),
		runTmpfsChild(t, exe, dir, "search", 30*time.Second),
	}
}

// fill writes a file that leaves about left bytes free in mnt.
func fill(t *testing.T, mnt string, left int64) {
	t.Helper()
	free, ok := diskspace.Free(mnt)
	if !ok {
		t.Fatal("cannot tell the free space of the tmpfs")
	}
	n := int64(free) - left
	if n <= 0 {
		return
	}
	f, err := os.Create(filepath.Join(mnt, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for n > 0 {
		w := min(n, int64(len(buf)))
		if _, err := f.Write(buf[:w]); err != nil {
			break // the tmpfs is full: as full as it gets
		}
		n -= w
	}
}

func runTmpfsChild(t *testing.T, exe, dir, step string, limit time.Duration) trialStep {
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), tmpfsChildEnv+"="+step, helperDir+"="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// At the deadline: SIGQUIT first, so a hung child prints where every
	// goroutine waits, then SIGKILL.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGQUIT) }
	cmd.WaitDelay = 5 * time.Second
	// The child's answer is its last line on stdout; bleve logs to
	// stderr, where a panic's stack trace goes too.
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	if ctx.Err() != nil {
		if f := os.Getenv("CAIRN_FULLDISK_DUMP"); f != "" {
			_ = os.WriteFile(f, []byte(stdout.String()+stderr.String()), 0o600)
		}
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	out := lines[len(lines)-1]
	if e := stderr.String(); strings.Contains(e, "panic") || strings.Contains(e, "goroutine ") {
		out += "\n" + e
	}
	return trialStep{step: step, out: out, limit: limit, hung: errors.Is(ctx.Err(), context.DeadlineExceeded)}
}

// tmpfsChild is the child process of TestTmpfsFullDiskTrials: it indexes
// half the sample ("first", "second") then searches, or only searches,
// and prints "ok", "full: <error>" or "error: <error>".
func tmpfsChild() bool {
	step := os.Getenv(tmpfsChildEnv)
	if step == "" {
		return false
	}
	dir := os.Getenv(helperDir)
	ix, err := Open(dir, 5*time.Second)
	if err == nil {
		docs := sampleDocs(nil)
		half := len(docs) / 2
		switch step {
		case "first":
			docs = docs[:half]
		case "second":
			docs = docs[half:]
		default:
			docs = nil
		}
		// Small calls, many segments: the background merger has work,
		// as after weeks of hooks indexing a few turns at a time.
		for i := 0; i < len(docs) && err == nil; i += 40 {
			err = ix.Index(docs[i:min(i+40, len(docs))])
		}
		if err == nil {
			_, _, err = ix.Search("session", Filter{}, 10)
		}
		err = errors.Join(err, ix.Close())
	}
	switch {
	case err == nil:
		fmt.Println("ok")
	case diskspace.IsFull(err):
		fmt.Println("full:", err)
	default:
		fmt.Println("error:", err)
	}
	os.Exit(0)
	return true
}
