package memories

// Claude Code keeps an "auto memory" of its own per project:
// <claude-dir>/projects/<P>/memory/MEMORY.md and topic files beside it,
// which Claude writes during sessions and which load into every later
// session. cairn makes them a reviewed source:
//
//   - each index run (app.Index) reads them. The first text cairn sees of a
//     file is its baseline: trusted as it is, not a change to review. A
//     text that differs from the last reviewed one is a pending change
//     (one per file: a later change updates it, and a file changed back
//     withdraws it).
//   - approving a change makes its text the reviewed one; rejecting it
//     writes the reviewed text back to the file (atomically, keeping the
//     file's mode); undo takes back the latest review (an undone reject
//     puts Claude's text back).
//   - every text is kept: any version can be restored, which writes it to
//     the file and makes it the reviewed text.
//
// The store keeps the rows (index/mem_files.go); this file has the rules.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/transcripts"
)

// The statuses of a memory file's versions.
const (
	FileBaseline  = "baseline"  // the text found the first time cairn saw the file
	FilePending   = "pending"   // a change Claude made, waiting for review
	FileApproved  = "approved"  // a change a person kept
	FileRejected  = "rejected"  // a change a person turned down (the file got its reviewed text back)
	FileRestored  = "restored"  // an older text a person put back
	FileWithdrawn = "withdrawn" // a pending change the file no longer holds (changed back before review)
)

// reviewedStatus: a version with one of these is a file's reviewed text
// (the newest of them).
func reviewedStatus(s string) bool {
	return s == FileBaseline || s == FileApproved || s == FileRestored
}

// filesMu serialises this process's reviews and observations of memory
// files (read, compare, write, record).
var filesMu sync.Mutex

// FileChange is one version of an auto-memory file as the inbox and the
// history show it: its text, and for a change the reviewed text it
// changes and the diff between them.
type FileChange struct {
	Version  int64     `json:"version"`
	Path     string    `json:"path"`
	Name     string    `json:"name"`
	Project  string    `json:"project"`
	Status   string    `json:"status"`
	Deleted  bool      `json:"deleted"` // Claude deleted the file
	Base     int64     `json:"base,omitempty"`
	Old      string    `json:"old,omitempty"` // the reviewed text it changes
	New      string    `json:"new"`
	Diff     string    `json:"diff,omitempty"`
	Added    int       `json:"added"`
	Removed  int       `json:"removed"`
	Current  bool      `json:"current"` // the reviewed text now
	OnDisk   bool      `json:"on_disk"` // the file holds this text now
	Seen     time.Time `json:"seen"`
	Reviewed time.Time `json:"reviewed,omitzero"`
}

// FileObservation says what an index run found in the memory files.
type FileObservation struct {
	Files     int      `json:"files"`     // memory files read
	Baselines int      `json:"baselines"` // seen for the first time
	Changes   []int64  `json:"changes"`   // pending versions recorded or updated
	Problems  []string `json:"problems"`
}

// ErrFileChanged: a memory file no longer holds the text cairn last read,
// so a review or restore would overwrite text nobody reviewed.
var ErrFileChanged = errors.New("the file changed since cairn read it")

