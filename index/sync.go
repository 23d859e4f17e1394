package index

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn/transcripts"
)

// SyncOptions tune Sync. The zero value is the default.
type SyncOptions struct {
	Workers int   // parse goroutines; 0 = all cores
	Budget  int64 // bytes of transcripts being parsed at once; 0 = transcripts.DefaultBudget

	// A transaction is committed once it holds this many entries or this
	// many bytes of transcript input (and always at a file boundary, so a
	// file's cursor moves with its entries). Big transactions make bulk
	// inserts fast; each one holds the write lock while it runs. A
	// transaction's rows are also in the Go heap until the full-text
	// indexer has taken them (one in hand-off, one being indexed): 5,000
	// rather than 10,000 keeps a cold index's heap further from its limit,
	// where collections ran back to back (22–27% of the CPU at 10 GB).
	BatchEntries int   // 0 = 5,000
	BatchBytes   int64 // 0 = 64 MB

	// Tool results (and long tool input values and system text) are stored
	// as their first ToolHead and last ToolTail bytes: the full output stays
	// in the transcript and would dominate the store. 0 = 1200 and 400
	// (config: index.tool_output_head/tail).
	ToolHead, ToolTail int

	// Projects, when set, limits the sync to these project folders (names
	// under projects/): a hook passes the folder of the transcript it was
	// given and skips stat-ing every other file (12 ms of a 25 ms sync on a
	// 1 GB tree). Files of other projects are neither read nor marked
	// missing.
	Projects []string

	// Recount reads every transcript again from its start and aggregates
	// again, from scratch, each session whose files are all on disk: its
	// counts, title, project and model follow this build's reading rules
	// (`cairn index --recount` after an upgrade that changed them). Rows
	// already stored are kept (their role is corrected); sessions with a
	// file gone keep what they have.
	Recount bool

	// Progress, when set, is called after each file is read (on the
	// syncing goroutine: keep it quick).
	Progress func(Progress)

	// survey, when set, is this sync's listing and cursors, started ahead
	// (Update) for the same claudeDir and Projects.
	survey *survey

	// handoff, when set, receives the documents each transaction queued
	// for the full-text index once it has committed (Update's drainer:
	// reading them back from the store cost ~9% of a cold index). They
	// stay queued until indexed either way.
	handoff *handoff
}

// Progress reports how far a sync is.
type Progress struct {
	FilesDone, FilesTotal int
	BytesDone, BytesTotal int64
	Entries               int // entries added so far
}

// SyncStats says what a sync did.
type SyncStats struct {
	FilesScanned int // transcript files found on disk
	FilesChanged int // known files that had grown or changed
	FilesNew     int // files seen for the first time
	FilesMissing int // known files gone from disk this time (their entries are kept)
	Restarts     int // files that were truncated or replaced and re-read from the start
	Excluded     int // changed files left unread: opted out (index.exclude, .cairnignore) or forgotten

	BytesRead    int64
	EntriesAdded int // new entries rows
	Duplicates   int // lines whose uuid was already stored (first seen wins)
	BadLines     int
	LineErrors   []transcripts.LineError // the first bad lines
	Redactions   int                     // secrets removed
	Sessions     int                     // sessions created or updated
	Problems     []error                 // files or folders that could not be read; the rest was synced

	Transactions int
	Duration     time.Duration
}

func (o *SyncOptions) defaults() {
	if o.BatchEntries <= 0 {
		o.BatchEntries = 5_000
	}
	if o.BatchBytes <= 0 {
		o.BatchBytes = 64 << 20
	}
	if o.ToolHead <= 0 {
		o.ToolHead = 1200
	}
	if o.ToolTail <= 0 {
		o.ToolTail = 400
	}
}

// knownFile is a files row as Sync needs it.
type knownFile struct {
	id          int64
	size, mtime int64
	cursor      transcripts.Cursor
	present     bool
	// snap marks a row as the files snapshot saw it, maybe moved forward
	// since (filesnap.go): trusted only for a file on disk as it saw it.
	snap bool
}

// unchanged reports whether the known file is present at f's size and
// mtime.
func (k knownFile) unchanged(f *transcripts.File) bool {
	return k.present && k.size == f.Size && k.mtime == f.ModTime.UnixNano()
}

