package memories

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
)

// The markers around the block cairn manages in a CLAUDE.md.
const (
	MarkerStart = "<!-- cairn:start -->"
	MarkerEnd   = "<!-- cairn:end -->"
)

// ErrMarkers is wrapped when a file's cairn markers are broken or repeated.
var ErrMarkers = errors.New("broken cairn markers")

// FindBlock locates the cairn block of doc: the byte offsets of the start
// marker and of the end of the end marker. found is false when doc has
// neither marker. A file with one marker but not the other, markers out of
// order, or more than one of either is refused with an explanation: cairn
// will not guess which part of a file it owns.
func FindBlock(doc string) (start, end int, found bool, err error) {
	starts := indexAll(doc, MarkerStart)
	ends := indexAll(doc, MarkerEnd)
	line := func(off int) int { return lineOf(doc, off) }
	lines := func(offs []int) string { return linesOf(doc, offs) }
	switch {
	case len(starts) == 0 && len(ends) == 0:
		return 0, 0, false, nil
	case len(starts) > 1:
		return 0, 0, false, fmt.Errorf("%w: %q appears %d times (lines %s); keep exactly one start and one end marker", ErrMarkers, MarkerStart, len(starts), lines(starts))
	case len(ends) > 1:
		return 0, 0, false, fmt.Errorf("%w: %q appears %d times (lines %s); keep exactly one start and one end marker", ErrMarkers, MarkerEnd, len(ends), lines(ends))
	case len(ends) == 0:
		return 0, 0, false, fmt.Errorf("%w: %q on line %d has no %q after it; add the end marker where cairn's block should stop, or remove the start marker", ErrMarkers, MarkerStart, line(starts[0]), MarkerEnd)
	case len(starts) == 0:
		return 0, 0, false, fmt.Errorf("%w: %q on line %d has no %q before it; add the start marker or remove the end marker", ErrMarkers, MarkerEnd, line(ends[0]), MarkerStart)
	case ends[0] < starts[0]:
		return 0, 0, false, fmt.Errorf("%w: the end marker (line %d) comes before the start marker (line %d); swap them", ErrMarkers, line(ends[0]), line(starts[0]))
	}
	return starts[0], ends[0] + len(MarkerEnd), true, nil
}

// lineOf is the line number of offset off in doc.
func lineOf(doc string, off int) int { return strings.Count(doc[:off], "\n") + 1 }

// linesOf lists the line numbers of offsets in doc: "3, 17".
func linesOf(doc string, offs []int) string {
	var s []string
	for _, o := range offs {
		s = append(s, fmt.Sprint(lineOf(doc, o)))
	}
	return strings.Join(s, ", ")
}

func indexAll(s, sub string) []int {
	var out []int
	for off := 0; ; {
		i := strings.Index(s[off:], sub)
		if i < 0 {
			return out
		}
		out = append(out, off+i)
		off += i + len(sub)
	}
}

// ReplaceBlock puts block (which must hold the markers) into doc: in place
// of the existing block, or appended after a blank line. Every byte outside
// the markers is kept.
func ReplaceBlock(doc, block string) (string, error) {
	start, end, found, err := FindBlock(doc)
	if err != nil {
		return "", err
	}
	// A file written with Windows line endings keeps them, in the block
	// too.
	nl := "\n"
	if crlf := strings.Count(doc, "\r\n"); crlf > 0 && crlf*2 >= strings.Count(doc, "\n") {
		nl = "\r\n"
		block = strings.ReplaceAll(strings.ReplaceAll(block, "\r\n", "\n"), "\n", nl)
	}
	if found {
		return doc[:start] + block + doc[end:], nil
	}
	switch {
	case doc == "":
		return block + nl, nil
	case strings.HasSuffix(doc, nl+nl):
		return doc + block + nl, nil
	case strings.HasSuffix(doc, "\n"):
		return doc + nl + block + nl, nil
	}
	return doc + nl + nl + block + nl, nil
}

// SyncOptions choose what Sync writes where.
type SyncOptions struct {
	Project string // project path; its approved memories and global ones
	Target  string // file to write; "" = <Project>/CLAUDE.md
	DryRun  bool   // compute the diff, write nothing
	Lines   int    // line budget of the block; 0 = memories.sync_lines (150)
}

// SyncResult says what Sync did.
type SyncResult struct {
	Target   string `json:"target"`
	Changed  bool   `json:"changed"`
	Written  bool   `json:"written"`
	Diff     string `json:"diff"`
	Memories int    `json:"memories"` // memories in the block
	Omitted  int    `json:"omitted"`  // approved memories left out by the budget
}

// typeHeadings are the block's section titles, in order.
var typeHeadings = map[Type]string{Decision: "Decisions", Architecture: "Architecture", Pattern: "Patterns",
	Gotcha: "Gotchas", Preference: "Preferences", Fact: "Facts", Bugfix: "Bug fixes", Progress: "In progress", Context: "Context"}

// syncTypeOrder puts what Claude must follow first.
var syncTypeOrder = []Type{Preference, Decision, Architecture, Gotcha, Pattern, Bugfix, Fact, Context, Progress}

