package remote

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/transcripts"
)

// forgets is what this store forgot, for quick checks.
type forgets struct {
	sessions map[string]bool
	paths    []string
}

func (f *forgets) has(sid, project string) bool {
	if f.sessions[strings.ToLower(sid)] {
		return true
	}
	for _, p := range f.paths {
		if project == p || strings.HasPrefix(project, strings.TrimSuffix(p, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

func toForgets(ts []index.ForgetTarget) *forgets {
	f := &forgets{sessions: map[string]bool{}}
	for _, t := range ts {
		if t.Session != "" {
			f.sessions[strings.ToLower(t.Session)] = true
		} else if t.Project != "" {
			f.paths = append(f.paths, t.Project)
		}
	}
	return f
}

// pull applies the other machines' forgets, imports their sessions and
// memories, and indexes what came in.
func (s *syncer) pull(ctx context.Context) error {
	store := s.a.Store
	local, err := store.ForgetTargets(ctx)
	if err != nil {
		return err
	}
	for _, m := range s.machines() {
		if m == s.c.Machine {
			continue
		}
		var ts []tombstone
		if !s.readJSON(s.machinePath(m, "tombstones.json"), &ts) {
			continue
		}
		for _, t := range ts {
			var target index.ForgetTarget
			switch {
			case t.Kind == index.TombSession && transcripts.IsUUID(t.Key):
				target.Session = strings.ToLower(t.Key)
			case t.Kind == index.TombPath && filepath.IsAbs(t.Key):
				target.Project = t.Key
			default:
				s.warn("machines/%s/tombstones.json: %s %q is not a forget cairn knows: skipped", m, t.Kind, t.Key)
				continue
			}
			if hasTarget(local, target) {
				continue
			}
			if _, err := store.Forget(ctx, target); err != nil {
				return fmt.Errorf("forgetting %s%s (forgotten on %s): %w", target.Session, target.Project, m, err)
			}
			local = append(local, target)
			s.res.Forgotten++
			s.compact = true
		}
	}
	gone := toForgets(local)
	origins, err := store.SessionOrigins(ctx)
	if err != nil {
		return err
	}
	ours := map[string]bool{}
	all, err := store.Sessions(ctx, index.SessionFilter{})
	if err != nil {
		return err
	}
	for _, ss := range all {
		if _, ok := origins[ss.ID]; !ok {
			ours[ss.ID] = true
		}
	}
	// Imported sessions forgotten (here or elsewhere) lose their files.
	for m, imp := range s.st.Imported {
		for sid, im := range imp {
			if gone.has(sid, im.Project) {
				s.removeImported(m, sid, im)
			}
		}
	}
	for _, m := range s.machines() {
		if m == s.c.Machine {
			continue
		}
		var man manifest
		if !s.readJSON(s.machinePath(m, "manifest.json"), &man) {
			continue
		}
		if err := s.pullMachine(ctx, m, &man, gone, ours); err != nil {
			return err
		}
	}
	return s.pullMemories(ctx, gone)
}

// pullMachine imports machine m's sessions that are new or changed, drops
// those it no longer has, and indexes its tree.
func (s *syncer) pullMachine(ctx context.Context, m string, man *manifest, gone *forgets, ours map[string]bool) error {
	store := s.a.Store
	imp := s.st.Imported[m]
	if imp == nil {
		imp = map[string]imported{}
		s.st.Imported[m] = imp
	}
	root := store.MachineDir(m)
	changed := false
	sids := make([]string, 0, len(man.Sessions))
	for sid := range man.Sessions {
		sids = append(sids, sid)
	}
	sort.Strings(sids)
	for _, sid := range sids {
		ms := man.Sessions[sid]
		switch {
		case gone.has(sid, ms.Project), ours[sid]:
			continue
		case imp[sid].Bundle == ms.Bundle:
			continue
		case !transcripts.IsUUID(sid) || !validName(ms.Folder) || len(ms.Bundle) != 64:
			s.warn("machines/%s/manifest.json: session %q is not one cairn can read: skipped", m, sid)
			continue
		}
		if x, _ := store.Excluded(ctx, ms.Project); x {
			continue // opted out here too
		}
		file := filepath.Join(s.g.dir, filepath.FromSlash(bundleRel(ms.Bundle)))
		if err := os.MkdirAll(Dir(store.Dir()), 0o700); err != nil {
			return index.WritableError(store.Dir(), err)
		}
		rels, err := unpackBundle(file, ms.Bundle, ms.Folder, sid, filepath.Join(root, "projects"), Dir(store.Dir()))
		if err != nil {
			if len(rels) > 0 || !damagedBundle(err) {
				// Moving the files into place failed (a full disk): the
				// sync fails, and the next one unpacks it again.
				return fmt.Errorf("unpacking session %s from %s: %w", sid, m, err)
			}
			s.warn("session %s from %s: %v: skipped (what was imported before is kept)", sid, m, err)
			continue
		}
		for _, old := range imp[sid].Files {
			if !slices.Contains(rels, old) {
				os.Remove(filepath.Join(root, "projects", filepath.FromSlash(old)))
			}
		}
		if fi, err := os.Stat(file); err == nil {
			s.res.PulledBytes += fi.Size()
		}
		imp[sid] = imported{Bundle: ms.Bundle, Folder: ms.Folder, Project: ms.Project, Files: rels}
		s.res.PulledSessions++
		changed = true
	}
	// Sessions the machine no longer pushes (forgotten or opted out
	// there) are removed here, quietly: this machine does not publish a
	// forget of its own for them.
	for sid, im := range imp {
		if _, ok := man.Sessions[sid]; ok {
			continue
		}
		s.removeImported(m, sid, im)
		if _, err := store.Forget(ctx, index.ForgetTarget{Session: sid}); err != nil {
			return err
		}
		s.st.quiet(sid)
		s.res.Removed++
		s.res.Forgotten++
	}
	if !changed {
		return nil
	}
	s.o.Progress("indexing the sessions of " + m)
	b := *s.a
	b.Paths.ClaudeDir = root
	var folders []string
	ents, _ := os.ReadDir(filepath.Join(root, "projects"))
	for _, e := range ents {
		if e.IsDir() {
			folders = append(folders, e.Name())
		}
	}
	if _, err := b.Index(ctx, app.IndexOptions{Profile: app.Bulk, Projects: folders}); err != nil {
		return fmt.Errorf("indexing the sessions of %s (%s): %w", m, root, err)
	}
	return nil
}

// removeImported deletes an imported session's files.
func (s *syncer) removeImported(m, sid string, im imported) {
	root := s.a.Store.MachineDir(m)
	for _, f := range im.Files {
		os.Remove(filepath.Join(root, "projects", filepath.FromSlash(f)))
	}
	if im.Folder != "" {
		os.RemoveAll(filepath.Join(root, "projects", im.Folder, sid))
	}
	delete(s.st.Imported[m], sid)
}

// quiet records a session removed because its machine stopped pushing it:
// its tombstone is not published.
func (st *state) quiet(sid string) {
	if st.Quiet == nil {
		st.Quiet = map[string]bool{}
	}
	st.Quiet[strings.ToLower(sid)] = true
}

// push writes this machine's sessions (new and changed ones exported
// again), forgets and memories into the tree, and drops bundles no
// machine refers to.
func (s *syncer) push(ctx context.Context) error {
	store := s.a.Store
	me := s.c.Machine
	var prev manifest
	s.readJSON(s.machinePath(me, "manifest.json"), &prev)
	man := manifest{Version: 1, Machine: me, Sessions: map[string]manifestSession{}}
	origins, err := store.SessionOrigins(ctx)
	if err != nil {
		return err
	}
	all, err := store.Sessions(ctx, index.SessionFilter{})
	if err != nil {
		return err
	}
	need := map[string][]*transcripts.Session{} // project path -> sessions to export
	for _, ss := range all {
		if _, ok := origins[ss.ID]; ok {
			continue // another machine's: it pushes it
		}
		if x, _ := store.Excluded(ctx, ss.ProjectPath); x {
			s.res.Excluded++
			continue
		}
		if x, _ := store.Excluded(ctx, ss.CWD); x {
			s.res.Excluded++
			continue
		}
		if !validName(ss.Project) {
			continue
		}
		sig := sessionSig(ss)
		if p, ok := prev.Sessions[ss.ID]; ok && p.Sig == sig && s.size(bundleRel(p.Bundle)) == p.Bytes {
			man.Sessions[ss.ID] = p
			s.res.KeptSessions++
			continue
		}
		need[ss.ProjectPath] = append(need[ss.ProjectPath], ss)
	}
	projects := make([]string, 0, len(need))
	for p := range need {
		projects = append(projects, p)
	}
	sort.Strings(projects)
	tmp, err := os.MkdirTemp(Dir(store.Dir()), "export-")
	if err != nil {
		return index.WritableError(store.Dir(), err)
	}
	defer os.RemoveAll(tmp)
	for i, p := range projects {
		dir := filepath.Join(tmp, fmt.Sprint(i))
		s.o.Progress(fmt.Sprintf("exporting %d sessions of %s", len(need[p]), p))
		if _, err := s.a.ExportSessions(ctx, dir, p); err != nil {
			return fmt.Errorf("exporting the sessions of %s: %w", p, err)
		}
		for _, ss := range need[p] {
			files, err := sessionFiles(dir, ss.Project, ss.ID)
			if err != nil {
				return err
			}
			if len(files) == 0 {
				continue
			}
			gz, hash, err := makeBundle(dir, files)
			if err != nil {
				return err
			}
			rel := bundleRel(hash)
			if s.size(rel) != int64(len(gz)) { // new, or damaged in the remote
				if err := writeAtomic(filepath.Join(s.g.dir, filepath.FromSlash(rel)), gz); err != nil {
					return err
				}
				s.res.PushedSessions++
				s.res.PushedBytes += int64(len(gz))
			}
			man.Sessions[ss.ID] = manifestSession{Bundle: hash, Folder: ss.Project, Project: ss.ProjectPath, Sig: sessionSig(ss), Bytes: int64(len(gz))}
		}
		os.RemoveAll(dir)
	}
	if err := writeJSON(s.machinePath(me, "manifest.json"), man); err != nil {
		return err
	}
	if err := s.pushTombstones(ctx); err != nil {
		return err
	}
	if err := s.pushMemories(ctx); err != nil {
		return err
	}
	return s.dropUnreferenced()
}

// size is the size of a repository file, -1 when there is none.
func (s *syncer) size(rel string) int64 {
	fi, err := os.Stat(filepath.Join(s.g.dir, filepath.FromSlash(rel)))
	if err != nil {
		return -1
	}
	return fi.Size()
}

// sessionSig changes when anything a session's export holds changes.
func sessionSig(ss *transcripts.Session) string {
	return shortHash(fmt.Sprint(ss.Entries, ss.Start.UnixNano(), ss.End.UnixNano(), len(ss.Subagents), ss.Title, ss.TitleSource, ss.ProjectPath, ss.MainFileEmpty))[:16]
}

// pushTombstones writes this machine's forgets; a new one replaces the
// history after the push (compact).
func (s *syncer) pushTombstones(ctx context.Context) error {
	targets, err := s.a.Store.ForgetTargets(ctx)
	if err != nil {
		return err
	}
	ts := []tombstone{}
	for _, t := range targets {
		switch {
		case t.Session != "" && !s.st.Quiet[strings.ToLower(t.Session)]:
			ts = append(ts, tombstone{Kind: index.TombSession, Key: t.Session})
		case t.Project != "":
			ts = append(ts, tombstone{Kind: index.TombPath, Key: t.Project})
		}
	}
	var prev []tombstone
	s.readJSON(s.machinePath(s.c.Machine, "tombstones.json"), &prev)
	for _, t := range ts {
		if !slices.Contains(prev, t) {
			s.compact = true
		}
	}
	return writeJSON(s.machinePath(s.c.Machine, "tombstones.json"), ts)
}

// dropUnreferenced deletes the bundles no machine's manifest names.
func (s *syncer) dropUnreferenced() error {
	ref := map[string]bool{}
	for _, m := range s.machines() {
		var man manifest
		if !s.readJSON(s.machinePath(m, "manifest.json"), &man) {
			// A damaged manifest: keep every bundle (nothing lost).
			return nil
		}
		for _, ms := range man.Sessions {
			ref[ms.Bundle+".tar.gz"] = true
		}
	}
	root := filepath.Join(s.g.dir, "sessions")
	return filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if !ref[d.Name()] {
			return os.Remove(p)
		}
		return nil
	})
}
