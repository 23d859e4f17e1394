package index

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/transcripts"
)

// The survey snapshot (survey.snap beside the store) is the whole tree's
// stamps as the last whole-tree refresh saw them: every folder discovery
// reads with its modification time, every transcript file with its size
// and modification time, and whether the store held it to its end then
// (quiet), grouped by project folder. A refresh of the whole tree then
// stats each of them again (transcripts.ChangedGroups), and only the
// project folders where one moved are listed, looked up and planned, as a
// sync limited to them (SyncOptions.Projects): a file appended to is not
// quiet at its new size, a file created, removed or renamed changes its
// folder's time, a project folder created or removed changes the
// projects folder's. At 10 GB (14,010 files, 7,591 folders) a refresh
// that finds nothing new no longer lists the tree, reads the folder
// cache and the files snapshot, or plans 14,010 files: it is the 21,601
// stats alone.
//
// The store's side is that of the files snapshot (filesnap.go): a sync
// only moves a row forward, so a file on disk as it was when its row said
// it was read to its end still has nothing new; every other change to the
// files table draws a new files epoch, which retires this snapshot too,
// and so does a table whose largest id is below the snapshot's; a restore
// moves it aside (derivedNames). A tree with a folder that could not be
// read or recorded gets no snapshot (every refresh surveys it whole).

// surveySnapName is the snapshot's file name in the data dir.
const surveySnapName = "survey.snap"

const surveySnapMagic = "cairn-survey v1"

// surveySnap is a loaded (or made) survey snapshot.
type surveySnap struct {
	epoch     string
	maxID     int64
	claudeDir string
	root      transcripts.Stamp // the projects folder
	rootTaken int64             // when its listing was taken (unix ns)
	projects  []transcripts.StampGroup
}

func (s *Store) surveySnapPath() string { return filepath.Join(s.Dir(), surveySnapName) }

// loadSurveySnap reads the survey snapshot of claudeDir; nil when there is
// none, or it is not the store's as it is now.
func (s *Store) loadSurveySnap(ctx context.Context, claudeDir string) *surveySnap {
	b, err := os.ReadFile(s.surveySnapPath())
	if err != nil {
		return nil
	}
	sv := parseSurveySnap(b)
	if sv == nil || sv.claudeDir != claudeDir || sv.epoch != s.filesEpoch(ctx, false) {
		return nil
	}
	var top sql.NullInt64
	if err := s.r.QueryRowContext(ctx, `SELECT max(id) FROM files`).Scan(&top); err != nil || top.Int64 < sv.maxID {
		return nil
	}
	return sv
}

// The snapshot's lines, tab-separated: a header (magic, epoch, max id,
// the projects folder's time, when it was listed, claudeDir); then for
// each project folder "P taken name", and its stamps: "d mtime path" for
// a folder, "q size mtime path" for a quiet file, "f size mtime path" for
// any other.

// parseSurveySnap parses what marshal wrote; nil when it cannot.
func parseSurveySnap(b []byte) *surveySnap {
	head, rest, ok := strings.Cut(string(b), "\n")
	if !ok {
		return nil
	}
	sv := parseSurveyHead(head)
	if sv == nil || !sv.parseGroups(rest) {
		return nil
	}
	return sv
}

// parseSurveyHead parses the snapshot's first line; nil when it cannot.
func parseSurveyHead(head string) *surveySnap {
	f := strings.Split(head, "\t")
	if len(f) != 6 || f[0] != surveySnapMagic {
		return nil
	}
	n, ok := parseInts(f[2:5])
	if !ok {
		return nil
	}
	return &surveySnap{epoch: f[1], maxID: n[0], claudeDir: f[5], rootTaken: n[2],
		root: transcripts.Stamp{Path: filepath.Join(f[5], "projects"), Dir: true, MTime: n[1]}}
}

// parseGroups parses the project folders' lines, each followed by its
// stamps; false when it cannot.
func (sv *surveySnap) parseGroups(rest string) bool {
	sv.projects = make([]transcripts.StampGroup, 0, strings.Count(rest, "\nP\t")+1)
	var g *transcripts.StampGroup
	for len(rest) > 0 {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		kind, line, _ := strings.Cut(line, "\t")
		a, line, _ := strings.Cut(line, "\t")
		x, err := strconv.ParseInt(a, 10, 64)
		if err != nil || line == "" {
			return false
		}
		if kind == "P" {
			sv.projects = append(sv.projects, transcripts.StampGroup{Name: line, Taken: x})
			g = &sv.projects[len(sv.projects)-1]
			continue
		}
		if g == nil {
			return false
		}
		st, ok := parseStamp(kind, x, line)
		if !ok {
			return false
		}
		g.Stamps = append(g.Stamps, st)
	}
	return true
}

