//go:build unix

package diskspace

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// Free is the space left to an unprivileged writer on dir's filesystem.
func Free(dir string) (uint64, bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}

func isFullErrno(e syscall.Errno) bool {
	return e == syscall.ENOSPC || e == syscall.EDQUOT || e == syscall.EFBIG
}
