package hook

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/hookspec"
)

// Stdin left open without a complete object (a runner that never closes
// it, half an object) used to hold the hook until the 8 s watchdog. It
// answers once input plainly stops coming.
func TestStdinLeftOpenAnswersQuickly(t *testing.T) {
	for _, written := range []string{"", `{"hook_event_name":"Stop","session_id":"11111111-2222-3333-4444-555555555555"`} {
		pr, pw := io.Pipe()
		defer pw.Close()
		go pw.Write([]byte(written))
		data := t.TempDir()
		start := time.Now()
		done := make(chan struct{})
		go func() {
			Run(t.Context(), Env{Stdin: pr, Stdout: io.Discard, Event: Stop, DataDir: data, ClaudeDir: t.TempDir()})
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(Watchdog):
			t.Fatalf("%q: the hook waited for the watchdog", written)
		}
		if took := time.Since(start); took > InputIdle+time.Second {
			t.Errorf("%q: answered after %s", written, took)
		}
		log, _ := os.ReadFile(filepath.Join(data, hookspec.LogName))
		if !strings.Contains(string(log), "stdin stayed open") {
			t.Errorf("%q: the log does not say why: %s", written, log)
		}
	}
	// A complete object on a stdin left open is answered at once.
	pr, pw := io.Pipe()
	defer pw.Close()
	go pw.Write([]byte(`{"hook_event_name":"Stop","session_id":"11111111-2222-3333-4444-555555555555"}`))
	start := time.Now()
	Run(t.Context(), Env{Stdin: pr, Stdout: io.Discard, Event: Stop, DataDir: t.TempDir(), ClaudeDir: t.TempDir()})
	if took := time.Since(start); took > InputIdle/2 {
		t.Errorf("a complete object waited %s", took)
	}
}
