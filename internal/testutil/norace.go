package testutil

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// WithoutRace is a package's tests built without the race detector, for
// the tests that run there when the package's own test binary has it
// (cli, index, index/fts and memories): work on one goroutine
// (pure functions, a corpus read and compared, a ranking measured) where
// the race detector has nothing to find and costs 5–10x. The same inputs
// and checks run, only in a binary without it; what the race detector does
// check keeps its tests under it.
//
// The binary is built once per test process with `go test -c` in the
// package's folder (go test runs a package's tests there); its
// dependencies come from Go's build cache, which CI's `go build ./...` has
// filled: a compile of the package and a link.
type WithoutRace struct {
	// Dir is where the binary goes: a folder the package's TestMain
	// removes. Called once, on first use.
	Dir func(testing.TB) string

	once   sync.Once
	bin    string
	err    error
	mu     sync.Mutex
	groups map[string]*groupRun
}

type groupRun struct {
	once sync.Once
	out  []byte
	err  error
}

// Binary builds the package's tests without -race on first use and
// returns the binary's path.
func (w *WithoutRace) Binary(t testing.TB) (string, error) {
	w.once.Do(func() {
		dir := w.Dir(t)
		if w.err = os.MkdirAll(dir, 0o755); w.err != nil {
			return
		}
		w.bin = filepath.Join(dir, "norace.test")
		cmd := exec.CommandContext(context.Background(), "go", "test", "-c", "-vet=off", "-o", w.bin, ".")
		if out, err := cmd.CombinedOutput(); err != nil {
			w.err = fmt.Errorf("building the package's tests without -race: %w\n%s", err, out)
		}
	})
	return w.bin, w.err
}

// Child is the test binary a test runs as its child process when the
// child is killed midway (a sync, a backup, a rebuild, a restore): this
// one without the race detector, the package's binary built without it
// (Binary) with it. A killed child dies before it could report a race;
// what such a test checks is the store the child leaves, and that the
// parent checks under -race. The code the children run keeps its
// concurrent tests under the race detector. The same children run, 5–10x
// cheaper.
func (w *WithoutRace) Child(t testing.TB) string {
	t.Helper()
	if !raceEnabled {
		return os.Args[0]
	}
	bin, err := w.Binary(t)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// Run runs the tests -test.run's pattern selects in the binary, verbose,
// with -test.short when this process has it, and returns their output. A
// failing test is not an error: each caller reads its own result
// (Passed).
func (w *WithoutRace) Run(t testing.TB, pattern string) ([]byte, error) {
	bin, err := w.Binary(t)
	if err != nil {
		return nil, err
	}
	args := []string{"-test.run", pattern, "-test.v", "-test.count=1"}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	out, err := exec.CommandContext(context.Background(), bin, args...).CombinedOutput()
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) {
		err = nil
	}
	return out, err
}

// RanAlone runs t's test alone in the binary when this test binary has the
// race detector, logs its output, fails t unless it passed there, and
// reports whether it ran there (the caller then returns). Without the race
// detector it does nothing and says false: the test runs here.
func (w *WithoutRace) RanAlone(t *testing.T) bool {
	t.Helper()
	if !raceEnabled {
		return false
	}
	out, err := w.Run(t, "^"+t.Name()+"$")
	t.Logf("without -race:\n%s", out)
	Passed(t, out, err)
	return true
}

// RanWith is RanAlone for tests that share a fixture: it runs the tests
// names together in the binary once (the first of them to call it runs
// all of them: the fixture is built once, there), and logs t's part of the
// output. names must include t's test.
func (w *WithoutRace) RanWith(t *testing.T, names ...string) bool {
	t.Helper()
	if !raceEnabled {
		return false
	}
	pattern := "^(" + strings.Join(names, "|") + ")$"
	w.mu.Lock()
	if w.groups == nil {
		w.groups = map[string]*groupRun{}
	}
	g := w.groups[pattern]
	if g == nil {
		g = &groupRun{}
		w.groups[pattern] = g
	}
	w.mu.Unlock()
	g.once.Do(func() { g.out, g.err = w.Run(t, pattern) })
	t.Logf("without -race:\n%s", testPart(g.out, t.Name()))
	Passed(t, g.out, g.err)
	return true
}

// testPart is one test's part of a child's -test.v output (all of it when
// the test is not found).
func testPart(out []byte, name string) string {
	s := string(out)
	i := strings.Index(s, "=== RUN   "+name+"\n")
	if i < 0 {
		return s
	}
	s = s[i:]
	for j := 1; ; {
		k := strings.Index(s[j:], "\n=== RUN   ")
		if k < 0 {
			return s
		}
		j += k + 1
		if !strings.HasPrefix(s[j+len("=== RUN   "):], name+"/") {
			return s[:j]
		}
	}
}

// Passed fails t unless a child's -test.v output shows t's test passing
// (err: the child could not be run); it skips t when the test skipped
// there.
func Passed(t *testing.T, out []byte, err error) {
	t.Helper()
	name := t.Name()
	switch {
	case err != nil:
		t.Fatalf("%s without -race: %v\n%s", name, err, out)
	case bytes.Contains(out, []byte("--- PASS: "+name+" (")):
	case bytes.Contains(out, []byte("--- FAIL: "+name+" (")):
		t.Fatalf("%s failed without -race", name)
	case bytes.Contains(out, []byte("--- SKIP: "+name+" (")):
		t.Skipf("%s skipped without -race", name)
	default:
		t.Fatalf("%s did not run without -race:\n%s", name, out)
	}
}
