package hook

import (
	"context"
	"os"
	"os/exec"
)

// startDetached starts exe detached from Claude Code (so it outlives it and
// its hook: a new session on Unix, a detached process on Windows), stdin
// from the null device, output appended to logPath, and returns without
// waiting. The per-OS process attributes are in spawn_<os>.go; it tries
// each in turn until one starts.
func startDetached(exe string, args []string, logPath string) (int, error) {
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return 0, err
	}
	defer logf.Close()
	for _, attr := range detachedAttrs() {
		// Never cancelled: the child is meant to outlive this process.
		cmd := exec.CommandContext(context.Background(), exe, args...)
		cmd.Stdin = nil
		cmd.Stdout = logf
		cmd.Stderr = logf
		cmd.Env = append(os.Environ(), "CAIRN_HOOK_BACKGROUND=1")
		cmd.SysProcAttr = attr
		if err = cmd.Start(); err != nil {
			continue // the next attributes, if any; else this error
		}
		pid := cmd.Process.Pid
		// Reap it in this process if it finishes first; never wait for it.
		go cmd.Wait() //nolint:errcheck
		return pid, nil
	}
	return 0, err
}
