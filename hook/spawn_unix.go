//go:build unix

package hook

import (
	"os"
	"os/exec"
	"syscall"
)

// startDetached starts exe in a new session (so it survives Claude Code and
// its hook's process group), stdin from /dev/null, output appended to
// logPath, and returns without waiting.
func startDetached(exe string, args []string, logPath string) (int, error) {
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return 0, err
	}
	defer logf.Close()
	cmd := exec.Command(exe, args...)
	cmd.Stdin = nil
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.Env = append(os.Environ(), "CAIRN_HOOK_BACKGROUND=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pid := cmd.Process.Pid
	// Reap it in this process if it finishes first; never wait for it.
	go cmd.Wait() //nolint:errcheck
	return pid, nil
}
