package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// A summary line whose leaf arrives later stays pending, then titles the
// leaf's session, as transcriptstest.Builder would title it.
func TestSummaryResolvesWhenItsLeafArrives(t *testing.T) {
	claude := copyTree(t, sampleDir)
	const (
		titled = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7" // holds the leaf, has no higher title
		holder = "1af7fc5e-8455-4414-9ccd-011d40f70b2a" // holds the summary line
	)
	dir := filepath.Join(claude, "projects/-path-to-Demo")
	leafFile := filepath.Join(dir, titled+".jsonl")
	leafData, _ := os.ReadFile(leafFile)
	// Hide the leaf's file for the first sync.
	hidden := filepath.Join(t.TempDir(), "hidden.jsonl")
	if err := os.Rename(leafFile, hidden); err != nil {
		t.Fatal(err)
	}
	var leaf string
	for _, line := range strings.Split(string(leafData), "\n") {
		if strings.Contains(line, `"type":"assistant"`) {
			leaf = line[strings.Index(line, `"uuid":"`)+8:]
			leaf = leaf[:strings.IndexByte(leaf, '"')]
		}
	}
	appendFile(t, filepath.Join(dir, holder+".jsonl"), []byte(`{"type":"summary","summary":"Resolved later","leafUuid":"`+leaf+`"}`+"\n"))

	s, _ := openStore(t)
	mustSync(t, s, claude, SyncOptions{})
	if n := count(t, s, `SELECT count(*) FROM summaries WHERE session IS NULL`); n != 1 {
		t.Fatalf("%d pending summaries, want 1", n)
	}
	if err := os.Rename(hidden, leafFile); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	os.Chtimes(leafFile, now, now)
	mustSync(t, s, claude, SyncOptions{})
	sess, err := s.Session(t.Context(), titled)
	if err != nil {
		t.Fatal(err)
	}
	if sess.Title != "Resolved later" || sess.TitleSource != "summary" {
		t.Fatalf("title %q (%s), want the summary", sess.Title, sess.TitleSource)
	}
	sameSessionsAnyOrder(t, storeSessions(t, s), scan(t, claude).Sessions)
	docs, err := s.Derived().QueuedDocs(t.Context(), 10000)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(docs, func(d DocRow) bool {
		return d.ID == docSessionPrefix+titled && d.Kind == DocSession && d.Title == "Resolved later"
	}) {
		t.Fatal("the retitled session was not queued for the full-text index")
	}
}

func TestQueues(t *testing.T) {
	s, _ := openStore(t)
	claude := copyTree(t, sampleDir)
	var last Progress
	calls := 0
	mustSync(t, s, claude, SyncOptions{Progress: func(p Progress) { last = p; calls++ }})
	if calls == 0 || last.FilesDone != last.FilesTotal || last.BytesDone != last.BytesTotal || last.FilesTotal == 0 {
		t.Fatalf("progress: %d calls, last %+v", calls, last)
	}
	entries := count(t, s, `SELECT count(*) FROM entries WHERE trim(text) != ''`)
	sessions := count(t, s, `SELECT count(*) FROM sessions WHERE entries > 0`)
	var all []DocRow
	for {
		docs, err := s.Derived().QueuedDocs(t.Context(), 500)
		if err != nil {
			t.Fatal(err)
		}
		if len(docs) == 0 {
			break
		}
		for _, d := range docs {
			if d.Gone || d.Text == "" && d.Kind == DocMessage || d.Session == "" || d.Project == "" {
				t.Fatalf("bad doc %+v", d)
			}
			if d.Kind == DocMessage && (d.Role == "" || d.Block == "" || d.Time.IsZero()) {
				t.Fatalf("message doc without role, block or time: %+v", d)
			}
		}
		all = append(all, docs...)
		ids := make([]string, len(docs))
		for i, d := range docs {
			ids[i] = d.ID
		}
		if err := s.Derived().AckQueued(t.Context(), ids); err != nil {
			t.Fatal(err)
		}
	}
	if len(all) != entries+sessions {
		t.Fatalf("%d queued docs, want %d entries + %d sessions", len(all), entries, sessions)
	}
	roles := map[string]int{}
	for _, d := range all {
		roles[d.Role+"/"+d.Block]++
	}
	for _, k := range []string{"user/text", "assistant/text", "assistant/tool_use", "tool/tool_result", "assistant/thinking"} {
		if roles[k] == 0 {
			t.Errorf("no %s documents (have %v)", k, roles)
		}
	}

	emb, err := s.Derived().QueuedEmbeds(t.Context(), 100000)
	if err != nil {
		t.Fatal(err)
	}
	if len(emb) == 0 || len(emb) != count(t, s, `SELECT count(*) FROM entries WHERE `+embeddableWhere) {
		t.Fatalf("%d docs queued for embedding", len(emb))
	}
	for _, d := range emb {
		if d.Block != "text" || (d.Role != "user" && d.Role != "assistant") {
			t.Fatalf("embedding queued for %s/%s", d.Role, d.Block)
		}
	}
	vecs := []VecRow{{ID: emb[0].ID, Vec: []float32{1, -2.5, 3}}, {ID: emb[1].ID, Vec: []float32{0.5, 0, -1}}}
	if err := s.Derived().PutEmbeddings(t.Context(), "test-3", vecs); err != nil {
		t.Fatal(err)
	}
	got, err := s.Derived().Embeddings(t.Context(), "test-3")
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b VecRow) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(vecs, func(a, b VecRow) int { return strings.Compare(a.ID, b.ID) })
	if fmt.Sprint(got) != fmt.Sprint(vecs) {
		t.Fatalf("embeddings round trip: %v vs %v", got, vecs)
	}
	if left, _ := s.Derived().QueuedEmbeds(t.Context(), 100000); len(left) != len(emb)-2 {
		t.Fatalf("%d left in the embedding queue, want %d", len(left), len(emb)-2)
	}

	if _, ok, _ := s.Setting(t.Context(), "model"); ok {
		t.Fatal("unset setting found")
	}
	if err := s.SetSetting(t.Context(), "model", []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := s.Setting(t.Context(), "model"); err != nil || !ok || string(v) != "\x01\x02\x03" {
		t.Fatalf("setting: %v %v %v", v, ok, err)
	}
}