// parseStamp parses a stamp line of kind "d" (x its mtime, rest its path),
// "q" or "f" (x its size, rest its mtime and path); false when it cannot.
func parseStamp(kind string, x int64, rest string) (transcripts.Stamp, bool) {
	switch kind {
	case "d":
		return transcripts.Stamp{Dir: true, Path: rest, MTime: x}, true
	case "q", "f":
		m, path, _ := strings.Cut(rest, "\t")
		mtime, err := strconv.ParseInt(m, 10, 64)
		if err != nil || path == "" {
			return transcripts.Stamp{}, false
		}
		return transcripts.Stamp{Size: x, Path: path, Quiet: kind == "q", MTime: mtime}, true
	}
	return transcripts.Stamp{}, false
}

func parseInts(fields []string) ([]int64, bool) {
	out := make([]int64, len(fields))
	for i, f := range fields {
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// marshal writes the snapshot; nil when a name cannot be written in it.
// It is written again by each refresh that found something moved (a live
// session's file grown): 3.4 MB at 10 GB, appended in one buffer.
func (sv *surveySnap) marshal() []byte {
	b := make([]byte, 0, sv.sizeHint())
	ok := writable(sv.epoch) && writable(sv.claudeDir)
	b = append(b, surveySnapMagic+"\t"...)
	b = append(b, sv.epoch...)
	for _, v := range [...]int64{sv.maxID, sv.root.MTime, sv.rootTaken} {
		b = strconv.AppendInt(append(b, '\t'), v, 10)
	}
	b = append(append(append(b, '\t'), sv.claudeDir...), '\n')
	for _, g := range sv.projects {
		ok = ok && writable(g.Name)
		b = strconv.AppendInt(append(b, "P\t"...), g.Taken, 10)
		b = append(append(append(b, '\t'), g.Name...), '\n')
		for _, st := range g.Stamps {
			ok = ok && writable(st.Path)
			b = appendStamp(b, st)
		}
	}
	if !ok {
		return nil
	}
	return b
}

// sizeHint is about the size of the marshalled snapshot, a little over.
func (sv *surveySnap) sizeHint() int {
	size := len(sv.epoch) + len(sv.claudeDir) + 100
	for _, g := range sv.projects {
		size += len(g.Name) + 24
		for _, st := range g.Stamps {
			size += len(st.Path) + 44
		}
	}
	return size
}

// appendStamp appends st's line: "d mtime path" for a folder, "q size
// mtime path" for a quiet file, "f size mtime path" for any other.
func appendStamp(b []byte, st transcripts.Stamp) []byte {
	switch {
	case st.Dir:
		b = append(b, 'd')
	case st.Quiet:
		b = append(b, 'q')
	default:
		b = append(b, 'f')
	}
	if !st.Dir {
		b = strconv.AppendInt(append(b, '\t'), st.Size, 10)
	}
	b = strconv.AppendInt(append(b, '\t'), st.MTime, 10)
	return append(append(append(b, '\t'), st.Path...), '\n')
}

// writable reports whether a name can be a field of the snapshot.
func writable(s string) bool {
	return s != "" && strings.IndexByte(s, '\t') < 0 && strings.IndexByte(s, '\n') < 0
}

// write writes the snapshot (best effort); an unwritable one removes the
// old, which is then out of date.
func (s *Store) writeSurveySnap(sv *surveySnap) {
	if s.readOnly {
		return
	}
	if b := sv.marshal(); b != nil {
		writeFileAtomic(s.surveySnapPath(), b)
		return
	}
	os.Remove(s.surveySnapPath())
}

// stampGroups are the stamps of the tree's project folders: the folders
// discovery recorded in c (grouped by project folder), and each project's
// transcript files, quiet when known says the store holds them to their
// end as they are. ok is false when something could not be recorded.
func stampGroups(tree *transcripts.Tree, c *transcripts.DirCache, known map[string]knownFile) (root transcripts.Stamp, groups []transcripts.StampGroup, ok bool) {
	if len(tree.Problems) > 0 {
		return root, nil, false
	}
	rootPath := filepath.Join(tree.ClaudeDir, "projects")
	folders, ok := c.FolderStamps(rootPath)
	if !ok || len(folders[""]) != 1 {
		return root, nil, false
	}
	root = folders[""][0]
	files := map[string][]transcripts.File{}
	for _, p := range tree.Projects {
		files[p.Name] = p.Files
	}
	taken := c.Started()
	gone := goneStamps(rootPath, tree, known)
	for name := range gone {
		if _, ok := folders[name]; !ok {
			folders[name] = nil // a project folder gone: its files' stamps
		}
	}
	for name, dirs := range folders {
		if name == "" {
			continue
		}
		groups = append(groups, transcripts.StampGroup{Name: name, Taken: taken, Stamps: append(fileStamps(dirs, files[name], known), gone[name]...)})
	}
	slices.SortFunc(groups, func(a, b transcripts.StampGroup) int { return strings.Compare(a.Name, b.Name) })
	return root, groups, true
}

// goneStamps are, by project folder, stamps of the files under root that
// known holds as present and the tree does not have: gone, but not yet
// marked missing (the sync that follows this survey does it). Their stat
// fails, so the next survey looks at their project folder again, until a
// sync has marked them missing.
func goneStamps(root string, tree *transcripts.Tree, known map[string]knownFile) map[string][]transcripts.Stamp {
	prefix := root + string(filepath.Separator)
	inTree := make(map[string]bool, len(known))
	for _, p := range tree.Projects {
		for i := range p.Files {
			inTree[p.Files[i].Path] = true
		}
	}
	out := map[string][]transcripts.Stamp{}
	for path, k := range known {
		rel, under := strings.CutPrefix(path, prefix)
		if !k.present || !under || inTree[path] {
			continue
		}
		name, _, _ := strings.Cut(rel, string(filepath.Separator))
		out[name] = append(out[name], transcripts.Stamp{Path: path, Size: k.size, MTime: k.mtime})
	}
	return out
}

// fileStamps are a project folder's stamps: its folders', then its files'.
func fileStamps(dirs []transcripts.Stamp, files []transcripts.File, known map[string]knownFile) []transcripts.Stamp {
	out := slices.Grow(slices.Clone(dirs), len(files))
	for i := range files {
		f := &files[i]
		k, ok := known[f.Path]
		quiet := ok && k.readThrough(f)
		out = append(out, transcripts.Stamp{Path: f.Path, Size: f.Size, MTime: f.ModTime.UnixNano(), Quiet: quiet})
	}
	return out
}

// quickSurvey is a whole-tree survey from the survey snapshot: nil when
// there is none (or the projects folder cannot be read: the whole survey
// says why); otherwise quiet when no stamp moved, else the survey of the
// project folders where one did, which then writes the snapshot again
// with their new stamps.
func (s *Store) quickSurvey(ctx context.Context, claudeDir string) *survey {
	snap := s.loadSurveySnap(ctx, claudeDir)
	if snap == nil {
		return nil
	}
	changed, ok := movedFolders(claudeDir, snap)
	if !ok {
		return nil
	}
	for _, i := range transcripts.ChangedGroups(snap.projects) {
		changed[snap.projects[i].Name] = true
	}
	files := unchangedFiles(snap, changed)
	if len(changed) == 0 {
		sv := &survey{claudeDir: claudeDir, done: make(chan struct{}), quiet: true, unchangedFiles: files}
		close(sv.done)
		return sv
	}
	names := make([]string, 0, len(changed))
	for n := range changed {
		names = append(names, n)
	}
	slices.Sort(names)
	sv := &survey{claudeDir: claudeDir, done: make(chan struct{}), projects: names, unchangedFiles: files}
	go func() {
		defer close(sv.done)
		sv.tree, sv.known, sv.err = s.surveyProjects(ctx, claudeDir, names, snap)
	}()
	return sv
}

// movedFolders is the set of project folders that came or went since the
// snapshot, when the projects folder changed since (snap then takes its
// new stamp); false when it cannot be read.
func movedFolders(claudeDir string, snap *surveySnap) (map[string]bool, bool) {
	changed := map[string]bool{}
	if snap.root.Holds(snap.rootTaken - int64(1e9)) {
		return changed, true
	}
	root, taken, names, err := transcripts.ProjectFolders(claudeDir)
	if err != nil {
		return nil, false
	}
	had := map[string]bool{}
	for _, g := range snap.projects {
		had[g.Name] = true
		if !slices.Contains(names, g.Name) {
			changed[g.Name] = true // gone: its files are missing
		}
	}
	for _, n := range names {
		if !had[n] {
			changed[n] = true
		}
	}
	snap.root, snap.rootTaken = root, taken
	return changed, true
}

// unchangedFiles counts the files of the snapshot's folders not changed.
func unchangedFiles(snap *surveySnap, changed map[string]bool) int {
	files := 0
	for _, g := range snap.projects {
		if changed[g.Name] {
			continue
		}
		for _, st := range g.Stamps {
			if !st.Dir {
				files++
			}
		}
	}
	return files
}

// surveyProjects lists and looks up the project folders names (the
// survey of a sync limited to them), and writes the survey snapshot with
// their new stamps in place of snap's.
func (s *Store) surveyProjects(ctx context.Context, claudeDir string, names []string, snap *surveySnap) (*transcripts.Tree, map[string]knownFile, error) {
	tree, fresh, recordable, err := discoverFolders(claudeDir, names)
	if err != nil {
		return nil, nil, err
	}
	known, err := s.knownFiles(ctx, names)
	if err != nil {
		return nil, nil, err
	}
	if !recordable {
		os.Remove(s.surveySnapPath())
		return tree, known, nil
	}
	for _, p := range tree.Projects {
		g := fresh[p.Name]
		g.Stamps = fileStamps(g.Stamps, p.Files, known)
		fresh[p.Name] = g
	}
	for name, st := range goneStamps(filepath.Join(claudeDir, "projects"), tree, known) {
		g := fresh[name]
		g.Name, g.Stamps = name, append(g.Stamps, st...)
		fresh[name] = g
	}
	snap.replaceGroups(names, fresh)
	for _, k := range known {
		snap.maxID = max(snap.maxID, k.id)
	}
	s.writeSurveySnap(snap)
	return tree, known, nil
}

// discoverFolders lists the project folders names (a removed one is left
// out) with their folders' fresh stamps; recordable when the stamps are
// whole and discovery met no problem.
func discoverFolders(claudeDir string, names []string) (*transcripts.Tree, map[string]transcripts.StampGroup, bool, error) {
	tree := &transcripts.Tree{ClaudeDir: claudeDir}
	fresh := map[string]transcripts.StampGroup{}
	recordable := true
	for _, name := range names {
		c := transcripts.LoadDirCache(nil)
		pt, err := transcripts.DiscoverProjectCached(claudeDir, name, c)
		if err != nil {
			if _, gone := os.Stat(filepath.Join(claudeDir, "projects", name)); os.IsNotExist(gone) {
				continue // the folder was removed: its files are missing
			}
			return nil, nil, false, err
		}
		tree.Projects = append(tree.Projects, pt.Projects...)
		tree.Problems = append(tree.Problems, pt.Problems...)
		folders, ok := c.FolderStamps(filepath.Join(claudeDir, "projects"))
		recordable = recordable && ok && len(pt.Problems) == 0
		fresh[name] = transcripts.StampGroup{Name: name, Taken: c.Started(), Stamps: folders[name]}
	}
	return tree, fresh, recordable, nil
}

// replaceGroups puts fresh's groups that hold stamps in place of the
// snapshot's groups of the folders names, in name order.
func (snap *surveySnap) replaceGroups(names []string, fresh map[string]transcripts.StampGroup) {
	var groups []transcripts.StampGroup
	for _, g := range snap.projects {
		if !slices.Contains(names, g.Name) {
			groups = append(groups, g)
		}
	}
	for _, g := range fresh {
		if len(g.Stamps) > 0 {
			groups = append(groups, g)
		}
	}
	slices.SortFunc(groups, func(a, b transcripts.StampGroup) int { return strings.Compare(a.Name, b.Name) })
	snap.projects = groups
}

// startWholeSurvey is startSurvey for a sync of so, from the survey
// snapshot when it can be (a whole-tree sync, no recount due).
func (s *Store) startWholeSurvey(ctx context.Context, claudeDir string, so SyncOptions) *survey {
	if len(so.Projects) == 0 && !so.Recount && !s.recountDue(ctx) {
		if sv := s.quickSurvey(ctx, claudeDir); sv != nil {
			return sv
		}
	}
	return s.startSurvey(ctx, claudeDir, so.Projects)
}

// snapshotSurvey writes the survey snapshot of a whole-tree survey: the
// tree as discovery found it (c), the files table as known (of epoch).
func (s *Store) snapshotSurvey(epoch string, tree *transcripts.Tree, c *transcripts.DirCache, known map[string]knownFile) {
	if s.readOnly || epoch == "" {
		return
	}
	root, groups, ok := stampGroups(tree, c, known)
	if !ok {
		os.Remove(s.surveySnapPath())
		return
	}
	sv := &surveySnap{epoch: epoch, claudeDir: tree.ClaudeDir, root: root, rootTaken: c.Started(), projects: groups}
	for _, k := range known {
		sv.maxID = max(sv.maxID, k.id)
	}
	s.writeSurveySnap(sv)
}
