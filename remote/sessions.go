package remote

import (
	"context"
	"fmt"
	"maps"
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
	local, err := s.applyTombstones(ctx)
	if err != nil {
		return err
	}
	gone := toForgets(local)
	ours, err := s.ourSessions(ctx)
	if err != nil {
		return err
	}
	s.removeForgotten(gone)
	for _, m := range s.others() {
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

// removeForgotten deletes the files of the imported sessions forgotten,
// here or elsewhere.
func (s *syncer) removeForgotten(gone *forgets) {
	for m, imp := range s.st.Imported {
		for sid, im := range imp {
			if gone.has(sid, im.Project) {
				s.removeImported(m, sid, im)
			}
		}
	}
}

// applyTombstones forgets here what the other machines forgot, and
// returns every forget the store now holds.
func (s *syncer) applyTombstones(ctx context.Context) ([]index.ForgetTarget, error) {
	local, err := s.a.Store.ForgetTargets(ctx)
	if err != nil {
		return nil, err
	}
	for _, m := range s.others() {
		var ts []tombstone
		if !s.readJSON(s.machinePath(m, "tombstones.json"), &ts) {
			continue
		}
		for _, t := range ts {
			target, ok := s.tombstoneTarget(m, t)
			if !ok || hasTarget(local, target) {
				continue
			}
			if _, err := s.a.Store.Forget(ctx, target); err != nil {
				return nil, fmt.Errorf("forgetting %s%s (forgotten on %s): %w", target.Session, target.Project, m, err)
			}
			local = append(local, target)
			s.res.Forgotten++
			s.compact = true
		}
	}
	return local, nil
}

// tombstoneTarget is the forget machine m's tombstone t asks for, or a
// warning when it is not one cairn knows.
func (s *syncer) tombstoneTarget(m string, t tombstone) (index.ForgetTarget, bool) {
	switch {
	case t.Kind == index.TombSession && transcripts.IsUUID(t.Key):
		return index.ForgetTarget{Session: strings.ToLower(t.Key)}, true
	case t.Kind == index.TombPath && filepath.IsAbs(t.Key):
		return index.ForgetTarget{Project: t.Key}, true
	}
	s.warn("machines/%s/tombstones.json: %s %q is not a forget cairn knows: skipped", m, t.Kind, t.Key)
	return index.ForgetTarget{}, false
}

// ourSessions is the set of sessions this machine recorded itself (no
// other machine is their origin).
func (s *syncer) ourSessions(ctx context.Context) (map[string]bool, error) {
	origins, err := s.a.Store.SessionOrigins(ctx)
	if err != nil {
		return nil, err
	}
	all, err := s.a.Store.Sessions(ctx, index.SessionFilter{})
	if err != nil {
		return nil, err
	}
	ours := map[string]bool{}
	for _, ss := range all {
		if _, ok := origins[ss.ID]; !ok {
			ours[ss.ID] = true
		}
	}
	return ours, nil
}

// pullMachine imports machine m's sessions that are new or changed, drops
// those it no longer has, and indexes its tree.
func (s *syncer) pullMachine(ctx context.Context, m string, man *manifest, gone *forgets, ours map[string]bool) error {
	imp := submap(s.st.Imported, m)
	changed := false
	for _, sid := range slices.Sorted(maps.Keys(man.Sessions)) {
		ms := man.Sessions[sid]
		if gone.has(sid, ms.Project) || ours[sid] || imp[sid].Bundle == ms.Bundle {
			continue // forgotten, recorded here, or imported as it is
		}
		got, err := s.importSession(ctx, m, sid, ms, imp)
		if err != nil {
			return err
		}
		changed = changed || got
	}
	if err := s.dropUnpushed(ctx, m, man, imp); err != nil {
		return err
	}
	if !changed {
		return nil
	}
	return s.indexMachine(ctx, m)
}

// importSession unpacks machine m's session sid from its bundle, and says
// whether it did (a session cairn cannot read, or opted out here, is
// skipped).
func (s *syncer) importSession(ctx context.Context, m, sid string, ms manifestSession, imp map[string]imported) (bool, error) {
	store := s.a.Store
	if !ms.readable(sid) {
		s.warn("machines/%s/manifest.json: session %q is not one cairn can read: skipped", m, sid)
		return false, nil
	}
	if x, _ := store.Excluded(ctx, ms.Project); x {
		return false, nil // opted out here too
	}
	root := store.MachineDir(m)
	file := filepath.Join(s.g.dir, filepath.FromSlash(bundleRel(ms.Bundle)))
	if err := os.MkdirAll(Dir(store.Dir()), 0o700); err != nil {
		return false, index.WritableError(store.Dir(), err)
	}
	rels, err := unpackBundle(file, ms.Bundle, ms.Folder, sid, filepath.Join(root, "projects"), Dir(store.Dir()))
	if err != nil {
		return false, s.unpackFailed(m, sid, rels, err)
	}
	removeDropped(filepath.Join(root, "projects"), imp[sid].Files, rels)
	if fi, err := os.Stat(file); err == nil {
		s.res.PulledBytes += fi.Size()
	}
	imp[sid] = imported{Bundle: ms.Bundle, Folder: ms.Folder, Project: ms.Project, Files: rels}
	s.res.PulledSessions++
	return true, nil
}

// readable says a manifest's session sid is one cairn can import: a
// session id, a folder name that stays in its directory, a bundle named
// by its SHA-256.
func (ms manifestSession) readable(sid string) bool {
	return transcripts.IsUUID(sid) && validName(ms.Folder) && len(ms.Bundle) == 64
}

// unpackFailed is what a failed unpack does to the sync. A damaged
// bundle, of which nothing was moved, is a warning: the session is
// skipped and what was imported before is kept. Moving the files into
// place failed (a full disk): the sync fails, and the next one unpacks it
// again.
func (s *syncer) unpackFailed(m, sid string, moved []string, err error) error {
	if len(moved) > 0 || !damagedBundle(err) {
		return fmt.Errorf("unpacking session %s from %s: %w", sid, m, err)
	}
	s.warn("session %s from %s: %v: skipped (what was imported before is kept)", sid, m, err)
	return nil
}

// removeDropped deletes, under dir, the files of a session's previous
// import that its new bundle no longer has.
func removeDropped(dir string, before, now []string) {
	for _, old := range before {
		if !slices.Contains(now, old) {
			os.Remove(filepath.Join(dir, filepath.FromSlash(old)))
		}
	}
}

// dropUnpushed removes the sessions machine m no longer pushes (forgotten
// or opted out there), quietly: this machine does not publish a forget of
// its own for them.
func (s *syncer) dropUnpushed(ctx context.Context, m string, man *manifest, imp map[string]imported) error {
	for sid, im := range imp {
		if _, ok := man.Sessions[sid]; ok {
			continue
		}
		s.removeImported(m, sid, im)
		if _, err := s.a.Store.Forget(ctx, index.ForgetTarget{Session: sid}); err != nil {
			return err
		}
		s.st.quiet(sid)
		s.res.Removed++
		s.res.Forgotten++
	}
	return nil
}

// indexMachine indexes the tree of machine m's imported sessions.
func (s *syncer) indexMachine(ctx context.Context, m string) error {
	s.o.Progress("indexing the sessions of " + m)
	root := s.a.Store.MachineDir(m)
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
	me := s.c.Machine
	var prev manifest
	s.readJSON(s.machinePath(me, "manifest.json"), &prev)
	man := manifest{Version: 1, Machine: me, Sessions: map[string]manifestSession{}}
	need, err := s.toExport(ctx, &prev, &man)
	if err != nil {
		return err
	}
	if err := s.exportAll(ctx, need, &man); err != nil {
		return err
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

// toExport is, by project path, this machine's sessions that are new or
// changed since the last push; the unchanged ones go into man as they
// were in prev.
func (s *syncer) toExport(ctx context.Context, prev, man *manifest) (map[string][]*transcripts.Session, error) {
	store := s.a.Store
	origins, err := store.SessionOrigins(ctx)
	if err != nil {
		return nil, err
	}
	all, err := store.Sessions(ctx, index.SessionFilter{})
	if err != nil {
		return nil, err
	}
	need := map[string][]*transcripts.Session{} // project path -> sessions to export
	for _, ss := range all {
		if _, ok := origins[ss.ID]; ok {
			continue // another machine's: it pushes it
		}
		if s.excluded(ctx, ss) {
			s.res.Excluded++
			continue
		}
		if !validName(ss.Project) {
			continue
		}
		if p, ok := s.pushedAsIs(prev, ss); ok {
			man.Sessions[ss.ID] = p
			s.res.KeptSessions++
			continue
		}
		need[ss.ProjectPath] = append(need[ss.ProjectPath], ss)
	}
	return need, nil
}

// pushedAsIs is ss as the previous push recorded it in prev, when that
// push still holds: the session has not changed since and its bundle is
// in the tree whole.
func (s *syncer) pushedAsIs(prev *manifest, ss *transcripts.Session) (manifestSession, bool) {
	p, ok := prev.Sessions[ss.ID]
	return p, ok && p.Sig == sessionSig(ss) && s.size(bundleRel(p.Bundle)) == p.Bytes
}

// excluded says whether the person opted ss's project or folder out.
func (s *syncer) excluded(ctx context.Context, ss *transcripts.Session) bool {
	if x, _ := s.a.Store.Excluded(ctx, ss.ProjectPath); x {
		return true
	}
	x, _ := s.a.Store.Excluded(ctx, ss.CWD)
	return x
}

// exportAll exports the sessions of need, project by project, into
// bundles of the tree, and records them in man.
func (s *syncer) exportAll(ctx context.Context, need map[string][]*transcripts.Session, man *manifest) error {
	projects := make([]string, 0, len(need))
	for p := range need {
		projects = append(projects, p)
	}
	sort.Strings(projects)
	store := s.a.Store
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
			if err := s.bundle(dir, ss, man); err != nil {
				return err
			}
		}
		os.RemoveAll(dir)
	}
	return nil
}

// bundle packs session ss's exported files under dir into a bundle of the
// tree (written when the remote lacks it) and records it in man.
func (s *syncer) bundle(dir string, ss *transcripts.Session, man *manifest) error {
	files, err := sessionFiles(dir, ss.Project, ss.ID)
	if err != nil || len(files) == 0 {
		return err
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
	return nil
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
