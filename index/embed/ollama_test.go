package embed

import (
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/ollama"
)

// fakeOllama speaks Ollama's wire format for /api/embed, /api/tags and
// /api/show, with switches for the failures the client must survive.
type fakeOllama struct {
	t         *testing.T
	mu        sync.Mutex
	dims      int      // native vector size
	models    []string // pulled models
	requests  []ollama.EmbedRequest
	rawBodies []map[string]any
	fail5xx   int           // answer 500 to this many embed calls first
	status    int           // answer every embed call with this status
	sleep     time.Duration // delay every embed call
	wrongDims bool          // return dims+1 for the second input
	dropOne   bool          // return one vector too few
	tagCalls  int
}

func newFakeOllama(t *testing.T) (*fakeOllama, *httptest.Server) {
	f := &fakeOllama{t: t, dims: 8, models: []string{"nomic-embed-text:latest"}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeOllama) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	writeJSON := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.URL.Path {
	case "/api/tags":
		f.tagCalls++
		var resp ollama.ListResponse
		for _, m := range f.models {
			resp.Models = append(resp.Models, ollama.ListModel{Name: m, Model: m, Digest: "0a109f422b47e3a30ba2b10eca18548e944e8a23073ee3f3e947efcf3c45e59f"})
		}
		writeJSON(200, resp)
	case "/api/show":
		var req struct{ Model string }
		json.NewDecoder(r.Body).Decode(&req)
		if !f.has(req.Model) {
			writeJSON(404, map[string]string{"error": "model '" + req.Model + "' not found"})
			return
		}
		caps := []string{"embedding"}
		if strings.HasPrefix(req.Model, "llama") {
			caps = []string{"completion", "tools"}
		}
		writeJSON(200, map[string]any{
			"modelfile":    "FROM " + req.Model,
			"details":      map[string]any{"family": "nomic-bert", "parameter_size": "137M"},
			"model_info":   map[string]any{"general.architecture": "nomic-bert", "nomic-bert.embedding_length": f.dims},
			"capabilities": caps,
		})
	case "/api/embed":
		var raw map[string]any
		body := json.NewDecoder(r.Body)
		if err := body.Decode(&raw); err != nil {
			writeJSON(400, map[string]string{"error": err.Error()})
			return
		}
		b, _ := json.Marshal(raw)
		var req ollama.EmbedRequest
		json.Unmarshal(b, &req)
		f.requests = append(f.requests, req)
		f.rawBodies = append(f.rawBodies, raw)
		if f.sleep > 0 {
			f.mu.Unlock()
			select {
			case <-time.After(f.sleep):
			case <-r.Context().Done():
			}
			f.mu.Lock()
		}
		if f.fail5xx > 0 {
			f.fail5xx--
			writeJSON(500, map[string]string{"error": "llama runner process has terminated"})
			return
		}
		if f.status != 0 {
			writeJSON(f.status, map[string]string{"error": "boom"})
			return
		}
		if !f.has(req.Model) {
			writeJSON(404, map[string]string{"error": "model \"" + req.Model + "\" not found, try pulling it first"})
			return
		}
		inputs := req.Input
		resp := ollama.EmbedResponse{Model: req.Model, TotalDuration: 12 * time.Millisecond, PromptEvalCount: 3 * len(inputs)}
		for i, in := range inputs {
			d := f.dims
			if req.Dimensions > 0 && req.Dimensions < d {
				d = req.Dimensions
			}
			if f.wrongDims && i == 1 {
				d++
			}
			resp.Embeddings = append(resp.Embeddings, fakeVector(in, d))
		}
		if f.dropOne {
			resp.Embeddings = resp.Embeddings[1:]
		}
		writeJSON(200, resp)
	default:
		writeJSON(404, map[string]string{"error": "404 page not found"})
	}
}

func (f *fakeOllama) has(model string) bool {
	for _, m := range f.models {
		if canonicalModel(m) == canonicalModel(model) {
			return true
		}
	}
	return false
}

