// Package syncfile writes a file and syncs it to disk before closing it:
// the one copy of that step for the store's backups (index) and the
// remote bundles (remote).
package syncfile

import (
	"io"
	"os"
)

// Write copies r into a new file at path (mode 0600), opened with
// os.O_WRONLY|os.O_CREATE and flag (os.O_TRUNC to replace a file,
// os.O_EXCL to refuse one), and syncs it before closing it.
func Write(path string, flag int, r io.Reader) error {
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|flag, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Copy copies the file src to dst (replacing it) and syncs it.
func Copy(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return Write(dst, os.O_TRUNC, in)
}
