//go:build linux

package fts

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cairn-dev/cairn/internal/diskspace"
)

// A full disk, simulated with a file size limit (RLIMIT_FSIZE: writes past
// it fail with EFBIG, as writes on a full disk fail with ENOSPC): bleve's
// segment writer used to panic ("assignment to entry in nil map" in zapx)
// and the process died with a goroutine dump. Each trial runs in a child
// process with a different limit, so the failure lands at a different
// point of the segment files: 21 limits 13 KB apart from 24 KB to 284 KB.
// What is checked is the child's answer (a clean error, no stack trace),
// not an interleaving: under the race detector each child cost about
// 3.5 s of CPU and only 10 limits ran, so the test runs in the package's
// binary without it (withoutRace.RanAlone), all 21 there. bleve's concurrent
// writes and merges keep their tests under -race
// (TestConcurrentWritesAndSearches, TestMergeWaitsForRoom).

const diskFullEnv = "CAIRN_FTS_TEST_FSIZE"

func TestFullDiskNeverPanics(t *testing.T) {
	if withoutRace.RanAlone(t) {
		return
	}
	docs := sampleDocs(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const lo, hi = 24 << 10, 24<<10 + 20*13<<10
	limits := []int{}
	for limit := lo; limit <= hi; limit += 13 << 10 {
		limits = append(limits, limit)
	}
	trials, failed := 0, 0
	for _, limit := range limits {
		trials++
		dir := t.TempDir()
		cmd := exec.CommandContext(t.Context(), exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), diskFullEnv+"="+strconv.Itoa(limit), helperDir+"="+dir)
		out, err := cmd.CombinedOutput()
		s := string(out)
		if strings.Contains(s, "goroutine ") || strings.Contains(s, "panic") || err != nil {
			t.Errorf("limit %d: the child crashed (%v):\n%.600s", limit, err, s)
			continue
		}
		switch {
		case strings.HasPrefix(s, "ok"):
		case strings.HasPrefix(s, "full:") && strings.Contains(s, "free space in "+dir) && strings.Contains(s, "nothing was lost"):
			failed++
		default:
			t.Errorf("limit %d: want a clean full-disk error naming %s, got:\n%.600s", limit, dir, s)
		}
	}
	if failed < trials/2 {
		t.Errorf("only %d of %d trials hit the limit: the test no longer simulates a full disk", failed, trials)
	}
	t.Logf("%d trials, %d hit the full disk, 0 stack traces (%d docs)", trials, failed, len(docs))
}

// sampleDocs are the lines of the sample transcripts as documents: real
// text, enough of it to need several segments.
func sampleDocs(t testing.TB) []Doc {
	var docs []Doc
	for _, f := range transcriptFiles() {
		for i, l := range jsonlLines(t, f) {
			docs = append(docs, Doc{ID: fmt.Sprintf("%s:%d", f, i), Kind: "message", Text: string(l), Project: "/p", Session: f})
		}
	}
	if t != nil && len(docs) < 2000 {
		t.Fatalf("only %d sample documents", len(docs))
	}
	return docs
}

// diskFullChild is the child process: it indexes the sample documents under
// the file size limit and prints "ok" or "full: <error>".
func diskFullChild() bool {
	v := os.Getenv(diskFullEnv)
	if v == "" {
		return false
	}
	limit, _ := strconv.ParseUint(v, 10, 64)
	signal.Ignore(syscall.SIGXFSZ) // a write past the limit fails instead
	dir := os.Getenv(helperDir)
	ix, err := Open(dir, 0)
	if err == nil {
		if err = syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
			fmt.Println("setrlimit:", err)
			os.Exit(1)
		}
		docs := sampleDocs(nil)
		for i := 0; i < len(docs) && err == nil; i += 1000 {
			err = ix.Index(docs[i:min(i+1000, len(docs))])
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
