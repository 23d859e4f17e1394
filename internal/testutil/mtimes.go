package testutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DateByLastLine dates every .jsonl file under dir by its last line's
// timestamp, as Claude Code's files are dated in ~/.claude (a checkout's
// or a copy's times say nothing, and cairn reads a project's files oldest
// first).
func DateByLastLine(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		t, err := lastTimestamp(p)
		if err != nil {
			return err
		}
		return os.Chtimes(p, t, t)
	})
}
