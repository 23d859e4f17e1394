package transcripts

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DirCache remembers the folder listings of one discovery so the next can
// skip reading folders that have not changed: a folder's modification time
// changes whenever an entry is added, removed or renamed, so an unchanged
// folder is one stat instead of open+getdents+close. Files are still
// stat-ed every time (a growing transcript does not touch its folder).
// On a 1,470-file tree this halves an incremental sync's discovery.
//
// A listing is trusted only when its folder was last modified more than a
// second before the discovery that read it began: a folder changed twice
// within one timestamp tick around the listing is re-read, not missed.
// The zero value (and a nil *DirCache) caches nothing.
type DirCache struct {
	old         map[string]dirListing // from the previous discovery
	trustBefore int64                 // unix ns: older folder mtimes are trusted

	mu      sync.Mutex
	started int64                 // unix ns: this discovery's start
	cur     map[string]dirListing // what this discovery saw
	read    bool                  // some folder was read from disk
	skipped bool                  // some folder could not be recorded (FolderStamps)
}

type dirListing struct {
	mtime int64
	ents  []dirEnt
}

type dirEnt struct {
	name string
	dir  bool // a folder, or a link to one
}

const dirCacheMagic = "cairn-dirs v1"

// LoadDirCache reads what MarshalBinary wrote. Anything unreadable gives an
// empty cache (every folder is read): it is only ever an optimisation.
// Every name is a substring of one copy of b (an incremental sync loads
// this on every run).
func LoadDirCache(b []byte) *DirCache {
	empty := &DirCache{old: map[string]dirListing{}}
	head, rest, ok := strings.Cut(string(b), "\n")
	fields := strings.Fields(head)
	if !ok || len(fields) != 3 || fields[0]+" "+fields[1] != dirCacheMagic {
		return empty
	}
	started, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil {
		return empty
	}
	c := &DirCache{old: make(map[string]dirListing, strings.Count(rest, "\n")), trustBefore: started - int64(time.Second)}
	for len(rest) > 0 {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		path, l, ok := parseListing(line)
		if !ok {
			return empty
		}
		c.old[path] = l
	}
	return c
}

// parseListing reads one line of MarshalBinary's: a folder's path, its
// modification time and its entries, tab-separated.
func parseListing(line string) (string, dirListing, bool) {
	path, line, ok := strings.Cut(line, "\t")
	mtime, line, hasEnts := strings.Cut(line, "\t")
	m, err := strconv.ParseInt(mtime, 10, 64)
	if !ok || err != nil {
		return "", dirListing{}, false
	}
	l := dirListing{mtime: m, ents: make([]dirEnt, 0, strings.Count(line, "\t")+1)}
	for hasMore := hasEnts; hasMore; {
		var e string
		e, line, hasMore = strings.Cut(line, "\t")
		if len(e) < 2 || (e[0] != 'd' && e[0] != 'f') {
			return "", dirListing{}, false
		}
		l.ents = append(l.ents, dirEnt{name: e[1:], dir: e[0] == 'd'})
	}
	return path, l, true
}

// MarshalBinary writes the listings this discovery saw.
func (c *DirCache) MarshalBinary() ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b bytes.Buffer
	b.WriteString(dirCacheMagic + " " + strconv.FormatInt(c.started, 10) + "\n")
	for path, l := range c.cur {
		b.WriteString(path)
		b.WriteByte('\t')
		b.WriteString(strconv.FormatInt(l.mtime, 10))
		for _, e := range l.ents {
			b.WriteByte('\t')
			if e.dir {
				b.WriteByte('d')
			} else {
				b.WriteByte('f')
			}
			b.WriteString(e.name)
		}
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// Changed reports whether this discovery's listings differ from the loaded
// ones, i.e. whether MarshalBinary is worth writing. When every folder came
// from the cache, unchanged, the old file is still right: each listing it
// trusts is older than its own start time, and rewriting it would only move
// that time.
func (c *DirCache) Changed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.read || len(c.cur) != len(c.old)
}

// begin marks the start of a discovery.
func (c *DirCache) begin() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.started = time.Now().UnixNano()
	c.cur = make(map[string]dirListing, len(c.old))
	c.read = false
	c.skipped = false
	c.mu.Unlock()
}

// readDir lists a folder (following links), from the cache when the folder
// is unchanged. Errors are os.ReadDir's.
func (c *DirCache) readDir(path string) ([]dirEnt, error) {
	if c == nil {
		return listDir(path)
	}
	_, mt, _, err := statSizeTime(path)
	if err != nil {
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	m := mt.UnixNano()
	if l, ok := c.old[path]; ok && l.mtime == m && m < c.trustBefore {
		c.keep(path, l)
		return l.ents, nil
	}
	ents, err := listDir(path)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.read = true
	c.mu.Unlock()
	c.record(path, dirListing{mtime: m, ents: ents})
	return ents, nil
}

// keep records a listing of the previous discovery, unchanged (its names
// were checked when it was first recorded).
func (c *DirCache) keep(path string, l dirListing) {
	c.mu.Lock()
	if c.cur != nil {
		c.cur[path] = l
	}
	c.mu.Unlock()
}

func (c *DirCache) record(path string, l dirListing) {
	representable := !strings.ContainsAny(path, "\t\n")
	for _, e := range l.ents {
		representable = representable && !strings.ContainsAny(e.name, "\t\n") && e.name != ""
	}
	if !representable { // read every time
		c.mu.Lock()
		c.skipped = true
		c.mu.Unlock()
		return
	}
	c.mu.Lock()
	if c.cur != nil {
		c.cur[path] = l
	}
	c.mu.Unlock()
}

func listDir(path string) ([]dirEnt, error) {
	des, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	out := make([]dirEnt, len(des))
	for i, de := range des {
		out[i] = dirEnt{name: de.Name(), dir: isDir(filepath.Join(path, de.Name()), de)}
	}
	return out, nil
}
