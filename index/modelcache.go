package index

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/index/embed"
)

// The trained built-in model lives in the store (kv); model.bin beside it is
// a derived copy that loads in a fraction of the time: reading a 0.5 MB
// blob through SQLite's overflow pages and hashing it took ~5 ms, which
// every process that embeds a query (the prompt hook, search) paid.
// The file names the model id it holds; a stale, foreign or damaged file is
// ignored and rewritten, never trusted.

const modelCacheMagic = "cairn-lsa-cache v1\n"

func (s *Store) modelCachePath() string { return filepath.Join(s.Dir(), "model.bin") }

// loadModelCache returns the cached model when it is model id, else nil.
func (s *Store) loadModelCache(id string) *embed.Model {
	b, err := os.ReadFile(s.modelCachePath())
	if err != nil || !bytes.HasPrefix(b, []byte(modelCacheMagic)) {
		return nil
	}
	b = b[len(modelCacheMagic):]
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 || string(b[:nl]) != id {
		return nil
	}
	m, err := embed.LoadModelID(b[nl+1:], id)
	if err != nil {
		return nil
	}
	return m
}

// writeModelCache writes model id's bytes to model.bin (best effort:
// without it, models load from the store).
func (s *Store) writeModelCache(id string, blob []byte) {
	if s.readOnly {
		return
	}
	writeFileAtomic(s.modelCachePath(), append([]byte(modelCacheMagic+id+"\n"), blob...))
}

// writeFileAtomic replaces path with data (mode 0600) through a temporary
// file and a rename, so readers see the old or the new content, never a
// part. Best effort: it is for derived caches, whose absence only costs
// time.
func writeFileAtomic(path string, data []byte) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".cache-*.tmp")
	if err != nil {
		return
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o600)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}
