package testutil

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ClaudeCodeLogArchive is the second real corpus, claude-code-log's
// real_projects (MIT, © 2025 Daniel Demmel; see its README.md inside):
// 105 transcript files of 8 projects, Claude Code 1.0.24 → 2.1.114.
func ClaudeCodeLogArchive() string {
	return filepath.Join(RepoRoot(), "testdata", "claude-code-log.tar.gz")
}

// ExtractClaudeCodeLog unpacks the claude-code-log corpus into dir (a
// fresh Claude config dir: dir/projects/...) and sets every transcript's
// modification time to its last entry's timestamp, as Claude Code would
// have left it (the archive's times mean nothing); files without a
// timestamp get an old fixed time.
func ExtractClaudeCodeLog(dir string) error {
	if err := untarGz(ClaudeCodeLogArchive(), dir); err != nil {
		return err
	}
	return DateByLastLine(dir)
}

// untarGz unpacks the folders and regular files of a .tar.gz archive
// into dir; an entry that would land outside dir is an error.
func untarGz(archive, dir string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := untarEntry(tr, h, dir); err != nil {
			return err
		}
	}
}

// untarEntry writes one archive entry (a folder or a regular file whose
// content tr holds) below dir; other kinds are skipped.
func untarEntry(tr io.Reader, h *tar.Header, dir string) error {
	name := filepath.Clean(h.Name)
	if strings.HasPrefix(name, "..") || filepath.IsAbs(name) {
		return fmt.Errorf("archive entry %q leaves the folder", h.Name)
	}
	target := filepath.Join(dir, name)
	switch h.Typeflag {
	case tar.TypeDir:
		return os.MkdirAll(target, 0o755)
	case tar.TypeReg:
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		_, err = io.Copy(out, tr)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		return err
	}
	return nil
}

// lastTimestamp is the latest "timestamp" of a JSONL file's lines, or
// 2020-01-01 when none has one.
func lastTimestamp(path string) (time.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return time.Time{}, err
	}
	defer f.Close()
	last := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	br := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		var v struct {
			Timestamp string `json:"timestamp"`
		}
		if json.Unmarshal(line, &v) == nil {
			if t, perr := time.Parse(time.RFC3339Nano, v.Timestamp); perr == nil && t.After(last) {
				last = t
			}
		}
		if err == io.EOF {
			return last, nil
		}
		if err != nil {
			return last, err
		}
	}
}
