package remote

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A session travels as one bundle: a gzip-compressed tar of its Claude
// Code files as `cairn export --sessions` writes them from the store
// (redacted as stored) — <folder>/<id>.jsonl and <folder>/<id>/subagents/…
// — named by the SHA-256 of the uncompressed tar, under
// sessions/<2 hex>/<hash>.tar.gz. The same session unchanged is the same
// file on every sync and every machine; a session that grew is a new file
// and its old one is dropped from the tree. `tar xzf` reads one.

// maxBundle bounds what a bundle may unpack to (a corrupt or hostile file
// must not fill the disk).
const maxBundle = 4 << 30

// bundleRel is the repository path of a bundle.
func bundleRel(hash string) string { return path.Join("sessions", hash[:2], hash+".tar.gz") }

// sessionFiles lists the files of session sid under exported/projects/folder.
func sessionFiles(exported, folder, sid string) ([]string, error) {
	base := filepath.Join(exported, "projects", folder)
	var out []string
	if _, err := os.Stat(filepath.Join(base, sid+".jsonl")); err == nil {
		out = append(out, path.Join(folder, sid+".jsonl"))
	}
	sub := filepath.Join(base, sid)
	err := filepath.WalkDir(sub, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(filepath.Join(exported, "projects"), p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// makeBundle tars and compresses files (relative to exported/projects)
// and returns the bundle and its hash.
func makeBundle(exported string, files []string) (gz []byte, hash string, err error) {
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	for _, rel := range files {
		p := filepath.Join(exported, "projects", filepath.FromSlash(rel))
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, "", err
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, "", err
		}
		h := &tar.Header{Name: rel, Mode: 0o600, Size: int64(len(b)), ModTime: fi.ModTime().UTC().Truncate(time.Second),
			Typeflag: tar.TypeReg, Format: tar.FormatUSTAR}
		if len(rel) > 100 {
			h.Format = tar.FormatPAX
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, "", err
		}
		if _, err := tw.Write(b); err != nil {
			return nil, "", err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(raw.Bytes())
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return nil, "", err
	}
	if err := zw.Close(); err != nil {
		return nil, "", err
	}
	return out.Bytes(), hex.EncodeToString(sum[:]), nil
}

// bundleFile is one file of an unpacked bundle.
type bundleFile struct {
	rel  string // folder/<id>.jsonl, folder/<id>/subagents/…
	data []byte
	mod  time.Time
}

// openBundle reads a bundle, checks it against its name (hash) and that
// every file belongs to session sid in folder.
func openBundle(file, hash, folder, sid string) ([]bundleFile, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s is not a gzip file: %w", file, err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, maxBundle+1))
	if err != nil {
		return nil, fmt.Errorf("%s is damaged: %w", file, err)
	}
	if len(raw) > maxBundle {
		return nil, fmt.Errorf("%s unpacks to more than %d bytes", file, int64(maxBundle))
	}
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != hash {
		return nil, fmt.Errorf("%s is damaged: its content does not match its name", file)
	}
	var out []bundleFile
	tr := tar.NewReader(bytes.NewReader(raw))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s is damaged: %w", file, err)
		}
		if !belongs(h.Name, folder, sid) || h.Typeflag != tar.TypeReg {
			return nil, fmt.Errorf("%s holds %q, which is not a file of session %s in %s", file, h.Name, sid, folder)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("%s is damaged: %w", file, err)
		}
		out = append(out, bundleFile{rel: h.Name, data: b, mod: h.ModTime})
	}
	return out, nil
}

// belongs reports whether a bundle's path is one of session sid's files:
// never outside its folder, whatever a damaged or hostile file says.
func belongs(name, folder, sid string) bool {
	if name != path.Clean(name) || path.IsAbs(name) || strings.Contains(name, "..") || strings.ContainsRune(name, '\\') {
		return false
	}
	return name == folder+"/"+sid+".jsonl" || strings.HasPrefix(name, folder+"/"+sid+"/")
}

// validName reports whether a folder or machine name is one path element.
func validName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, `/\`) && !strings.ContainsRune(s, 0)
}
