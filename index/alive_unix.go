//go:build unix

package index

import (
	"errors"
	"syscall"
)

// pidAlive reports whether a process with the pid exists (signal 0;
// EPERM: it exists and belongs to someone else).
func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
