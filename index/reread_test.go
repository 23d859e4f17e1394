package index

import (
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/index/ftsapi"
)

// An entry whose stored text no longer decompresses (a damaged value) is
// left out of the rebuilt full-text index, counted, and re-read from its
// transcript, which is still on disk: afterwards it shows and is found
// again.
func TestRebuildRereadsDamagedEntriesFromTranscripts(t *testing.T) {
	claude := copySmallSample(t)
	s, _ := openStore(t)
	if _, err := s.Update(t.Context(), claude, UpdateOptions{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	var id int64
	var uuid, sid string
	if err := s.r.QueryRowContext(t.Context(), `SELECT e.id, cairn_uuid(e.uuid), s.sid FROM entries_raw e JOIN sessions s ON s.id = e.session
		WHERE typeof(e.text) = 'blob' AND e.role = ? AND e.block = ? ORDER BY e.id LIMIT 1`, packKind(roleAssistant), packKind("text")).Scan(&id, &uuid, &sid); err != nil {
		t.Fatal(err)
	}
	before, err := s.Conversation(t.Context(), sid)
	if err != nil {
		t.Fatal(err)
	}
	// The value keeps its S2 magic, its body is garbage: cairn_unz fails.
	if _, err := s.w.ExecContext(t.Context(), `UPDATE entries_raw SET text = ? WHERE id = ?`, append([]byte(s2Magic), make([]byte, 40)...), id); err != nil {
		t.Fatal(err)
	}
	c, err := s.Conversation(t.Context(), sid)
	if err != nil || c.Unreadable != 1 || len(c.Entries)+1 != len(before.Entries) {
		t.Fatalf("show of a session with one bad entry: %v, %d unreadable, %d of %d entries", err, c.Unreadable, len(c.Entries), len(before.Entries))
	}
	st, err := s.Update(t.Context(), claude, UpdateOptions{NoEmbed: true, Rebuild: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.Damaged != 1 || st.Repaired != 1 {
		t.Fatalf("rebuild: %d damaged, %d repaired: want 1 and 1", st.Damaged, st.Repaired)
	}
	after, err := s.Conversation(t.Context(), sid)
	if err != nil || after.Unreadable != 0 || len(after.Entries) != len(before.Entries) {
		t.Fatalf("after the re-read: %v, %d unreadable, %d of %d entries", err, after.Unreadable, len(after.Entries), len(before.Entries))
	}
	var text string
	for _, e := range after.Entries {
		if e.UUID == uuid {
			text = e.JoinedText()
		}
	}
	if text == "" {
		t.Fatal("the re-read entry has no text")
	}
	word := ""
	for _, w := range strings.Fields(text) {
		if len(w) > 8 && strings.IndexFunc(w, func(r rune) bool { return !(r >= 'a' && r <= 'z') }) < 0 {
			word = w
			break
		}
	}
	sr, err := s.OpenSearcher(t.Context(), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	hits, _, err := sr.FTS.Search(word, ftsapi.Filter{Sessions: []string{sid}}, 50)
	found := false
	for _, h := range hits {
		found = found || h.ID == "m:"+uuid
	}
	if err != nil || !found {
		t.Errorf("the re-read entry is not searchable by %q (%v)", word, err)
	}
}

// integrity_check passes a value damaged inside its page; doctor --full's
// check finds it.
func TestFullCheckFindsUndecodableValues(t *testing.T) {
	claude := copySmallSample(t)
	s, _ := openStore(t)
	if _, err := s.Update(t.Context(), claude, UpdateOptions{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	if ic, err := s.CheckIntegrity(t.Context(), true); err != nil || !ic.OK() {
		t.Fatalf("a fresh store: %v %+v", err, ic)
	}
	if _, err := s.w.ExecContext(t.Context(), `UPDATE entries_raw SET text = ? WHERE id = (SELECT min(id) FROM entries_raw WHERE typeof(text) = 'blob')`, append([]byte(s2Magic), make([]byte, 40)...)); err != nil {
		t.Fatal(err)
	}
	ic, err := s.CheckIntegrity(t.Context(), true)
	if err != nil || ic.OK() || ic.IndexesOnly || !strings.Contains(ic.Problems[0], "1 stored entry no longer decompresses") {
		t.Fatalf("want the damaged value found: %v %+v", err, ic)
	}
}

// A session whose stored state no longer decompresses stops the sync with
// the way out, and `index --recount` aggregates it again from its
// transcripts.
func TestDamagedSessionStateRecounts(t *testing.T) {
	claude := copySmallSample(t)
	s, _ := openStore(t)
	mustSync(t, s, claude, SyncOptions{})
	var sid string
	if err := s.r.QueryRowContext(t.Context(), `SELECT sid FROM sessions WHERE state IS NOT NULL ORDER BY id LIMIT 1`).Scan(&sid); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(t.Context(), `UPDATE sessions SET state = ? WHERE sid = ?`, append([]byte(s2Magic), make([]byte, 40)...), sid); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sync(t.Context(), claude, SyncOptions{Recount: true}); err != nil {
		t.Fatalf("a recount must aggregate the damaged session afresh: %v", err)
	}
	if ic, err := s.CheckIntegrity(t.Context(), true); err != nil || !ic.OK() {
		t.Fatalf("after the recount: %v %+v", err, ic)
	}
}
