package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/index/ftsapi"
	"github.com/cairn-dev/cairn/internal/diskspace"
)

// restoreFixture is a data dir holding the "old" store (the small sample,
// its full-text index, and the memory oldWord) and a backup of a "new"
// store (the small sample and the memory newWord, one memory fewer than
// the old).
type restoreFixture struct {
	data, backup string
	old, new     storeShape
}

// storeShape is what tells the old store from the new one.
type storeShape struct{ sessions, memories int }

const (
	oldWord = "quillfeatherold"
	newWord = "zanzibarquillnew"
)

func saveMemory(t testing.TB, s *Store, id, content string) {
	t.Helper()
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	if err := s.Mem().Save(context.Background(), &MemRow{ID: id, Type: "gotcha", Content: content, Importance: 3,
		Status: "approved", Origin: "manual", Created: now, Updated: now}); err != nil {
		t.Fatal(err)
	}
}

func drainAll(t testing.TB, s *Store) {
	t.Helper()
	ix, err := s.Derived().OpenFTS(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := s.Derived().DrainFTS(context.Background(), ix, nil); err != nil {
		t.Fatal(err)
	}
}

// newRestoreFixture is a fresh copy of the restore fixture: an old store
// in place and a new one backed up. The two stores are built once for the
// package (two syncs and two full-text indexes; the restore tests used
// up to a dozen fixtures each) and copied.
func newRestoreFixture(t *testing.T) *restoreFixture {
	t.Helper()
	tpl := &restoreTemplate
	tpl.once.Do(func() {
		tpl.f = buildRestoreFixture(t, sharedDir(t, "restore"))
		tpl.ok = true
	})
	if !tpl.ok {
		t.Fatal("the shared restore fixture failed to build (see the first test that used it)")
	}
	f := &restoreFixture{data: filepath.Join(t.TempDir(), "data"), backup: filepath.Join(t.TempDir(), "new.db"), old: tpl.f.old, new: tpl.f.new}
	copyStoreDir(t, tpl.f.data, f.data)
	fi, err := os.Stat(tpl.f.backup)
	if err == nil {
		err = copyFileMode(tpl.f.backup, f.backup, fi)
	}
	if err != nil {
		t.Fatal(err)
	}
	return f
}

var restoreTemplate struct {
	once sync.Once
	f    *restoreFixture
	ok   bool
}

// buildRestoreFixture builds the restore fixture's stores under dir.
func buildRestoreFixture(t *testing.T, dir string) *restoreFixture {
	t.Helper()
	ctx := context.Background()
	// The small sample: a restore's cost (verifying and preparing the
	// backup, the full-text index rebuilt by checkWhole) grows with the
	// store, what it proves (the old or the new store, whole) does not.
	claude := copySmallSampleTo(t, filepath.Join(dir, "claude"))
	f := &restoreFixture{data: filepath.Join(dir, "data"), backup: filepath.Join(dir, "new.db")}

	// The new store, backed up.
	src, err := Open(filepath.Join(dir, "src"))
	if err != nil {
		t.Fatal(err)
	}
	mustSync(t, src, claude, SyncOptions{})
	saveMemory(t, src, "m-new", "the restored store knows "+newWord)
	drainAll(t, src)
	info, err := src.Backup(ctx, f.backup)
	src.Close()
	if err != nil {
		t.Fatal(err)
	}
	f.new = storeShape{info.Sessions, info.Memories}

	// The old store, in place, with its full-text index.
	old, err := Open(f.data)
	if err != nil {
		t.Fatal(err)
	}
	mustSync(t, old, claude, SyncOptions{})
	saveMemory(t, old, "m-old1", "the old store knows "+oldWord)
	saveMemory(t, old, "m-old2", "the old store has a second memory")
	drainAll(t, old)
	f.old = storeShape{count(t, old, "SELECT count(*) FROM sessions"), count(t, old, "SELECT count(*) FROM memories")}
	old.Close()
	if f.old == f.new {
		t.Fatal("the fixture's stores look the same")
	}
	return f
}

// checkWhole opens the data dir the way any command does and checks that
// it holds the old or the new store, whole, and that text search finds
// what that store holds (its full-text index rebuilt from the store when
// missing). It returns which one it is.
func checkWhole(t *testing.T, f *restoreFixture, when string) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(f.data, DBName)); err != nil {
		t.Fatalf("%s: no %s: %v", when, DBName, err)
	}
	s, err := Open(f.data)
	if err != nil {
		t.Fatalf("%s: open: %v", when, err)
	}
	defer s.Close()
	got := storeShape{count(t, s, "SELECT count(*) FROM sessions"), count(t, s, "SELECT count(*) FROM memories")}
	which, word := "", ""
	switch got {
	case f.old:
		which, word = "old", oldWord
	case f.new:
		which, word = "new", newWord
	default:
		t.Fatalf("%s: the store holds %+v, neither the old %+v nor the new %+v", when, got, f.old, f.new)
	}
	drainAll(t, s)
	ix, err := s.Derived().OpenFTS(time.Second)
	if err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	defer ix.Close()
	n, err := ix.Count()
	want, _ := s.Derived().FTSDocCount(context.Background())
	if err != nil || int(n) != want {
		t.Fatalf("%s: the %s store's full-text index holds %d documents, the store %d (%v)", when, which, n, want, err)
	}
	for _, q := range []string{word, "TODO"} {
		if hits, _, err := ix.Search(q, ftsapi.Filter{}, 5); err != nil || len(hits) == 0 {
			t.Fatalf("%s: text search for %q in the %s store found nothing (%v)", when, q, which, err)
		}
	}
	return which
}