// fakeVector is a deterministic unit vector derived from the text.
func fakeVector(s string, d int) []float32 {
	v := make([]float32, d)
	for i := range v {
		h := fnv.New32a()
		h.Write([]byte{byte(i)})
		h.Write([]byte(s))
		v[i] = float32(h.Sum32()%1000) - 500
	}
	Normalize(v)
	return v
}

func (f *fakeOllama) embedCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

func newTestOllama(t *testing.T, srv *httptest.Server, cfg OllamaConfig) *Ollama {
	t.Helper()
	cfg.Host = srv.URL
	if cfg.RetryBackoff == 0 {
		cfg.RetryBackoff = time.Millisecond
	}
	o, err := NewOllama(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "text " + strings.Repeat("x", i)
	}
	return out
}

func TestOllamaEmbedSuccessAndPrefixes(t *testing.T) {
	f, srv := newFakeOllama(t)
	o := newTestOllama(t, srv, OllamaConfig{KeepAlive: 5 * time.Minute, NumCtx: 2048})
	if err := o.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	if o.Dims() != 8 || o.ID() != "ollama:nomic-embed-text:8" {
		t.Fatalf("after Ping: dims %d, id %s", o.Dims(), o.ID())
	}
	if !strings.HasPrefix(o.Digest(), "0a109f") {
		t.Errorf("digest %q", o.Digest())
	}
	vs, err := o.Embed(context.Background(), Document, []string{"hello", "world"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || len(vs[0]) != 8 {
		t.Fatalf("got %d vectors of %d", len(vs), len(vs[0]))
	}
	if want := fakeVector("search_document: hello", 8); !equalish(vs[0], want) {
		t.Errorf("document prefix not applied: %v vs %v", vs[0], want)
	}
	if _, err := o.Embed(context.Background(), Query, []string{"hello"}); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	q := f.requests[len(f.requests)-1]
	if in := q.Input; in[0] != "search_query: hello" {
		t.Errorf("query prefix: %q", in[0])
	}
	raw := f.rawBodies[0]
	if raw["model"] != "nomic-embed-text" || raw["truncate"] != true {
		t.Errorf("request body %v", raw)
	}
	if raw["keep_alive"] == nil || raw["options"].(map[string]any)["num_ctx"] != float64(2048) {
		t.Errorf("keep_alive/options missing: %v", raw)
	}
}

func equalish(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-6 {
			return false
		}
	}
	return true
}

func TestOllamaBatching(t *testing.T) {
	f, srv := newFakeOllama(t)
	o := newTestOllama(t, srv, OllamaConfig{Dimensions: 4, Prefixes: &Prefixes{}})
	in := texts(70)
	vs, err := o.Embed(context.Background(), Document, in)
	if err != nil {
		t.Fatal(err)
	}
	if f.embedCalls() != 3 {
		t.Fatalf("70 inputs took %d requests, want 3", f.embedCalls())
	}
	sizes := []int{}
	for _, r := range f.requests {
		sizes = append(sizes, len(r.Input))
		if r.Dimensions != 4 {
			t.Errorf("dimensions not sent: %d", r.Dimensions)
		}
	}
	if sizes[0] != 32 || sizes[1] != 32 || sizes[2] != 6 {
		t.Errorf("batch sizes %v", sizes)
	}
	for i, v := range vs {
		if !equalish(v, fakeVector(in[i], 4)) {
			t.Fatalf("vector %d out of order or altered", i)
		}
	}
	if o.ID() != "ollama:nomic-embed-text:4" {
		t.Errorf("id %s", o.ID())
	}
}

func TestOllamaRetriesServerErrors(t *testing.T) {
	f, srv := newFakeOllama(t)
	f.fail5xx = 2
	o := newTestOllama(t, srv, OllamaConfig{})
	if _, err := o.Embed(context.Background(), Document, []string{"a"}); err != nil {
		t.Fatalf("500 then success should succeed: %v", err)
	}
	if f.embedCalls() != 3 {
		t.Fatalf("%d calls, want 3 (two 500s, one success)", f.embedCalls())
	}
	// Persistent 503: gives up after MaxRetries.
	f2, srv2 := newFakeOllama(t)
	f2.status = 503
	o2 := newTestOllama(t, srv2, OllamaConfig{MaxRetries: 2})
	_, err := o2.Embed(context.Background(), Document, []string{"a"})
	if err == nil || f2.embedCalls() != 3 || !strings.Contains(err.Error(), "HTTP 503") {
		t.Fatalf("persistent 503: %d calls, err %v", f2.embedCalls(), err)
	}
	// 429 is retried too.
	f3, srv3 := newFakeOllama(t)
	f3.status = 429
	o3 := newTestOllama(t, srv3, OllamaConfig{MaxRetries: 1})
	if _, err := o3.Embed(context.Background(), Document, []string{"a"}); err == nil || f3.embedCalls() != 2 {
		t.Fatalf("429: %d calls, err %v", f3.embedCalls(), err)
	}
}

func TestOllamaModelNotFound(t *testing.T) {
	f, srv := newFakeOllama(t)
	f.models = nil
	o := newTestOllama(t, srv, OllamaConfig{})
	_, err := o.Embed(context.Background(), Document, []string{"a"})
	if !errors.Is(err, ErrModelNotPulled) {
		t.Fatalf("want ErrModelNotPulled, got %v", err)
	}
	if f.embedCalls() != 1 {
		t.Errorf("404 was retried: %d calls", f.embedCalls())
	}
	want := "model nomic-embed-text is not pulled: run `ollama pull nomic-embed-text`"
	if err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	var se *ollama.StatusError
	if !errors.As(err, &se) || se.StatusCode != 404 {
		t.Errorf("cause not kept: %v", err)
	}
	if err := o.Ping(context.Background()); !errors.Is(err, ErrModelNotPulled) || err.Error() != want {
		t.Errorf("Ping: %v", err)
	}
	// Other 4xx: not retried, ErrOllamaRejected.
	f2, srv2 := newFakeOllama(t)
	f2.status = 400
	o2 := newTestOllama(t, srv2, OllamaConfig{})
	if _, err := o2.Embed(context.Background(), Document, []string{"a"}); !errors.Is(err, ErrOllamaRejected) || f2.embedCalls() != 1 {
		t.Errorf("400: %d calls, %v", f2.embedCalls(), err)
	}
}

func TestOllamaTimeout(t *testing.T) {
	f, srv := newFakeOllama(t)
	// The server would take 5 s a call (it stops when the client gives
	// up): two 50 ms attempts finishing well under 2 s prove the timeout.
	f.sleep = 5 * time.Second
	o := newTestOllama(t, srv, OllamaConfig{Timeout: 50 * time.Millisecond, MaxRetries: 1})
	start := time.Now()
	_, err := o.Embed(context.Background(), Document, []string{"a"})
	if !errors.Is(err, ErrOllamaTimeout) {
		t.Fatalf("want ErrOllamaTimeout, got %v", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("timeout not enforced: took %v", el)
	}
	if f.embedCalls() != 2 || !strings.Contains(err.Error(), "50ms") {
		t.Errorf("%d calls, message %q", f.embedCalls(), err)
	}
	// The caller's own deadline stops retries immediately.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	o2 := newTestOllama(t, srv, OllamaConfig{Timeout: time.Second})
	if _, err := o2.Embed(ctx, Document, []string{"a"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("caller deadline: %v", err)
	}
}

func TestOllamaBadResponses(t *testing.T) {
	f, srv := newFakeOllama(t)
	f.wrongDims = true
	o := newTestOllama(t, srv, OllamaConfig{})
	if _, err := o.Embed(context.Background(), Document, []string{"a", "b", "c"}); !errors.Is(err, ErrBadResponse) {
		t.Errorf("inconsistent dims: %v", err)
	} else {
		t.Log(err)
	}

	f2, srv2 := newFakeOllama(t)
	f2.dropOne = true
	o2 := newTestOllama(t, srv2, OllamaConfig{})
	if _, err := o2.Embed(context.Background(), Document, []string{"a", "b"}); !errors.Is(err, ErrBadResponse) || !strings.Contains(err.Error(), "1 vectors for 2 inputs") {
		t.Errorf("wrong count: %v", err)
	}

	// Asked for 16 dims, model gives its native 8.
	_, srv3 := newFakeOllama(t)
	o3 := newTestOllama(t, srv3, OllamaConfig{Dimensions: 16})
	if _, err := o3.Embed(context.Background(), Document, []string{"a"}); !errors.Is(err, ErrBadResponse) {
		t.Errorf("wrong dims: %v", err)
	} else {
		t.Log(err)
	}

	// Dims change between calls (model replaced): refused.
	f4, srv4 := newFakeOllama(t)
	o4 := newTestOllama(t, srv4, OllamaConfig{})
	if _, err := o4.Embed(context.Background(), Document, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	f4.mu.Lock()
	f4.dims = 12
	f4.mu.Unlock()
	if _, err := o4.Embed(context.Background(), Document, []string{"a"}); !errors.Is(err, ErrBadResponse) {
		t.Errorf("dims changed: %v", err)
	}
}

func TestOllamaConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	o, err := NewOllama(OllamaConfig{Host: url, MaxRetries: 2, RetryBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() error{
		// Map order is random; both must give the same kind of error.
		"Ping":  func() error { return o.Ping(context.Background()) },
		"Embed": func() error { _, err := o.Embed(context.Background(), Query, []string{"a"}); return err },
	} {
		err := call()
		if !errors.Is(err, ErrOllamaUnreachable) {
			t.Fatalf("%s: want ErrOllamaUnreachable, got %v", name, err)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "Ollama is not reachable at "+url+" (connection refused") ||
			!strings.Contains(msg, "start it with `ollama serve`, or use the built-in embedder") {
			t.Errorf("%s message: %q", name, msg)
		}
		t.Logf("%s: %s", name, msg)
	}
}

func TestOllamaPingNotAnEmbeddingModel(t *testing.T) {
	f, srv := newFakeOllama(t)
	f.models = append(f.models, "llama3.2:latest")
	o := newTestOllama(t, srv, OllamaConfig{Model: "llama3.2"})
	err := o.Ping(context.Background())
	if !errors.Is(err, ErrOllamaRejected) || !strings.Contains(err.Error(), "llama3.2 cannot produce embeddings (capabilities: completion, tools)") {
		t.Fatalf("Ping on a chat model: %v", err)
	}
	if p := defaultPrefixes("llama3.2"); p != (Prefixes{}) {
		t.Errorf("unknown model got prefixes %+v", p)
	}
}

func TestOllamaHost(t *testing.T) {
	t.Setenv("OLLAMA_HOST", "")
	o, err := NewOllama(OllamaConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Host() != "http://127.0.0.1:11434" {
		t.Errorf("default host %s", o.Host())
	}
	t.Setenv("OLLAMA_HOST", "10.0.0.5:9999")
	o, _ = NewOllama(OllamaConfig{})
	if o.Host() != "http://10.0.0.5:9999" {
		t.Errorf("OLLAMA_HOST host %s", o.Host())
	}
	for in, want := range map[string]string{
		"gpu-box":                  "http://gpu-box:11434",
		"gpu-box:8080":             "http://gpu-box:8080",
		"https://ollama.example":   "https://ollama.example:443",
		"http://[::1]:11434":       "http://[::1]:11434",
		"http://host:1234/prefix/": "http://host:1234/prefix/",
	} {
		o, err := NewOllama(OllamaConfig{Host: in})
		if err != nil || o.Host() != want {
			t.Errorf("NewOllama(Host: %q): %v, %v; want %s", in, o, err, want)
		}
	}
	if _, err := NewOllama(OllamaConfig{Host: "ftp://x"}); err == nil {
		t.Error("ftp scheme accepted")
	}
}

func TestOllamaClipsLongInputs(t *testing.T) {
	f, srv := newFakeOllama(t)
	o := newTestOllama(t, srv, OllamaConfig{MaxInputChars: 10, Prefixes: &Prefixes{}})
	if _, err := o.Embed(context.Background(), Document, []string{strings.Repeat("é", 20)}); err != nil {
		t.Fatal(err)
	}
	got := f.requests[0].Input[0]
	if got != strings.Repeat("é", 5) {
		t.Errorf("clipped to %q", got)
	}
}

// Ollama must satisfy Embedder, as must Model.
var _ Embedder = (*Ollama)(nil)
var _ Embedder = (*Model)(nil)

func TestOllamaNotAnOllamaServer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	o := newTestOllama(t, srv, OllamaConfig{})
	err := o.Ping(context.Background())
	if !errors.Is(err, ErrOllamaUnreachable) || !strings.Contains(err.Error(), "does not look like Ollama") {
		t.Fatalf("Ping against a non-Ollama server: %v", err)
	}
}

func TestOllamaPingDimensions(t *testing.T) {
	ctx := context.Background()
	f, srv := newFakeOllama(t)

	// Ping learns the native size and the digest.
	o := newTestOllama(t, srv, OllamaConfig{})
	if err := o.Ping(ctx); err != nil || o.Dims() != 8 || o.Digest() == "" {
		t.Fatalf("Ping: %v, dims %d, digest %q", err, o.Dims(), o.Digest())
	}
	// The model is re-pulled with another size: the next Ping refuses.
	f.mu.Lock()
	f.dims = 12
	f.mu.Unlock()
	if err := o.Ping(ctx); !errors.Is(err, ErrBadResponse) || !strings.Contains(err.Error(), "now produces 12 dimensions, earlier 8") {
		t.Errorf("Ping after a re-pull: %v", err)
	}

	// More dimensions than the model has are refused; fewer are kept.
	o2 := newTestOllama(t, srv, OllamaConfig{Dimensions: 16})
	if err := o2.Ping(ctx); !errors.Is(err, ErrOllamaRejected) || !strings.Contains(err.Error(), "16 dimensions requested but model nomic-embed-text produces 12") {
		t.Errorf("Ping asking for too many dimensions: %v", err)
	}
	o3 := newTestOllama(t, srv, OllamaConfig{Dimensions: 4})
	if err := o3.Ping(ctx); err != nil || o3.Dims() != 4 {
		t.Errorf("Ping asking for fewer dimensions: %v, dims %d", err, o3.Dims())
	}
}

func TestOllamaPingSteps(t *testing.T) {
	o := &Ollama{name: "m"}
	for _, caps := range [][]string{nil, {"embedding"}, {"completion", "embedding"}} {
		if err := o.checkCanEmbed(caps); err != nil {
			t.Errorf("checkCanEmbed(%q): %v", caps, err)
		}
	}
	if err := o.checkCanEmbed([]string{"completion"}); !errors.Is(err, ErrOllamaRejected) {
		t.Errorf("checkCanEmbed(completion): %v", err)
	}
	for _, c := range []struct {
		info map[string]any
		want int
	}{
		{nil, 0},
		{map[string]any{"general.architecture": "bert"}, 0},
		{map[string]any{"bert.embedding_length": float64(384)}, 384},
		{map[string]any{"bert.embedding_length": "384"}, 0},
		{map[string]any{"bert.embedding_length": float64(0)}, 0},
	} {
		if got := nativeDims(c.info); got != c.want {
			t.Errorf("nativeDims(%v) = %d, want %d", c.info, got, c.want)
		}
	}
	// An unknown native size changes nothing.
	o.dims = 8
	if err := o.learnDims(0); err != nil || o.dims != 8 {
		t.Errorf("learnDims(0): %v, dims %d", err, o.dims)
	}
}