func hashText(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// ObserveMemoryFiles reads the auto-memory files under claudeDir (of the
// project folders named in folders; none: every one) and records what
// changed since the last reviewed text: the first text of a file is its
// baseline, a different one a pending change, a file gone a pending
// deletion. A forgotten or excluded project is not read. Unreadable files
// are problems, not errors.
func (s Sync) ObserveMemoryFiles(ctx context.Context, claudeDir string, folders []string) (FileObservation, error) {
	filesMu.Lock()
	defer filesMu.Unlock()
	obs := FileObservation{Changes: []int64{}, Problems: []string{}}
	root := filepath.Join(claudeDir, "projects")
	folders, err := projectFolders(root, folders)
	if errors.Is(err, os.ErrNotExist) {
		return obs, nil
	}
	if err != nil {
		return obs, err
	}
	tracked, err := s.st.Mem().MemFilePaths(ctx)
	if err != nil {
		return obs, err
	}
	o := &fileObserver{s: s, obs: &obs, tracked: tracked}
	for _, name := range folders {
		if ctx.Err() != nil {
			return obs, ctx.Err()
		}
		if err := o.folder(ctx, filepath.Join(root, name), name); err != nil {
			return obs, err
		}
	}
	return obs, nil
}

// projectFolders is folders, or when none are named every project folder
// under root.
func projectFolders(root string, folders []string) ([]string, error) {
	if len(folders) > 0 {
		return folders, nil
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", root, err)
	}
	for _, e := range ents {
		folders = append(folders, e.Name())
	}
	return folders, nil
}

// fileObserver records one ObserveMemoryFiles run's observations.
type fileObserver struct {
	s       Sync
	obs     *FileObservation
	tracked []string          // the memory files the store keeps versions of
	paths   map[string]string // project folder -> project path, read when first needed
}

// folder observes the memory files of project folder dir (named name),
// unless the project is forgotten or excluded.
func (o *fileObserver) folder(ctx context.Context, dir, name string) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil // gone: its memory files are not deleted, only out of reach
	}
	memDir := filepath.Join(dir, "memory")
	files, err := memoryFiles(memDir)
	if err != nil {
		o.obs.Problems = append(o.obs.Problems, fmt.Sprintf("reading %s: %v", memDir, err))
		return nil
	}
	gone := o.goneFiles(memDir, files)
	if len(files) == 0 && len(gone) == 0 {
		return nil
	}
	project, ok := o.project(ctx, name)
	if !ok {
		return nil
	}
	return o.record(ctx, project, files, gone)
}

// memoryFiles are the .md files in memDir (none when it does not exist).
func memoryFiles(memDir string) ([]string, error) {
	ents, err := os.ReadDir(memDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range ents {
		if p := filepath.Join(memDir, e.Name()); strings.HasSuffix(e.Name(), ".md") && !isDir(p) {
			files = append(files, p)
		}
	}
	return files, nil
}

// goneFiles are the tracked memory files of memDir that no longer exist
// (files are those there).
func (o *fileObserver) goneFiles(memDir string, files []string) []string {
	present := make(map[string]bool, len(files))
	for _, p := range files {
		present[p] = true
	}
	var gone []string
	for _, p := range o.tracked {
		if filepath.Dir(p) == memDir && !present[p] {
			if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
				gone = append(gone, p)
			}
		}
	}
	return gone
}

// project is the project of folder name; false when it is forgotten or
// excluded.
func (o *fileObserver) project(ctx context.Context, name string) (string, bool) {
	if o.s.st.Forgotten(ctx, name, "") {
		return "", false
	}
	if o.paths == nil {
		o.paths = o.s.projectPaths(ctx)
	}
	project := o.paths[name]
	if project == "" {
		project = index.ProjectOf(transcripts.DecodeProjectName(name))
	}
	if excluded, _ := o.s.st.Excluded(ctx, project); excluded {
		return "", false
	}
	return project, true
}

