package index

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// bigSession is the sample's largest main transcript (2,385 lines).
const bigSession = "projects/-home-marco-projects-spotter-worktrees-spotter-4te/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"

// freshLines makes n new user/assistant lines for a session by copying
// existing ones under new uuids (and new message ids, so they count as new
// responses), chained after the file's last line.
func freshLines(t testing.TB, path string, n int, tag string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	parent := ""
	made := 0
	for made < n {
		for _, line := range bytes.Split(data, []byte("\n")) {
			if made == n {
				break
			}
			var m map[string]any
			if json.Unmarshal(line, &m) != nil || m["uuid"] == nil || (m["type"] != "user" && m["type"] != "assistant") {
				continue
			}
			m["uuid"] = fmt.Sprintf("%s-%08d-0000-0000-000000000000", tag, made)
			// New lines are new in time too: a copy with only a new uuid
			// is history a resume wrote again, stored once.
			if ts, ok := m["timestamp"].(string); ok {
				if t0, err := time.Parse(time.RFC3339Nano, ts); err == nil {
					m["timestamp"] = t0.Add(time.Duration(made+1) * time.Millisecond).Format(time.RFC3339Nano)
				}
			}
			if parent != "" {
				m["parentUuid"] = parent
			}
			parent = m["uuid"].(string)
			if msg, ok := m["message"].(map[string]any); ok {
				if id, ok := msg["id"].(string); ok {
					msg["id"] = id + "-" + tag + fmt.Sprint(made)
				}
			}
			b, _ := json.Marshal(m)
			out.Write(b)
			out.WriteByte('\n')
			made++
		}
	}
	return out.Bytes()
}

func TestAppendIsIncremental(t *testing.T) {
	claude, s := syncedSample(t)
	path := filepath.Join(claude, bigSession)
	before, _ := os.Stat(path)
	lines := freshLines(t, path, 50, "append")
	appendFile(t, path, lines)

	st := mustSync(t, s, claude, SyncOptions{})
	if st.EntriesAdded != 50 || st.Duplicates != 0 || st.FilesChanged != 1 || st.BytesRead != int64(len(lines)) {
		t.Fatalf("append sync: %+v (want 50 entries from %d bytes of one file)", st, len(lines))
	}
	if before.Size()+int64(len(lines)) != fileSize(t, path) {
		t.Fatal("append did not land")
	}
	// The aggregate updated in place equals a fresh sync and a scan.
	fresh, _ := openStore(t)
	mustSync(t, fresh, claude, SyncOptions{})
	sameSessionsAnyOrder(t, storeSessions(t, s), storeSessions(t, fresh))
	sameSessionsAnyOrder(t, storeSessions(t, s), scan(t, claude).Sessions)
	if a, b := count(t, s, `SELECT count(*) FROM entries`), count(t, fresh, `SELECT count(*) FROM entries`); a != b {
		t.Fatalf("entries: incremental %d, fresh %d", a, b)
	}
}

// A half-written last line waits for its newline.
func TestPartialLineWaits(t *testing.T) {
	claude, s := syncedSample(t)
	path := filepath.Join(claude, bigSession)
	lines := freshLines(t, path, 2, "partial")
	cut := bytes.IndexByte(lines, '\n') + 1 + 40
	appendFile(t, path, lines[:cut])
	if st := mustSync(t, s, claude, SyncOptions{}); st.EntriesAdded != 1 {
		t.Fatalf("first line: %+v", st)
	}
	if st := mustSync(t, s, claude, SyncOptions{}); st.BytesRead != 0 || st.Transactions != 0 {
		t.Fatalf("unchanged file with a partial line was read again: %+v", st)
	}
	appendFile(t, path, lines[cut:])
	if st := mustSync(t, s, claude, SyncOptions{}); st.EntriesAdded != 1 || st.BadLines != 0 {
		t.Fatalf("completed line: %+v", st)
	}
}

