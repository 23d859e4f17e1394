package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/memories"
)

// OriginConflict marks the other machine's version of a memory edited on
// two machines: a pending memory beside the local one, linked to it, for
// review (approve it, merge the two, or reject it).
const OriginConflict = "remote-conflict"

// memFile is machines/<name>/memories/<id>.json.
type memFile struct {
	Memory  *index.MemRow `json:"memory,omitempty"`
	Deleted bool          `json:"deleted,omitempty"`
}

// memHash is a memory's reviewed state: what a person decides (text,
// type, tags, importance, status, project, links), not its use counters.
func memHash(r *index.MemRow) string {
	links := make([]string, 0, len(r.Links))
	for _, l := range r.Links {
		links = append(links, string(l.Kind)+">"+l.Target)
	}
	slices.Sort(links)
	tags := slices.Clone(r.Tags)
	slices.Sort(tags)
	return shortHash(r.ID, r.Project, string(r.Type), r.Content, strings.Join(tags, ","), string(rune('0'+r.Importance)),
		string(r.Status), r.SourceSession, strings.Join(links, ","))
}

// pushed reports whether a memory travels: reviewed ones (a pending
// memory is this machine's extraction, its inbox) and conflict copies.
func pushed(r *index.MemRow) bool {
	return r.Status != memories.Pending || r.Origin == OriginConflict
}

// portable is the file form of r: without the counters that change on
// every injection (they stay per machine).
func portable(r *index.MemRow) *index.MemRow {
	c := *r
	c.AccessCount, c.Injected, c.Used = 0, 0, 0
	c.LastAccess = c.Created
	if c.Tags == nil {
		c.Tags = []string{}
	}
	if c.SourceUUIDs == nil {
		c.SourceUUIDs = []string{}
	}
	if c.Links == nil {
		c.Links = []index.MemLink{}
	}
	return &c
}

// pullMemories applies the other machines' memories: new ones are added,
// a version edited only there replaces the local one, a version edited on
// both sides is kept beside the local one as a pending conflict copy, a
// deletion deletes (to the trash) a memory not edited here since.
func (s *syncer) pullMemories(ctx context.Context, gone *forgets) error {
	rows, err := s.a.Store.Mem().Query(ctx, index.MemFilter{})
	if err != nil {
		return err
	}
	p := &memPull{s: s, gone: gone, local: map[string]*index.MemRow{}}
	for _, r := range rows {
		p.local[r.ID] = r
	}
	for _, m := range s.others() {
		p.machine(ctx, m)
	}
	for _, id := range p.deletes {
		if err := s.a.Memories.Curator.Delete(ctx, id); err != nil && !isNotFound(err) {
			return err
		}
		s.res.MemPulled++
	}
	if len(p.batch) == 0 {
		return nil
	}
	return s.importMemories(ctx, p.batch)
}

// memPull is what pullMemories gathers from the other machines' files.
type memPull struct {
	s       *syncer
	gone    *forgets
	local   map[string]*index.MemRow // this store's memories, and those pulled so far
	batch   []*index.MemRow          // to import
	deletes []string                 // to delete
}

// machine reads machine m's memory files not seen since the last sync.
func (p *memPull) machine(ctx context.Context, m string) {
	seen := submap(p.s.st.MemSeen, m)
	dir := p.s.machinePath(m, "memories")
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if id, ok := memFileID(e.Name()); ok {
			p.file(ctx, m, filepath.Join(dir, e.Name()), id, seen)
		}
	}
}

// memFileID is the memory id a file of a machine's memories/ holds
// ("m-….json"); other names are not memory files.
func memFileID(name string) (string, bool) {
	id, ok := strings.CutSuffix(name, ".json")
	return id, ok && strings.HasPrefix(id, "m-")
}

// file takes machine m's file for memory id, unless it is unchanged
// since seen, damaged, or kept out of this store.
func (p *memPull) file(ctx context.Context, m, path, id string, seen map[string]string) {
	var f memFile
	if !p.s.readJSON(path, &f) {
		return
	}
	if f.Deleted {
		p.deleted(id, seen)
		return
	}
	R := f.Memory
	if R == nil || R.ID != id {
		p.s.warn("machines/%s/memories/%s is damaged (no memory %s in it): skipped", m, filepath.Base(path), id)
		return
	}
	h := memHash(R)
	if seen[id] == h {
		return
	}
	seen[id] = h
	if p.keptOut(ctx, R) {
		return
	}
	p.merge(m, R, h)
}

// keptOut says R must not come into this store: its session was
// forgotten, or its project is excluded here.
func (p *memPull) keptOut(ctx context.Context, R *index.MemRow) bool {
	if p.gone.has(R.SourceSession, R.Project) {
		return true
	}
	x, _ := p.s.a.Store.Excluded(ctx, R.Project)
	return x && R.Project != ""
}

