package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/index/embed"
	"github.com/cairn-dev/cairn/internal/testutil"
	"github.com/cairn-dev/cairn/ollama"
)

func sampleClaude(t *testing.T) string {
	t.Helper()
	return copyTree(t, filepath.Join(testutil.RepoRoot(), "testdata", "claude"))
}

// updatedSample is a store after one Update over a copy of the sample
// tree, and that Update's stats: with the options the tests use (with
// the built-in embedder, or NoEmbed), a copy of the package's one
// (sharedSample); with others, an Update of its own.
func updatedSample(t *testing.T, o UpdateOptions) (s *Store, dir, claude string, st UpdateStats) {
	t.Helper()
	if !reflect.DeepEqual(o, UpdateOptions{NoEmbed: o.NoEmbed}) {
		s, dir = openStore(t)
		claude = sampleClaude(t)
		st, err := s.Update(context.Background(), claude, o)
		if err != nil {
			t.Fatalf("update: %v", err)
		}
		return s, dir, claude, st
	}
	return sharedSample(t, fmt.Sprintf("updated-noembed-%v", o.NoEmbed), func(s *Store, claude string) (UpdateStats, error) {
		return s.Update(context.Background(), claude, o)
	})
}

// TestUpdateFillsEveryIndex: after one Update the queues are empty, every
// searchable entry is in the full-text index and has been embedded.
func TestUpdateFillsEveryIndex(t *testing.T) {
	s, _, claude, st := updatedSample(t, UpdateOptions{})
	ctx := context.Background()
	if st.FTSBusy || st.EmbedErr != nil {
		t.Fatalf("busy %v, embed error %v", st.FTSBusy, st.EmbedErr)
	}
	if n := count(t, s, `SELECT count(*) FROM fts_queue`); n != 0 {
		t.Fatalf("%d documents still queued for full-text", n)
	}
	if n := count(t, s, `SELECT count(*) FROM embed_queue`); n != 0 {
		t.Fatalf("%d documents still queued for vectors", n)
	}
	want := count(t, s, `SELECT count(*) FROM entries WHERE trim(text) != ''`) + count(t, s, `SELECT count(*) FROM sessions WHERE entries > 0`)
	if st.FTSDocs != want {
		t.Fatalf("full-text got %d documents, store has %d", st.FTSDocs, want)
	}
	if !strings.HasPrefix(st.Embedder, "cairn-lsa:") || st.Embedded == 0 {
		t.Fatalf("embedder %q embedded %d", st.Embedder, st.Embedded)
	}
	// A second run finds nothing to do.
	st2, err := s.Update(ctx, claude, UpdateOptions{})
	if err != nil || st2.Sync.EntriesAdded != 0 || st2.FTSDocs != 0 || st2.Embedded != 0 {
		t.Fatalf("second update did work: %+v, %v", st2, err)
	}
	sr, err := s.OpenSearcher(ctx, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	resp, err := sr.Search(ctx, SearchQuery{Text: "dialyzer", Mode: ModeText})
	if err != nil || len(resp.Results) == 0 {
		t.Fatalf("search after update: %v, %d results", err, len(resp.Results))
	}
}

// TestUpdateLeavesWorkQueuedWhenIndexBusy: another holder of the full-text
// index makes Update store everything and leave the documents queued; the
// next Update that gets the index drains them.
func TestUpdateLeavesWorkQueuedWhenIndexBusy(t *testing.T) {
	s, _ := openStore(t)
	claude := sampleClaude(t)
	ctx := context.Background()
	holder, err := s.Derived().OpenFTS(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Update(ctx, claude, UpdateOptions{LockWait: 20 * time.Millisecond, NoEmbed: true})
	if err != nil {
		t.Fatal(err)
	}
	if !st.FTSBusy || st.Sync.EntriesAdded == 0 {
		t.Fatalf("busy %v, entries %d", st.FTSBusy, st.Sync.EntriesAdded)
	}
	queued := count(t, s, `SELECT count(*) FROM fts_queue`)
	if queued == 0 {
		t.Fatal("nothing queued while the index was busy")
	}
	holder.Close()
	st, err = s.Update(ctx, claude, UpdateOptions{NoEmbed: true})
	if err != nil || st.FTSDocs != queued {
		t.Fatalf("drained %d of %d queued: %v", st.FTSDocs, queued, err)
	}
}

// ollamaServer speaks the parts of Ollama's wire format the store uses
// (/api/tags, /api/show, /api/embed) with deterministic 8-dim vectors.
type ollamaServer struct{ down bool }

func (o *ollamaServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if o.down {
		http.Error(w, `{"error":"llama runner process has terminated"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/api/tags":
		json.NewEncoder(w).Encode(ollama.ListResponse{Models: []ollama.ListModel{{Name: "nomic-embed-text:latest", Model: "nomic-embed-text:latest", Digest: "0a109f422b47"}}})
	case "/api/show":
		json.NewEncoder(w).Encode(map[string]any{"model_info": map[string]any{"nomic-bert.embedding_length": 8}, "capabilities": []string{"embedding"}})
	case "/api/embed":
		var req ollama.EmbedRequest
		json.NewDecoder(r.Body).Decode(&req)
		resp := ollama.EmbedResponse{Model: req.Model}
		for _, s := range req.Input {
			v := make([]float32, 8)
			for _, w := range strings.Fields(strings.ToLower(s)) {
				h := fnv.New32a()
				h.Write([]byte(w))
				v[h.Sum32()%8]++
			}
			v[0] += 0.01
			resp.Embeddings = append(resp.Embeddings, v)
		}
		json.NewEncoder(w).Encode(resp)
	default:
		http.NotFound(w, r)
	}
}

// TestOllamaEmbedderThroughTheStore: with Ollama configured, Update embeds
// with it (its own vector space), search uses it, and when the server goes
// away search falls back — saying so — and Update keeps the work queued.
func TestOllamaEmbedderThroughTheStore(t *testing.T) {
	fake := &ollamaServer{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	s, err := OpenWith(filepath.Join(t.TempDir(), "data"), OpenOptions{Embedder: EmbedderConfig{Kind: EmbedOllama, Ollama: embed.OllamaConfig{Host: srv.URL, MaxRetries: -1}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	claude := sampleClaude(t)
	ctx := context.Background()
	st, err := s.Update(ctx, claude, UpdateOptions{})
	if err != nil || st.EmbedErr != nil {
		t.Fatalf("update: %v / %v", err, st.EmbedErr)
	}
	if st.Embedder != "ollama:nomic-embed-text:8" || st.Embedded == 0 {
		t.Fatalf("embedder %q embedded %d", st.Embedder, st.Embedded)
	}
	if n := count(t, s, `SELECT count(*) FROM embeddings WHERE embedder = ?`, st.Embedder); n == 0 {
		t.Fatal("no Ollama vectors stored")
	}
	search := func() *SearchResponse {
		t.Helper()
		sr, err := s.OpenSearcher(ctx, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer sr.Close()
		resp, err := sr.Search(ctx, SearchQuery{Text: "dialyzer warnings"})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if resp := search(); resp.Embedder != st.Embedder || resp.Mode != ModeHybrid || len(resp.Results) == 0 {
		t.Fatalf("search with Ollama: embedder %q mode %s, %d results, notice %q", resp.Embedder, resp.Mode, len(resp.Results), resp.Notice)
	}

	fake.down = true
	resp := search()
	if resp.Mode != ModeText || !strings.Contains(resp.Notice, "text search only") || len(resp.Results) == 0 {
		t.Fatalf("search with Ollama down: mode %s notice %q, %d results", resp.Mode, resp.Notice, len(resp.Results))
	}
	// New lines arrive while Ollama is down: stored and searchable by text,
	// their vectors queued for later.
	appendFile(t, filepath.Join(claude, "projects", "-path-to-Demo", "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"),
		[]byte(`{"type":"user","uuid":"1f4b2a1e-0000-4000-8000-00000000abcd","sessionId":"fe5e1c67-53e7-4862-81ae-d0e013e3270b","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/path/to/Demo","message":{"role":"user","content":"the zeppelin websocket reconnects twice"}}`+"\n"))
	st, err = s.Update(ctx, claude, UpdateOptions{})
	if err != nil || st.EmbedErr == nil || st.Sync.EntriesAdded != 1 {
		t.Fatalf("update with Ollama down: err %v, embed error %v, added %d", err, st.EmbedErr, st.Sync.EntriesAdded)
	}
	if n := count(t, s, `SELECT count(*) FROM embed_queue`); n == 0 {
		t.Fatal("the new entry's vector was not left queued")
	}
	fake.down = false
	st, err = s.Update(ctx, claude, UpdateOptions{})
	if err != nil || st.EmbedErr != nil || st.Embedded == 0 {
		t.Fatalf("resumed embedding: %v / %v, embedded %d", err, st.EmbedErr, st.Embedded)
	}
}

// TestIncrementalVectorsAppendToTheCache: new vectors are appended to the
// memory-mapped cache in place (no rewrite of the whole file) and the cache
// stays exactly the stored vectors; a cache that disagrees is rewritten.
func TestIncrementalVectorsAppendToTheCache(t *testing.T) {
	s, dir, claude, st := updatedSample(t, UpdateOptions{})
	ctx := context.Background()
	cachePath := filepath.Join(dir, "vectors.bin")
	before, err := os.Stat(cachePath)
	if err != nil {
		t.Fatal(err)
	}
	appendFile(t, filepath.Join(claude, "projects", "-path-to-Demo", "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"),
		[]byte(`{"type":"user","uuid":"1f4b2a1e-0000-4000-8000-00000000abce","sessionId":"fe5e1c67-53e7-4862-81ae-d0e013e3270b","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/path/to/Demo","message":{"role":"user","content":"run the dialyzer again on the demo project"}}`+"\n"))
	st2, err := s.Update(ctx, claude, UpdateOptions{})
	if err != nil || st2.Embedded != 1 {
		t.Fatalf("incremental update: %v, embedded %d", err, st2.Embedded)
	}
	after, err := os.Stat(cachePath)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Fatal("the vector cache was rewritten for one new vector")
	}
	stored := count(t, s, `SELECT count(*) FROM embeddings WHERE embedder = ?`, st.Embedder)
	c, err := OpenVecCache(cachePath, st.Embedder)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != stored {
		t.Fatalf("cache holds %d vectors, store %d", c.Len(), stored)
	}
	c.Close()
	// A cache that lost rows (say, written before a crash) is rewritten.
	dims := c.Dims()
	if err := WriteVecCache(cachePath, st.Embedder, dims, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Derived().RefreshVecCache(ctx, st.Embedder, dims); err != nil {
		t.Fatal(err)
	}
	c, err = OpenVecCache(cachePath, st.Embedder)
	if err != nil || c.Len() != stored {
		t.Fatalf("after refresh: %v, %d of %d vectors", err, c.Len(), stored)
	}
	c.Close()
}

// TestIncrementalFromMemory: an incremental run's new entries reach the
// full-text index and the vectors from memory when the queues hold nothing
// else, and through the queues (with what else is there) when they do:
// either way everything ends up indexed, embedded and off the queues.
func TestIncrementalFromMemory(t *testing.T) {
	s, _, claude, st := updatedSample(t, UpdateOptions{})
	ctx := context.Background()
	if st.EmbedErr != nil {
		t.Fatalf("first update: embedding: %v", st.EmbedErr)
	}
	path := filepath.Join(claude, "projects", "-path-to-Demo", "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")
	grow := func(word string, n int) {
		var b []byte
		for i := range n {
			b = fmt.Appendf(b, `{"type":"user","uuid":"2f4b2a1e-0000-4000-8000-%012d","sessionId":"fe5e1c67-53e7-4862-81ae-d0e013e3270b","timestamp":"2026-03-01T10:00:%02d.000Z","cwd":"/path/to/Demo","message":{"role":"user","content":"please %s the flaky socket test %d"}}`+"\n", len(word)*1000+i, i, word, i)
		}
		appendFile(t, path, b)
	}
	check := func(word string, n, vectorsBefore int) {
		t.Helper()
		for _, q := range []string{"fts_queue", "embed_queue"} {
			if left := count(t, s, `SELECT count(*) FROM `+q); left != 0 {
				t.Fatalf("%s: %d documents left queued", q, left)
			}
		}
		if v := count(t, s, `SELECT count(*) FROM embeddings WHERE embedder = ?`, st.Embedder); v != vectorsBefore+n {
			t.Fatalf("%d vectors, want %d", v, vectorsBefore+n)
		}
		sr, err := s.OpenSearcher(ctx, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer sr.Close()
		resp, err := sr.Search(ctx, SearchQuery{Text: word, Mode: ModeText, Limit: 50})
		if err != nil || len(resp.Results) != n {
			t.Fatalf("search %q: %v, %d results, want %d", word, err, len(resp.Results), n)
		}
	}
	vectors := func() int { return count(t, s, `SELECT count(*) FROM embeddings WHERE embedder = ?`, st.Embedder) }

	// Nothing else queued: the new entries go in from memory.
	v := vectors()
	grow("quarantine", 5)
	if _, err := s.Update(ctx, claude, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	check("quarantine", 5, v)

	// Something else waits in both queues (an older entry, as another
	// process or an interrupted run leaves it): it is indexed too.
	var old string
	if err := s.r.QueryRowContext(t.Context(), `SELECT printf('e:%013d', min(id)) FROM entries WHERE `+embeddableWhere).Scan(&old); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(t.Context(), `DELETE FROM embeddings WHERE doc = ?`, old); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"fts_queue", "embed_queue"} {
		if _, err := s.w.ExecContext(t.Context(), `INSERT INTO `+q+`(doc) VALUES (?)`, old); err != nil {
			t.Fatal(err)
		}
	}
	v = vectors()
	grow("bisect", 3)
	if _, err := s.Update(ctx, claude, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	check("bisect", 3, v+1)
}

// TestTimeFiltersAreExact: the full-text index knows times by the hour, but
// search results honour Since to the second.
func TestTimeFiltersAreExact(t *testing.T) {
	s, _, _, _ := updatedSample(t, UpdateOptions{NoEmbed: true})
	ctx := context.Background()
	sr, err := s.OpenSearcher(ctx, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	all, err := sr.Search(ctx, SearchQuery{Text: "dialyzer", Mode: ModeText, Limit: 50})
	if err != nil || len(all.Results) < 2 {
		t.Fatalf("%v, %d results", err, len(all.Results))
	}
	hit := all.Results[len(all.Results)/2]
	since := hit.Timestamp.Add(time.Second)
	later, err := sr.Search(ctx, SearchQuery{Text: "dialyzer", Mode: ModeText, Limit: 50, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range later.Results {
		if r.UUID == hit.UUID || r.Timestamp.Before(since) {
			t.Fatalf("result at %v passed Since %v", r.Timestamp, since)
		}
	}
	at, err := sr.Search(ctx, SearchQuery{Text: "dialyzer", Mode: ModeText, Limit: 50, Since: hit.Timestamp})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range at.Results {
		found = found || r.UUID == hit.UUID
	}
	if !found {
		t.Fatalf("the hit at exactly Since (%v) was dropped", hit.Timestamp)
	}
}

// TestHandoffDocsMatchQueue: the documents a sync hands its own drainer are
// exactly what the drainer would have read back from the queue (same text,
// title, project, role, block, flags and time), and all of them.
func TestHandoffDocsMatchQueue(t *testing.T) {
	s, _ := openStore(t)
	claude := sampleClaude(t)
	h := newHandoff(1000)
	st := mustSync(t, s, claude, SyncOptions{BatchEntries: 300, handoff: h})
	var handed []DocRow
	for len(h.ch) > 0 {
		handed = append(handed, <-h.ch...)
	}
	h.label(handed)
	if st.Transactions < 2 {
		t.Fatalf("want several transactions, got %d", st.Transactions)
	}
	queued, err := s.Derived().QueuedDocs(t.Context(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]DocRow{}
	for _, d := range queued {
		if d.Kind == DocMessage {
			want[d.ID] = d
		}
	}
	if len(handed) != len(want) || len(handed) == 0 {
		t.Fatalf("handed %d documents, %d message documents queued", len(handed), len(want))
	}
	titled := 0
	for _, d := range handed {
		w, ok := want[d.ID]
		if !ok {
			t.Fatalf("%s handed but not queued", d.ID)
		}
		if !d.Time.Equal(w.Time) {
			t.Fatalf("%s time %v, queue %v", d.ID, d.Time, w.Time)
		}
		d.Time, w.Time = time.Time{}, time.Time{}
		// embed (handed-off documents only) says the entry waits for a vector.
		if inQueue := count(t, s, `SELECT count(*) FROM embed_queue WHERE doc = ?`, d.key()) == 1; d.embed != inQueue {
			t.Fatalf("%s: embed %v, in the embedding queue %v", d.ID, d.embed, inQueue)
		}
		d.embed = false
		if d != w {
			t.Fatalf("%s differs:\nhanded %+v\nqueued %+v", d.ID, d, w)
		}
		if d.Title != "" {
			titled++
		}
	}
	if titled == 0 {
		t.Fatal("no handed document carries its session's title")
	}
}

// TestModelCache: the built-in model is cached in model.bin and loaded
// from it by id; a cache of another model, or a damaged one, is ignored
// (the store's copy wins) and rewritten.
func TestModelCache(t *testing.T) {
	s, dir, _, _ := updatedSample(t, UpdateOptions{})
	id, _, _ := s.Setting(t.Context(), builtinIDKey)
	cache := filepath.Join(dir, "model.bin")
	b, err := os.ReadFile(cache)
	if err != nil || !strings.HasPrefix(string(b), modelCacheMagic+string(id)+"\n") {
		t.Fatalf("model.bin after training: %v, %.60q", err, b)
	}
	if fi, _ := os.Stat(cache); fi.Mode().Perm() != 0o600 {
		t.Fatalf("model.bin mode %v", fi.Mode())
	}
	load := func() (*embed.Model, error) {
		t.Helper()
		s2, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		m, ok, err := s2.Derived().LoadBuiltinEmbedder(t.Context())
		if err == nil && !ok {
			t.Fatal("no model")
		}
		return m, err
	}
	// With the store's copy unreadable, only the cache can give the model.
	good, _, _ := s.Setting(t.Context(), builtinModelKey)
	if err := s.SetSetting(t.Context(), builtinModelKey, []byte("garbage")); err != nil {
		t.Fatal(err)
	}
	if m, err := load(); err != nil || m.ID() != string(id) {
		t.Fatalf("from the cache: %v, %v", m, err)
	}
	// A damaged cache is not trusted: the store's (garbage) copy is read.
	damaged := slices.Clone(b)
	damaged[len(damaged)-10] ^= 0xff
	os.WriteFile(cache, damaged, 0o600)
	if _, err := load(); !errors.Is(err, embed.ErrCorruptModel) {
		t.Fatalf("a damaged cache must not be used: %v", err)
	}
	// Another model's cache is ignored; the store's copy is loaded and
	// the cache rewritten.
	if err := s.SetSetting(t.Context(), builtinModelKey, good); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(cache, []byte(modelCacheMagic+"cairn-lsa:v1:192:000000000000\n"+string(good)), 0o600)
	if m, err := load(); err != nil || m.ID() != string(id) {
		t.Fatalf("after a foreign cache: %v, %v", m, err)
	}
	if b2, _ := os.ReadFile(cache); !slices.Equal(b2, b) {
		t.Fatal("the cache was not rewritten")
	}
}

// TestTrainingSampleEmbeddedFirst: a cold update embeds its training sample
// from memory; the vectors are the model's for each text, and nothing is
// left queued or embedded twice.
func TestTrainingSampleEmbeddedFirst(t *testing.T) {
	s, _, _, st := updatedSample(t, UpdateOptions{})
	ctx := context.Background()
	if st.EmbedErr != nil {
		t.Fatal(st.EmbedErr)
	}
	sample, err := s.trainingSample(ctx, 50000)
	if err != nil || len(sample) < 20 {
		t.Fatalf("sample %d, %v", len(sample), err)
	}
	if st.Embedded < len(sample) {
		t.Fatalf("embedded %d, sample %d", st.Embedded, len(sample))
	}
	if n := count(t, s, `SELECT count(*) FROM embed_queue`); n != 0 {
		t.Fatalf("%d left queued", n)
	}
	m, ok, err := s.Derived().LoadBuiltinEmbedder(ctx)
	if err != nil || !ok {
		t.Fatal(err)
	}
	stored, err := s.Derived().Embeddings(ctx, m.ID())
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string][]float32{}
	for _, v := range stored {
		if _, dup := byID[v.ID]; dup {
			t.Fatalf("%s stored twice", v.ID)
		}
		byID[v.ID] = v.Vec
	}
	checked := 0
	for _, d := range sample[:min(len(sample), 50)] {
		want, ok := m.EmbedText(embed.Document, d.Text)
		got, stored := byID[d.ID]
		if !ok || embed.IsZero(want) {
			continue
		}
		if !stored {
			t.Fatalf("%s has no vector", d.ID)
		}
		var maxAbs float64
		for _, x := range want {
			maxAbs = max(maxAbs, math.Abs(float64(x)))
		}
		for i := range want {
			// Stored as 8-bit values and a scale (encodeStoredVector):
			// within half a step of maxAbs/127.
			if diff := math.Abs(float64(want[i] - got[i])); diff > maxAbs/254*1.0001+1e-7 {
				t.Fatalf("%s: stored vector differs from the model's at %d", d.ID, i)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no vector checked")
	}
}