// Sync writes the project's approved memories between the cairn markers
// of the target file, atomically, holding a lock so concurrent syncs of the
// same file take turns.
func (s Sync) Sync(ctx context.Context, o SyncOptions) (SyncResult, error) {
	target, err := syncTarget(o)
	if err != nil {
		return SyncResult{}, err
	}
	res := SyncResult{Target: target}
	block, n, omitted, err := s.syncBlock(ctx, o.Project, s.syncLines(o.Lines))
	if err != nil {
		return res, err
	}
	res.Memories, res.Omitted = n, omitted
	unlock := func() {}
	if !o.DryRun {
		if unlock, err = lockFile(target); err != nil {
			return res, err
		}
	}
	defer unlock()
	return res, writeBlock(target, block, o.DryRun, &res)
}

// syncTarget is the absolute path of the file Sync writes: the target, or
// the project's CLAUDE.md, through a symlink (dotfiles), so the rename
// replaces the file it points to, not the link.
func syncTarget(o SyncOptions) (string, error) {
	if o.Target == "" {
		if o.Project == "" {
			return "", errors.New("no project or target file: pass --project or --target")
		}
		o.Target = filepath.Join(o.Project, "CLAUDE.md")
	}
	target, err := filepath.Abs(o.Target)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(target); err == nil {
		target = real
	}
	return target, nil
}

// syncLines is the block's line budget: lines, else memories.sync_lines,
// else 150.
func (s *core) syncLines(lines int) int {
	if lines <= 0 {
		lines = s.cfg.Memories.SyncLines
	}
	if lines <= 0 {
		lines = 150
	}
	return lines
}

// writeBlock replaces the block in target (unless dryRun or unchanged),
// recording the diff in res; when the file changed meanwhile (an editor
// wrote it), it merges into the new text, up to three times.
func writeBlock(target, block string, dryRun bool, res *SyncResult) error {
	if !dryRun {
		removeStaleTemps(target)
	}
	for attempt := 0; ; attempt++ {
		err := writeBlockOnce(target, block, dryRun, res)
		if errors.Is(err, errChangedMeanwhile) && attempt < 3 {
			continue
		}
		return err
	}
}

// writeBlockOnce is one attempt of writeBlock: target read, its block
// replaced, the diff in res, and the new text written unless dryRun or
// unchanged (errChangedMeanwhile when target changed since it was read).
func writeBlockOnce(target, block string, dryRun bool, res *SyncResult) error {
	old, mode, err := readTarget(target)
	if err != nil {
		return err
	}
	doc, err := ReplaceBlock(old, block)
	if err != nil {
		return fmt.Errorf("%s: %w", target, err)
	}
	res.Diff = lineDiff(target, target+" (cairn sync)", old, doc)
	res.Changed = doc != old
	if dryRun || !res.Changed {
		return nil
	}
	if err := writeAtomic(target, doc, mode, old); err != nil {
		return err
	}
	res.Written = true
	return nil
}

func readTarget(path string) (string, os.FileMode, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(filepath.Dir(path)); err != nil {
			return "", 0, fmt.Errorf("cannot write %s: its folder does not exist (pass --target)", path)
		}
		return "", 0o644, nil
	}
	if err != nil {
		return "", 0, err
	}
	if !fi.Mode().IsRegular() {
		return "", 0, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Mode().Perm()&0o200 == 0 {
		return "", 0, fmt.Errorf("%s is read-only (%v): cairn does not rewrite a file someone protected; make it writable (chmod u+w %s) or sync into another file with --target", path, fi.Mode().Perm(), path)
	}
	if fi.Size() > 4<<20 {
		return "", 0, fmt.Errorf("%s is %d MB: too large for a CLAUDE.md; refusing to rewrite it", path, fi.Size()>>20)
	}
	b, err := os.ReadFile(path)
	return string(b), fi.Mode().Perm(), err
}

var errChangedMeanwhile = errors.New("file changed while syncing")

// tempPattern matches the temporary files writeAtomic makes beside path.
func tempPattern(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".cairn-*")
}

// removeStaleTemps deletes the temporary files a killed sync left beside
// target. Sync holds target's lock, so none of them belongs to a sync still
// at work.
func removeStaleTemps(target string) {
	matches, _ := filepath.Glob(tempPattern(target))
	for _, m := range matches {
		if fi, err := os.Lstat(m); err == nil && fi.Mode().IsRegular() {
			_ = os.Remove(m)
		}
	}
}

// writeAtomic writes doc to path through a temporary file in the same
// folder and a rename, after checking the file still holds old.
func writeAtomic(path, doc string, mode os.FileMode, old string) error {
	if hardLinked(path) {
		return writeInPlace(path, doc, old)
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".cairn-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := writeSynced(f, doc); err != nil {
		return err
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return err
	}
	if cur, _, err := readTarget(path); err != nil || cur != old {
		return errChangedMeanwhile
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("replacing %s: %w", path, err)
	}
	return nil
}

