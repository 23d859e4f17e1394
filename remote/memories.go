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
	local := map[string]*index.MemRow{}
	for _, r := range rows {
		local[r.ID] = r
	}
	var batch []*index.MemRow
	var deletes []string
	for _, m := range s.machines() {
		if m == s.c.Machine {
			continue
		}
		seen := s.st.MemSeen[m]
		if seen == nil {
			seen = map[string]string{}
			s.st.MemSeen[m] = seen
		}
		dir := s.machinePath(m, "memories")
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			id, ok := strings.CutSuffix(e.Name(), ".json")
			if !ok || !strings.HasPrefix(id, "m-") {
				continue
			}
			var f memFile
			if !s.readJSON(filepath.Join(dir, e.Name()), &f) {
				continue
			}
			L := local[id]
			if f.Deleted {
				if seen[id] == "deleted" {
					continue
				}
				seen[id] = "deleted"
				// Deleted there: deleted here, unless edited here since the
				// last sync (then it stays: nothing is lost).
				if L != nil && memHash(L) == s.st.MemBase[id] {
					deletes = append(deletes, id)
				}
				continue
			}
			R := f.Memory
			if R == nil || R.ID != id {
				s.warn("machines/%s/memories/%s is damaged (no memory %s in it): skipped", m, e.Name(), id)
				continue
			}
			h := memHash(R)
			if seen[id] == h {
				continue
			}
			seen[id] = h
			if gone.has(R.SourceSession, R.Project) {
				continue
			}
			if x, _ := s.a.Store.Excluded(ctx, R.Project); x && R.Project != "" {
				continue
			}
			switch {
			case L == nil:
				if s.st.MemBase[id] != "" {
					continue // deleted here since: this machine's deletion travels instead
				}
				batch = append(batch, R)
				local[id] = R
			case memHash(L) == h:
			case memHash(L) == s.st.MemBase[id]:
				// Changed there only: take it, keeping this machine's counters.
				R.AccessCount, R.LastAccess, R.Injected, R.Used = L.AccessCount, L.LastAccess, L.Injected, L.Used
				batch = append(batch, R)
				local[id] = R
			default:
				// Changed on both: both versions stay for review.
				cp := *R
				cp.ID = "m-" + shortHash(id, h)[:8]
				if local[cp.ID] != nil {
					continue
				}
				cp.Status = memories.Pending
				cp.Origin = OriginConflict
				cp.Tags = append(slices.Clone(R.Tags), "conflict", "from:"+m)
				cp.Links = []index.MemLink{{Kind: memories.Contradicts, Target: id}}
				batch = append(batch, &cp)
				local[cp.ID] = &cp
				s.res.Conflicts++
			}
		}
	}
	for _, id := range deletes {
		if err := s.a.Memories.Curator.Delete(ctx, id); err != nil && !isNotFound(err) {
			return err
		}
		s.res.MemPulled++
	}
	if len(batch) == 0 {
		return nil
	}
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
	// memories.Import checks every record (and redacts again) before it
	// writes any.
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
		p := filepath.Join(dir, r.ID+".json")
		before, _ := os.ReadFile(p)
		if err := writeJSON(p, memFile{Memory: portable(r)}); err != nil {
			return err
		}
		if after, _ := os.ReadFile(p); !bytes.Equal(before, after) {
			s.res.MemPushed++
		}
		written[r.ID] = true
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || written[id] {
			continue
		}
		var f memFile
		if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && json.Unmarshal(b, &f) == nil && f.Deleted && f.Memory == nil {
			continue
		}
		if err := writeJSON(filepath.Join(dir, e.Name()), memFile{Deleted: true}); err != nil {
			return err
		}
		s.res.MemPushed++
	}
	return nil
}