// Issue 29 item 1: a restore stopped after any of its steps (as a kill or
// a failure there would) leaves a whole store, the old or the new one,
// which opens and searches, never an empty one.
func TestRestoreStoppedAfterEachStep(t *testing.T) {
	ctx := context.Background()
	for _, step := range []string{"copied", "prepared", "kept", "derived", "swapped"} {
		t.Run(step, func(t *testing.T) {
			f := newRestoreFixture(t)
			stop := errors.New("stopped")
			restoreStep = func(s string) error {
				if s == step {
					return stop
				}
				return nil
			}
			defer func() { restoreStep = func(string) error { return nil } }()
			if _, err := Restore(ctx, f.data, f.backup, RestoreOptions{Force: true}); !errors.Is(err, stop) {
				t.Fatalf("restore: %v", err)
			}
			restoreStep = func(string) error { return nil }
			which := checkWhole(t, f, "stopped after "+step)
			if want := map[bool]string{true: "new", false: "old"}[step == "swapped"]; which != want {
				t.Fatalf("stopped after %s: the %s store is in place, want the %s", step, which, want)
			}
			// Restoring again finishes the job.
			if _, err := Restore(ctx, f.data, f.backup, RestoreOptions{Force: true}); err != nil {
				t.Fatal(err)
			}
			if which := checkWhole(t, f, "restored again"); which != "new" {
				t.Fatalf("restored again: the %s store is in place", which)
			}
		})
	}
}

