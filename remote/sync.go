package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/index"
	"github.com/gofrs/flock"
)

// Result says what a sync did.
type Result struct {
	Machine        string        `json:"machine"`
	PushedSessions int           `json:"pushed_sessions"` // bundles written this sync
	PushedBytes    int64         `json:"pushed_bytes"`    // their compressed size
	KeptSessions   int           `json:"kept_sessions"`   // unchanged, not exported again
	Excluded       int           `json:"excluded"`        // opted out (.cairnignore, index.exclude): never pushed
	PulledSessions int           `json:"pulled_sessions"` // bundles unpacked from other machines
	PulledBytes    int64         `json:"pulled_bytes"`
	Removed        int           `json:"removed"` // imported sessions their machine no longer has
	Forgotten      int           `json:"forgotten"`
	MemPushed      int           `json:"memories_pushed"`
	MemPulled      int           `json:"memories_pulled"`
	Conflicts      int           `json:"conflicts"` // memories edited on two machines: both kept for review
	Compacted      bool          `json:"compacted,omitempty"`
	Committed      bool          `json:"committed"`
	Attempts       int           `json:"attempts"`
	Warnings       []string      `json:"warnings,omitempty"`
	Duration       time.Duration `json:"duration_ns"`
}

// Options tune a sync.
type Options struct {
	// Progress, when set, gets short phase messages.
	Progress func(msg string)
	// Open opens cairn (app.Open by default); tests pass their own.
	Open func() (*app.App, error)
	// IndexFirst reads new transcript lines of this machine's Claude
	// Code into the store before pushing (the CLI's default).
	IndexFirst bool
}

// Init records the remote and this machine's name, after checking that
// git runs and the remote answers. Nothing is pushed until `sync`.
func Init(ctx context.Context, dataDir, url, machine string) (Config, error) {
	if err := checkGit(); err != nil {
		return Config{}, err
	}
	if machine == "" {
		machine = MachineName()
	}
	if !validMachine(machine) {
		return Config{}, fmt.Errorf("machine name %q: use lower-case letters, digits, '.', '_' and '-' (at most 63)", machine)
	}
	g := &git{dir: dataDir, url: url}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return Config{}, err
	}
	if _, err := g.run(ctx, "ls-remote", "--heads", url); err != nil {
		return Config{}, unreachable(url, err)
	}
	c := Config{URL: url, Machine: machine, Branch: "main"}
	b, _ := json.MarshalIndent(c, "", " ")
	if err := writeAtomic(configPath(dataDir), b); err != nil {
		return c, err
	}
	return c, nil
}

func unreachable(url string, err error) error {
	return fmt.Errorf("cannot reach the remote %s: %w\n(check the URL, the network and your SSH key or credentials: `git ls-remote %s` must work; your store was not changed)", url, err, url)
}

// Sync pulls the other machines' sessions, memories and forgets into the
// store, then pushes this machine's. The store is only changed through its
// own transactions; the clone is rebuilt from the remote and the store, so
// a sync killed at any point is finished by the next one.
func Sync(ctx context.Context, paths app.Paths, o Options) (res Result, err error) {
	start := time.Now()
	o = o.withDefaults(paths)
	a, err := o.Open()
	if err != nil {
		return res, err
	}
	defer func() {
		if a != nil { // nil when reopening after a forget failed
			a.Close()
		}
	}()
	dataDir := a.Paths.DataDir
	c, err := LoadConfig(dataDir)
	if err != nil {
		return res, err
	}
	res.Machine = c.Machine
	unlock, err := lockSync(dataDir)
	if err != nil {
		return res, err
	}
	defer unlock()
	st, err := loadState(dataDir)
	if err != nil {
		return res, err
	}
	defer func() { err = closeRun(dataDir, st, start, &res, err) }()
	if err := checkGit(); err != nil {
		return res, err
	}
	clearStaging(dataDir)
	if err := indexFirst(ctx, a, o); err != nil {
		return res, err
	}
	s := &syncer{a: a, c: c, st: st, res: &res, o: o, g: &git{dir: repoDir(dataDir), url: c.URL}}
	if err := s.attempts(ctx); err != nil {
		return res, err
	}
	a, err = finishForget(ctx, a, o, res)
	return res, err
}

