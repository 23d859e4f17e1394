//go:build unix

package memories

import (
	"os"
	"syscall"
)

// hardLinked reports whether path has other hard links.
func hardLinked(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 1
}
