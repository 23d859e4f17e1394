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
// point of the segment files.

const diskFullEnv = "CAIRN_FTS_TEST_FSIZE"

func TestFullDiskNeverPanics(t *testing.T) {
	docs := sampleDocs(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	trials, failed := 0, 0
	for limit := 24 << 10; limit <= 24<<10+20*13<<10; limit += 13 << 10 {
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
