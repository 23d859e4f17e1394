package fts

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// ranWithoutRace runs the calling test again in a child test binary built
// without the race detector when this binary has it, fails t if the child
// does, and reports whether it ran there (the caller then returns).
//
// It is for the tests of pure functions on one goroutine (the fused
// analyzers held to bleve's chains on every transcript line and on random
// inputs, the stemmer, the rune tables, the linear-time check): the race
// detector finds nothing there and multiplies their cost 5–10x. The same
// inputs are checked, all of them, only by a binary without it; the
// analyzers' concurrency keeps its own tests under -race
// (TestCodeAnalyzerConcurrent, TestEnglishAnalyzerConcurrent).
func ranWithoutRace(t *testing.T) bool {
	t.Helper()
	if !raceEnabled {
		return false
	}
	bin, err := noRaceBinary()
	if err != nil {
		t.Fatalf("building the package's tests without -race: %v", err)
	}
	args := []string{"-test.run", "^" + t.Name() + "$", "-test.v", "-test.count=1"}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	out, err := exec.CommandContext(t.Context(), bin, args...).CombinedOutput()
	t.Logf("without -race (%s):\n%s", bin, out)
	if err != nil {
		t.Fatalf("%s without -race: %v", t.Name(), err)
	}
	if !bytes.Contains(out, []byte("--- PASS: "+t.Name()+" ")) {
		t.Fatalf("%s did not run without -race", t.Name())
	}
	return true
}

// noRaceBinary builds this package's tests without -race once, under
// benchRoot (TestMain removes it). The dependencies come from Go's build
// cache (CI's `go build ./...` has compiled them without -race): a compile
// of this package and a link.
var noRaceBinary = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(benchRoot, "fts-norace.test")
	cmd := exec.CommandContext(context.Background(), "go", "test", "-c", "-vet=off", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &buildError{err: err, out: out}
	}
	return bin, nil
})

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + string(e.out) }
func (e *buildError) Unwrap() error { return e.err }
