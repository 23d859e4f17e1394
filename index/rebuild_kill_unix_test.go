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
	"testing"
	"time"
)

const envRebuildChild = "CAIRN_REBUILD_TEST_CHILD"

// TestRebuildChild is not a test: it is the child process of
// TestRebuildKilled, rebuilding envData's full-text index.
func TestRebuildChild(t *testing.T) {
	if os.Getenv(envRebuildChild) == "" {
		t.Skip("child process only")
	}
	s, err := Open(os.Getenv(envData))
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(3)
	}
	if _, err := s.Derived().RebuildFTS(context.Background(), nil); err != nil {
		fmt.Fprintln(os.Stderr, "rebuild:", err)
		os.Exit(3)
	}
	s.Close()
}

// `--rebuild` killed with SIGKILL at moments spread over a whole
// rebuild's time (8 trials, as a rebuild takes seconds, 4 under the race
// detector, one in each equal slice of that time; CAIRN_REBUILD_KILLS=30
// for the full count): the next command that opens the store removes the
// half-built index at once, and the full-text index answers again.
func TestRebuildKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	data := filepath.Join(t.TempDir(), "data")
	s, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	mustSync(t, s, copySmallSample(t), SyncOptions{}) // a kill's moment is spread over the whole rebuild, whatever its size
	drainAll(t, s)
	s.Close()
	child := func() *exec.Cmd {
		cmd := exec.CommandContext(context.Background(), withoutRace.Child(t), "-test.run=^TestRebuildChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), envRebuildChild+"=1", envData+"="+data)
		return cmd
	}
	start := time.Now()
	if b, err := child().CombinedOutput(); err != nil {
		t.Fatalf("rebuild child: %v\n%s", err, b)
	}
	whole := time.Since(start)
	trials := 8
	if raceEnabled {
		trials = 4
	}
	if n, err := strconv.Atoi(os.Getenv("CAIRN_REBUILD_KILLS")); err == nil {
		trials = n
	}
	r := rand.New(rand.NewPCG(29, 9))
	halfBuilt := 0
	for i := range trials {
		cmd := child()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(killTime(r, whole, i, trials))
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if m, _ := filepath.Glob(filepath.Join(data, rebuildingPrefix+"*")); len(m) > 0 {
			halfBuilt++
		}
		s, err := Open(data)
		if err != nil {
			t.Fatal(err)
		}
		if m, _ := filepath.Glob(filepath.Join(data, rebuildingPrefix+"*")); len(m) > 0 {
			s.Close()
			t.Fatalf("trial %d: %v left after the next open", i, m)
		}
		drainAll(t, s)
		n := count(t, s, `SELECT count(*) FROM fts_queue`)
		s.Close()
		if n != 0 {
			t.Fatalf("trial %d: %d documents still queued after a drain", i, n)
		}
	}
	t.Logf("a rebuild takes %v; %d kills, %d left a half-built index, all removed by the next open", whole, trials, halfBuilt)
}
