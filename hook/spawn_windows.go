//go:build windows

package hook

import (
	"syscall"

	"golang.org/x/sys/windows"
)

// detachedAttrs: no console and a process group of its own, so closing
// Claude Code's console or its Ctrl+C does not reach the child. Breaking
// away from a job object the hook may run in is tried first; a job that
// forbids it makes CreateProcess fail, and the child then starts inside it.
func detachedAttrs() []*syscall.SysProcAttr {
	const flags = windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP
	return []*syscall.SysProcAttr{
		{CreationFlags: flags | windows.CREATE_BREAKAWAY_FROM_JOB},
		{CreationFlags: flags},
	}
}
