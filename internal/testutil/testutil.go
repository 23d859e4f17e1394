// Package testutil holds the few helpers that tests of several packages
// share. Only tests import it.
package testutil

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// RepoRoot is the module's root folder (tests run in their package's).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// CopyDir copies the tree at src to dst, keeping modification times (the
// discovery of transcripts orders files by them).
func CopyDir(src, dst string) error {
	return filepath.Walk(src, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
		return os.Chtimes(target, fi.ModTime(), fi.ModTime())
	})
}

// NumberedLines is "line 1\n" to "line n\n", with line i replaced by
// change[i] where there is one (dropped when that is "").
func NumberedLines(n int, change map[int]string) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		if c, ok := change[i]; ok {
			if c != "" {
				sb.WriteString(c + "\n")
			}
			continue
		}
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	return sb.String()
}
