package index

import (
	"context"
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

// planSync finds the known files gone from the tree whether or not it can
// skip building the set of the tree's paths (it skips it when every known
// present file was seen), and formats signatures only for what it reads.
func TestPlanSyncMissingAndSignatures(t *testing.T) {
	mt := time.Unix(1700000000, 0)
	file := func(p string, size int64) transcripts.File {
		return transcripts.File{Path: p, Size: size, ModTime: mt}
	}
	tree := &transcripts.Tree{Projects: []*transcripts.Project{{Files: []transcripts.File{file("/a", 10), file("/b", 20), file("/new", 5)}}}}
	done := func(id int64, size int64) knownFile {
		k := knownFile{id: id, size: size, mtime: mt.UnixNano(), present: true}
		k.cursor.Offset = size
		return k
	}
	cases := []struct {
		name    string
		known   map[string]knownFile
		missing []int64
		jobs    []string
	}{
		{"all present", map[string]knownFile{"/a": done(1, 10), "/b": done(2, 20)}, nil, []string{"/new"}},
		{"one gone", map[string]knownFile{"/a": done(1, 10), "/b": done(2, 20), "/gone": done(3, 7)}, []int64{3}, []string{"/new"}},
		{"gone before, not again", map[string]knownFile{"/a": done(1, 10), "/b": done(2, 20), "/old": {id: 4}}, nil, []string{"/new"}},
		{"two gone, one grown", map[string]knownFile{"/a": done(1, 9), "/x": done(5, 1), "/y": done(6, 1)}, []int64{5, 6}, []string{"/a", "/b", "/new"}},
	}
	for _, c := range cases {
		var st SyncStats
		plan := planSync(tree, c.known, map[string]string{}, &st)
		got := append([]int64(nil), plan.missing...)
		sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
		if !reflect.DeepEqual(got, c.missing) || st.FilesMissing != len(c.missing) || st.FilesScanned != 3 {
			t.Errorf("%s: missing %v (stat %d), scanned %d; want %v, 3", c.name, got, st.FilesMissing, st.FilesScanned, c.missing)
		}
		var jobs []string
		for _, j := range plan.jobs {
			jobs = append(jobs, j.File.Path)
			if plan.sigs[j.File.Path] != fileSig(j.File.Size, mt.UnixNano()) {
				t.Errorf("%s: job %s has signature %q", c.name, j.File.Path, plan.sigs[j.File.Path])
			}
		}
		sort.Strings(jobs)
		if !reflect.DeepEqual(jobs, c.jobs) || len(plan.sigs) != len(jobs) {
			t.Errorf("%s: jobs %v, %d signatures; want %v, one each", c.name, jobs, len(plan.sigs), c.jobs)
		}
	}
	// A file that failed and did not change is neither read nor signed again.
	var st SyncStats
	plan := planSync(tree, map[string]knownFile{"/a": done(1, 10)}, map[string]string{"/b": fileSig(20, mt.UnixNano())}, &st)
	if plan.failed["/b"] != fileSig(20, mt.UnixNano()) || len(plan.jobs) != 1 || len(plan.sigs) != 1 {
		t.Errorf("failed file: failed %q, %d jobs, signatures %v; want kept failed, 1 job (/new), 1 signature", plan.failed["/b"], len(plan.jobs), plan.sigs)
	}
	// A recount reads the unchanged /a too: it is signed for countFile.
	plan.recountAll(tree)
	if len(plan.jobs) != 2 || len(plan.sigs) != 2 || plan.sigs["/a"] != fileSig(10, mt.UnixNano()) || plan.sigs["/b"] != "" {
		t.Errorf("recount: %d jobs, signatures %v; want 2 jobs (/a, /new), each signed", len(plan.jobs), plan.sigs)
	}
}

// A refresh with nothing new plans once (nothingNew's plan is the Sync's)
// and reports the same as a sync that planned for itself; after a file
// grows, the next refresh plans afresh and reads it.
func TestNothingNewPlanIsTheSyncs(t *testing.T) {
	s, _, claude, first := updatedSample(t, UpdateOptions{NoEmbed: true})
	ctx := context.Background()
	n := first.Sync.FilesScanned
	if n == 0 {
		t.Fatal("the sample has no files")
	}
	so := SyncOptions{}
	so.survey = s.startSurvey(ctx, claude, nil)
	if !s.nothingNew(ctx, claude, so) {
		t.Fatal("nothing changed, but nothingNew said something did")
	}
	if so.survey.plan == nil {
		t.Fatal("nothingNew left no plan for the sync")
	}
	st, err := s.Sync(ctx, claude, so)
	if err != nil {
		t.Fatal(err)
	}
	if so.survey.plan != nil {
		t.Error("the plan was not taken by the sync")
	}
	if st.FilesScanned != n || st.FilesNew != 0 || st.FilesChanged != 0 || st.FilesMissing != 0 || st.Transactions != 0 {
		t.Errorf("sync on nothingNew's plan: %+v; want %d scanned, nothing else", st, n)
	}
	// A second sync on the same survey plans for itself.
	if st2, err := s.Sync(ctx, claude, so); err != nil || st2.FilesScanned != n {
		t.Errorf("sync after the plan was taken: %d scanned, %v; want %d", st2.FilesScanned, err, n)
	}
	// Through Update, as a search's refresh runs it: same counts.
	ust, err := s.Update(ctx, claude, UpdateOptions{NoEmbed: true})
	if err != nil || ust.Sync.FilesScanned != n || ust.Sync.Transactions != 0 {
		t.Errorf("refresh with nothing new: %d scanned, %d transactions, %v; want %d, 0", ust.Sync.FilesScanned, ust.Sync.Transactions, err, n)
	}
	var grown string
	if err := filepath.WalkDir(filepath.Join(claude, "projects"), func(p string, d os.DirEntry, err error) error {
		if err == nil && grown == "" && !d.IsDir() && filepath.Ext(p) == ".jsonl" {
			grown = p
		}
		return err
	}); err != nil || grown == "" {
		t.Fatalf("no transcript in the sample: %v", err)
	}
	appendFile(t, grown, []byte(`{"type":"user","uuid":"3c5d0a2e-0000-4000-8000-000000000778","sessionId":"x","timestamp":"2026-03-03T10:00:00.000Z","message":{"role":"user","content":"grown"}}`+"\n"))
	ust, err = s.Update(ctx, claude, UpdateOptions{NoEmbed: true})
	if err != nil || ust.Sync.FilesChanged != 1 || ust.Sync.FilesScanned != n {
		t.Errorf("refresh after a file grew: %d changed of %d scanned, %v; want 1 of %d", ust.Sync.FilesChanged, ust.Sync.FilesScanned, err, n)
	}
}

// A whole-tree refresh from the survey snapshot stats what it saw and
// surveys only the project folders where something moved: a file appended
// to, a file new in a folder, a new session folder, a new project folder,
// a file and a project folder removed are each seen by the next refresh,
// and a tree where nothing moved is quiet.
func TestSurveySnapshotSeesEveryChange(t *testing.T) {
	s, _ := openStore(t)
	claude := t.TempDir()
	ctx := context.Background()
	projects := filepath.Join(claude, "projects")
	n := 0
	line := func(sid string) string {
		n++
		return fmt.Sprintf(`{"type":"user","uuid":"3c5d0a2e-0000-4000-8000-%012d","sessionId":"%s","timestamp":"2026-03-03T10:00:00.000Z","cwd":"/p","message":{"role":"user","content":"line %d"}}`+"\n", n, sid, n)
	}
	write := func(rel, sid string) { testutil.WriteFile(t, filepath.Join(projects, rel), line(sid)) }
	write("-p/s1.jsonl", "s1")
	write("-p/s1/subagents/agent-a.jsonl", "s1")
	write("-q/t1.jsonl", "t1")
	write("-r/u1.jsonl", "u1")
	// Every folder and file last changed an hour ago: their stamps are
	// trusted (a folder changed within a second of a listing is not).
	age := func() {
		old := time.Now().Add(-time.Hour)
		filepath.WalkDir(claude, func(p string, d os.DirEntry, err error) error {
			if err == nil {
				os.Chtimes(p, old, old)
			}
			return err
		})
	}
	age()
	refresh := func(what string) SyncStats {
		t.Helper()
		st, err := s.Update(ctx, claude, UpdateOptions{NoEmbed: true})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return st.Sync
	}
	if st := refresh("first"); st.FilesNew != 4 {
		t.Fatalf("first refresh: %+v", st)
	}
	refresh("second") // surveys the whole tree (no snapshot yet) and writes the snapshot
	quick := func(what string, quiet bool, projects ...string) {
		t.Helper()
		sv := s.quickSurvey(ctx, claude)
		if sv == nil {
			t.Fatalf("%s: no survey snapshot", what)
		}
		sv.wait()
		if sv.quiet != quiet || !reflect.DeepEqual(sv.projects, projects) {
			t.Fatalf("%s: quick survey quiet %v, projects %v; want %v, %v", what, sv.quiet, sv.projects, quiet, projects)
		}
	}
	quick("nothing moved", true)
	if st := refresh("nothing moved"); st.FilesScanned != 4 || st.Transactions != 0 {
		t.Errorf("nothing moved: %+v; want 4 scanned, nothing written", st)
	}
	entries := func() int {
		var c int
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM entries`).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	steps := []struct {
		what     string
		change   func()
		projects []string
		check    func(SyncStats) bool
	}{
		{"appended", func() { appendFile(t, filepath.Join(projects, "-p", "s1.jsonl"), []byte(line("s1"))) },
			[]string{"-p"}, func(st SyncStats) bool { return st.FilesChanged == 1 && st.EntriesAdded == 1 }},
		{"subagent appended", func() {
			appendFile(t, filepath.Join(projects, "-p", "s1", "subagents", "agent-a.jsonl"), []byte(line("s1")))
		}, []string{"-p"}, func(st SyncStats) bool { return st.FilesChanged == 1 && st.EntriesAdded == 1 }},
		{"new file in a folder", func() { write("-q/t2.jsonl", "t2") },
			[]string{"-q"}, func(st SyncStats) bool { return st.FilesNew == 1 && st.EntriesAdded == 1 }},
		{"new session folder", func() { write("-q/t2/subagents/agent-b.jsonl", "t2") },
			[]string{"-q"}, func(st SyncStats) bool { return st.FilesNew == 1 && st.EntriesAdded == 1 }},
		{"new project folder", func() { write("-z/v1.jsonl", "v1") },
			[]string{"-z"}, func(st SyncStats) bool { return st.FilesNew == 1 && st.EntriesAdded == 1 }},
		{"file removed", func() { os.Remove(filepath.Join(projects, "-q", "t1.jsonl")) },
			[]string{"-q"}, func(st SyncStats) bool { return st.FilesMissing == 1 }},
		{"project folder removed", func() { os.RemoveAll(filepath.Join(projects, "-r")) },
			[]string{"-r"}, func(st SyncStats) bool { return st.FilesMissing == 1 }},
	}
	for _, step := range steps {
		// The aged stamps: the first refresh re-reads the files (their
		// times moved) and stamps them as not yet quiet, the second finds
		// them read.
		age()
		refresh(step.what + ", aged")
		refresh(step.what + ", before")
		quick(step.what+", before", true)
		before := entries()
		step.change()
		// A survey alone first (as a refresh killed before its sync): the
		// snapshot it writes must still show the change to the next.
		if sv := s.quickSurvey(ctx, claude); sv != nil {
			sv.wait()
			if !reflect.DeepEqual(sv.projects, step.projects) {
				t.Errorf("%s: the quick survey looks at %v, want %v", step.what, sv.projects, step.projects)
			}
		}
		st := refresh(step.what)
		if !step.check(st) {
			t.Errorf("%s: the next refresh did %+v", step.what, st)
		}
		if st.EntriesAdded != entries()-before {
			t.Errorf("%s: %d entries added, the store grew by %d", step.what, st.EntriesAdded, entries()-before)
		}
	}
	if st := refresh("the end"); st.Transactions != 0 || st.FilesScanned != 5 {
		t.Errorf("after every change: %+v; want 5 files scanned, nothing written", st)
	}
}

// The survey snapshot is written only of a tree it can describe, is of
// one tree, and reads back as written; a damaged one is not used.
func TestSurveySnapshotFormat(t *testing.T) {
	sv := &surveySnap{epoch: "E", maxID: 7, claudeDir: "/c", rootTaken: 5,
		root: transcripts.Stamp{Path: filepath.Join("/c", "projects"), Dir: true, MTime: 3},
		projects: []transcripts.StampGroup{{Name: "-p", Taken: 9, Stamps: []transcripts.Stamp{
			{Path: "/c/projects/-p", Dir: true, MTime: 1},
			{Path: "/c/projects/-p/s.jsonl", Size: 10, MTime: 2, Quiet: true},
			{Path: "/c/projects/-p/t.jsonl", Size: 11, MTime: 4},
		}}}}
	b := sv.marshal()
	if got := parseSurveySnap(b); !reflect.DeepEqual(got, sv) {
		t.Errorf("read back %+v\nwant %+v", got, sv)
	}
	for _, bad := range []string{"", "cairn-survey v1\tE\t7\t3\t5\n", string(b) + "x\t1\t/p\n", string(b[:len(b)-3]) + "\n" + "q\t1\n"} {
		if parseSurveySnap([]byte(bad)) != nil {
			t.Errorf("damaged %q was read", bad)
		}
	}
	sv.projects[0].Stamps[1].Path = "/c/projects/-p/a\tb.jsonl"
	if sv.marshal() != nil {
		t.Error("a path with a tab was written")
	}
}