// readThrough reports whether the known file is unchanged (as f) and read
// to its end.
func (k knownFile) readThrough(f *transcripts.File) bool {
	return k.unchanged(f) && k.cursor.Offset >= k.size
}

// Sync brings the store up to date with the transcripts under claudeDir:
// only files whose size or mtime changed are read, from their stored
// cursor, and only complete lines. Entries are written in big transactions
// that also advance the cursors of the files they came from, so an
// interrupted sync (even kill -9) leaves a consistent store and the next one
// finishes the job. Files that disappeared keep their entries; their
// sessions are marked archived.
func (s *Store) Sync(ctx context.Context, claudeDir string, opts SyncOptions) (st SyncStats, err error) {
	start := time.Now()
	opts.defaults()
	due := s.recountNow(ctx, &opts)
	sv := s.surveyFor(ctx, claudeDir, &opts)
	tree, known, err := sv.wait()
	if err != nil {
		return st, err
	}
	st.FilesScanned = sv.unchangedFiles
	if sv.quiet {
		st.Duration = time.Since(start)
		return st, nil
	}
	s.scopeKnown(claudeDir, known) // another tree's files are not missing from this one
	st.Problems = append(st.Problems, tree.Problems...)
	memo, plan := s.planFor(ctx, sv, tree, known, &st)
	defer func() {
		// Stats are returned by name: this runs before the caller sees them.
		s.settleProblems(context.WithoutCancel(ctx), &st, memo, plan.failed, len(opts.Projects) == 0)
	}()
	tomb, err := s.loadTombstones(ctx)
	if err != nil {
		return st, s.wrap(err)
	}
	keep, err := s.recountKeep(ctx, opts, tree, plan)
	if err != nil {
		return st, s.wrap(err)
	}
	s.dropExcluded(ctx, plan, tomb)
	st.Excluded = plan.excluded

	y := s.newSyncer(opts, &st, tree, plan, tomb, keep)
	err = y.run(ctx, plan, due)
	st.Duration = time.Since(start)
	return st, interrupted(err)
}

// recountNow makes opts a recount when one is due (and says so): a store
// written by a build that read the transcripts otherwise is recounted by
// its next full sync (a hook's, limited to a project, leaves it to the
// next `cairn index` or TUI).
func (s *Store) recountNow(ctx context.Context, opts *SyncOptions) (due bool) {
	due = !opts.Recount && len(opts.Projects) == 0 && s.recountDue(ctx)
	opts.Recount = opts.Recount || due
	return due
}

// interrupted is the error of a sync that ended with err: a cancelled one
// says what was kept.
func interrupted(err error) error {
	if err != nil && errors.Is(err, context.Canceled) {
		return fmt.Errorf("sync interrupted (what was committed is kept; run it again to finish): %w", err)
	}
	return err
}

// planFor is the sync's plan and the memo of the last one: the survey's
// when it planned ahead, else planned here from the tree and the known
// files.
func (s *Store) planFor(ctx context.Context, sv *survey, tree *transcripts.Tree, known map[string]knownFile, st *SyncStats) (syncMemo, *syncPlan) {
	memo, plan := sv.takePlan(st)
	if plan == nil {
		memo = s.loadSyncMemo(ctx)
		plan = planSync(tree, known, memo.Failed, st)
	}
	return memo, plan
}

// recountKeep, for a recount, makes the plan read every file from its
// start and lists the sessions the recount must leave as they are; nil
// without a recount.
func (s *Store) recountKeep(ctx context.Context, opts SyncOptions, tree *transcripts.Tree, plan *syncPlan) (map[string]bool, error) {
	if !opts.Recount {
		return nil, nil
	}
	plan.recountAll(tree)
	return s.notRecountable(ctx, plan)
}

// newSyncer is the syncer that carries out plan, st its stats, keep the
// sessions a recount leaves as they are.
func (s *Store) newSyncer(opts SyncOptions, st *SyncStats, tree *transcripts.Tree, plan *syncPlan, tomb *tombstones, keep map[string]bool) *syncer {
	y := &syncer{s: s, opts: opts, stats: st, projects: map[string]int64{}, now: time.Now(), plan: plan,
		prep: preparer{head: opts.ToolHead, tail: opts.ToolTail}, tomb: tomb}
	if opts.Recount {
		y.recount = &recount{keep: keep, started: map[string]bool{}, seen: map[string]bool{}}
	}
	for _, p := range tree.Projects {
		y.decoded(p.Name, p.DecodedPath)
	}
	return y
}

// run reads the plan's files and settles what they held; due marks the
// recount that a build's change of reading made due as done.
func (y *syncer) run(ctx context.Context, plan *syncPlan, due bool) error {
	batch, err := y.readAll(ctx, plan)
	if err == nil {
		err = y.settle(ctx, batch, plan)
	}
	if err == nil && due {
		err = y.s.recountDone(ctx)
	}
	return err
}

// surveyFor is the survey a sync of opts works from: the one started
// ahead (Update) when it fits, else a new one. A survey from the survey
// snapshot is quiet (nothing moved: the sync has nothing to do) or limited
// to the project folders where something moved: the sync is then limited
// to them (opts.Projects), and the other files are counted as scanned
// (unchangedFiles).
func (s *Store) surveyFor(ctx context.Context, claudeDir string, opts *SyncOptions) *survey {
	sv := opts.survey
	if sv == nil || sv.claudeDir != claudeDir || (sv.quick() && (opts.Recount || len(opts.Projects) > 0)) {
		sv = s.startSurvey(ctx, claudeDir, opts.Projects)
	}
	if sv.projects != nil {
		opts.Projects = sv.projects
	}
	return sv
}

// syncPlan is what a sync has to do, from comparing the listing with the
// stored cursors.
type syncPlan struct {
	jobs       []transcripts.Job // new and changed files, from their cursors
	bytesTotal int64             // bytes the jobs have to read
	missing    []int64           // files present last time and gone now
	reappeared int               // files missing last time and back now
	excluded   int               // files with news left unread (dropExcluded)
	// failed are the files that could not be read, path -> size:mtime:
	// those that failed before and have not changed since, and those that
	// fail in this sync (countFile).
	failed map[string]string
	sigs   map[string]string // the size:mtime of every file to read (the jobs')
}

// planSync compares the tree with the known files, counting what it finds
// in st.
func planSync(tree *transcripts.Tree, known map[string]knownFile, failed map[string]string, st *SyncStats) *syncPlan {
	plan := &syncPlan{failed: map[string]string{}, sigs: map[string]string{}}
	found := 0 // files of the tree known as present: all of them, unless some went missing
	for _, p := range tree.Projects {
		for _, f := range p.Files {
			st.FilesScanned++
			if k, ok := known[f.Path]; ok && k.present {
				found++
			}
			// The signature is formatted only for the files that need it
			// (failed before, or to be read): at 14,010 files, formatting
			// every one was a third of a search's plan.
			if was, ok := failed[f.Path]; ok && was == fileSig(f.Size, f.ModTime.UnixNano()) {
				sig := was
				// Could not be read last time and unchanged since: not
				// new, not changed, not read again (settleProblems).
				plan.failed[f.Path] = sig
				continue
			}
			plan.consider(f, known, st)
		}
	}
	plan.missing = missingFiles(tree, known, found)
	st.FilesMissing = len(plan.missing)
	return plan
}

// missingFiles lists the known present files the tree no longer has, given
// how many of them it has (found). A tree lists a path once (discovery
// reads each folder once), so when found is every known present file,
// none is missing, and the set of the tree's paths (14,010 strings at
// 10 GB, for every search's refresh) is not built.
func missingFiles(tree *transcripts.Tree, known map[string]knownFile, found int) []int64 {
	if found == presentFiles(known) {
		return nil
	}
	seen := treePaths(tree, found)
	var missing []int64
	for path, k := range known {
		if k.present && !seen[path] {
			missing = append(missing, k.id)
		}
	}
	return missing
}

// presentFiles is how many of the known files are present.
func presentFiles(known map[string]knownFile) int {
	n := 0
	for _, k := range known {
		if k.present {
			n++
		}
	}
	return n
}

// treePaths is the set of the paths of the tree's files (about n).
func treePaths(tree *transcripts.Tree, n int) map[string]bool {
	seen := make(map[string]bool, n)
	for _, p := range tree.Projects {
		for _, f := range p.Files {
			seen[f.Path] = true
		}
	}
	return seen
}

