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
	// inserts fast; each one holds the write lock while it runs.
	BatchEntries int   // 0 = 10,000
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
		o.BatchEntries = 10_000
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
}

// Sync brings the store up to date with the transcripts under claudeDir:
// only files whose size or mtime changed are read, from their stored
// cursor, and only complete lines. Entries are written in big transactions
// that also advance the cursors of the files they came from, so an
// interrupted sync (even kill -9) leaves a consistent store and the next one
// finishes the job. Files that disappeared keep their entries; their
// sessions are marked archived.
func (s *Store) Sync(ctx context.Context, claudeDir string, opts SyncOptions) (SyncStats, error) {
	start := time.Now()
	opts.defaults()
	var st SyncStats
	sv := opts.survey
	if sv == nil || sv.claudeDir != claudeDir {
		sv = s.startSurvey(ctx, claudeDir, opts.Projects)
	}
	tree, known, err := sv.wait()
	if err != nil {
		return st, err
	}
	st.Problems = append(st.Problems, tree.Problems...)
	reappeared := 0
	var jobs []transcripts.Job
	var bytesTotal int64
	seen := make(map[string]bool, len(known))
	for _, p := range tree.Projects {
		for _, f := range p.Files {
			st.FilesScanned++
			seen[f.Path] = true
			k, ok := known[f.Path]
			switch {
			case !ok:
				st.FilesNew++
			case k.present && k.size == f.Size && k.mtime == f.ModTime.UnixNano():
				continue // unchanged
			default:
				st.FilesChanged++
				if !k.present {
					reappeared++
				}
			}
			j := transcripts.Job{File: f}
			if ok {
				j.Cursor = k.cursor
			}
			jobs = append(jobs, j)
			if n := f.Size - j.Cursor.Offset; n > 0 {
				bytesTotal += n
			}
		}
	}
	var missing []int64
	for path, k := range known {
		if k.present && !seen[path] {
			missing = append(missing, k.id)
		}
	}
	st.FilesMissing = len(missing)

	y := &syncer{s: s, opts: opts, stats: &st, projects: map[string]int64{}, now: time.Now(),
		prep: preparer{head: opts.ToolHead, tail: opts.ToolTail}}
	for _, p := range tree.Projects {
		y.decoded(p.Name, p.DecodedPath)
	}
	var batch []*preparedFile
	var batchEntries int
	var batchBytes int64
	prog := Progress{FilesTotal: len(jobs), BytesTotal: bytesTotal}
	err = transcripts.ReadAll(ctx, jobs, opts.Workers, opts.Budget, func(r *transcripts.Result) error {
		pf := y.prep.prepare(r)
		batch = append(batch, pf)
		batchEntries += len(pf.entries)
		batchBytes += pf.bytes
		prog.FilesDone++
		prog.BytesDone += r.Job.File.Size - r.Job.Cursor.Offset
		if batchEntries >= opts.BatchEntries || batchBytes >= opts.BatchBytes {
			if err := y.apply(ctx, batch, nil); err != nil {
				return err
			}
			batch, batchEntries, batchBytes = nil, 0, 0
		}
		if opts.Progress != nil {
			prog.Entries = st.EntriesAdded
			opts.Progress(prog)
		}
		return nil
	})
	if err == nil {
		// The last transaction also settles what depends on the whole
		// sync: missing files, archived sessions, pending summaries.
		if len(batch) > 0 || len(missing) > 0 || y.touched || s.summariesResolvable(ctx) {
			presence := len(missing) > 0 || reappeared > 0
			offered := opts.handoff != nil && st.Transactions == 0 && s.offerSpeculation(ctx, opts.handoff, batch)
			if beforeLastTx != nil {
				beforeLastTx(offered)
			}
			err = y.apply(ctx, batch, func(w *txWriter) error { return w.finish(missing, presence) })
		}
	}
	st.Duration = time.Since(start)
	if err != nil && errors.Is(err, context.Canceled) {
		return st, fmt.Errorf("sync interrupted (what was committed is kept; run it again to finish): %w", err)
	}
	return st, err
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
}

// startSurvey lists the tree and loads the cursors in the background.
// Update starts it before opening the full-text index, which it then
// overlaps too.
func (s *Store) startSurvey(ctx context.Context, claudeDir string, projects []string) *survey {
	sv := &survey{claudeDir: claudeDir, done: make(chan struct{})}
	var kerr error
	knownDone := make(chan struct{})
	go func() {
		defer close(knownDone)
		sv.known, kerr = s.knownFiles(ctx, projects)
	}()
	go func() {
		defer close(sv.done)
		var derr error
		sv.tree, derr = s.discover(claudeDir, projects)
		<-knownDone
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
	err := s.r.QueryRowContext(ctx, `SELECT 1 FROM summaries s JOIN entries e ON e.uuid = s.leaf_uuid WHERE s.session IS NULL LIMIT 1`).Scan(&one)
	return err == nil
}

// discover lists the transcript files of the tree, or of some projects.
// A whole-tree listing skips the folders that have not changed since the
// last one (dirs.cache beside the store: derived, rewritten when a
// listing changed).
func (s *Store) discover(claudeDir string, projects []string) (*transcripts.Tree, error) {
	if len(projects) == 0 {
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
		return tree, err
	}
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
	q := `SELECT f.id, f.path, f.size, f.mtime, f.cur_offset, f.cur_line, f.cur_fp, f.present FROM files f`
	var args []any
	if len(projects) > 0 {
		q += ` JOIN projects p ON p.id = f.project WHERE p.name IN (` + sqlList(len(projects)) + `)`
		for _, p := range projects {
			args = append(args, p)
		}
	}
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	out := map[string]knownFile{}
	for rows.Next() {
		var k knownFile
		var path string
		var fp int64
		if err := rows.Scan(&k.id, &path, &k.size, &k.mtime, &k.cursor.Offset, &k.cursor.Line, &fp, &k.present); err != nil {
			return nil, err
		}
		k.cursor.Fingerprint = uint64(fp)
		k.cursor.Size = k.size
		out[path] = k
	}
	return out, s.wrap(rows.Err())
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
		for _, pf := range batch {
			if err := w.file(pf); err != nil {
				return err
			}
		}
		if err := w.flushSessions(); err != nil {
			return err
		}
		if final != nil {
			if err := final(w); err != nil {
				return err
			}
			if err := w.flushSessions(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if y.opts.handoff != nil {
		y.opts.handoff.push(w.fresh, w.flushed)
	}
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
	return nil
}
