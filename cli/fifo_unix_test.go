//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO named *.jsonl among the transcripts (or as a subagent file, or a
// sidecar) used to hang index, sessions, search, show and projects
// forever: opening it for reading waits for a writer. Now it is skipped
// and reported once.
func TestFIFOTranscriptNeverHangs(t *testing.T) {
	claude := t.TempDir()
	copyTree(t, filepath.Join(sample(), "projects", "-home-marco-projects-spotter"), filepath.Join(claude, "projects", "-home-marco-projects-spotter"))
	proj := filepath.Join(claude, "projects", "-home-marco-projects-spotter")
	for _, p := range []string{
		filepath.Join(proj, "11111111-2222-3333-4444-555555555555.jsonl"),
		filepath.Join(proj, "agent-fifo.jsonl"),
	} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("cannot make a FIFO here: %v", err)
		}
	}
	data := t.TempDir()
	for i, args := range [][]string{
		{"index", "--no-embed"}, {"index", "--no-embed"}, {"sessions"}, {"projects"}, {"search", "--mode", "text", "spotter"}, {"show", "491e126e"},
	} {
		done := make(chan string, 1)
		go func() {
			_, stderr, err := run(t, append(args, "--claude-dir", claude, "--data", data)...)
			if err != nil {
				stderr += "error: " + err.Error()
			}
			done <- stderr
		}()
		select {
		case stderr := <-done:
			n := strings.Count(stderr, "named pipe")
			if i == 0 && n != 2 {
				t.Errorf("%v: want both FIFOs reported once, got:\n%s", args, stderr)
			}
			if i > 0 && n != 0 {
				t.Errorf("%v: the FIFOs were reported again:\n%s", args, stderr)
			}
			if strings.Contains(stderr, "error:") {
				t.Errorf("%v: %s", args, stderr)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%v hangs on a FIFO", args)
		}
	}
	if _, err := os.Stat(filepath.Join(proj, "agent-fifo.jsonl")); err != nil {
		t.Fatal(err)
	}
}
