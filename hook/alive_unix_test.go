//go:build unix

package hook_test

import "syscall"

func processAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }
