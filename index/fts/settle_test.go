package fts

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A bulk write of many batches (a cold index) ends, after Settle, with at
// most settleSegments segments, and every search answers as before.
func TestSettleMergesABulkWriteDown(t *testing.T) {
	old := settleDocs
	settleDocs = 1000
	t.Cleanup(func() { settleDocs = old })
	dir := filepath.Join(t.TempDir(), "fts")
	const calls, per = settleCalls, settlePer
	write := func(ix *Index, c int) { settleWrite(t, ix, c) }
	// Scorch's background merger is held off (it asks for room) as on a
	// cold index it falls behind: 13 segments were left on 1 GB.
	withFree(t, mergeFloor)
	ix, err := Open(dir, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for c := range calls {
		write(ix, c)
	}
	before, err := ix.segmentCount()
	if err != nil {
		t.Fatal(err)
	}
	if before <= settleSegments {
		t.Fatalf("only %d segments before Settle: the test writes too little", before)
	}
	queries := []string{"uniq3", "uniq42 websocket", "dialyzer timeout", "flaky", "entry 1234"}
	want := map[string][]Hit{}
	for _, q := range queries {
		want[q] = settleHits(t, ix, q)
	}
	var said []string
	// Without room for the merge, Settle leaves the segments as they are.
	if err := ix.Settle(func(m string) { said = append(said, m) }); err != nil {
		t.Fatal(err)
	}
	if n, _ := ix.segmentCount(); n != before || len(said) != 0 {
		t.Fatalf("Settle without room: %d segments (%d before), said %q", n, before, said)
	}
	withFree(t, 1<<40)
	if err := ix.Settle(func(m string) { said = append(said, m) }); err != nil {
		t.Fatal(err)
	}
	after, err := ix.segmentCount()
	if err != nil {
		t.Fatal(err)
	}
	if after > settleSegments {
		t.Errorf("%d segments after Settle (%d before), want <= %d", after, before, settleSegments)
	}
	if len(said) == 0 || !strings.Contains(said[0], fmt.Sprintf("merging %d of %d segments", before, before)) {
		t.Errorf("progress %q, want a first line saying it merges %d segments", said, before)
	}
	for _, q := range queries {
		if got := settleHits(t, ix, q); !sameHits(got, want[q]) {
			t.Errorf("%q after Settle: %v, before: %v", q, got, want[q])
		}
	}
	if n, _ := ix.Count(); n != calls*per {
		t.Errorf("count %d, want %d", n, calls*per)
	}
	// Nothing written since: a second Settle, or one after a few
	// documents, merges nothing.
	mustIndex(t, ix, Doc{ID: "late", Text: "one late websocket entry"})
	n0, _ := ix.segmentCount()
	said = nil
	if err := ix.Settle(func(m string) { said = append(said, m) }); err != nil {
		t.Fatal(err)
	}
	if n, _ := ix.segmentCount(); n != n0 || len(said) != 0 {
		t.Errorf("Settle after one document: %d segments (had %d), said %q", n, n0, said)
	}
	t.Logf("%d segments -> %d; progress %q", before, after, said)
}

// settleCalls writes of settlePer documents each make the bulk write the
// Settle tests merge.
const settleCalls, settlePer = 40, 150

// settleWrite is the c-th of those writes.
func settleWrite(t *testing.T, ix *Index, c int) {
	t.Helper()
	words := []string{"websocket", "reconnect", "dialyzer", "server", "migration", "flaky", "timeout"}
	docs := make([]Doc, settlePer)
	for k := range docs {
		i := c*settlePer + k
		docs[k] = Doc{ID: fmt.Sprint("d", i), Project: "p", Session: fmt.Sprint("s", i%17),
			Text: fmt.Sprintf("entry %d about %s and %s, marker uniq%d", i, words[i%7], words[i%5], i%97)}
	}
	mustIndex(t, ix, docs...)
}

// Settle's merge is on disk when it returns: closed at once and opened
// again, the index has the merged segments (scorch's ForceMerge returns
// before root.bolt records the merge, and a Close right after could leave
// the snapshot before it), and its folder holds no merged-away segment
// file (those stayed until the next writable open, doubling the folder).
func TestSettleIsRecordedAndLeavesNoFiles(t *testing.T) {
	old := settleDocs
	settleDocs = 1000
	t.Cleanup(func() { settleDocs = old })
	for round := range 5 { // the races it guards against are timing's
		dir := filepath.Join(t.TempDir(), "fts")
		withFree(t, mergeFloor) // the background merger held off, as on a cold index
		ix, err := Open(dir, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		for c := range settleCalls {
			settleWrite(t, ix, c)
		}
		before, _ := ix.segmentCount()
		withFree(t, 1<<40)
		if err := ix.Settle(nil); err != nil {
			t.Fatal(err)
		}
		after, err := ix.segmentCount()
		if err != nil {
			t.Fatal(err)
		}
		if after >= before {
			t.Fatalf("Settle merged nothing: %d segments, %d before", after, before)
		}
		if left := ix.unusedSegmentFiles(); len(left) > 0 {
			t.Errorf("round %d: %d merged-away segment files still in the folder after Settle: %v", round, len(left), left)
		}
		zaps, _ := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
		if len(zaps) != after {
			t.Errorf("round %d: %d segment files for %d segments", round, len(zaps), after)
		}
		want := settleHits(t, ix, "uniq42 websocket")
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
		ro, err := OpenReadOnly(dir, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := ro.segmentCount(); n != after {
			t.Errorf("round %d: reopened, %d segments; Settle had left %d (%d before)", round, n, after, before)
		}
		if got := settleHits(t, ro, "uniq42 websocket"); !sameHits(got, want) {
			t.Errorf("round %d: reopened, hits %v, want %v", round, got, want)
		}
		if n, _ := ro.Count(); n != settleCalls*settlePer {
			t.Errorf("round %d: reopened, %d documents, want %d", round, n, settleCalls*settlePer)
		}
		ro.Close()
	}
}

// settleHits are a search's hits, sorted by ID (ties in score may come in
// any order).
func settleHits(t *testing.T, ix *Index, q string) []Hit {
	t.Helper()
	hits, total, err := ix.Search(q, Filter{}, 10000)
	if err != nil {
		t.Fatal(err)
	}
	if total != uint64(len(hits)) {
		t.Fatalf("%q: %d hits of %d: raise the limit", q, len(hits), total)
	}
	if len(hits) == 0 {
		t.Fatalf("%q: no hits", q)
	}
	slices.SortFunc(hits, func(a, b Hit) int { return strings.Compare(a.ID, b.ID) })
	return hits
}

func sameHits(a, b []Hit) bool {
	return slices.EqualFunc(a, b, func(x, y Hit) bool {
		return x.ID == y.ID && math.Abs(x.Score-y.Score) <= 1e-9*math.Max(1, math.Abs(x.Score))
	})
}

func TestSettleRefusedReadOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fts")
	ix, err := Open(dir, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	mustIndex(t, ix, Doc{ID: "a", Text: "x"})
	ix.Close()
	ro, err := OpenReadOnly(dir, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := ro.Settle(nil); err == nil {
		t.Error("Settle on a read-only index: no error")
	}
}
