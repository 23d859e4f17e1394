//go:build unix

package index

import "golang.org/x/sys/unix"

// releasePages tells the kernel this process is done with b, a part of the
// read-only vector cache mapping: its pages leave the process's resident
// set (they stay in the page cache, so the next search finds them there).
// A full scan of a 114 MB cache (10 GB of history) then never holds more
// than a few chunks of it. b must start on a page boundary.
func releasePages(b []byte) {
	if len(b) > 0 {
		_ = unix.Madvise(b, unix.MADV_DONTNEED) // advice: nothing to do when refused
	}
}