// writeInPlace rewrites a file that has other hard links in place: a rename
// would give this name a new file and leave the other names with the old
// text. Not atomic, so the text is written and synced to a temporary file
// first (a crash leaves the old text or that copy beside it).
func writeInPlace(path, doc, old string) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".cairn-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	if err := writeSynced(f, doc); err != nil {
		os.Remove(tmp)
		return err
	}
	if cur, _, err := readTarget(path); err != nil || cur != old {
		os.Remove(tmp)
		return errChangedMeanwhile
	}
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("rewriting %s: %w", path, err)
	}
	if err := writeSynced(out, doc); err != nil {
		return fmt.Errorf("rewriting %s (its new text is in %s): %w", path, tmp, err)
	}
	return os.Remove(tmp)
}

// writeSynced writes doc to f, syncs and closes it.
func writeSynced(f *os.File, doc string) error {
	if _, err := f.WriteString(doc); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", f.Name(), err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// lockPath is the lock file of a target: in the temp dir, so the user's
// repository gets no stray file.
func lockPath(target string) string {
	h := sha256.Sum256([]byte(target))
	return filepath.Join(os.TempDir(), "cairn-sync-"+hex.EncodeToString(h[:8])+".lock")
}

func lockFile(target string) (func(), error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		unlock, ok, err := tryLock(lockPath(target))
		if err != nil {
			return nil, err
		}
		if ok {
			return unlock, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("another cairn sync of %s has held its lock (%s) for 10s; try again", target, lockPath(target))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type syncItem struct {
	m     Memory
	score float64
}

// syncBlock renders the block for project within the line budget.
func (s *core) syncBlock(ctx context.Context, project string, budget int) (string, int, int, error) {
	ms, err := s.List(ctx, Filter{Statuses: []Status{Approved}, Project: project, IncludeGlobal: true})
	if err != nil {
		return "", 0, 0, err
	}
	items := syncItems(ms)
	header := []string{MarkerStart,
		"<!-- Written by `cairn sync` from approved memories; edits here are replaced. Curate with `cairn memories`. -->",
		"## Project memory (cairn)"}
	// Fixed lines: the header, the end marker, the overflow line and its
	// blank line.
	perType, n := fitBudget(items, budget-len(header)-3)
	var b strings.Builder
	for _, l := range header {
		b.WriteString(l + "\n")
	}
	for _, t := range syncTypeOrder {
		if len(perType[t]) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### %s\n", typeHeadings[t])
		for _, l := range perType[t] {
			b.WriteString(l + "\n")
		}
	}
	omitted := len(items) - n
	if len(items) == 0 {
		b.WriteString("\n_No approved memories yet: review them with `cairn memories list`._\n")
	}
	if omitted > 0 {
		fmt.Fprintf(&b, "\n_%d more approved memories: `cairn search --kind memories <words>` or `cairn memories list --project .`_\n", omitted)
	}
	b.WriteString(MarkerEnd)
	return b.String(), n, omitted, nil
}

// syncItems are the confident memories of ms, best first: by confidence
// raised by use, then importance, then id.
func syncItems(ms []Memory) []syncItem {
	var items []syncItem
	for _, m := range ms {
		if m.Confidence > 0 {
			items = append(items, syncItem{m, m.Confidence * (1 + float64(m.AccessCount)/10)})
		}
	}
	slices.SortStableFunc(items, func(a, b syncItem) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		case a.m.Importance != b.m.Importance:
			return b.m.Importance - a.m.Importance
		}
		return strings.Compare(a.m.ID, b.m.ID)
	})
	return items
}

// fitBudget takes items in order while they fit in room lines (a type's
// first memory costs its blank line and heading too), at most half of
// room (and at least 3) of one type; it returns their lines by type and
// how many it took.
func fitBudget(items []syncItem, room int) (map[Type][]string, int) {
	perType := map[Type][]string{}
	used, n := 0, 0
	capPerType := max(3, room/2)
	for _, it := range items {
		lines := perType[it.m.Type]
		cost := 1
		if len(lines) == 0 {
			cost = 3 // blank line and heading
		}
		if used+cost > room || len(lines) >= capPerType {
			continue
		}
		used += cost
		n++
		perType[it.m.Type] = append(lines, "- "+syncLine(it.m))
	}
	return perType, n
}

// syncLine is a memory on one line, redacted, without anything that could
// be read as a marker or an import.
func syncLine(m Memory) string {
	c := oneLine(clean(m.Content))
	c = strings.ReplaceAll(c, "<!--", "<!‐‐")
	c = strings.ReplaceAll(c, "-->", "‐‐>")
	return noImports(cut(c, 300))
}

// noImports keeps memory text from importing files: Claude Code reads
// `@path` in CLAUDE.md as "inline this file" (@~/.aws/credentials would
// put the user's keys in every session's context). Every @ that could
// start an import (at the start or after anything but a letter or digit)
// becomes the full-width ＠ (U+FF20), which reads the same to a person
// and a model; an address or a version (alice@example.com, react@18)
// keeps its @.
func noImports(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	prev := ' '
	for _, r := range s {
		if r == '@' && !unicode.IsLetter(prev) && !unicode.IsDigit(prev) {
			b.WriteRune('＠')
		} else {
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}
