package index

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testutil"
	"github.com/cairn-dev/cairn/transcripts"
)

// snapRefresh runs a search's refresh (Update, no vectors) and fails the
// test on an error.
func snapRefresh(t *testing.T, s *Store, claude string) SyncStats {
	t.Helper()
	st, err := s.Update(context.Background(), claude, UpdateOptions{NoEmbed: true})
	if err != nil {
		t.Fatal(err)
	}
	return st.Sync
}

// tableKnown is the files table as the sync reads it, without the
// snapshot's marks.
func tableKnown(t *testing.T, s *Store) map[string]knownFile {
	t.Helper()
	k, err := s.knownFiles(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// The snapshot gives the survey what the files table says of every file
// the sync must decide about, whatever happened since it was written:
// files grown, added by another process's sync, gone, back, forgotten.
func TestFilesSnapshotFollowsTheTable(t *testing.T) {
	s, _ := openStore(t)
	claude := t.TempDir()
	ctx := context.Background()
	proj := filepath.Join(claude, "projects", "-p")
	line := func(uuid, text string) string {
		return fmt.Sprintf(`{"type":"user","uuid":"%s","sessionId":"s","timestamp":"2026-03-03T10:00:00.000Z","cwd":"/p","message":{"role":"user","content":"%s"}}`+"\n", uuid, text)
	}
	for i := range 30 {
		testutil.WriteFile(t, filepath.Join(proj, fmt.Sprintf("s%02d.jsonl", i)), line(fmt.Sprintf("3c5d0a2e-0000-4000-8000-%012d", i), "hello"))
	}
	old := time.Now().Add(-time.Hour)
	for i := range 30 {
		os.Chtimes(filepath.Join(proj, fmt.Sprintf("s%02d.jsonl", i)), old, old)
	}
	if st := snapRefresh(t, s, claude); st.FilesNew != 30 {
		t.Fatalf("first sync: %+v", st)
	}
	snapRefresh(t, s, claude) // the first survey read the table (no epoch yet) and wrote the snapshot
	if _, err := os.Stat(s.filesSnapPath()); err != nil {
		t.Fatalf("no snapshot after a refresh: %v", err)
	}
	// The snapshot the first sync's survey wrote (of the empty table) is
	// written again by the next survey, which read the 30 rows added since.
	if b, err := os.ReadFile(s.filesSnapPath()); err != nil {
		t.Fatal(err)
	} else if sn := parseFilesSnap(b); sn == nil || len(sn.known) != 30 {
		t.Fatalf("the snapshot after a refresh holds %v, want the 30 rows", sn)
	}
	check := func(what string) {
		t.Helper()
		sn := s.loadFilesSnap(ctx)
		if sn == nil {
			t.Fatalf("%s: the snapshot is not current", what)
		}
		tree, err := s.discover(claude, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.knownFromSnap(ctx, sn, tree)
		if err != nil {
			t.Fatal(err)
		}
		want := tableKnown(t, s)
		var st1, st2 SyncStats
		p1, p2 := planSync(tree, got, nil, &st1), planSync(tree, want, nil, &st2)
		if !reflect.DeepEqual(planSummary(p1), planSummary(p2)) || !reflect.DeepEqual(st1, st2) {
			t.Errorf("%s: the snapshot plans %v %+v, the table %v %+v", what, planSummary(p1), st1, planSummary(p2), st2)
		}
	}
	check("unchanged")
	if st := snapRefresh(t, s, claude); st.Transactions != 0 || st.FilesChanged != 0 {
		t.Errorf("nothing new: %+v", st)
	}

	// Grown: found by the next refresh, through the snapshot.
	appendFile(t, filepath.Join(proj, "s03.jsonl"), []byte(line("3c5d0a2e-0000-4000-8000-000000000100", "grown")))
	check("grown")
	if st := snapRefresh(t, s, claude); st.FilesChanged != 1 || st.EntriesAdded != 1 {
		t.Errorf("grown: %+v; want 1 changed, 1 entry", st)
	}
	check("after reading the grown file")

	// A new file synced by another process (a hook's, of the project), then
	// deleted: the next refresh marks it missing.
	testutil.WriteFile(t, filepath.Join(proj, "new.jsonl"), line("3c5d0a2e-0000-4000-8000-000000000101", "new"))
	if _, err := s.Sync(ctx, claude, SyncOptions{Projects: []string{"-p"}}); err != nil {
		t.Fatal(err)
	}
	check("a file added since")
	os.Remove(filepath.Join(proj, "new.jsonl"))
	check("a file added since, gone")
	if st := snapRefresh(t, s, claude); st.FilesMissing != 1 {
		t.Errorf("added and gone: %+v; want 1 missing", st)
	}
	snapRefresh(t, s, claude)

	// Gone, then back as it was (a folder moved away and back): present again.
	p := filepath.Join(proj, "s05.jsonl")
	b, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	os.Remove(p)
	if st := snapRefresh(t, s, claude); st.FilesMissing != 1 {
		t.Errorf("gone: %+v; want 1 missing", st)
	}
	if s.loadFilesSnap(ctx) != nil {
		t.Error("the snapshot from before a file was marked missing is still used")
	}
	snapRefresh(t, s, claude) // reads the table, writes the snapshot of the new epoch
	testutil.WriteFile(t, p, string(b))
	os.Chtimes(p, fi.ModTime(), fi.ModTime())
	check("back")
	snapRefresh(t, s, claude)
	if k := tableKnown(t, s)[p]; !k.present {
		t.Errorf("a file back as it was is still marked missing")
	}

	// Many grown at once: all read, and the snapshot written again.
	for i := 6; i < 6+snapRewrite+2; i++ {
		appendFile(t, filepath.Join(proj, fmt.Sprintf("s%02d.jsonl", i)), []byte(line(fmt.Sprintf("3c5d0a2e-0000-4000-8000-%012d", 200+i), "more")))
	}
	check("many grown")
	if st := snapRefresh(t, s, claude); st.FilesChanged != snapRewrite+2 {
		t.Errorf("many grown: %+v; want %d changed", st, snapRewrite+2)
	}
	check("after many grown")
	snapRefresh(t, s, claude)
	check("after the rewrite")

	// Forgetting a session deletes its file's row: a new epoch.
	if _, err := s.Forget(ctx, ForgetTarget{Session: "s00"}); err != nil {
		t.Fatal(err)
	}
	if s.loadFilesSnap(ctx) != nil {
		t.Error("the snapshot from before a forget is still used")
	}
	snapRefresh(t, s, claude)
	check("after a forget")

	// A damaged snapshot is not used (the survey snapshot removed, so that
	// the refresh surveys the whole tree and writes it again).
	os.WriteFile(s.filesSnapPath(), []byte("cairn-files v1 x 1\nd\tx\n"), 0o600)
	os.Remove(s.surveySnapPath())
	if s.loadFilesSnap(ctx) != nil {
		t.Error("a damaged snapshot was used")
	}
	if st := snapRefresh(t, s, claude); st.Transactions != 0 {
		t.Errorf("after a damaged snapshot: %+v", st)
	}
	check("rewritten after a damaged one")
}

// planSummary is what a plan says to do, comparable.
func planSummary(p *syncPlan) []string {
	var out []string
	for _, j := range p.jobs {
		out = append(out, fmt.Sprintf("read %s from %d", j.File.Path, j.Cursor.Offset))
	}
	ids := append([]int64(nil), p.missing...)
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		out = append(out, fmt.Sprintf("missing %d", id))
	}
	sort.Strings(out)
	return append(out, fmt.Sprintf("reappeared %d", p.reappeared))
}

// A snapshot of another epoch (a file marked missing or forgotten since,
// another store) is not used.
func TestFilesSnapshotEpoch(t *testing.T) {
	s, _ := openStore(t)
	ctx := context.Background()
	known := map[string]knownFile{} // an empty table: its largest id (0) is the snapshot's
	if s.filesEpoch(ctx, false) != "" {
		t.Fatal("a new store has a files epoch")
	}
	e := s.filesEpoch(ctx, true)
	if e == "" || s.filesEpoch(ctx, true) != e {
		t.Fatalf("epoch %q, then %q", e, s.filesEpoch(ctx, true))
	}
	s.writeFilesSnap(e, known)
	if s.loadFilesSnap(ctx) == nil {
		t.Fatal("the snapshot of the current epoch was not used")
	}
	if err := s.writeTx(ctx, func(tx *sql.Tx) error { _, err := tx.ExecContext(ctx, bumpFilesEpoch); return err }); err != nil {
		t.Fatal(err)
	}
	if s.filesEpoch(ctx, false) == e || s.loadFilesSnap(ctx) != nil {
		t.Error("a snapshot of the epoch before was used")
	}
}

// snapBench is a store whose files table holds n rows (a 10 GB tree has
// 14,010) and the tree of those files, unchanged since they were read.
func snapBench(b *testing.B, n int) (*Store, *transcripts.Tree) {
	b.Helper()
	s, _ := openStore(b)
	ctx := context.Background()
	mt := time.Unix(1_700_000_000, 0)
	p := &transcripts.Project{Name: "-p"}
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO projects(id, name, decoded_path, first_seen, last_seen) VALUES (1, '-p', '/p', 0, 0)`); err != nil {
			return err
		}
		for i := range n {
			path := fmt.Sprintf("/home/someone/.claude/projects/-home-someone-projects-some-app/%08x-0000-4000-8000-000000000000/subagents/agent-%016x.jsonl", i, i)
			size := int64(1000 + i)
			if _, err := tx.ExecContext(ctx, `INSERT INTO files(path, kind, project, session_id, agent_id, size, mtime, cur_offset, cur_line, cur_fp, present)
				VALUES (?, 1, 1, 's', 'a', ?, ?, ?, 10, 12345, 1)`, path, size, mt.UnixNano(), size); err != nil {
				return err
			}
			p.Files = append(p.Files, transcripts.File{Path: path, Size: size, ModTime: mt})
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return s, &transcripts.Tree{Projects: []*transcripts.Project{p}}
}

// BenchmarkKnownFiles is what a refresh of a 10 GB tree read of the files
// table before the snapshot: every row.
func BenchmarkKnownFiles(b *testing.B) {
	s, _ := snapBench(b, 14_010)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.knownFiles(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFilesSnapshot is the same from the snapshot: loaded, checked
// against the tree (unchanged), nothing looked up.
func BenchmarkFilesSnapshot(b *testing.B) {
	s, tree := snapBench(b, 14_010)
	ctx := context.Background()
	if _, _, err := s.knownWhole(ctx); err != nil { // writes the snapshot
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		sn, _, err := s.knownWhole(ctx)
		if err != nil || sn == nil {
			b.Fatal("no snapshot", err)
		}
		if _, err := s.knownFromSnap(ctx, sn, tree); err != nil {
			b.Fatal(err)
		}
	}
}