// record observes project's memory files there (an unreadable one is a
// problem) and those gone; a conflicting concurrent write is not an error.
func (o *fileObserver) record(ctx context.Context, project string, files, gone []string) error {
	for _, p := range files {
		b, err := readSmall(p)
		if err != nil {
			o.obs.Problems = append(o.obs.Problems, err.Error())
			continue
		}
		o.obs.Files++
		if err := o.s.observeFile(ctx, p, project, string(b), false, o.obs); err != nil && !errors.Is(err, index.ErrMemFileConflict) {
			return err
		}
	}
	for _, p := range gone {
		if err := o.s.observeFile(ctx, p, project, "", true, o.obs); err != nil && !errors.Is(err, index.ErrMemFileConflict) {
			return err
		}
	}
	return nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// fileState is a memory file's kept versions: the reviewed text (the
// newest baseline, approved or restored version) and the pending change.
type fileState struct {
	all      []index.MemFileVersion
	reviewed *index.MemFileVersion
	pending  *index.MemFileVersion
}

func (s *core) fileState(ctx context.Context, path string) (fileState, error) {
	vs, err := s.st.Mem().MemFileVersions(ctx, index.MemFileFilter{Path: path})
	st := fileState{all: vs}
	for i := range vs {
		switch {
		case reviewedStatus(vs[i].Status):
			st.reviewed = &vs[i]
		case vs[i].Status == FilePending:
			st.pending = &vs[i]
		}
	}
	return st, err
}

// observeFile records text (deleted: the file is gone) of memory file
// path by the rules at the top of this file.
func (s *core) observeFile(ctx context.Context, path, project, text string, deleted bool, obs *FileObservation) error {
	st, err := s.fileState(ctx, path)
	if err != nil {
		return err
	}
	hash := ""
	if !deleted {
		hash = hashText(text)
	}
	now := s.now().UTC()
	switch {
	case st.reviewed == nil && st.pending == nil:
		if deleted {
			return nil
		}
		obs.Baselines++
		return s.st.Mem().SaveMemFileVersion(ctx, &index.MemFileVersion{Path: path, Project: project, Hash: hash, Text: text,
			Status: FileBaseline, Seen: now}, false)
	case st.reviewed != nil && st.reviewed.Hash == hash:
		return s.withdrawPending(ctx, st.pending)
	case st.pending != nil:
		return s.updatePending(ctx, st.pending, project, text, hash, now, obs)
	}
	return s.addPending(ctx, st, &index.MemFileVersion{Path: path, Project: project, Hash: hash, Text: text, Status: FilePending, Seen: now}, obs)
}

// withdrawPending withdraws the file's pending change (nil: none): the
// file is back to its reviewed text.
func (s *core) withdrawPending(ctx context.Context, pending *index.MemFileVersion) error {
	if pending == nil {
		return nil
	}
	pending.Status = FileWithdrawn
	return s.st.Mem().SaveMemFileVersion(ctx, pending, false)
}

// updatePending makes the file's pending change its new text (of hash),
// and lists it in obs; the same text again changes nothing.
func (s *core) updatePending(ctx context.Context, pending *index.MemFileVersion, project, text, hash string, now time.Time, obs *FileObservation) error {
	if pending.Hash == hash {
		return nil
	}
	pending.Hash, pending.Text, pending.Seen, pending.Project = hash, text, now, project
	obs.Changes = append(obs.Changes, pending.ID)
	return s.st.Mem().SaveMemFileVersion(ctx, pending, false)
}

// addPending keeps v as the file's pending change, against its reviewed
// text when it has one, and lists it in obs.
func (s *core) addPending(ctx context.Context, st fileState, v *index.MemFileVersion, obs *FileObservation) error {
	if st.reviewed != nil {
		v.Base = st.reviewed.ID
	}
	if err := s.st.Mem().SaveMemFileVersion(ctx, v, false); err != nil {
		return err
	}
	obs.Changes = append(obs.Changes, v.ID)
	return nil
}

// MemoryFileChanges returns the pending changes to auto-memory files (of
// project, and of every project when it is ""), oldest first, with their
// diffs: the memory-file part of the review inbox.
func (s Sync) MemoryFileChanges(ctx context.Context, project string) ([]FileChange, error) {
	vs, err := s.st.Mem().MemFileVersions(ctx, index.MemFileFilter{Project: project, Statuses: []string{FilePending}})
	if err != nil {
		return nil, err
	}
	out := make([]FileChange, 0, len(vs))
	for _, v := range vs {
		c, err := s.fileChange(ctx, v)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// ParseFileVersion reads a version id as the CLI shows it ("v12" or "12").
func ParseFileVersion(s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "v"), 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a memory-file version: give the number `cairn memories files` lists (v12 or 12)", s)
	}
	return n, nil
}

func (s *core) fileVersion(ctx context.Context, id int64) (index.MemFileVersion, error) {
	vs, err := s.st.Mem().MemFileVersions(ctx, index.MemFileFilter{ID: id})
	if err != nil {
		return index.MemFileVersion{}, err
	}
	if len(vs) == 0 {
		return index.MemFileVersion{}, fmt.Errorf("memory-file version v%d: %w (`cairn memories files` lists the pending ones, `cairn memories files history FILE` a file's)", id, ErrNotFound)
	}
	return vs[0], nil
}

// MemoryFileChange returns one version with its diff against the
// reviewed text it was seen against (a baseline or restore: against the
// text before it).
func (s Sync) MemoryFileChange(ctx context.Context, id int64) (*FileChange, error) {
	v, err := s.fileVersion(ctx, id)
	if err != nil {
		return nil, err
	}
	c, err := s.fileChange(ctx, v)
	return &c, err
}

// fileChange dresses version v for display.
func (s *core) fileChange(ctx context.Context, v index.MemFileVersion) (FileChange, error) {
	c := FileChange{Version: v.ID, Path: v.Path, Name: filepath.Base(v.Path), Project: v.Project, Status: v.Status,
		Deleted: v.Hash == "", Base: v.Base, New: v.Text, Seen: v.Seen, Reviewed: v.Reviewed}
	st, err := s.fileState(ctx, v.Path)
	if err != nil {
		return c, err
	}
	c.Current = st.reviewed != nil && st.reviewed.ID == v.ID
	c.OnDisk = onDisk(v)
	if v.Base != 0 {
		c.Old = versionText(st.all, v.Base)
		c.Diff = lineDiff(fmt.Sprintf("%s (v%d, reviewed)", c.Name, v.Base), fmt.Sprintf("%s (v%d, %s)", c.Name, v.ID, v.Status), c.Old, c.New)
	}
	c.Added, c.Removed = diffCounts(c.Diff)
	return c, nil
}

// onDisk reports whether the file on disk is version v (for a deletion:
// whether the file is gone). A file it cannot read is not.
func onDisk(v index.MemFileVersion) bool {
	deleted := v.Hash == ""
	b, err := readSmall(v.Path)
	if err == nil {
		return !deleted && hashText(string(b)) == v.Hash
	}
	return errors.Is(err, os.ErrNotExist) && deleted
}

// versionText is the text of version id among vs (the last one with that
// id), "" when none has it.
func versionText(vs []index.MemFileVersion, id int64) string {
	text := ""
	for _, b := range vs {
		if b.ID == id {
			text = b.Text
		}
	}
	return text
}

// diffCounts counts the added and removed lines of a unified diff, not
// its file headers.
func diffCounts(diff string) (added, removed int) {
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

// MemoryFileHistory returns every kept version of a memory file, oldest
// first. file is a version id ("v12"), the file's path, or the end of one
// ("MEMORY.md", "<folder>/memory/topic.md") naming one kept file.
func (s Sync) MemoryFileHistory(ctx context.Context, file string) ([]FileChange, error) {
	path, err := s.resolveMemoryFile(ctx, file)
	if err != nil {
		return nil, err
	}
	st, err := s.fileState(ctx, path)
	if err != nil {
		return nil, err
	}
	out := make([]FileChange, 0, len(st.all))
	for _, v := range st.all {
		c, err := s.fileChange(ctx, v)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// resolveMemoryFile turns a version id or a path (or its end) into the
// path of one kept memory file.
func (s *core) resolveMemoryFile(ctx context.Context, file string) (string, error) {
	if id, err := ParseFileVersion(file); err == nil {
		v, err := s.fileVersion(ctx, id)
		return v.Path, err
	}
	paths, err := s.st.Mem().MemFilePaths(ctx)
	if err != nil {
		return "", err
	}
	if abs, err := filepath.Abs(file); err == nil && slices.Contains(paths, abs) {
		return abs, nil
	}
	var hits []string
	suffix := string(filepath.Separator) + strings.TrimPrefix(filepath.Clean(file), string(filepath.Separator))
	for _, p := range paths {
		if strings.HasSuffix(p, suffix) {
			hits = append(hits, p)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return "", fmt.Errorf("no auto-memory file %q is kept: give a version (v12) or a path `cairn memories files history` can find; cairn keeps a file after an index run has read it: %w", file, ErrNotFound)
	}
	return "", fmt.Errorf("%q names %d memory files (%s): give more of the path, or a version (v12)", file, len(hits), strings.Join(hits, ", "))
}

// pendingVersion returns version id, which must be a pending change.
func (s *core) pendingVersion(ctx context.Context, id int64, verb string) (index.MemFileVersion, fileState, error) {
	v, err := s.fileVersion(ctx, id)
	if err != nil {
		return v, fileState{}, err
	}
	if v.Status != FilePending {
		return v, fileState{}, fmt.Errorf("v%d of %s is %s, not a pending change: nothing to %s (`cairn memories files` lists the pending ones)", id, v.Path, v.Status, verb)
	}
	st, err := s.fileState(ctx, v.Path)
	return v, st, err
}

// ApproveMemoryFile keeps a pending change: its text becomes the file's
// reviewed text. The file is not touched.
func (s Sync) ApproveMemoryFile(ctx context.Context, id int64) (*FileChange, error) {
	filesMu.Lock()
	defer filesMu.Unlock()
	v, _, err := s.pendingVersion(ctx, id, "approve")
	if err != nil {
		return nil, err
	}
	v.Status, v.Reviewed = FileApproved, s.now().UTC()
	if err := s.st.Mem().SaveMemFileVersion(ctx, &v, true); err != nil {
		return nil, fmt.Errorf("approving v%d of %s: %w", id, v.Path, err)
	}
	c, err := s.fileChange(ctx, v)
	return &c, err
}

// RejectMemoryFile turns a pending change down: the file gets its
// reviewed text back (a file Claude created is removed, one it deleted
// written again). It refuses when the file no longer holds the change
// (ErrFileChanged): that text was never reviewed.
func (s Sync) RejectMemoryFile(ctx context.Context, id int64) (*FileChange, error) {
	filesMu.Lock()
	defer filesMu.Unlock()
	v, st, err := s.pendingVersion(ctx, id, "reject")
	if err != nil {
		return nil, err
	}
	prev := index.MemFileVersion{} // no reviewed text: the file did not exist
	if st.reviewed != nil {
		prev = *st.reviewed
	}
	if err := putMemoryFile(v.Path, prev.Text, prev.Hash == "", v.Hash); err != nil {
		return nil, err
	}
	v.Status, v.Reviewed = FileRejected, s.now().UTC()
	if err := s.st.Mem().SaveMemFileVersion(ctx, &v, true); err != nil {
		// Give Claude's text back: the change stays pending.
		_ = putMemoryFile(v.Path, v.Text, v.Hash == "", prev.Hash)
		return nil, fmt.Errorf("recording the reject of v%d of %s (the file keeps Claude's text): %w", id, v.Path, err)
	}
	c, err := s.fileChange(ctx, v)
	return &c, err
}

// RestoreMemoryFile puts version id's text back in its file and makes it
// the reviewed text. It refuses while a change of that file waits for
// review, or when the file no longer holds its reviewed text.
func (s Sync) RestoreMemoryFile(ctx context.Context, id int64) (*FileChange, error) {
	filesMu.Lock()
	defer filesMu.Unlock()
	v, err := s.fileVersion(ctx, id)
	if err != nil {
		return nil, err
	}
	st, err := s.fileState(ctx, v.Path)
	if err != nil {
		return nil, err
	}
	if st.pending != nil {
		return nil, fmt.Errorf("v%d, a change to %s, waits for review: approve or reject it first (`cairn memories files show v%d`), then restore", st.pending.ID, v.Path, st.pending.ID)
	}
	if st.reviewed == nil {
		return nil, fmt.Errorf("%s has no reviewed text to replace: run `cairn index` first", v.Path)
	}
	if st.reviewed.Hash == v.Hash {
		return nil, fmt.Errorf("v%d's text is already the reviewed text of %s (v%d): nothing to restore", id, v.Path, st.reviewed.ID)
	}
	if err := putMemoryFile(v.Path, v.Text, v.Hash == "", st.reviewed.Hash); err != nil {
		return nil, err
	}
	now := s.now().UTC()
	r := index.MemFileVersion{Path: v.Path, Project: v.Project, Hash: v.Hash, Text: v.Text, Status: FileRestored, Base: st.reviewed.ID,
		Seen: now, Reviewed: now}
	if err := s.st.Mem().SaveMemFileVersion(ctx, &r, true); err != nil {
		_ = putMemoryFile(v.Path, st.reviewed.Text, st.reviewed.Hash == "", v.Hash)
		return nil, fmt.Errorf("recording the restore of v%d of %s (the file keeps its text): %w", id, v.Path, err)
	}
	c, err := s.fileChange(ctx, r)
	return &c, err
}

// FileUndo says what UndoMemoryFileReview took back.
type FileUndo struct {
	Undid  string     `json:"undid"` // approve, reject or restore
	Change FileChange `json:"change"`
}

// UndoMemoryFileReview takes back the latest review of a memory file that
// still stands: an approved change is pending again; a rejected one is
// pending again and the file gets Claude's text back; a restore is
// forgotten and the file gets the text it replaced. It refuses when the
// file changed since (review that first).
func (s Sync) UndoMemoryFileReview(ctx context.Context) (*FileUndo, error) {
	filesMu.Lock()
	defer filesMu.Unlock()
	v, err := s.st.Mem().LastMemFileReview(ctx)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, fmt.Errorf("no review of an auto-memory file to undo")
	}
	st, err := s.fileState(ctx, v.Path)
	if err != nil {
		return nil, err
	}
	if err := unchangedSince(st.all, v); err != nil {
		return nil, err
	}
	undid, err := s.revertReview(ctx, v, versionByID(st.all, v.Base))
	if err != nil {
		return nil, err
	}
	undo := &FileUndo{Undid: undid}
	if undo.Change, err = s.fileChange(ctx, *v); err != nil {
		return nil, err
	}
	if undo.Undid == "restore" {
		undo.Change.Status = "undone"
		undo.Change.Current, undo.Change.OnDisk = false, false
	}
	return undo, nil
}

// unchangedSince refuses to undo review v when a later version of the
// file stands (one withdrawn does not count).
func unchangedSince(all []index.MemFileVersion, v *index.MemFileVersion) error {
	for _, n := range all {
		if n.ID > v.ID && n.Status != FileWithdrawn {
			return fmt.Errorf("%s changed after v%d was %s (v%d is %s): review or restore that instead (`cairn memories files history %s`)",
				v.Path, v.ID, v.Status, n.ID, n.Status, filepath.Base(v.Path))
		}
	}
	return nil
}

// versionByID is the version of all with that ID (the last, if several),
// or nil.
func versionByID(all []index.MemFileVersion, id int64) *index.MemFileVersion {
	var found *index.MemFileVersion
	for i := range all {
		if all[i].ID == id {
			found = &all[i]
		}
	}
	return found
}

// revertReview takes back review v (base: the reviewed text before it,
// nil when none is kept) and says which review it was.
func (s Sync) revertReview(ctx context.Context, v, base *index.MemFileVersion) (string, error) {
	switch v.Status {
	case FileApproved:
		return "approve", s.unapprove(ctx, v)
	case FileRejected:
		return "reject", s.unreject(ctx, v, base)
	case FileRestored:
		return "restore", s.unrestore(ctx, v, base)
	default:
		return "", fmt.Errorf("v%d of %s is %s: not a review cairn can undo", v.ID, v.Path, v.Status)
	}
}

// unapprove makes approved change v pending again.
func (s Sync) unapprove(ctx context.Context, v *index.MemFileVersion) error {
	v.Status, v.Seq, v.Reviewed = FilePending, 0, time.Time{}
	if err := s.st.Mem().SaveMemFileVersion(ctx, v, false); err != nil {
		return undoFailed("approve", v, err)
	}
	return nil
}

// unreject gives the file rejected change v's text back and makes v
// pending again; the file gets base's text back if that fails.
func (s Sync) unreject(ctx context.Context, v, base *index.MemFileVersion) error {
	baseText, baseGone, baseHash := "", true, ""
	if base != nil {
		baseText, baseGone, baseHash = base.Text, base.Hash == "", base.Hash
	}
	if err := putMemoryFile(v.Path, v.Text, v.Hash == "", baseHash); err != nil {
		return err
	}
	v.Status, v.Seq, v.Reviewed = FilePending, 0, time.Time{}
	if err := s.st.Mem().SaveMemFileVersion(ctx, v, false); err != nil {
		_ = putMemoryFile(v.Path, baseText, baseGone, v.Hash)
		return undoFailed("reject", v, err)
	}
	return nil
}

// unrestore gives the file the text restore v replaced (base) back and
// forgets v; the file gets v's text back if that fails.
func (s Sync) unrestore(ctx context.Context, v, base *index.MemFileVersion) error {
	if base == nil {
		return fmt.Errorf("the text v%d replaced in %s is no longer kept: restore another version instead (`cairn memories files history %s`)", v.ID, v.Path, filepath.Base(v.Path))
	}
	if err := putMemoryFile(v.Path, base.Text, base.Hash == "", v.Hash); err != nil {
		return err
	}
	if err := s.st.Mem().DeleteMemFileVersion(ctx, v.ID); err != nil {
		_ = putMemoryFile(v.Path, v.Text, v.Hash == "", base.Hash)
		return undoFailed("restore", v, err)
	}
	return nil
}

// undoFailed says that undoing review v (undid: which) failed in the
// store, the file left as it was.
func undoFailed(undid string, v *index.MemFileVersion, err error) error {
	return fmt.Errorf("undoing the %s of v%d of %s (the file is as it was): %w", undid, v.ID, v.Path, err)
}

// putMemoryFile gives memory file path the text (gone: removes it), after
// checking it holds the text of hash expect ("": it does not exist), so
// text nobody reviewed is never overwritten. The write goes through a
// temporary file and a rename in the same folder, keeping the file's mode
// (a symlink's target is written, a hard-linked file in place).
func putMemoryFile(path, text string, gone bool, expect string) error {
	target := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		target = r
	}
	cur, exists, err := readMemoryFile(target)
	if err != nil {
		return err
	}
	if err := expectMemoryFile(path, cur, exists, expect); err != nil {
		return err
	}
	if gone {
		return removeMemoryFile(path, target, exists)
	}
	mode, err := memoryFileMode(path, target, exists)
	if err != nil {
		return err
	}
	err = writeAtomic(target, text, mode, cur)
	if errors.Is(err, errChangedMeanwhile) {
		return fmt.Errorf("%s: %w (while cairn was writing it); nothing was changed: run `cairn index` and review the newest change", path, ErrFileChanged)
	}
	if err != nil {
		return fmt.Errorf("%w; nothing was changed: check that %s and its folder are writable", err, path)
	}
	return nil
}

// expectMemoryFile says whether memory file path, holding cur (exists:
// there at all), is the text of hash expect ("": not there).
func expectMemoryFile(path, cur string, exists bool, expect string) error {
	switch {
	case expect == "" && exists:
		return fmt.Errorf("%s: %w (it exists again); nothing was changed: run `cairn index` and review the newest change", path, ErrFileChanged)
	case expect != "" && !exists:
		return fmt.Errorf("%s: %w (it no longer exists); nothing was changed: run `cairn index` and review the deletion", path, ErrFileChanged)
	case exists && hashText(cur) != expect:
		return fmt.Errorf("%s: %w; nothing was changed: run `cairn index` and review the newest change", path, ErrFileChanged)
	}
	return nil
}

// removeMemoryFile removes memory file path (at target) when it exists.
func removeMemoryFile(path, target string, exists bool) error {
	if !exists {
		return nil
	}
	if err := os.Remove(target); err != nil {
		return fmt.Errorf("removing %s: %w; check that its folder is writable", path, err)
	}
	return nil
}

// memoryFileMode is the mode memory file path (at target) is written
// with: its own when it exists (refused when read-only), 0644 for a new
// one, whose folder is made.
func memoryFileMode(path, target string, exists bool) (os.FileMode, error) {
	if !exists {
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return 0, fmt.Errorf("writing %s: %w; check that %s can be created", path, err, filepath.Dir(target))
		}
		return 0o644, nil
	}
	fi, err := os.Stat(target)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", path, err)
	}
	if fi.Mode().Perm()&0o200 == 0 {
		return 0, fmt.Errorf("%s is read-only (%v); nothing was changed: make it writable (chmod u+w %s) and try again", path, fi.Mode().Perm(), path)
	}
	return fi.Mode().Perm(), nil
}

// readMemoryFile reads a memory file; exists is false when it is missing.
func readMemoryFile(path string) (text string, exists bool, err error) {
	b, err := readSmall(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return string(b), true, nil
}

// PendingMemoryFiles counts the changes to auto-memory files waiting for
// review (of project; "": all).
func (s Sync) PendingMemoryFiles(ctx context.Context, project string) (int, error) {
	vs, err := s.st.Mem().MemFileVersions(ctx, index.MemFileFilter{Project: project, Statuses: []string{FilePending}})
	return len(vs), err
}