// consider queues a file for reading from its cursor, unless it is known
// and unchanged.
func (plan *syncPlan) consider(f transcripts.File, known map[string]knownFile, st *SyncStats) {
	k, ok := known[f.Path]
	switch {
	case !ok:
		st.FilesNew++
	case k.readThrough(&f):
		return // unchanged, and read to the end
	case k.unchanged(&f) && time.Since(f.ModTime) < transcripts.QuietPeriod:
		return // a last line without its newline, not quiet long enough yet to be read
	default:
		st.FilesChanged++
		if !k.present {
			plan.reappeared++
		}
	}
	j := transcripts.Job{File: f, Cursor: k.cursor} // a new file's k is zero: from the start
	plan.jobs = append(plan.jobs, j)
	plan.sigs[f.Path] = fileSig(f.Size, f.ModTime.UnixNano())
	if n := f.Size - j.Cursor.Offset; n > 0 {
		plan.bytesTotal += n
	}
}

// recountAll makes the plan read every file of the tree (but the ones that
// failed and did not change) from its start.
func (plan *syncPlan) recountAll(tree *transcripts.Tree) {
	plan.jobs, plan.bytesTotal = nil, 0
	for _, p := range tree.Projects {
		for _, f := range p.Files {
			if _, failed := plan.failed[f.Path]; failed {
				continue
			}
			plan.jobs = append(plan.jobs, transcripts.Job{File: f})
			plan.sigs[f.Path] = fileSig(f.Size, f.ModTime.UnixNano())
			plan.bytesTotal += f.Size
		}
	}
}

// notRecountable lists the sessions a recount must leave as they are: one
// of their files is gone (before this sync or in it) or cannot be read.
func (s *Store) notRecountable(ctx context.Context, plan *syncPlan) (map[string]bool, error) {
	gone := map[int64]bool{}
	for _, id := range plan.missing {
		gone[id] = true
	}
	rows, err := s.r.QueryContext(ctx, `SELECT s.sid, f.id, f.path, f.present FROM sessions s
		JOIN session_files sf ON sf.session = s.id JOIN files f ON f.id = sf.file`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var sid, path string
		var id int64
		var present bool
		if err := rows.Scan(&sid, &id, &path, &present); err != nil {
			return nil, err
		}
		_, failed := plan.failed[path]
		if !present || gone[id] || failed {
			out[sid] = true
		}
	}
	return out, rows.Err()
}

// recountKey flags a store whose sessions were aggregated and stored by a
// build that read the transcripts otherwise (schema 11: the person's words
// besides typed prompts). The next full sync recounts (SyncOptions.Recount)
// and clears it.
const recountKey = "sessions.recount"

// recountDue reports whether the store is flagged for a recount.
func (s *Store) recountDue(ctx context.Context) bool {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM kv WHERE key = ?`, recountKey).Scan(&n)
	return err == nil && n > 0
}

// recountDone clears the recount flag once a recount has finished.
func (s *Store) recountDone(ctx context.Context) error {
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM kv WHERE key = ?`, recountKey)
		return err
	})
}

// recount is the state of a Recount sync.
type recount struct {
	keep    map[string]bool // sessions left as they are (a file is gone)
	started map[string]bool // sessions whose aggregate was started afresh in this sync
	seen    map[string]bool // uuids added to a recounted session in this sync (first seen wins)
}

// begin reports whether session sid is to be aggregated afresh now: the
// first time a recount meets it.
func (rc *recount) begin(sid string) bool {
	if rc == nil || rc.keep[sid] || rc.started[sid] {
		return false
	}
	rc.started[sid] = true
	return true
}

// fileBatch is the prepared files of the next transaction.
type fileBatch struct {
	files   []*preparedFile
	entries int
	bytes   int64
}

func (b *fileBatch) add(pf *preparedFile) {
	b.files = append(b.files, pf)
	b.entries += len(pf.entries)
	b.bytes += pf.bytes
}

// full reports whether the batch is big enough to commit.
func (b *fileBatch) full(opts *SyncOptions) bool {
	return b.entries >= opts.BatchEntries || b.bytes >= opts.BatchBytes
}