// A hook opens the store with a short busy timeout: when a long sync holds
// the write lock it fails fast with ErrBusy, and nothing is lost.
func TestBusyStoreFailsFast(t *testing.T) {
	// One small session (10 KB): what the sync reads before it meets the
	// lock is not what is timed (the whole sample took over a second of
	// that under the race detector on a loaded machine: 1.3 and 3.0 s).
	claude := filepath.Join(t.TempDir(), "claude")
	const one = "projects/-home-marco-projects-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl"
	if err := os.MkdirAll(filepath.Dir(filepath.Join(claude, one)), 0o755); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(sampleDir, one)); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(filepath.Join(claude, one), b, 0o644); err != nil {
		t.Fatal(err)
	}
	holder, dir := openStore(t)
	tx, err := holder.w.BeginTx(context.Background(), nil) // immediate: takes the write lock
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(t.Context(), `INSERT INTO kv(key, value) VALUES ('lock', 'x')`); err != nil {
		t.Fatal(err)
	}
	hook, err := OpenWith(dir, OpenOptions{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer hook.Close()
	start := time.Now()
	_, err = hook.Sync(context.Background(), claude, SyncOptions{})
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("sync under a held lock: %v", err)
	}
	if el := time.Since(start); el > time.Second {
		t.Fatalf("busy sync took %v", el)
	}
	// Reads still work beside the writer.
	if _, err := hook.Stats(t.Context()); err != nil {
		t.Fatal(err)
	}
	tx.Rollback()
	st, err := hook.Sync(context.Background(), claude, SyncOptions{})
	if err != nil || st.EntriesAdded == 0 {
		t.Fatalf("sync after the lock was released: %+v %v", st, err)
	}
	_ = sql.ErrNoRows
}

func TestSessionLookup(t *testing.T) {
	s, _ := openStore(t)
	mustSync(t, s, sampleDir, SyncOptions{})
	if _, err := s.Session(t.Context(), "ae4a"); err == nil || !strings.Contains(err.Error(), "too short") {
		t.Fatalf("short prefix: %v", err)
	}
	if _, err := s.Session(t.Context(), "00000000"); err == nil || !strings.Contains(err.Error(), "no session matches") {
		t.Fatalf("unknown prefix: %v", err)
	}
	ss, err := s.Session(t.Context(), "ae4a77f8")
	if err != nil || ss.ID != "ae4a77f8-aedd-4bc1-888f-c94edc91af04" {
		t.Fatalf("prefix lookup: %v %v", ss, err)
	}
	got, err := s.Sessions(t.Context(), SessionFilter{Project: "Demo", Limit: 2})
	if err != nil || len(got) != 2 {
		t.Fatalf("filtered sessions: %d %v", len(got), err)
	}
	for _, x := range got {
		if !strings.Contains(x.ProjectPath, "Demo") && !strings.Contains(x.Project, "Demo") {
			t.Errorf("session %s of project %s", x.ID, x.ProjectPath)
		}
	}
	all := storeSessions(t, s)
	since := all[len(all)/2].End
	recent, _ := s.Sessions(t.Context(), SessionFilter{Since: since})
	for _, x := range recent {
		if x.End.Before(since) {
			t.Errorf("session %s ended %v, before %v", x.ID, x.End, since)
		}
	}
	if len(recent) == 0 || len(recent) >= len(all) {
		t.Errorf("since filter kept %d of %d", len(recent), len(all))
	}
}