// withDefaults fills what a caller may leave out: no progress messages,
// and cairn opened from paths.
func (o Options) withDefaults(paths app.Paths) Options {
	if o.Progress == nil {
		o.Progress = func(string) {}
	}
	if o.Open == nil {
		o.Open = func() (*app.App, error) { return app.Open(paths, app.Options{}) }
	}
	return o
}

// closeRun ends a sync that got its lock, whatever happened: it stamps
// the duration, saves the sync state and records the run for `remote
// status`. The sync's own error wins over one of these.
func closeRun(dataDir string, st *state, start time.Time, res *Result, err error) error {
	res.Duration = time.Since(start)
	if serr := st.save(dataDir); serr != nil && err == nil {
		err = serr
	}
	if rerr := record(dataDir, *res, err); rerr != nil && err == nil {
		err = rerr
	}
	return err
}

// lockGrace is how long lockSync waits for a held sync lock before it
// says another sync is running. A sync killed (kill -9) while it starts a
// git child leaves that child, between its fork and its exec, a copy of
// every descriptor, the lock's too (close-on-exec closes it only at the
// exec): the lock outlives the killed sync by that moment, milliseconds
// on a busy machine, and a sync started right after the kill would
// otherwise be refused. No child keeps it past its exec.
const lockGrace = 2 * time.Second

