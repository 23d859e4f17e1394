//go:build unix

package remote

import (
	"bufio"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// lockSpawnEnv makes TestLockFreeAfterKillMidSpawn's binary the sync it
// kills: it takes the sync lock of the data dir the variable names, says
// "locked" and runs git children until it is killed.
const lockSpawnEnv = "CAIRN_TEST_LOCKSPAWN_DIR"

// TestLockFreeAfterKillMidSpawn: a sync killed (kill -9) while it starts
// a git child leaves that child, for the moment between fork and exec, a
// copy of every descriptor, the sync lock's too: the lock outlives the
// killed sync by that moment (the kill test's "sync lock is still held
// after the kill", with no process left holding the file when it looked).
// A sync started right after the kill must still get the lock.
func TestLockFreeAfterKillMidSpawn(t *testing.T) {
	if dir := os.Getenv(lockSpawnEnv); dir != "" {
		lockSpawnHelper(dir)
		return
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	trials := 150
	if testing.Short() {
		trials = 30
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
	var held int
	for i := range trials {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestLockFreeAfterKillMidSpawn$")
		cmd.Env = append(os.Environ(), lockSpawnEnv+"="+dir)
		// The write end as the child's own stdout: Wait does not wait for
		// every copy of it to close, so the check below runs as soon as
		// the sync is dead, as a user's next command may.
		cmd.Stdout = pw
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pw.Close()
		line, _ := bufio.NewReader(pr).ReadString('\n')
		pr.Close()
		if strings.TrimSpace(line) != "locked" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("trial %d: the helper said %q", i, line)
		}
		time.Sleep(time.Duration(rng.Int64N(int64(20 * time.Millisecond))))
		syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		probe := flock.New(lockPath(dir))
		if free, _ := probe.TryLock(); !free {
			held++ // a git child not yet exec'd holds it: lockSync waits for that
		}
		probe.Unlock()
		unlock, err := lockSync(dir)
		if err != nil {
			t.Logf("processes holding %s: %s", lockPath(dir), ProcHolders(lockPath(dir)))
			t.Fatalf("trial %d: a sync right after the kill: %v", i, err)
		}
		unlock()
	}
	t.Logf("%d trials: the lock was still held right after the kill in %d, and lockSync got it every time", trials, held)
}

// lockSpawnHelper is the killed sync: the lock, then git children (as
// Sync runs them) from a few goroutines, until killed.
func lockSpawnHelper(dir string) {
	if _, err := lockSync(dir); err != nil {
		os.Stdout.WriteString("lock: " + err.Error() + "\n")
		os.Exit(2)
	}
	os.Stdout.WriteString("locked\n")
	g := &git{dir: dir}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				g.run(context.Background(), "--version") //nolint:errcheck // only the spawning matters
			}
		})
	}
	wg.Wait()
}

// TestLockSyncWaitsForBriefHolder: a lock held a moment longer (the
// child above) is waited for; one held on is reported as another sync.
func TestLockSyncWaitsForBriefHolder(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "remote"), 0o700)
	other := flock.New(lockPath(dir))
	if ok, err := other.TryLock(); !ok || err != nil {
		t.Fatal(ok, err)
	}
	time.AfterFunc(150*time.Millisecond, func() { other.Unlock() })
	unlock, err := lockSync(dir)
	if err != nil {
		t.Fatalf("lockSync with a lock released 150ms later: %v", err)
	}
	unlock()

	if ok, err := other.TryLock(); !ok || err != nil {
		t.Fatal(ok, err)
	}
	defer other.Unlock()
	start := time.Now()
	if _, err := lockSync(dir); err == nil || !strings.Contains(err.Error(), "another `cairn remote sync` is running") {
		t.Fatalf("lockSync with the lock held: %v", err)
	}
	if d := time.Since(start); d > lockGrace+time.Second {
		t.Errorf("lockSync took %v to report a held lock (grace %v)", d, lockGrace)
	}
}

// ProcHolders names the processes with path open (Linux's /proc), for
// this package's tests and remote_test's (kill_test.go).
func ProcHolders(path string) string {
	var out []string
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range fds {
		if l, _ := os.Readlink(fd); l == path {
			pid := strings.Split(fd, "/")[2]
			cl, _ := os.ReadFile("/proc/" + pid + "/cmdline")
			out = append(out, pid+" "+strings.TrimSpace(strings.ReplaceAll(string(cl), "\x00", " ")))
		}
	}
	if out == nil {
		return "no process named (none has the file open now)"
	}
	return strings.Join(out, "; ")
}
