package remote

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/cairn-dev/cairn/internal/syncfile"
	"hash"
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
// and returns the bundle and its hash (the tar's).
func makeBundle(exported string, files []string) (gz []byte, hash string, err error) {
	raw, err := tarFiles(filepath.Join(exported, "projects"), files)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(raw)
	if gz, err = gzipBest(raw); err != nil {
		return nil, "", err
	}
	return gz, hex.EncodeToString(sum[:]), nil
}

// tarFiles is the tar of files, relative to dir.
func tarFiles(dir string, files []string) ([]byte, error) {
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	for _, rel := range files {
		if err := tarFile(tw, dir, rel); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return raw.Bytes(), nil
}

// tarFile writes dir's file rel into tw: a private regular file, its
// time to the second, its name in a USTAR header or, past USTAR's 100
// bytes, a PAX one.
func tarFile(tw *tar.Writer, dir, rel string) error {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	h := &tar.Header{Name: rel, Mode: 0o600, Size: int64(len(b)), ModTime: fi.ModTime().UTC().Truncate(time.Second),
		Typeflag: tar.TypeReg, Format: tar.FormatUSTAR}
	if len(rel) > 100 {
		h.Format = tar.FormatPAX
	}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err = tw.Write(b)
	return err
}

// gzipBest compresses raw at gzip's best compression.
func gzipBest(raw []byte) ([]byte, error) {
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
	if _, err := zw.Write(raw); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// unpackBundle unpacks a bundle into dst (a Claude-like projects folder)
// as it streams it: each file goes to a staging folder under tmp, the
// bundle's hash is taken on the way, and only a bundle that matches its
// name (hash) and holds only files of session sid in folder is moved into
// place. Memory stays one copy buffer whatever the session's size (a
// session was read whole, twice: 513 MB peak RSS on a 1 GB pull with the
// indexing). It returns the files unpacked, relative to dst.
func unpackBundle(file, hash, folder, sid, dst, tmp string) ([]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, bundleError{err}
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, bundleErrorf("%s is not a gzip file: %w", file, err)
	}
	staging, err := os.MkdirTemp(tmp, "unpack-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(staging)
	u := &unpacker{file: file, folder: folder, sid: sid, staging: staging, sum: sha256.New()}
	u.raw = &io.LimitedReader{R: zr, N: maxBundle + 1}
	files, err := u.stage()
	if err != nil {
		return nil, err
	}
	if hex.EncodeToString(u.sum.Sum(nil)) != hash {
		return nil, bundleErrorf("%s is damaged: its content does not match its name", file)
	}
	return placeStaged(files, dst)
}

// unpacker streams one bundle's tar into a staging folder, hashing it on
// the way.
type unpacker struct {
	file, folder, sid, staging string
	raw                        *io.LimitedReader
	sum                        hash.Hash
}

// staged is a file of a bundle in the staging folder.
type staged struct {
	rel, path string
	mod       time.Time
}

func (u *unpacker) tooBig() error {
	return bundleErrorf("%s unpacks to more than %d bytes", u.file, int64(maxBundle))
}

// stage writes each file of the tar to the staging folder, and reads the
// tar to its end (the hash covers its end blocks too).
func (u *unpacker) stage() ([]staged, error) {
	tee := io.TeeReader(u.raw, u.sum)
	tr := tar.NewReader(tee)
	var files []staged
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if u.raw.N <= 0 {
			return nil, u.tooBig()
		}
		if err != nil {
			return nil, bundleErrorf("%s is damaged: %w", u.file, err)
		}
		sf, err := u.stageFile(tr, h, len(files))
		if err != nil {
			return nil, err
		}
		files = append(files, sf)
	}
	if _, err := io.Copy(io.Discard, tee); err != nil {
		return nil, bundleErrorf("%s is damaged: %w", u.file, err)
	}
	if u.raw.N <= 0 {
		return nil, u.tooBig()
	}
	return files, nil
}

// stageFile copies the tar's current file (header h, the n-th) into the
// staging folder, when it is a file of the session.
func (u *unpacker) stageFile(tr *tar.Reader, h *tar.Header, n int) (staged, error) {
	if !belongs(h.Name, u.folder, u.sid) || h.Typeflag != tar.TypeReg {
		return staged{}, bundleErrorf("%s holds %q, which is not a file of session %s in %s", u.file, h.Name, u.sid, u.folder)
	}
	p := filepath.Join(u.staging, fmt.Sprint(n))
	rd := &readErr{r: tr}
	if err := copyToFile(p, rd); err != nil {
		switch {
		case u.raw.N <= 0:
			return staged{}, u.tooBig()
		case rd.err != nil:
			return staged{}, bundleErrorf("%s is damaged: %w", u.file, rd.err)
		}
		return staged{}, err // writing: a full disk fails the sync
	}
	return staged{rel: h.Name, path: p, mod: h.ModTime}, nil
}

// placeStaged moves the staged files into dst, with their times, and
// returns them relative to dst.
func placeStaged(files []staged, dst string) ([]string, error) {
	rels := make([]string, 0, len(files))
	for _, sf := range files {
		p := filepath.Join(dst, filepath.FromSlash(sf.rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return rels, err
		}
		if err := os.Rename(sf.path, p); err != nil {
			return rels, err
		}
		if !sf.mod.IsZero() {
			os.Chtimes(p, sf.mod, sf.mod) //nolint:errcheck // the time is a hint for the indexer
		}
		rels = append(rels, sf.rel)
	}
	return rels, nil
}

// bundleError is a bundle that cannot be used (damaged, hostile, missing):
// a warning, the session skipped. Any other error of unpackBundle is this
// machine's (a full disk) and fails the sync.
type bundleError struct{ error }

func (e bundleError) Unwrap() error { return e.error }

func bundleErrorf(format string, args ...any) error { return bundleError{fmt.Errorf(format, args...)} }

// damagedBundle reports whether err is a bundleError.
func damagedBundle(err error) bool {
	var be bundleError
	return errors.As(err, &be)
}

// readErr remembers the error its reader returned (io.Copy's error does
// not say which side failed).
type readErr struct {
	r   io.Reader
	err error
}

func (r *readErr) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		r.err = err
	}
	return n, err
}

// copyToFile writes r to a new file at path, synced to disk.
func copyToFile(path string, r io.Reader) error { return syncfile.Write(path, os.O_EXCL, r) }

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