// readAll reads and prepares the planned files, committing a transaction
// whenever the batch is full. It returns the last batch, not yet written.
func (y *syncer) readAll(ctx context.Context, plan *syncPlan) ([]*preparedFile, error) {
	var batch fileBatch
	prog := Progress{FilesTotal: len(plan.jobs), BytesTotal: plan.bytesTotal}
	err := transcripts.ReadAll(ctx, plan.jobs, y.opts.Workers, y.opts.Budget, func(r *transcripts.Result) error {
		batch.add(y.prep.prepare(r))
		prog.FilesDone++
		prog.BytesDone += r.Job.File.Size - r.Job.Cursor.Offset
		if batch.full(&y.opts) {
			if err := y.apply(ctx, batch.files, nil); err != nil {
				return err
			}
			batch = fileBatch{}
		}
		if y.opts.Progress != nil {
			prog.Entries = y.stats.EntriesAdded
			y.opts.Progress(prog)
		}
		return nil
	})
	return batch.files, err
}

// settle writes the last transaction, which also settles what depends on
// the whole sync: missing files, archived sessions, pending summaries. It
// is skipped when there is nothing to write or settle.
func (y *syncer) settle(ctx context.Context, batch []*preparedFile, plan *syncPlan) error {
	if len(batch) == 0 && len(plan.missing) == 0 && !y.touched && !y.s.summariesResolvable(ctx) {
		return nil
	}
	presence := len(plan.missing) > 0 || plan.reappeared > 0
	offered := y.opts.handoff != nil && y.stats.Transactions == 0 && y.s.offerSpeculation(ctx, y.opts.handoff, batch)
	if beforeLastTx != nil {
		beforeLastTx(offered)
	}
	return y.apply(ctx, batch, func(w *txWriter) error { return w.finish(plan.missing, presence) })
}

// survey is the first step of a sync, started ahead (startSurvey): the
// tree's listing (syscalls) and the stored cursors (SQLite), which overlap:
// together they are most of an incremental sync.
type survey struct {
	claudeDir string
	done      chan struct{}
	tree      *transcripts.Tree
	known     map[string]knownFile
	err       error

	// What nothingNew planned from this survey (a search's refresh), for
	// the Sync that follows instead of planning the same again: the plan is
	// a function of the listing, the scoped cursors and the failed files.
	plan      *syncPlan
	planStats SyncStats
	memo      syncMemo

	// A whole-tree survey from the survey snapshot (quickSurvey): quiet
	// when no stamp moved (tree and known are then nil), else limited to
	// the project folders where one did (projects); unchangedFiles are
	// the files of the others.
	quiet          bool
	projects       []string
	unchangedFiles int
}

// quick reports whether the survey came from the survey snapshot.
func (sv *survey) quick() bool { return sv.quiet || sv.projects != nil }

// takePlan hands over the plan nothingNew made from this survey, once,
// adding its counts to st; nil when there is none.
func (sv *survey) takePlan(st *SyncStats) (syncMemo, *syncPlan) {
	if sv == nil || sv.plan == nil {
		return syncMemo{}, nil
	}
	plan, memo := sv.plan, sv.memo
	sv.plan, sv.memo = nil, syncMemo{}
	st.FilesScanned += sv.planStats.FilesScanned
	st.FilesNew += sv.planStats.FilesNew
	st.FilesChanged += sv.planStats.FilesChanged
	st.FilesMissing = sv.planStats.FilesMissing
	return memo, plan
}

// startSurvey lists the tree and loads the cursors in the background.
// Update starts it before opening the full-text index, which it then
// overlaps too.
func (s *Store) startSurvey(ctx context.Context, claudeDir string, projects []string) *survey {
	sv := &survey{claudeDir: claudeDir, done: make(chan struct{})}
	var kerr error
	knownDone := make(chan struct{})
	var snap *filesSnap
	var epoch string // before the rows: a change after it draws another
	go func() {
		defer close(knownDone)
		if len(projects) == 0 {
			epoch = s.filesEpoch(ctx, false)
			snap, sv.known, kerr = s.knownWhole(ctx)
			return
		}
		sv.known, kerr = s.knownFiles(ctx, projects)
	}()
	go func() {
		defer close(sv.done)
		var derr error
		var c *transcripts.DirCache
		sv.tree, c, derr = s.discoverCached(claudeDir, projects)
		<-knownDone
		if snap != nil && sv.tree != nil {
			sv.known, kerr = s.knownFromSnap(ctx, snap, sv.tree)
		}
		if derr == nil && kerr == nil && c != nil {
			s.snapshotSurvey(epoch, sv.tree, c, sv.known)
		}
		// A discovery error comes first: without the projects folder
		// nothing can be compared, and every file must not be marked
		// missing because of a wrong --claude-dir.
		sv.err = cmp.Or(derr, kerr)
	}()
	return sv
}

