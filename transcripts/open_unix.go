//go:build unix

package transcripts

import (
	"os"
	"syscall"
)

// openNonBlocking opens with O_NONBLOCK: opening a FIFO for reading
// returns at once instead of waiting for a writer. On a regular file the
// flag changes nothing.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
