package index

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

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
