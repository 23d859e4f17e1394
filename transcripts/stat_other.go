//go:build !linux

package transcripts

import (
	"os"
	"time"
)

// statSizeTime is a file's size and modification time, and whether it is
// a regular file (links followed).
func statSizeTime(path string) (size int64, mtime time.Time, regular bool, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, time.Time{}, false, err
	}
	return st.Size(), st.ModTime(), st.Mode().IsRegular(), nil
}