// TestQueueKeysMigration: a store from before schema 4 (entries queued by
// uuid) opens with its entries queued by row id, nothing lost; a row for an
// entry that is not stored stays a removal.
func TestQueueKeysMigration(t *testing.T) {
	s, dir := openStore(t)
	mustSync(t, s, sampleDir, SyncOptions{})
	before, err := s.Derived().QueuedDocs(t.Context(), 1<<20)
	if err != nil || len(before) == 0 {
		t.Fatalf("queued: %d, %v", len(before), err)
	}
	// Back to the old layout.
	var old []string
	for _, table := range []string{"fts_queue", "embed_queue"} {
		old = append(old,
			`INSERT INTO `+table+`(doc) SELECT 'm:' || e.uuid FROM `+table+` q JOIN entries_raw e ON q.doc = printf('e:%013d', e.id)`,
			`DELETE FROM `+table+` WHERE doc >= 'e:' AND doc < 'e;'`)
	}
	old = append(old, `INSERT INTO fts_queue(doc) VALUES ('m:no-such-entry')`, `PRAGMA user_version = 3`)
	s2 := reopenAfter(t, s, dir, old...)
	if n := count(t, s2, `SELECT count(*) FROM fts_queue WHERE doc >= 'm:' AND doc < 'm;'`); n != 1 {
		t.Fatalf("%d uuid-keyed rows left, want only the removal", n)
	}
	after, err := s2.Derived().QueuedDocs(t.Context(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(rows []DocRow) map[string]DocRow {
		m := map[string]DocRow{}
		for _, r := range rows {
			r.queueKey = ""
			m[r.ID] = r
		}
		return m
	}
	b, a := ids(before), ids(after)
	if gone, ok := a["m:no-such-entry"]; !ok || !gone.Gone {
		t.Fatalf("the removal: %+v", gone)
	}
	delete(a, "m:no-such-entry")
	if len(a) != len(b) {
		t.Fatalf("%d queued after migrating, %d before", len(a), len(b))
	}
	for id, r := range b {
		if !reflect.DeepEqual(a[id], r) {
			t.Fatalf("%s changed:\n%+v\n%+v", id, a[id], r)
		}
	}
	// Acknowledging by document id still takes an entry off either queue.
	var first string
	for id := range b {
		if strings.HasPrefix(id, "m:") {
			first = id
			break
		}
	}
	if err := s2.Derived().AckQueued(t.Context(), []string{first}); err != nil {
		t.Fatal(err)
	}
	left, _ := s2.Derived().QueuedDocs(t.Context(), 1<<20)
	if len(left) != len(after)-1 {
		t.Fatalf("ack by id: %d left of %d", len(left), len(after))
	}
}

// TestEmbeddingsMigration: vectors of a store from before schema 5 (kept in
// a table keyed by embedder and document) are all there after opening.
func TestEmbeddingsMigration(t *testing.T) {
	s, dir := openStore(t)
	vecs := []VecRow{{ID: "m:a", Vec: []float32{1, 0}}, {ID: "m:b", Vec: []float32{0, 1}}, {ID: "mem:c", Vec: []float32{0.625, 0.75}}}
	if err := s.Derived().PutEmbeddings(t.Context(), "test-2", vecs); err != nil {
		t.Fatal(err)
	}
	s2 := reopenAfter(t, s, dir,
		`CREATE TABLE embeddings_v4 (doc TEXT NOT NULL, embedder TEXT NOT NULL, dims INTEGER NOT NULL, vector BLOB NOT NULL,
			created INTEGER NOT NULL, PRIMARY KEY (embedder, doc)) WITHOUT ROWID`,
		`INSERT INTO embeddings_v4 SELECT doc, embedder, dims, vector, created FROM embeddings`,
		`DROP TABLE embeddings`,
		`ALTER TABLE embeddings_v4 RENAME TO embeddings`,
		`PRAGMA user_version = 4`)
	got, err := s2.Derived().Embeddings(t.Context(), "test-2")
	if err != nil || len(got) != len(vecs) {
		t.Fatalf("after migrating: %d vectors, %v", len(got), err)
	}
	slices.SortFunc(got, func(a, b VecRow) int { return strings.Compare(a.ID, b.ID) })
	for i := range vecs {
		if got[i].ID != vecs[i].ID || !slices.Equal(got[i].Vec, vecs[i].Vec) {
			t.Fatalf("vector %d: %+v, want %+v", i, got[i], vecs[i])
		}
	}
	// The unique key still holds: the same document again is an update.
	if err := s2.Derived().PutEmbeddings(t.Context(), "test-2", []VecRow{{ID: "m:a", Vec: []float32{0, 1}}}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s2, `SELECT count(*) FROM embeddings WHERE embedder = 'test-2'`); n != 3 {
		t.Fatalf("%d vectors after an update, want 3", n)
	}
}

// TestEntryVectorsByRow: entries' vectors are stored under the entries' row
// keys (schema 6), read back under their document ids, and a vector put by
// document id replaces the stored one instead of adding a second. A store
// from schema 5 (vectors under document ids) is converted on opening.
func TestEntryVectorsByRow(t *testing.T) {
	s, dir, _, st := updatedSample(t, UpdateOptions{})
	ctx := context.Background()
	if st.EmbedErr != nil || st.Embedded == 0 {
		t.Fatalf("update: %v, %d embedded", st.EmbedErr, st.Embedded)
	}
	total := count(t, s, `SELECT count(*) FROM embeddings WHERE embedder = ?`, st.Embedder)
	if n := count(t, s, `SELECT count(*) FROM embeddings WHERE doc >= 'm:' AND doc < 'm;'`); n != 0 {
		t.Fatalf("%d of %d vectors stored under document ids", n, total)
	}
	byID := func(s *Store) map[string][]float32 {
		t.Helper()
		rows, err := s.Derived().Embeddings(ctx, st.Embedder)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]float32{}
		for _, r := range rows {
			if !strings.HasPrefix(r.ID, "m:") || count(t, s, `SELECT count(*) FROM entries_raw WHERE uuid = cairn_pack(?)`, r.ID[2:]) != 1 {
				t.Fatalf("vector read back as %q, not an entry's document id", r.ID)
			}
			out[r.ID] = r.Vec
		}
		if len(out) != total {
			t.Fatalf("%d distinct ids for %d vectors", len(out), total)
		}
		return out
	}
	before := byID(s)
	var id string
	for id = range before {
		break
	}
	if err := s.Derived().PutEmbeddings(ctx, st.Embedder, []VecRow{{ID: id, Vec: before[id]}}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT count(*) FROM embeddings WHERE embedder = ?`, st.Embedder); n != total {
		t.Fatalf("%d vectors after putting one again by id, want %d", n, total)
	}

	s2 := reopenAfter(t, s, dir,
		`UPDATE embeddings SET doc = (SELECT 'm:' || uuid FROM entries_raw WHERE id = CAST(substr(embeddings.doc, 3) AS INTEGER)) WHERE doc >= 'e:' AND doc < 'e;'`,
		`PRAGMA user_version = 5`)
	if n := count(t, s2, `SELECT count(*) FROM embeddings WHERE doc >= 'e:' AND doc < 'e;'`); n != total {
		t.Fatalf("after migrating: %d of %d vectors under row keys", n, total)
	}
	after := byID(s2)
	for id, v := range before {
		if !slices.Equal(after[id], v) {
			t.Fatalf("vector of %s changed across the migration", id)
		}
	}
}

// reopenAfter runs stmts on s (turning it into an older store), closes it
// and opens dir again, which migrates it.
// undoSchema10 takes a store back to before schema 10 (projects are
// repositories), for tests that replay earlier migrations. Schema 10 puts
// the session's folder back as its project.
// undoSchema16 stores the uuids and parents as text, as before schema 15
// and 16 (schema 16 packs both).
const undoSchema16 = `UPDATE entries_raw SET uuid = cairn_uuid(uuid), parent = cairn_uuid(parent)`

// undoSchema17 stores the types, roles and block kinds as words, as
// before schema 17.
var undoSchema17 = `UPDATE entries_raw SET type = ` + kindCase("type", len(kindWords)) + `, role = ` + kindCase("role", len(kindWords)) +
	`, block = ` + kindCase("block", len(kindWords))

var undoSchema10 = []string{
	`UPDATE sessions SET project_path = cwd`,
	`ALTER TABLE sessions DROP COLUMN cwd`,
	`DROP TABLE project_repos`,
	`DROP TABLE memory_fingerprints`,
}

func reopenAfter(t *testing.T, s *Store, dir string, stmts ...string) *Store {
	t.Helper()
	for _, q := range stmts {
		var v int
		if n, _ := fmt.Sscanf(q, "PRAGMA user_version = %d", &v); n != 1 {
			continue
		}
		if v < 10 {
			stmts = append(slices.Clone(undoSchema10), stmts...)
		}
		if v < 16 {
			stmts = append([]string{undoSchema16}, stmts...) // before any statement reads the uuids as text
		}
		if v < 17 {
			stmts = append([]string{undoSchema17}, stmts...)
		}
		break
	}
	for _, q := range stmts {
		if _, err := s.w.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s.Close()
	s2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	return s2
}
