//go:build !unix

package diskspace

import "syscall"

// Free is unknown on this system.
func Free(string) (uint64, bool) { return 0, false }

// ERROR_DISK_FULL and ERROR_HANDLE_DISK_FULL on Windows.
func isFullErrno(e syscall.Errno) bool { return e == 112 || e == 39 }