// A full disk while the backup is copied in changes nothing, says so and
// where, and leaves no copy behind.
func TestRestoreFullDisk(t *testing.T) {
	f := newRestoreFixture(t)
	restoreCopy = func(src, dst string) error {
		if err := os.WriteFile(dst, []byte("half a database"), 0o600); err != nil {
			return err
		}
		return &os.PathError{Op: "write", Path: dst, Err: syscall.ENOSPC}
	}
	defer func() { restoreCopy = copyFile }()
	_, err := Restore(context.Background(), f.data, f.backup, RestoreOptions{Force: true})
	if err == nil || !strings.Contains(err.Error(), f.data) || !strings.Contains(err.Error(), "free space") {
		t.Fatalf("restore on a full disk: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(f.data, "*restor*"))
	if len(left) != 0 {
		t.Fatalf("a failed restore left %v", left)
	}
	restoreCopy = copyFile
	if which := checkWhole(t, f, "after a full disk"); which != "old" {
		t.Fatalf("the %s store is in place", which)
	}
	// Too little room for the backup: refused before anything is written.
	restoreFree = func(string) (uint64, bool) { return 4096, true }
	defer func() { restoreFree = diskspace.Free }()
	_, err = Restore(context.Background(), f.data, f.backup, RestoreOptions{Force: true})
	if !errors.Is(err, diskspace.ErrFull) || !strings.Contains(err.Error(), f.data) || !strings.Contains(err.Error(), "not changed") {
		t.Fatalf("restore without room: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(f.data, "*restor*")); len(left) != 0 {
		t.Fatalf("a refused restore left %v", left)
	}
}

// A data dir without cairn.db but with a store a restore kept aside is
// never answered by a new empty store: open says where the store is and
// how to put it back.
func TestOpenRefusesBesideAStoreKeptAside(t *testing.T) {
	f := newRestoreFixture(t)
	aside := filepath.Join(f.data, "before-restore-20260301T100000Z")
	if err := os.Mkdir(aside, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(f.data, DBName), filepath.Join(aside, DBName)); err != nil {
		t.Fatal(err)
	}
	for _, ro := range []bool{false, true} {
		_, err := OpenWith(f.data, OpenOptions{ReadOnly: ro})
		if err == nil || !strings.Contains(err.Error(), filepath.Join(aside, DBName)) || !strings.Contains(err.Error(), "cp -a") {
			t.Fatalf("open (read-only %v) beside a store kept aside: %v", ro, err)
		}
	}
	if _, err := os.Stat(filepath.Join(f.data, DBName)); err == nil {
		t.Fatal("an empty store was created")
	}
}

// A full-text index deleted (or never finished) while the store holds
// documents is refilled from the store on open, not left answering
// "no matches".
func TestOpenFTSRefillsAMissingIndex(t *testing.T) {
	f := newRestoreFixture(t)
	if err := os.RemoveAll(filepath.Join(f.data, "bleve")); err != nil {
		t.Fatal(err)
	}
	checkWhole(t, f, "bleve deleted")
	// A nearly empty index: a few documents, the rest neither indexed nor
	// queued.
	if err := os.RemoveAll(filepath.Join(f.data, "bleve")); err != nil {
		t.Fatal(err)
	}
	s, err := Open(f.data)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := ftsapi.Open(filepath.Join(f.data, "bleve"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var sid string
	if err := s.r.QueryRowContext(context.Background(), `SELECT sid FROM sessions LIMIT 1`).Scan(&sid); err != nil {
		t.Fatal(err)
	}
	if err := ix.Index([]ftsapi.Doc{{ID: "s:" + sid, Kind: "session", Text: "one session's document"}}); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	s.Close()
	checkWhole(t, f, "bleve nearly empty")
}

// hostile writes a copy of the fixture's backup changed by sql.
func hostile(t *testing.T, f *restoreFixture, name, sqlText string) string {
	t.Helper()
	raw, err := os.ReadFile(f.backup)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name+".db")
	if err := os.WriteFile(p, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(context.Background(), sqlText); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p
}

// Issue 29 item 2: restore accepts only cairn's own schema and values that
// decompress; a refused backup changes nothing and is named.
func TestRestoreRefusesHostileBackups(t *testing.T) {
	ctx := context.Background()
	f := newRestoreFixture(t)
	cases := map[string]string{
		"trigger":       `CREATE TRIGGER wipe AFTER INSERT ON entries_raw BEGIN DELETE FROM memories; END;`,
		"view":          `CREATE VIEW peek AS SELECT * FROM memories;`,
		"table":         `CREATE TABLE extra(x);`,
		"index":         `CREATE INDEX extra_idx ON memories(content);`,
		"dropped index": `DROP INDEX sessions_start;`,
		"redefined":     `DROP VIEW entries; CREATE VIEW entries AS SELECT * FROM entries_raw;`,
		"bad entry":     `UPDATE entries_raw SET text = X'00637331FFFFFFFF0F0102030405' WHERE id = (SELECT min(id) FROM entries_raw);`,
		"bad deflate":   `UPDATE entries_raw SET data = X'00637a31DEADBEEFDEADBEEF' WHERE id = (SELECT max(id) FROM entries_raw);`,
		"bad state":     `UPDATE sessions SET state = X'00637a31DEADBEEFDEADBEEF' WHERE id = (SELECT min(id) FROM sessions);`,
	}
	// A file holding only cairn's table names.
	names := filepath.Join(t.TempDir(), "names.db")
	db, err := sql.Open("sqlite", names)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(context.Background(), fmt.Sprintf(`CREATE TABLE sessions(x); CREATE TABLE entries_raw(x); CREATE TABLE memories(x); PRAGMA user_version = %d;`, SchemaVersion)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	paths := map[string]string{"table names only": names}
	for name, q := range cases {
		paths[name] = hostile(t, f, name, q)
	}
	for name, p := range paths {
		_, err := Restore(ctx, f.data, p, RestoreOptions{Force: true})
		if err == nil {
			t.Errorf("%s: the backup was restored", name)
			continue
		}
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: the error does not name the backup: %v", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
	if which := checkWhole(t, f, "after refused restores"); which != "old" {
		t.Fatalf("a refused restore put the %s store in place", which)
	}
	if aside, _ := filepath.Glob(filepath.Join(f.data, "before-restore-*")); len(aside) != 0 {
		t.Fatalf("refused restores kept the store aside in %v", aside)
	}
	if left, _ := filepath.Glob(filepath.Join(f.data, ".restoring-*")); len(left) != 0 {
		t.Fatalf("refused restores left %v", left)
	}
	// The unchanged backup still restores, and so does one whose tables an
	// earlier build defined with other constraints (the same columns).
	older := hostile(t, f, "older build", `DROP TABLE summary_projects;
		CREATE TABLE summary_projects (summary INTEGER PRIMARY KEY REFERENCES summaries(id), project INTEGER NOT NULL REFERENCES projects(id));`)
	for _, p := range []string{f.backup, older} {
		if _, err := Restore(ctx, f.data, p, RestoreOptions{Force: true}); err != nil {
			t.Fatal(err)
		}
	}
}

// What `cairn forget` removed stays forgotten when an older backup that
// still holds it is restored.
func TestRestoreKeepsWhatWasForgotten(t *testing.T) {
	ctx := context.Background()
	f := newRestoreFixture(t)
	const sid = "1af7fc5e-8455-4414-9ccd-011d40f70b2a" // the sample's demo session
	old, err := Open(f.data)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := old.Forget(ctx, ForgetTarget{Session: sid}); err != nil || st.Sessions != 1 {
		t.Fatalf("forget: %+v %v", st, err)
	}
	old.Close()
	if _, err := Restore(ctx, f.data, f.backup, RestoreOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	s, err := Open(f.data)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := count(t, s, `SELECT count(*) FROM sessions WHERE sid = ?`, sid); n != 0 {
		t.Fatal("the restore brought back a forgotten session")
	}
	if n := count(t, s, `SELECT count(*) FROM tombstones WHERE kind = 'session' AND key = ?`, sid); n != 1 {
		t.Fatal("the restored store does not remember what was forgotten")
	}
	if n := count(t, s, `SELECT count(*) FROM sessions`); n != f.new.sessions-1 {
		t.Fatalf("the restored store holds %d sessions, want %d", n, f.new.sessions-1)
	}
	if ok, _ := s.ForgetUnfinished(ctx); ok {
		t.Fatal("the restored store is marked as an unfinished forget")
	}
}

// Two restores in the same second keep both previous stores, in two
// folders.
func TestRestoreTwiceInOneSecond(t *testing.T) {
	ctx := context.Background()
	f := newRestoreFixture(t)
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var asides []string
	for range 2 {
		res, err := Restore(ctx, f.data, f.backup, RestoreOptions{Force: true, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		asides = append(asides, res.Aside)
	}
	if asides[0] == asides[1] {
		t.Fatalf("both restores kept the store in %s", asides[0])
	}
	for _, a := range asides {
		if _, err := os.Stat(filepath.Join(a, DBName)); err != nil {
			t.Fatal(err)
		}
	}
}

// A rebuild killed halfway (a restore's, a forget's) leaves a half-built
// index holding text: the next rebuild or open deletes it, unless another
// process is building in it.
func TestRebuildRemovesKilledRebuilds(t *testing.T) {
	ctx := context.Background()
	f := newRestoreFixture(t)
	stale := filepath.Join(f.data, rebuildingPrefix+"999999-1")
	if err := os.MkdirAll(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stale, "000000000001.zap"), []byte("half a segment"), 0o600); err != nil {
		t.Fatal(err)
	}
	long := time.Now().Add(-time.Hour)
	busy := filepath.Join(f.data, rebuildingPrefix+"888888-1")
	held, err := ftsapi.Open(busy, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := os.Chtimes(busy, long, long); err != nil {
		t.Fatal(err)
	}
	s, err := Open(f.data)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Derived().RebuildFTS(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the killed rebuild's folder is still there: %v", err)
	}
	if _, err := os.Stat(busy); err != nil {
		t.Fatalf("a rebuild under way lost its folder: %v", err)
	}
	// Any open of the index removes a killed rebuild's folder too, once it
	// has been left unchanged for a while (a recent one may be a rebuild
	// between closing its index and swapping it in).
	// (this process's pid: a rebuild still running; one whose process is
	// gone goes at once, TestOpenRemovesKilledLeftovers).
	recent := filepath.Join(f.data, fmt.Sprintf("%s%d-1", rebuildingPrefix, os.Getpid()))
	for _, p := range []string{stale, recent} {
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(stale, long, long); err != nil {
		t.Fatal(err)
	}
	ix, err := s.Derived().OpenFTS(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("open left the killed rebuild's folder: %v", err)
	}
	if _, err := os.Stat(recent); err != nil {
		t.Fatalf("open deleted a recent rebuild's folder: %v", err)
	}
}
