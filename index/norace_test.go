package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// evalWithoutRace are the labelled-set quality tests on the eval store
// (evalStore): measures of ranking (MRR, recall at 1 and 5, what is
// answered), functions of the code and the sample only. The race detector
// finds nothing there (Search's concurrency has its own tests under it:
// TestConcurrentSyncsAndReader and the search tests) and made them a third
// of the package under -race, mostly SQLite reads under checkptr.
var evalWithoutRace = []string{"TestSessionRanking", "TestSearchQuality", "TestRelevanceFloor", "TestRelevanceRule"}

// ranWithoutRace runs the calling test (one of evalWithoutRace) in a child
// test binary built without the race detector when this binary has it,
// fails t if it failed there, and reports whether it ran there (the caller
// then returns). The child runs all of evalWithoutRace once, so the eval
// store is built once, there; each test reports its own result and output.
func ranWithoutRace(t *testing.T) bool {
	t.Helper()
	if !raceEnabled {
		return false
	}
	out, err := evalChild(t)
	name := t.Name()
	part := childPart(out, name)
	t.Logf("without -race:\n%s", part)
	switch {
	case bytes.Contains(out, []byte("--- PASS: "+name+" (")):
	case bytes.Contains(out, []byte("--- FAIL: "+name+" (")):
		t.Fatalf("%s failed without -race", name)
	default:
		t.Fatalf("%s did not run without -race (%v):\n%s", name, err, out)
	}
	return true
}

// childPart is the output of one test in a child's -test.v output.
func childPart(out []byte, name string) string {
	s := string(out)
	i := strings.Index(s, "=== RUN   "+name+"\n")
	if i < 0 {
		return s
	}
	s = s[i:]
	if j := strings.Index(s[1:], "\n=== RUN   "); j >= 0 {
		s = s[:j+1]
	}
	return s
}

var evalChildRun struct {
	once sync.Once
	out  []byte
	err  error
}

// evalChild builds the package's tests without -race (its dependencies
// come from Go's build cache: CI's `go build ./...` compiled them) under
// the shared folder TestMain removes, and runs evalWithoutRace there once.
func evalChild(t *testing.T) ([]byte, error) {
	dir := sharedDir(t, "norace")
	e := &evalChildRun
	e.once.Do(func() {
		bin := filepath.Join(dir, "index-norace.test")
		build := exec.CommandContext(context.Background(), "go", "test", "-c", "-vet=off", "-o", bin, ".")
		if out, err := build.CombinedOutput(); err != nil {
			e.out, e.err = out, fmt.Errorf("building the package's tests without -race: %w", err)
			return
		}
		args := []string{"-test.run", "^(" + strings.Join(evalWithoutRace, "|") + ")$", "-test.v", "-test.count=1"}
		if testing.Short() {
			args = append(args, "-test.short")
		}
		e.out, e.err = exec.CommandContext(context.Background(), bin, args...).CombinedOutput()
		var exit *exec.ExitError
		if errors.As(e.err, &exit) {
			e.err = nil // a failing test: each reads its own result
		}
	})
	return e.out, e.err
}
