package index

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/index/ftsapi"
)

// TestRefreshWithNothingNewLeavesTheIndexAlone: a refresh (a search's, a
// hook's) that finds nothing to read does not open the full-text index,
// so another process holding it costs no wait; once there is something
// to read, it does. A searcher opened with nothing queued opens the index
// read-only: beside another reader, and refusing writes.
func TestRefreshWithNothingNewLeavesTheIndexAlone(t *testing.T) {
	s, _, claude, _ := updatedSample(t, UpdateOptions{NoEmbed: true})
	ctx := context.Background()
	if n, err := s.Derived().FTSDocCount(ctx); err != nil || n < healFewDocs {
		t.Fatalf("the sample has %d documents (%v): the read-only path needs %d", n, err, healFewDocs)
	}
	held, err := ftsapi.Open(s.ftsDir(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	st, err := s.Update(ctx, claude, UpdateOptions{NoEmbed: true, LockWait: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); st.FTSBusy || took > 1500*time.Millisecond {
		t.Errorf("nothing new, index held elsewhere: busy %v after %v, want no wait for the index", st.FTSBusy, took)
	}
	// Something new: the refresh needs the index and says it is busy.
	const sid = "fe5e1c67-53e7-4862-81ae-d0e013e3270b"
	appendFile(t, filepath.Join(claude, "projects", "-path-to-Demo", sid+".jsonl"), fmt.Appendf(nil,
		`{"type":"user","uuid":"3c5d0a2e-0000-4000-8000-000000000777","sessionId":%q,"timestamp":"2026-03-03T10:00:00.000Z","cwd":"/path/to/Demo","message":{"role":"user","content":"please quiesce the retry loop"}}`+"\n", sid))
	st, err = s.Update(ctx, claude, UpdateOptions{NoEmbed: true, LockWait: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !st.FTSBusy || st.Sync.EntriesAdded != 1 {
		t.Errorf("a new entry, index held elsewhere: busy %v, %d entries added; want busy and 1", st.FTSBusy, st.Sync.EntriesAdded)
	}
	if err := held.Close(); err != nil {
		t.Fatal(err)
	}
	// The queued entry is indexed by the searcher (writable, as something
	// is queued); the next searcher opens read-only.
	search := func() *Searcher {
		t.Helper()
		sr, err := s.OpenSearcher(ctx, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := sr.Search(ctx, SearchQuery{Text: "quiesce", Mode: ModeText, Kinds: []string{"messages"}})
		if err != nil || len(resp.Results) != 1 {
			t.Fatalf("search: %v, %d results, want 1", err, len(resp.Results))
		}
		return sr
	}
	sr := search()
	if err := sr.FTS.Index(nil); err != nil {
		t.Errorf("a searcher that drained the queue has a writable index: %v", err)
	}
	sr.Close()
	reader, err := ftsapi.OpenReadOnly(s.ftsDir(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	sr = search() // beside another reader: read-only too
	defer sr.Close()
	if err := sr.FTS.Index(nil); err == nil {
		t.Error("a searcher with nothing queued can write to the index")
	}
}
