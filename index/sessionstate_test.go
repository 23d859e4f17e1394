package index

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/transcripts"
)

// A session whose stored state is of another format stops the sync that
// would build on it, with the rebuild's advice; a recount aggregates it
// afresh from its transcripts.
func TestOtherStateVersionStopsSync(t *testing.T) {
	claude, s := syncedSample(t)
	path := filepath.Join(claude, bigSession)
	sid := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	res, err := s.w.ExecContext(t.Context(), `UPDATE sessions SET state_version = ? WHERE sid = ? AND state IS NOT NULL`, transcripts.StateVersion+1, sid)
	if n, _ := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("marking session %s: %v (%d rows)", sid, err, n)
	}
	appendFile(t, path, freshLines(t, path, 3, "version"))
	if _, err := s.Sync(t.Context(), claude, SyncOptions{}); err == nil || !strings.Contains(err.Error(), "another cairn version") || !strings.Contains(err.Error(), "cairn index") {
		t.Fatalf("a sync over a state of another version: %v", err)
	}
	if _, err := s.Sync(t.Context(), claude, SyncOptions{Recount: true}); err != nil {
		t.Fatalf("a recount must aggregate the session afresh: %v", err)
	}
	if v := count(t, s, `SELECT state_version FROM sessions WHERE sid = ?`, sid); v != transcripts.StateVersion {
		t.Errorf("after the recount: state v%d, want v%d", v, transcripts.StateVersion)
	}
}

// A full check names a session state that no longer decompresses, with
// the recount that mends it, beside what SQLite finds (nothing here).
func TestFullCheckFindsUndecodableSessionState(t *testing.T) {
	claude := copySmallSample(t)
	s, _ := openStore(t)
	mustSync(t, s, claude, SyncOptions{})
	if _, err := s.w.ExecContext(t.Context(), `UPDATE sessions SET state = ? WHERE id = (SELECT min(id) FROM sessions WHERE state IS NOT NULL)`, append([]byte(s2Magic), make([]byte, 40)...)); err != nil {
		t.Fatal(err)
	}
	if ic, err := s.CheckIntegrity(t.Context(), false); err != nil || !ic.OK() {
		t.Fatalf("a quick check reads no value: %v %+v", err, ic)
	}
	ic, err := s.CheckIntegrity(t.Context(), true)
	if err != nil || len(ic.Problems) != 1 || ic.IndexesOnly || !strings.Contains(ic.Problems[0], "1 stored session's state no longer decompresses (`cairn index --recount`") {
		t.Fatalf("want the damaged state found: %v %+v", err, ic)
	}
}