// lockSync takes the data directory's sync lock, or says who holds it.
func lockSync(dataDir string) (unlock func() error, err error) {
	if err := os.MkdirAll(Dir(dataDir), 0o700); err != nil {
		return nil, index.WritableError(dataDir, err)
	}
	lk := flock.New(lockPath(dataDir))
	deadline := time.Now().Add(lockGrace)
	for {
		ok, err := lk.TryLock()
		if err != nil {
			return nil, fmt.Errorf("locking %s: %w", lockPath(dataDir), err)
		}
		if ok {
			return lk.Unlock, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("another `cairn remote sync` is running (it holds %s): wait for it to finish", lockPath(dataDir))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// indexFirst reads this machine's new transcripts before a sync that
// asks for it (o.IndexFirst), when there are any.
func indexFirst(ctx context.Context, a *app.App, o Options) error {
	if !o.IndexFirst {
		return nil
	}
	if _, err := os.Stat(filepath.Join(a.Paths.ClaudeDir, "projects")); err != nil {
		return nil
	}
	o.Progress("reading this machine's new transcripts")
	_, err := a.Index(ctx, app.IndexOptions{Profile: app.Bulk})
	return err
}

// attempts runs the sync up to 5 times while the remote rejects the push
// (another machine came first, or another push holds its branch).
func (s *syncer) attempts(ctx context.Context) error {
	var err error
	for attempt := 1; ; attempt++ {
		s.res.Attempts = attempt
		err = s.once(ctx)
		if err == nil || !rejected(err) || attempt == 5 {
			break
		}
		if refLock(err) != "" {
			// Another push holds the remote's branch: give it time.
			time.Sleep(time.Duration(attempt) * 200 * time.Millisecond)
		}
		s.o.Progress("the remote moved on meanwhile: starting again from it")
	}
	if lock := refLock(err); lock != "" {
		return fmt.Errorf("pushing to %s failed: its branch is locked by %s, which a git process writes while it updates the branch; it is still there after 5 attempts, so a push to that repository was probably killed mid-way (git leaves the file behind). If no other `cairn remote sync` or `git push` to it is running, remove that file and run `cairn remote sync` again (this machine's store is unchanged): %w", s.c.URL, lock, err)
	}
	return err
}

// finishForget completes, after a sync, a forget it applied or published:
// the search indexes are rebuilt without the forgotten text and no free
// page of the store keeps a copy of it. It returns the app to close (a
// reopened one after a forget applied here).
func finishForget(ctx context.Context, a *app.App, o Options, res Result) (*app.App, error) {
	var err error
	if res.Forgotten > 0 {
		// Reopening finishes the forget: the full-text index, the vectors
		// and the embedder's model are rebuilt without the forgotten text,
		// and the backups are cleaned (app.Open's rule).
		o.Progress("rebuilding the search indexes after a forget")
		a.Close()
		if a, err = o.Open(); err != nil {
			return a, fmt.Errorf("forgotten in the store, but reopening it to rebuild the search indexes failed: %w (run `cairn index --rebuild --retrain`)", err)
		}
	}
	if res.Forgotten > 0 || res.Compacted {
		// A forget applied here, or one made here and now published (the
		// remote's history replaced): no free page of the store keeps an
		// older copy of the text either (`cairn forget` zeroes what it
		// deletes, not the copies earlier updates left).
		if err := a.Store.ScrubFreeSpace(ctx); err != nil {
			return a, fmt.Errorf("forgotten in the store, but rewriting it without the deleted text's old copies failed: %w (run `cairn remote sync` again)", err)
		}
	}
	return a, nil
}

// syncer is one sync's state.
type syncer struct {
	a   *app.App
	c   Config
	st  *state
	res *Result
	o   Options
	g   *git
	// tree is the working tree's root (g.dir).
	compact bool
}

func (s *syncer) warn(format string, args ...any) {
	s.res.Warnings = append(s.res.Warnings, fmt.Sprintf(format, args...))
}

// once is one attempt: fetch, rebuild the tree from the remote, pull,
// push. A push the remote rejects (another machine came first) is tried
// again from a fresh fetch by the caller.
func (s *syncer) once(ctx context.Context) error {
	s.res.Warnings = nil
	s.compact = false
	s.o.Progress("fetching " + s.c.URL)
	remoteHead, err := s.fetch(ctx)
	if err != nil {
		return err
	}
	s.o.Progress("reading the other machines")
	if err := s.pull(ctx); err != nil {
		return err
	}
	s.o.Progress("writing this machine's sessions and memories")
	if err := s.push(ctx); err != nil {
		return err
	}
	s.o.Progress("pushing")
	return s.commit(ctx, remoteHead)
}

// fetch makes the clone's working tree exactly the remote branch (or
// empty, for a remote with nothing yet) and returns the remote's commit.
func (s *syncer) fetch(ctx context.Context) (string, error) {
	if err := s.openClone(ctx); err != nil {
		return "", err
	}
	ref := "refs/remotes/origin/" + s.c.Branch
	old, _ := s.g.run(ctx, "rev-parse", "-q", "--verify", ref)
	if _, err := s.g.run(ctx, "fetch", "-q", "--no-tags", "origin", "+refs/heads/*:refs/remotes/origin/*"); err != nil {
		return "", unreachable(s.c.URL, err)
	}
	head, _ := s.g.run(ctx, "rev-parse", "-q", "--verify", ref)
	if err := s.resetTree(ctx, head); err != nil {
		return "", err
	}
	if old != "" && head != "" && old != head {
		if _, err := s.g.run(ctx, "merge-base", "--is-ancestor", old, head); err != nil {
			// Another machine compacted the history after a forget: drop
			// the old commits from this clone too.
			s.prune(ctx)
		}
	}
	return head, nil
}

// openClone makes the clone's repository (on the first sync), clears the
// locks a killed git left in it and points its origin at the remote.
func (s *syncer) openClone(ctx context.Context) error {
	dir := s.g.dir
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return index.WritableError(dir, err)
		}
		if _, err := s.g.run(ctx, "init", "-q"); err != nil {
			return err
		}
	}
	clearStaleLocks(filepath.Join(dir, ".git"))
	// The URL is set every time: `remote init` may have changed it.
	s.g.run(ctx, "remote", "remove", "origin") //nolint:errcheck // absent the first time
	_, err := s.g.run(ctx, "remote", "add", "origin", s.c.URL)
	return err
}

// resetTree makes the clone's branch and working tree the remote's commit
// head, or an empty tree when the remote has none. The store is the truth
// and the remote the shared state: what the clone held is replaced (a
// sync killed half-way left it anything).
func (s *syncer) resetTree(ctx context.Context, head string) error {
	if err := s.checkout(ctx, head); err != nil {
		return err
	}
	if _, err := s.g.run(ctx, "clean", "-q", "-f", "-d", "-x"); err != nil {
		return err
	}
	if head == "" {
		// An empty remote: an empty tree.
		ents, _ := os.ReadDir(s.g.dir)
		for _, e := range ents {
			if e.Name() != ".git" {
				os.RemoveAll(filepath.Join(s.g.dir, e.Name()))
			}
		}
	}
	return nil
}

// checkout puts the clone's branch at head, or makes it a new branch with
// nothing staged when head is "".
func (s *syncer) checkout(ctx context.Context, head string) error {
	if head != "" {
		_, err := s.g.run(ctx, "checkout", "-q", "-f", "-B", s.c.Branch, head)
		return err
	}
	if _, err := s.g.run(ctx, "checkout", "-q", "-f", "--orphan", s.c.Branch); err != nil && !strings.Contains(err.Error(), "already exists") {
		return err
	}
	s.g.run(ctx, "rm", "-r", "-q", "-f", "--cached", ".") //nolint:errcheck // nothing staged on a new clone
	return nil
}

// clearStaging removes the staging folders a killed sync left (bundles
// being unpacked, sessions being exported): the caller holds the sync
// lock, so no other sync is using them.
func clearStaging(dataDir string) {
	for _, pat := range []string{"unpack-*", "export-*"} {
		left, _ := filepath.Glob(filepath.Join(Dir(dataDir), pat))
		for _, d := range left {
			os.RemoveAll(d)
		}
	}
}

// clearStaleLocks removes the lock files git leaves in the clone when it
// is killed while holding one (index.lock, a ref's .lock: every later git
// command there would fail with "File exists"). The caller holds the sync
// lock, so no other sync's git works in the clone; a git orphaned by a
// killed sync has long finished, or its work is redone by this sync.
func clearStaleLocks(gitDir string) {
	filepath.WalkDir(gitDir, func(p string, d fs.DirEntry, err error) error { //nolint:errcheck // best effort: git names any lock left
		if err != nil {
			return nil
		}
		if d.IsDir() && p == filepath.Join(gitDir, "objects") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".lock") {
			os.Remove(p)
		}
		return nil
	})
}