func (sv *survey) wait() (*transcripts.Tree, map[string]knownFile, error) {
	<-sv.done
	return sv.tree, sv.known, sv.err
}

// summariesResolvable reports whether a pending summary's leaf is stored
// (an earlier sync was interrupted before resolving it).
func (s *Store) summariesResolvable(ctx context.Context) bool {
	var one int
	err := s.r.QueryRowContext(ctx, `SELECT 1 FROM summaries s JOIN entries_raw e ON e.uuid = cairn_pack(s.leaf_uuid)
		JOIN sessions ss ON ss.id = e.session LEFT JOIN summary_projects sp ON sp.summary = s.id
		WHERE s.session IS NULL AND (sp.project IS NULL OR sp.project = ss.project) LIMIT 1`).Scan(&one)
	return err == nil
}

// discover lists the transcript files of the tree, or of some projects.
// A whole-tree listing skips the folders that have not changed since the
// last one (dirs.cache beside the store: derived, rewritten when a
// listing changed).
func (s *Store) discover(claudeDir string, projects []string) (*transcripts.Tree, error) {
	tree, _, err := s.discoverCached(claudeDir, projects)
	return tree, err
}

// discoverCached is discover, with the folder cache of a whole-tree
// listing (nil for some projects): the folders it saw, for the survey
// snapshot.
func (s *Store) discoverCached(claudeDir string, projects []string) (*transcripts.Tree, *transcripts.DirCache, error) {
	if len(projects) == 0 {
		return s.discoverWhole(claudeDir)
	}
	tree, err := discoverProjects(claudeDir, projects)
	return tree, nil, err
}

// discoverWhole lists the whole tree, skipping the folders dirs.cache
// says have not changed, and writes the cache again when the listing
// changed.
func (s *Store) discoverWhole(claudeDir string) (*transcripts.Tree, *transcripts.DirCache, error) {
	path := filepath.Join(s.Dir(), "dirs.cache")
	b, _ := os.ReadFile(path)
	if string(b[:min(len(b), len(claudeDir)+1)]) != claudeDir+"\n" {
		b = nil // another tree's listings
	} else {
		b = b[len(claudeDir)+1:]
	}
	c := transcripts.LoadDirCache(b)
	tree, err := transcripts.DiscoverCached(claudeDir, c)
	if err == nil && !s.readOnly && c.Changed() {
		if out, merr := c.MarshalBinary(); merr == nil {
			writeFileAtomic(path, append([]byte(claudeDir+"\n"), out...))
		}
	}
	return tree, c, err
}

// discoverProjects lists the project folders projects (a deleted one is
// left out: its files are missing).
func discoverProjects(claudeDir string, projects []string) (*transcripts.Tree, error) {
	tree := &transcripts.Tree{ClaudeDir: claudeDir}
	for _, name := range projects {
		pt, err := transcripts.DiscoverProject(claudeDir, name)
		if errors.Is(err, fs.ErrNotExist) {
			if _, rerr := os.Stat(filepath.Join(claudeDir, "projects")); rerr != nil {
				return nil, fmt.Errorf("no Claude Code transcripts at %s: %w", claudeDir, rerr)
			}
			continue // the folder was deleted: its files are missing
		}
		if err != nil {
			return nil, err
		}
		tree.Projects = append(tree.Projects, pt.Projects...)
		tree.Problems = append(tree.Problems, pt.Problems...)
	}
	return tree, nil
}

// knownFiles loads the files table (of some projects only, when given).
func (s *Store) knownFiles(ctx context.Context, projects []string) (map[string]knownFile, error) {
	q := knownColumns
	var args []any
	if len(projects) > 0 {
		q += ` JOIN projects p ON p.id = f.project WHERE p.name IN (` + sqlList(len(projects)) + `)`
		for _, p := range projects {
			args = append(args, p)
		}
	}
	out := map[string]knownFile{}
	err := s.eachRow(ctx, q, args, func(rows *sql.Rows) error {
		path, k, err := scanKnown(rows)
		out[path] = k
		return err
	})
	return out, s.wrap(err)
}

