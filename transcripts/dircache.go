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
func LoadDirCache(b []byte) *DirCache {
	c := &DirCache{old: map[string]dirListing{}}
	head, rest, ok := bytes.Cut(b, []byte("\n"))
	fields := strings.Fields(string(head))
	if !ok || len(fields) != 3 || fields[0]+" "+fields[1] != dirCacheMagic {
		return c
	}
	started, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil {
		return c
	}
	c.trustBefore = started - int64(time.Second)
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		parts := strings.Split(string(line), "\t")
		if len(parts) < 2 {
			return &DirCache{old: map[string]dirListing{}}
		}
		m, err := strconv.ParseInt(parts[1], 10, 64)
		if err != nil {
			return &DirCache{old: map[string]dirListing{}}
		}
		l := dirListing{mtime: m, ents: make([]dirEnt, 0, len(parts)-2)}
		for _, e := range parts[2:] {
			if len(e) < 2 || (e[0] != 'd' && e[0] != 'f') {
				return &DirCache{old: map[string]dirListing{}}
			}
			l.ents = append(l.ents, dirEnt{name: e[1:], dir: e[0] == 'd'})
		}
		c.old[parts[0]] = l
	}
	return c
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

// begin marks the start of a discovery.
func (c *DirCache) begin() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.started = time.Now().UnixNano()
	c.cur = map[string]dirListing{}
	c.mu.Unlock()
}

// readDir lists a folder (following links), from the cache when the folder
// is unchanged. Errors are os.ReadDir's.
func (c *DirCache) readDir(path string) ([]dirEnt, error) {
	if c == nil {
		return listDir(path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	m := fi.ModTime().UnixNano()
	if l, ok := c.old[path]; ok && l.mtime == m && m < c.trustBefore {
		c.record(path, l)
		return l.ents, nil
	}
	ents, err := listDir(path)
	if err != nil {
		return nil, err
	}
	c.record(path, dirListing{mtime: m, ents: ents})
	return ents, nil
}

func (c *DirCache) record(path string, l dirListing) {
	if strings.ContainsAny(path, "\t\n") {
		return
	}
	for _, e := range l.ents {
		if strings.ContainsAny(e.name, "\t\n") || e.name == "" {
			return // not representable: read every time
		}
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