// prune deletes the objects no commit of the clone reaches any more (a
// forgotten session's bundle in a replaced history).
func (s *syncer) prune(ctx context.Context) {
	s.g.run(ctx, "reflog", "expire", "--expire=now", "--all") //nolint:errcheck
	s.g.run(ctx, "gc", "-q", "--prune=now")                   //nolint:errcheck
	s.g.run(ctx, "repack", "-a", "-d", "-q")                  //nolint:errcheck
	s.g.run(ctx, "prune", "--expire=now")                     //nolint:errcheck
}

// commit commits the tree and pushes it. After a forget the history is
// replaced by one commit of the current tree (pushed with a lease on the
// remote's commit, so a push from another machine meanwhile is never
// overwritten), so the forgotten text is not left in the history either.
func (s *syncer) commit(ctx context.Context, remoteHead string) error {
	changed, err := s.stage(ctx, remoteHead)
	if err != nil || !changed && !s.compact {
		return err
	}
	commit, err := s.makeCommit(ctx, remoteHead)
	if err != nil {
		return err
	}
	if err := s.pushCommit(ctx, remoteHead, commit); err != nil {
		return err
	}
	s.res.Committed = true
	s.g.run(ctx, "update-ref", "refs/remotes/origin/"+s.c.Branch, commit) //nolint:errcheck
	if s.compact {
		s.g.run(ctx, "checkout", "-q", "-f", "-B", s.c.Branch, commit) //nolint:errcheck
		s.res.Compacted = true
		s.prune(ctx)
	}
	return nil
}

// stage stages the whole tree and reports whether it differs from the
// remote's commit (always, for a remote with none).
func (s *syncer) stage(ctx context.Context, remoteHead string) (bool, error) {
	if _, err := s.g.run(ctx, "add", "-A", "."); err != nil {
		return false, err
	}
	if remoteHead == "" {
		return true, nil
	}
	_, err := s.g.run(ctx, "diff", "--cached", "--quiet", remoteHead)
	return err != nil, nil
}

