package index

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/index/ftsapi"
)

const (
	specSession = "fe5e1c67-53e7-4862-81ae-d0e013e3270b"
	specOther   = "1af7fc5e-8455-4414-9ccd-011d40f70b2a"
)

// specLine is a user prompt line of session sid in the Demo project.
func specLine(uuid, sid, text string, sec int) string {
	return fmt.Sprintf(`{"type":"user","uuid":%q,"sessionId":%q,"timestamp":"2026-03-02T10:00:%02d.000Z","cwd":"/path/to/Demo","message":{"role":"user","content":%q}}`+"\n", uuid, sid, sec, text)
}

// ftsIDs searches the full-text index itself (search proper drops hits the
// store does not have, which would hide a stray document).
func ftsIDs(t *testing.T, s *Store, text string, f ftsapi.Filter) []string {
	t.Helper()
	ix, err := s.Derived().OpenFTS(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	hits, _, err := ix.Search(text, f, 100)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	slices.Sort(ids)
	return ids
}

// specUpdate runs an incremental Update whose transaction waits for its
// speculation (blockedUpdate) and checks that it left nothing queued.
func specUpdate(t *testing.T, s *Store, claude string, ahead *int) UpdateStats {
	t.Helper()
	st, err := blockedUpdate(t, s, claude, context.Background(), ahead, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Sync.Transactions != 1 {
		t.Fatalf("%d transactions: the speculative path needs one", st.Sync.Transactions)
	}
	if n := count(t, s, `SELECT count(*) FROM fts_queue`); n != 0 {
		t.Fatalf("%d documents left queued", n)
	}
	return st
}

// TestSpeculativeFullText: an incremental Update indexes its documents while
// its transaction runs; the full-text index must end up exactly as if it
// had indexed what was committed.
func TestSpeculativeFullText(t *testing.T) {
	ahead := 0
	// wantAhead checks that the subtest's run indexed n documents ahead (the
	// paths under test are the speculative ones).
	wantAhead := func(t *testing.T, n int) {
		t.Helper()
		if ahead != n {
			t.Fatalf("%d documents indexed ahead of the commit, want %d", ahead, n)
		}
		ahead = 0
	}
	s, _, claude, _ := updatedSample(t, UpdateOptions{NoEmbed: true})
	demo := filepath.Join(claude, "projects", "-path-to-Demo")
	main := filepath.Join(demo, specSession+".jsonl")
	var project string
	if err := s.r.QueryRowContext(t.Context(), `SELECT project_path FROM sessions WHERE sid = ?`, specSession).Scan(&project); err != nil {
		t.Fatal(err)
	}

	t.Run("new entries of a stored session", func(t *testing.T) {
		appendFile(t, main, []byte(specLine("5bec0001-0000-4000-8000-000000000001", specSession, "zephyrine cache warmup", 1)+
			specLine("5bec0001-0000-4000-8000-000000000002", specSession, "zephyrine eviction order", 2)))
		if st := specUpdate(t, s, claude, &ahead); st.FTSDocs != 2 {
			// More would mean the documents were read back from the queue.
			t.Fatalf("%d documents went to the full-text index, want the 2 new ones", st.FTSDocs)
		}
		wantAhead(t, 2)
		got := ftsIDs(t, s, "zephyrine", ftsapi.Filter{Projects: []string{project}, Sessions: []string{specSession}})
		want := []string{"m:5bec0001-0000-4000-8000-000000000001", "m:5bec0001-0000-4000-8000-000000000002"}
		if !slices.Equal(got, want) {
			t.Fatalf("full-text hits %v, want %v", got, want)
		}
	})

	t.Run("a uuid stored before keeps its first document", func(t *testing.T) {
		var uuid, text string
		if err := s.r.QueryRowContext(t.Context(), `SELECT uuid, text FROM entries WHERE role = 'user' AND length(text) > 20 AND session = (SELECT id FROM sessions WHERE sid = ?) LIMIT 1`, specOther).Scan(&uuid, &text); err != nil {
			t.Fatal(err)
		}
		appendFile(t, main, []byte(specLine(uuid, specSession, "quixotic replayed line", 3)+
			specLine("5bec0002-0000-4000-8000-000000000001", specSession, "quixotic fresh line", 4)))
		specUpdate(t, s, claude, &ahead)
		wantAhead(t, 2)
		if got := ftsIDs(t, s, "quixotic", ftsapi.Filter{}); !slices.Equal(got, []string{"m:5bec0002-0000-4000-8000-000000000001"}) {
			t.Fatalf("full-text hits %v: the replayed line must not replace the stored one", got)
		}
		if got := ftsIDs(t, s, text, ftsapi.Filter{Sessions: []string{specOther}}); !slices.Contains(got, "m:"+uuid) {
			t.Fatalf("the stored entry %s left its session's documents", uuid)
		}
	})

	t.Run("a title the transaction changes", func(t *testing.T) {
		appendFile(t, main, []byte(`{"type":"custom-title","customTitle":"Grapefruit migration","sessionId":"`+specSession+`"}`+"\n"+
			specLine("5bec0003-0000-4000-8000-000000000001", specSession, "kumquat schema change", 5)))
		specUpdate(t, s, claude, &ahead)
		wantAhead(t, 1)
		got := ftsIDs(t, s, "grapefruit", ftsapi.Filter{Sessions: []string{specSession}})
		if !slices.Contains(got, "m:5bec0003-0000-4000-8000-000000000001") {
			t.Fatalf("full-text hits for the new title %v: the new entry must carry it", got)
		}
	})

	t.Run("a session the store does not have yet", func(t *testing.T) {
		sid := "5bec0004-0000-4000-8000-000000000000"
		if err := os.WriteFile(filepath.Join(demo, sid+".jsonl"), []byte(specLine("5bec0004-0000-4000-8000-000000000001", sid, "marmalade deploy script", 6)), 0o600); err != nil {
			t.Fatal(err)
		}
		specUpdate(t, s, claude, &ahead)
		wantAhead(t, 0)
		if got := ftsIDs(t, s, "marmalade", ftsapi.Filter{Projects: []string{project}, Sessions: []string{sid}}); !slices.Contains(got, "m:5bec0004-0000-4000-8000-000000000001") {
			t.Fatalf("full-text hits %v, want the new session's entry", got)
		}
	})

	t.Run("a transaction that fails takes its documents back", func(t *testing.T) {
		if _, err := s.w.ExecContext(t.Context(), `CREATE TRIGGER spec_boom BEFORE INSERT ON entries_raw WHEN NEW.uuid = cairn_pack('5bec0005-0000-4000-8000-000000000002')
			BEGIN SELECT RAISE(ABORT, 'planted failure'); END`); err != nil {
			t.Fatal(err)
		}
		defer s.w.ExecContext(t.Context(), `DROP TRIGGER spec_boom`)
		appendFile(t, main, []byte(specLine("5bec0005-0000-4000-8000-000000000001", specSession, "tamarind first", 7)+
			specLine("5bec0005-0000-4000-8000-000000000002", specSession, "tamarind second", 8)))
		if _, err := blockedUpdate(t, s, claude, context.Background(), &ahead, nil); err == nil {
			t.Fatal("the planted failure did not fail the update")
		}
		wantAhead(t, 2)
		if got := ftsIDs(t, s, "tamarind", ftsapi.Filter{}); len(got) != 0 {
			t.Fatalf("full-text hits %v for entries the store does not have", got)
		}
		s.w.ExecContext(t.Context(), `DROP TRIGGER spec_boom`)
		specUpdate(t, s, claude, &ahead)
		wantAhead(t, 2)
		if got := ftsIDs(t, s, "tamarind", ftsapi.Filter{}); len(got) != 2 {
			t.Fatalf("full-text hits %v after the retry, want both entries", got)
		}
	})
}

// TestSpeculationInterrupted: a process killed after indexing ahead (before
// the commit, or after it but before settling) leaves the queued ids behind,
// and the next drain puts everything right, whoever runs it: a replayed
// uuid's document goes back to the stored entry, and a document whose entry
// was never stored goes away.
func TestSpeculationInterrupted(t *testing.T) {
	s, _, claude, _ := updatedSample(t, UpdateOptions{NoEmbed: true})
	ctx := context.Background()
	var stored, text string
	if err := s.r.QueryRowContext(t.Context(), `SELECT uuid, text FROM entries WHERE role = 'user' AND length(text) > 20 AND session = (SELECT id FROM sessions WHERE sid = ?) LIMIT 1`, specOther).Scan(&stored, &text); err != nil {
		t.Fatal(err)
	}
	docs := []DocRow{
		{ID: "m:" + stored, Kind: DocMessage, Text: "quixotic replayed line", Session: specSession, Role: "user"},
		{ID: "m:5bec0006-0000-4000-8000-000000000001", Kind: DocMessage, Text: "papaya never stored", Session: specSession, Role: "user"},
	}
	if err := s.queueAhead(ctx, docs); err != nil {
		t.Fatal(err)
	}
	ix, err := s.Derived().OpenFTS(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	sp := s.speculate(ctx, ix, docs)
	<-sp.done
	if sp.err != nil || len(sp.docs) != 2 {
		t.Fatalf("speculation: %v, %d documents", sp.err, len(sp.docs))
	}
	ix.Close() // killed: nothing settled
	if got := ftsIDs(t, s, "quixotic papaya", ftsapi.Filter{}); len(got) != 2 {
		t.Fatalf("indexed ahead: %v", got)
	}
	if _, err := s.Update(ctx, claude, UpdateOptions{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	if got := ftsIDs(t, s, "quixotic papaya", ftsapi.Filter{}); len(got) != 0 {
		t.Fatalf("documents of entries the store does not have (as indexed) are still found: %v", got)
	}
	if got := ftsIDs(t, s, text, ftsapi.Filter{Sessions: []string{specOther}}); !slices.Contains(got, "m:"+stored) {
		t.Fatalf("the stored entry %s is not back in its session's documents: %v", stored, got)
	}
	if n := count(t, s, `SELECT count(*) FROM fts_queue`); n != 0 {
		t.Fatalf("%d documents left queued", n)
	}
}

// blockedUpdate runs an incremental Update whose last transaction waits
// (another connection holds the write lock) until the speculation it offered
// has been indexed: in a test the transaction is otherwise often committed
// before the speculation has started, and the paths after it go untested.
// Documents indexed ahead are counted in ahead; beforeRelease, when set,
// runs once they are indexed, before the lock is released.
func blockedUpdate(t *testing.T, s *Store, claude string, ctx context.Context, ahead *int, beforeRelease func()) (UpdateStats, error) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+s.Path()+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	release := func() { conn.ExecContext(context.Background(), "ROLLBACK") }
	indexed := make(chan struct{}, 1)
	speculated = func(n int) {
		*ahead += n
		indexed <- struct{}{}
	}
	beforeLastTx = func(offered bool) {
		if !offered {
			return
		}
		if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
			t.Error(err)
			return
		}
		go func() {
			select {
			case <-indexed:
			case <-time.After(10 * time.Second):
				t.Error("the speculation was offered but never indexed")
			}
			if beforeRelease != nil {
				beforeRelease()
			}
			release()
		}()
	}
	defer func() { speculated, beforeLastTx = nil, nil }()
	return s.Update(ctx, claude, UpdateOptions{NoEmbed: true})
}

// TestSpeculable: documents of sessions not stored yet are not indexed
// ahead; the others carry their session's stored label.
func TestSpeculable(t *testing.T) {
	s, _, _, _ := updatedSample(t, UpdateOptions{NoEmbed: true})
	var stored, title, project string
	if err := s.r.QueryRowContext(t.Context(), `SELECT e.uuid, s.title, s.project_path FROM entries e JOIN sessions s ON s.id = e.session WHERE s.sid = ? LIMIT 1`, specSession).Scan(&stored, &title, &project); err != nil {
		t.Fatal(err)
	}
	docs := []DocRow{
		{ID: "m:" + stored, Session: specSession},
		{ID: "m:5bec0007-0000-4000-8000-000000000001", Session: specSession},
		{ID: "m:5bec0007-0000-4000-8000-000000000002", Session: "5bec0007-0000-4000-8000-000000000000"},
	}
	got, err := s.speculable(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != docs[0].ID || got[1].ID != docs[1].ID {
		t.Fatalf("speculable: %+v, want the first two", got)
	}
	for _, d := range got {
		if d.Title != title || d.Project != project {
			t.Fatalf("%s labelled %q, %q, want %q, %q", d.ID, d.Title, d.Project, title, project)
		}
	}
}

// TestSpeculationCancelled: an Update cancelled after indexing ahead, while
// its transaction waits for the write lock, stores nothing and leaves what
// it indexed ahead queued; the next one indexes the entries it stores with
// their session's labels.
func TestSpeculationCancelled(t *testing.T) {
	s, _, claude, _ := updatedSample(t, UpdateOptions{NoEmbed: true})
	var project string
	if err := s.r.QueryRowContext(t.Context(), `SELECT project_path FROM sessions WHERE sid = ?`, specSession).Scan(&project); err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(claude, "projects", "-path-to-Demo", specSession+".jsonl")
	appendFile(t, main, []byte(specLine("5bec0008-0000-4000-8000-000000000001", specSession, "xylophone cancelled run", 9)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ahead := 0
	if _, err := blockedUpdate(t, s, claude, ctx, &ahead, cancel); err == nil {
		t.Fatal("the cancelled update reported no error")
	}
	if ahead != 1 {
		t.Fatalf("%d documents indexed ahead, want 1", ahead)
	}
	if n := count(t, s, `SELECT count(*) FROM entries WHERE uuid = '5bec0008-0000-4000-8000-000000000001'`); n != 0 {
		t.Fatal("the cancelled update stored the entry")
	}
	if _, err := s.Update(context.Background(), claude, UpdateOptions{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	if got := ftsIDs(t, s, "xylophone", ftsapi.Filter{Projects: []string{project}, Sessions: []string{specSession}}); !slices.Equal(got, []string{"m:5bec0008-0000-4000-8000-000000000001"}) {
		t.Fatalf("full-text hits %v, want the entry with its session's labels", got)
	}
	if n := count(t, s, `SELECT count(*) FROM fts_queue`); n != 0 {
		t.Fatalf("%d documents left queued", n)
	}
}