// knownColumns selects the files rows as scanKnown reads them.
const knownColumns = `SELECT f.id, f.path, f.size, f.mtime, f.cur_offset, f.cur_line, f.cur_fp, f.present FROM files f`

// scanKnown reads a row of knownColumns.
func scanKnown(rows *sql.Rows) (string, knownFile, error) {
	var k knownFile
	var path string
	var fp int64
	err := rows.Scan(&k.id, &path, &k.size, &k.mtime, &k.cursor.Offset, &k.cursor.Line, &fp, &k.present)
	k.cursor.Fingerprint = uint64(fp)
	k.cursor.Size = k.size
	return path, k, err
}

// syncer is the state of one Sync across its transactions.
type syncer struct {
	s        *Store
	opts     SyncOptions
	stats    *SyncStats
	prep     preparer
	now      time.Time
	projects map[string]int64  // folder name -> projects.id; rows are never deleted
	paths    map[string]string // folder name -> decoded path
	touched  bool              // a transaction wrote entries or summaries
	tomb     *tombstones       // what was forgotten: never stored again
	plan     *syncPlan
	rule     *projectRule // sessions' projects; its cache outlives each transaction
	recount  *recount     // set by SyncOptions.Recount
}

// projectRule is the sync's project rule, reading and recording through tx.
func (y *syncer) projectRule(tx *sql.Tx) *projectRule {
	if y.rule == nil {
		y.rule = newProjectRule(tx, tx, y.now.UnixMilli())
	}
	y.rule.q, y.rule.exec = tx, tx
	return y.rule
}

func (y *syncer) decoded(name, path string) {
	if y.paths == nil {
		y.paths = map[string]string{}
	}
	y.paths[name] = path
}

func (y *syncer) decodedPath(project string) string {
	if p, ok := y.paths[project]; ok {
		return p
	}
	return transcripts.DecodeProjectName(project)
}

// apply writes a batch of files in one transaction; final, when set, runs
// last inside it. Statistics are counted only once the transaction commits.
func (y *syncer) apply(ctx context.Context, batch []*preparedFile, final func(*txWriter) error) error {
	var w *txWriter
	err := y.s.writeTx(ctx, func(tx *sql.Tx) error {
		var err error
		w, err = newTxWriter(ctx, tx, y)
		if err != nil {
			return err
		}
		defer w.close()
		return w.batch(batch, final)
	})
	if err != nil {
		return err
	}
	if y.opts.handoff != nil {
		y.opts.handoff.push(w.fresh, w.flushed)
	}
	y.count(w, batch)
	return nil
}

// batch writes the files, then runs final when set, writing the sessions
// each step touched.
func (w *txWriter) batch(batch []*preparedFile, final func(*txWriter) error) error {
	for _, pf := range batch {
		if err := w.file(pf); err != nil {
			return err
		}
	}
	if err := w.flushSessions(); err != nil {
		return err
	}
	if final == nil {
		return nil
	}
	if err := final(w); err != nil {
		return err
	}
	return w.flushSessions()
}

// count adds a committed transaction to the statistics.
func (y *syncer) count(w *txWriter, batch []*preparedFile) {
	st := y.stats
	st.Transactions++
	st.EntriesAdded += w.added
	st.Duplicates += w.dups
	st.Redactions += w.redactions
	st.Sessions += w.sessionsWritten
	if w.added > 0 || w.summaries > 0 {
		y.touched = true
	}
	for _, pf := range batch {
		st.countFile(pf)
		if pf.err != nil && y.plan != nil {
			y.plan.failed[pf.file.Path] = y.plan.sigs[pf.file.Path]
		}
	}
}

// countFile adds what reading one file found.
func (st *SyncStats) countFile(pf *preparedFile) {
	st.BytesRead += pf.stats.Bytes
	st.BadLines += pf.stats.BadLines
	if pf.stats.Restart {
		st.Restarts++
	}
	for _, le := range pf.stats.Errors {
		if len(st.LineErrors) < transcripts.MaxLineErrors {
			st.LineErrors = append(st.LineErrors, le)
		}
	}
	if pf.err != nil {
		st.Problems = append(st.Problems, pf.err)
	}
	if pf.warning != nil {
		st.Problems = append(st.Problems, pf.warning)
	}
}