// makeCommit commits the staged tree and returns the commit: on top of
// the branch, or as a commit with no parent for a new remote or a history
// replaced after a forget.
func (s *syncer) makeCommit(ctx context.Context, remoteHead string) (string, error) {
	ident := []string{"-c", "user.name=cairn (" + s.c.Machine + ")", "-c", "user.email=cairn@" + s.c.Machine, "-c", "commit.gpgsign=false"}
	msg := fmt.Sprintf("cairn: %s: %d sessions, %d memories", s.c.Machine, s.res.PushedSessions, s.res.MemPushed)
	if !s.compact && remoteHead != "" {
		if _, err := s.g.run(ctx, append(ident, "commit", "-q", "--no-verify", "-m", msg)...); err != nil {
			return "", err
		}
		return s.g.run(ctx, "rev-parse", "HEAD")
	}
	tree, err := s.g.run(ctx, "write-tree")
	if err != nil {
		return "", err
	}
	if s.compact {
		msg = fmt.Sprintf("cairn: %s: history replaced after a forget", s.c.Machine)
	}
	return s.g.runEnv(ctx, commitEnv(s.c.Machine), append(ident, "commit-tree", tree, "-m", msg)...)
}

// pushCommit pushes commit to the branch with a lease on the remote's
// commit remoteHead (on its absence, for a new remote).
func (s *syncer) pushCommit(ctx context.Context, remoteHead, commit string) error {
	lease := "--force-with-lease=refs/heads/" + s.c.Branch + ":" + remoteHead
	if _, err := s.g.run(ctx, "push", "-q", "--no-verify", lease, "origin", commit+":refs/heads/"+s.c.Branch); err != nil {
		if rejected(err) {
			return err
		}
		return fmt.Errorf("pushing to %s failed: %w\n(the store is unchanged by this; run `cairn remote sync` again once the remote takes pushes)", s.c.URL, err)
	}
	return nil
}

func commitEnv(machine string) []string {
	return []string{"GIT_AUTHOR_NAME=cairn (" + machine + ")", "GIT_AUTHOR_EMAIL=cairn@" + machine,
		"GIT_COMMITTER_NAME=cairn (" + machine + ")", "GIT_COMMITTER_EMAIL=cairn@" + machine}
}

// Repository files.

type manifest struct {
	Version  int                        `json:"version"`
	Machine  string                     `json:"machine"`
	Sessions map[string]manifestSession `json:"sessions"`
}

type manifestSession struct {
	Bundle  string `json:"bundle"`
	Folder  string `json:"folder"`
	Project string `json:"project"`
	Sig     string `json:"sig"`
	Bytes   int64  `json:"bytes"`
}

type tombstone struct {
	Kind string `json:"kind"` // session or path
	Key  string `json:"key"`
}

func (s *syncer) machinePath(m string, parts ...string) string {
	return filepath.Join(append([]string{s.g.dir, "machines", m}, parts...)...)
}

// machines lists the machine folders of the tree.
func (s *syncer) machines() []string {
	ents, _ := os.ReadDir(filepath.Join(s.g.dir, "machines"))
	var out []string
	for _, e := range ents {
		if e.IsDir() && validMachine(e.Name()) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// others is the machines of the tree but this one.
func (s *syncer) others() []string {
	return slices.DeleteFunc(s.machines(), func(m string) bool { return m == s.c.Machine })
}

// submap is the inner map of outer at key, made (and kept) when missing.
func submap[K comparable, V any](outer map[string]map[K]V, key string) map[K]V {
	inner := outer[key]
	if inner == nil {
		inner = map[K]V{}
		outer[key] = inner
	}
	return inner
}

// readJSON reads a repository file; a damaged one is a warning naming it.
func (s *syncer) readJSON(path string, v any) bool {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		rel, _ := filepath.Rel(s.g.dir, path)
		s.warn("%s in the remote is damaged (%v): skipped; its machine rewrites it on its next sync", filepath.ToSlash(rel), err)
		return false
	}
	return true
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if old, err := os.ReadFile(path); err == nil && string(old) == string(b) {
		return nil
	}
	return writeAtomic(path, b)
}

func shortHash(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// hasTarget reports whether targets holds t.
func hasTarget(targets []index.ForgetTarget, t index.ForgetTarget) bool {
	return slices.Contains(targets, t)
}
