package transcripts

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A Stamp is what a discovery saw of one folder (its modification time) or
// one transcript file (its size and modification time). A search's refresh
// keeps the stamps of the whole tree (index/filesnap_survey.go) and, the
// next time, only stats each folder and file again: a file created,
// removed or renamed changes its folder's modification time (Linux,
// macOS), an append changes the file's size; a project none of whose
// stamps moved has nothing new, and is not listed or planned again.
type Stamp struct {
	Path  string
	Dir   bool  // a folder: only MTime is compared
	Size  int64 // a file's size
	MTime int64 // unix ns
	// Quiet marks a file the store holds to its end at this size and
	// time: a file not quiet (not read to its end, failed, excluded) is
	// looked at again each time.
	Quiet bool
}

// Holds reports whether the stamp still describes what is on disk. A
// folder stamped within a second of trustBefore's discovery (or after it)
// is not trusted: it could have changed again within one timestamp tick.
func (s Stamp) Holds(trustBefore int64) bool {
	size, mt, regular, err := statSizeTime(s.Path)
	if err != nil {
		return false
	}
	m := mt.UnixNano()
	if s.Dir {
		return !regular && m == s.MTime && m < trustBefore
	}
	return s.Quiet && regular && size == s.Size && m == s.MTime
}

// StampGroup is the stamps of one project folder, from one discovery that
// began at Taken (unix ns).
type StampGroup struct {
	Name   string
	Taken  int64
	Stamps []Stamp
}

// ChangedGroups stats every stamp of the groups, a few goroutines at once
// (the stats are syscalls), and returns the indexes of the groups with a
// stamp that no longer holds, in order.
func ChangedGroups(groups []StampGroup) []int {
	changed := make([]bool, len(groups))
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range min(discoverWorkers, len(groups)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < len(groups); i = int(next.Add(1)) - 1 {
				g := &groups[i]
				trust := g.Taken - trustMargin
				for _, s := range g.Stamps {
					if !s.Holds(trust) {
						changed[i] = true
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	var out []int
	for i, c := range changed {
		if c {
			out = append(out, i)
		}
	}
	return out
}

// trustMargin is how long before a discovery a folder must have last
// changed for its stamp to be trusted (DirCache's rule).
const trustMargin = int64(1e9)

// ProjectFolders lists the project folders under claudeDir/projects (links
// to folders included), with the folder's stamp taken before the listing
// and when (unix ns) it was taken.
func ProjectFolders(claudeDir string) (Stamp, int64, []string, error) {
	root := filepath.Join(claudeDir, "projects")
	taken := time.Now().UnixNano()
	_, mt, _, err := statSizeTime(root)
	if err != nil {
		return Stamp{}, 0, nil, &os.PathError{Op: "stat", Path: root, Err: err}
	}
	ents, err := listDir(root)
	if err != nil {
		return Stamp{}, 0, nil, err
	}
	var names []string
	for _, e := range ents {
		if e.dir {
			names = append(names, e.name)
		}
	}
	return Stamp{Path: root, Dir: true, MTime: mt.UnixNano()}, taken, names, nil
}

// Started is when the discovery that filled c began (unix ns); stamps of
// folders changed within a second of it are not trusted.
func (c *DirCache) Started() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.started
}

// FolderStamps are the folders this discovery saw under root (read, or
// kept unchanged from the cache), grouped by the project folder they are
// in (the key ""  is root itself). A folder whose path or names cannot be
// cached is not in it: ok is then false, and no stamps should be kept.
func (c *DirCache) FolderStamps(root string) (groups map[string][]Stamp, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	groups = map[string][]Stamp{}
	prefix := root + string(filepath.Separator)
	for path, l := range c.cur {
		s := Stamp{Path: path, Dir: true, MTime: l.mtime}
		if path == root {
			groups[""] = append(groups[""], s)
			continue
		}
		rel, under := strings.CutPrefix(path, prefix)
		if !under {
			continue
		}
		name, _, _ := strings.Cut(rel, string(filepath.Separator))
		groups[name] = append(groups[name], s)
	}
	return groups, !c.skipped
}

// DiscoverProjectCached is DiscoverProject recording the folders it reads
// in c (begun afresh), for their stamps.
func DiscoverProjectCached(claudeDir, name string, c *DirCache) (*Tree, error) {
	c.begin()
	return discoverProject(claudeDir, name, c)
}