// deleted takes a deletion there, once: the memory is deleted here,
// unless edited here since the last sync (then it stays: nothing is
// lost).
func (p *memPull) deleted(id string, seen map[string]string) {
	if seen[id] == "deleted" {
		return
	}
	seen[id] = "deleted"
	if L := p.local[id]; L != nil && memHash(L) == p.s.st.MemBase[id] {
		p.deletes = append(p.deletes, id)
	}
}

// merge takes machine m's version R (hashing to h) of a memory: new here
// it is added, changed there only it replaces the local one, changed on
// both sides it is kept beside it as a pending conflict copy.
func (p *memPull) merge(m string, R *index.MemRow, h string) {
	id := R.ID
	L := p.local[id]
	base := p.s.st.MemBase[id]
	switch {
	case L == nil:
		if base != "" {
			return // deleted here since: this machine's deletion travels instead
		}
		p.take(R)
	case memHash(L) == h:
	case memHash(L) == base:
		// Changed there only: take it, keeping this machine's counters.
		R.AccessCount, R.LastAccess, R.Injected, R.Used = L.AccessCount, L.LastAccess, L.Injected, L.Used
		p.take(R)
	default:
		// Changed on both: both versions stay for review.
		cp := *R
		cp.ID = "m-" + shortHash(id, h)[:8]
		if p.local[cp.ID] != nil {
			return
		}
		cp.Status = memories.Pending
		cp.Origin = OriginConflict
		cp.Tags = append(slices.Clone(R.Tags), "conflict", "from:"+m)
		cp.Links = []index.MemLink{{Kind: memories.Contradicts, Target: id}}
		p.take(&cp)
		p.s.res.Conflicts++
	}
}

// take queues r for import, and counts it as local from now on.
func (p *memPull) take(r *index.MemRow) {
	p.batch = append(p.batch, r)
	p.local[r.ID] = r
}

// importMemories imports batch through memories.Import, which checks
// every record (and redacts again) before it writes any.
func (s *syncer) importMemories(ctx context.Context, batch []*index.MemRow) error {
	var buf bytes.Buffer
	buf.WriteString(`{"kind":"cairn-export","version":1}` + "\n")
	for _, r := range batch {
		b, err := json.Marshal(map[string]any{"kind": "memory", "memory": portableIn(r)})
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	if _, err := s.a.Memories.Sync.Import(ctx, &buf); err != nil {
		return err
	}
	s.res.MemPulled += len(batch)
	return nil
}

// portableIn is r as Import takes it (lists never null).
func portableIn(r *index.MemRow) *index.MemRow {
	c := *r
	if c.Tags == nil {
		c.Tags = []string{}
	}
	if c.SourceUUIDs == nil {
		c.SourceUUIDs = []string{}
	}
	if c.Links == nil {
		c.Links = []index.MemLink{}
	}
	return &c
}

func isNotFound(err error) bool { return errors.Is(err, memories.ErrNotFound) }

// pushMemories writes this machine's reviewed memories, one file each, and
// a deletion for each it pushed before and no longer has.
func (s *syncer) pushMemories(ctx context.Context) error {
	rows, err := s.a.Store.Mem().Query(ctx, index.MemFilter{})
	if err != nil {
		return err
	}
	dir := s.machinePath(s.c.Machine, "memories")
	written := map[string]bool{}
	sort.Slice(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
	for _, r := range rows {
		s.st.MemBase[r.ID] = memHash(r)
		if !pushed(r) {
			continue
		}
		if x, _ := s.a.Store.Excluded(ctx, r.Project); x && r.Project != "" {
			continue
		}
		if err := s.pushMemory(dir, r); err != nil {
			return err
		}
		written[r.ID] = true
	}
	return s.pushDeletions(dir, written)
}

// pushMemory writes memory r's file into dir, counting it pushed when its
// bytes changed.
func (s *syncer) pushMemory(dir string, r *index.MemRow) error {
	p := filepath.Join(dir, r.ID+".json")
	before, _ := os.ReadFile(p)
	if err := writeJSON(p, memFile{Memory: portable(r)}); err != nil {
		return err
	}
	if after, _ := os.ReadFile(p); !bytes.Equal(before, after) {
		s.res.MemPushed++
	}
	return nil
}

// pushDeletions turns every memory file of dir not written by this push
// into a deletion (once: a deletion already there is left as it is).
func (s *syncer) pushDeletions(dir string, written map[string]bool) error {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || written[id] {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if isDeletion(p) {
			continue
		}
		if err := writeJSON(p, memFile{Deleted: true}); err != nil {
			return err
		}
		s.res.MemPushed++
	}
	return nil
}

// isDeletion says the memory file at path already holds a deletion.
func isDeletion(path string) bool {
	var f memFile
	b, err := os.ReadFile(path)
	return err == nil && json.Unmarshal(b, &f) == nil && f.Deleted && f.Memory == nil
}
