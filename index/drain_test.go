package index

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// TestIncrementalFromMemoryWithoutSpeculation: a sync whose entries were
// all committed by one transaction before its last (a batch filled up), so
// nothing was indexed ahead, still indexes them from memory when nothing
// else is queued, and then when something else is; nothing stays queued.
func TestIncrementalFromMemoryWithoutSpeculation(t *testing.T) {
	s, _, claude, _ := updatedSample(t, UpdateOptions{NoEmbed: true})
	ctx := context.Background()
	const sid = "fe5e1c67-53e7-4862-81ae-d0e013e3270b"
	path := filepath.Join(claude, "projects", "-path-to-Demo", sid+".jsonl")
	grow := func(word string, n, base int) {
		var b []byte
		for i := range n {
			b = fmt.Appendf(b, `{"type":"user","uuid":"3c5d0a2e-0000-4000-8000-%012d","sessionId":%q,"timestamp":"2026-03-03T10:00:%02d.000Z","cwd":"/path/to/Demo","message":{"role":"user","content":"please %s the retry loop %d"}}`+"\n", base+i, sid, i, word, i)
		}
		appendFile(t, path, b)
	}
	update := func(word string, want, wantDocs int) {
		t.Helper()
		st, err := s.Update(ctx, claude, UpdateOptions{NoEmbed: true, Sync: SyncOptions{BatchEntries: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if st.Sync.Transactions != 2 || st.FTSDocs != wantDocs {
			t.Fatalf("%d transactions, %d documents indexed: want 2 and %d", st.Sync.Transactions, st.FTSDocs, wantDocs)
		}
		if n := count(t, s, `SELECT count(*) FROM fts_queue`); n != 0 {
			t.Fatalf("%d documents left queued", n)
		}
		sr, err := s.OpenSearcher(ctx, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer sr.Close()
		resp, err := sr.Search(ctx, SearchQuery{Text: word, Mode: ModeText, Kinds: []string{"messages"}, Limit: 50})
		if err != nil || len(resp.Results) != want {
			t.Fatalf("search %q: %v, %d results, want %d", word, err, len(resp.Results), want)
		}
	}

	// Nothing else queued: the entries go in from memory.
	grow("quiesce", 4, 0)
	update("quiesce", 4, 4)

	// An older entry waits in the queue too: everything goes in from the
	// queue.
	if _, err := s.w.ExecContext(t.Context(), `INSERT INTO fts_queue(doc) SELECT printf('e:%013d', min(id)) FROM entries`); err != nil {
		t.Fatal(err)
	}
	grow("debounce", 3, 100)
	update("debounce", 3, 4)
}
