//go:build linux

package tmuxtest

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalsExitCleanly sends SIGTERM, SIGHUP and SIGINT to `cairn --demo`
// at moments spread over its start (first frame, indexing, extraction,
// idle): every time it must exit within a second with status 128+n (143
// for SIGTERM, what shells expect), leave the alternate screen and remove
// its temporary store. Bubble Tea's own signal
// handler once deadlocked against cairn's on SIGTERM (about 1 run in 3).
func TestSignalsExitCleanly(t *testing.T) {
	runs := map[syscall.Signal]int{syscall.SIGTERM: 50, syscall.SIGHUP: 10, syscall.SIGINT: 10}
	if testing.Short() {
		runs = map[syscall.Signal]int{syscall.SIGTERM: 6, syscall.SIGHUP: 3, syscall.SIGINT: 3}
	}
	s := newServer(t)
	tmp := t.TempDir()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		n, ok := runs[sig], 0
		for i := 0; i < n; i++ {
			// From right after the first frame to well after indexing.
			delay := time.Duration(i%10) * 150 * time.Millisecond
			if err := signalRun(s, tmp, sig, i, delay); err != nil {
				t.Errorf("%v run %d (after %v): %v", sig, i+1, delay, err)
				continue
			}
			ok++
		}
		t.Logf("%v: %d/%d runs exited cleanly within 1s", sig, ok, n)
	}
}

func signalRun(s *server, tmp string, sig syscall.Signal, i int, delay time.Duration) error {
	dir, err := os.MkdirTemp(tmp, "run")
	if err != nil {
		return err
	}
	traceFile := dir + ".trace"
	p := s.start(fmt.Sprintf("%s-%d", sigName(sig), i), 100, 30, []string{"TMPDIR=" + dir, "CAIRN_TUI_TRACE=" + traceFile}, "--demo")
	defer p.kill()
	p.waitFor(20*time.Second, "cairn demo", "Projects")
	time.Sleep(delay)
	pid := p.pid()
	if err := syscall.Kill(pid, sig); err != nil {
		return err
	}
	sent := time.Now()
	status := ""
	for status == "" {
		if time.Since(sent) > time.Second {
			sc := p.screen()
			dump := p.dump()
			tr, _ := os.ReadFile(traceFile)
			return fmt.Errorf("still running 1s after the signal; screen:\n%s\ntrace:\n%s\ngoroutines:\n%s", strings.TrimSpace(sc), tr, dump)
		}
		time.Sleep(5 * time.Millisecond)
		status = p.exitStatus()
	}
	took := time.Since(sent)
	if want := fmt.Sprint(128 + int(sig)); status != want {
		return fmt.Errorf("exited with status %s after %v, want %s", status, took, want)
	}
	// tmux may still be reading the last bytes cairn wrote.
	for i := 0; p.altScreen(); i++ {
		if i > 200 {
			return fmt.Errorf("exited after %v but left the terminal in the alternate screen", took)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		return fmt.Errorf("exited after %v but left the demo's temporary store behind: %s", took, left[0].Name())
	}
	return nil
}

func sigName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "term"
	case syscall.SIGHUP:
		return "hup"
	case syscall.SIGINT:
		return "int"
	}
	return "sig"
}