func TestReplacedAndTruncatedFiles(t *testing.T) {
	claude, s := syncedSample(t)
	entries := count(t, s, `SELECT count(*) FROM entries`)
	sessions := storeSessions(t, s)

	// Replaced: the first 100 lines are gone (the fingerprint changes).
	path := filepath.Join(claude, bigSession)
	data, _ := os.ReadFile(path)
	rest := data
	for range 100 {
		rest = rest[bytes.IndexByte(rest, '\n')+1:]
	}
	if err := os.WriteFile(path, rest, 0o644); err != nil {
		t.Fatal(err)
	}
	st := mustSync(t, s, claude, SyncOptions{})
	if st.Restarts != 1 || st.EntriesAdded != 0 || st.Duplicates == 0 {
		t.Fatalf("replaced file: %+v", st)
	}
	if n := count(t, s, `SELECT count(*) FROM entries`); n != entries {
		t.Fatalf("entries %d after replacing a file, want %d (nothing lost, nothing duplicated)", n, entries)
	}
	sameSessions(t, storeSessions(t, s), sessions)

	// Truncated to half, then grown with new lines: re-read from the start.
	half := data[:bytes.LastIndexByte(data[:len(data)/2], '\n')+1]
	extra := freshLines(t, path, 20, "trunc")
	if err := os.WriteFile(path, append(append([]byte{}, half...), extra...), 0o644); err != nil {
		t.Fatal(err)
	}
	st = mustSync(t, s, claude, SyncOptions{})
	if st.Restarts != 1 || st.EntriesAdded != 20 {
		t.Fatalf("truncated file: %+v", st)
	}
	if n := count(t, s, `SELECT count(*) FROM entries`); n != entries+20 {
		t.Fatalf("entries %d, want %d", n, entries+20)
	}
	if n := count(t, s, `SELECT count(*) FROM (SELECT uuid FROM entries GROUP BY uuid HAVING count(*) > 1)`); n != 0 {
		t.Fatalf("%d duplicated uuids", n)
	}
}

func TestDeletedFilesArchiveSessions(t *testing.T) {
	claude, s := syncedSample(t)
	entries := count(t, s, `SELECT count(*) FROM entries`)
	const sid = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"
	before, err := s.Conversation(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(claude, bigSession)
	if err := os.Remove(main); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(main[:len(main)-len(".jsonl")]); err != nil {
		t.Fatal(err)
	}
	st := mustSync(t, s, claude, SyncOptions{})
	if st.FilesMissing != 3 {
		t.Fatalf("missing files: %+v", st)
	}
	if n := count(t, s, `SELECT count(*) FROM entries`); n != entries {
		t.Fatalf("entries %d after deleting files, want %d", n, entries)
	}
	sess, err := s.Session(t.Context(), sid[:8])
	if err != nil {
		t.Fatal(err)
	}
	if sess.SourceExists {
		t.Fatal("session of deleted files is not archived")
	}
	for _, other := range storeSessions(t, s) {
		if other.ID != sid && !other.SourceExists {
			t.Errorf("session %s archived though its files exist", other.ID)
		}
	}
	after, err := s.Conversation(context.Background(), sid)
	if err != nil {
		t.Fatalf("conversation of an archived session: %v", err)
	}
	if len(after.Entries) != len(before.Entries) || len(after.Agents) != len(before.Agents) || after.Session.Prompts != before.Session.Prompts {
		t.Fatalf("conversation changed after deletion: %d/%d entries, %d/%d agents", len(after.Entries), len(before.Entries), len(after.Agents), len(before.Agents))
	}
	// A second sync has nothing to do; the file coming back un-archives.
	if st := mustSync(t, s, claude, SyncOptions{}); st.FilesMissing != 0 || st.Transactions != 0 {
		t.Fatalf("second sync after deletion: %+v", st)
	}
	if err := testutil.CopyDir(filepath.Join(sampleDir, filepath.Dir(bigSession)), filepath.Dir(main)); err != nil {
		t.Fatal(err)
	}
	mustSync(t, s, claude, SyncOptions{})
	if sess, _ := s.Session(t.Context(), sid); !sess.SourceExists {
		t.Fatal("restored session still archived")
	}
	if n := count(t, s, `SELECT count(*) FROM entries`); n != entries {
		t.Fatalf("entries %d after restoring files, want %d", n, entries)
	}
}

func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// The passive checkpoint Update runs after the sync goes through the
// reader pool (query_only connections): it must really copy the WAL back,
// not fail quietly.
func TestCheckpointPassiveFromReader(t *testing.T) {
	claude, s := syncedSample(t)
	path := filepath.Join(claude, bigSession)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(freshLines(t, path, 50, "ckpt"))
	f.Close()
	mustSync(t, s, claude, SyncOptions{})
	frames, copied, err := s.checkpointPassive()
	if err != nil {
		t.Fatal(err)
	}
	if frames == 0 || copied != frames {
		t.Fatalf("checkpoint copied %d of %d WAL frames, want all of them (and some)", copied, frames)
	}
}
