package memories

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/testutil/teststore"
	"github.com/cairn-dev/cairn/ollama"
)

// fakeChat speaks Ollama's /api/chat wire format (non-streaming), with
// switches for the failures extraction must survive.
type fakeChat struct {
	mu       sync.Mutex
	requests []ollama.ChatRequest
	answer   func(req ollama.ChatRequest) string // the assistant message content
	status   int                                 // answer with this HTTP status and an error body
	sleep    time.Duration
}

func (f *fakeChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/chat" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	var req ollama.ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"error":%q}`, err.Error())
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	status, sleep, answer := f.status, f.sleep, f.answer
	f.mu.Unlock()
	if sleep > 0 {
		select {
		case <-time.After(sleep):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if status != 0 {
		w.WriteHeader(status)
		if status == 404 {
			fmt.Fprintf(w, `{"error":"model '%s' not found"}`, req.Model)
		} else {
			fmt.Fprint(w, `{"error":"llama runner process has terminated"}`)
		}
		return
	}
	content := answer(req)
	json.NewEncoder(w).Encode(map[string]any{
		"model": req.Model, "created_at": time.Now().UTC().Format(time.RFC3339Nano),
		"message": map[string]any{"role": "assistant", "content": content},
		"done":    true, "done_reason": "stop", "total_duration": 1000, "eval_count": 10,
	})
}

func ollamaService(t *testing.T, f *fakeChat) (*Service, *transcript) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	cfg := config.Default()
	cfg.Memories.Extractor = "ollama"
	cfg.Ollama.ChatModel = "qwen3:4b"
	cfg.Ollama.Host = srv.URL
	cfg.Ollama.Timeout = config.Duration{Duration: 2 * time.Second}
	s := New(teststore.Open(t), cfg)
	tr := newTranscript("51111111-2222-4333-8444-555555555555", "/work/proj")
	tr.user("Always use pnpm in this repo, never npm.")
	tr.assistant("The root cause was `nginx` buffering the SSE stream; fixed by `proxy_buffering off`.")
	tr.write(t, s, t.TempDir())
	return s, tr
}

func TestOllamaExtract(t *testing.T) {
	ctx := context.Background()
	f := &fakeChat{}
	s, tr := ollamaService(t, f)
	old := approve(t, s, NewMemory{Project: "/work/proj", Type: Preference, Content: "Use npm in this repo for installs"})
	f.answer = func(req ollama.ChatRequest) string {
		return fmt.Sprintf(`{"memories":[
			{"type":"preference","content":"Use pnpm in this repo, never npm","importance":4,"sources":["#1"],"supersedes":[%q],"tags":["tooling"]},
			{"type":"bugfix","content":"SSE stalls were nginx buffering; fixed with proxy_buffering off","sources":["2"]},
			{"type":"fact","content":"No source given","sources":[]},
			{"type":"opinion","content":"bad type","sources":["#1"]},
			{"type":"gotcha","content":"Unknown ref","sources":["#99"]}]}`, old)
	}
	res, err := s.Curator.Extract(ctx, ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Extractor != "ollama" || res.Notice != "" || len(res.Proposed) != 2 {
		t.Fatalf("result: %+v", res)
	}
	pref, fix := res.Proposed[0].Memory, res.Proposed[1].Memory
	if pref.Origin != OriginOllama || pref.Importance != 4 || pref.SourceSession != tr.sid || len(pref.SourceUUIDs) != 1 ||
		!strings.Contains(pref.Content, "pnpm") {
		t.Fatalf("preference: %+v", pref)
	}
	found := false
	for _, l := range pref.Links {
		found = found || (l.Kind == Supersedes && l.Target == old)
	}
	if !found {
		t.Fatalf("supersedes link missing: %+v", pref.Links)
	}
	if fix.Type != Bugfix || len(fix.SourceUUIDs) != 1 {
		t.Fatalf("bugfix: %+v", fix)
	}
	// The request: the model, no streaming, the JSON schema, the existing
	// similar memory and the transcript with entry refs.
	req := f.requests[0]
	if req.Model != "qwen3:4b" || req.Stream == nil || *req.Stream || !strings.Contains(string(req.Format), `"memories"`) {
		t.Fatalf("request: %+v", req)
	}
	user := req.Messages[len(req.Messages)-1].Content
	if !strings.Contains(user, old) || !strings.Contains(user, "#1 user: Always use pnpm") || !strings.Contains(user, "#2 assistant:") {
		t.Fatalf("prompt:\n%s", user)
	}
}

func TestOllamaFallsBack(t *testing.T) {
	cases := map[string]func(f *fakeChat){
		"http 500":      func(f *fakeChat) { f.status = 500 },
		"model missing": func(f *fakeChat) { f.status = 404 },
		"timeout":       func(f *fakeChat) { f.sleep = 5 * time.Second },
		"garbage": func(f *fakeChat) {
			f.answer = func(ollama.ChatRequest) string { return "Sure! Here are memories: ..." }
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			f := &fakeChat{}
			setup(f)
			s, _ := ollamaService(t, f)
			start := time.Now()
			res, err := s.Curator.Extract(context.Background(), ExtractOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if time.Since(start) > 4*time.Second {
				t.Fatal("timeout not applied")
			}
			if res.Extractor != "builtin" || !strings.Contains(res.Notice, "built-in extractor") || len(res.Proposed) == 0 {
				t.Fatalf("no fallback: %+v", res)
			}
			if name == "model missing" && !strings.Contains(res.Notice, "ollama pull qwen3:4b") {
				t.Fatalf("notice: %s", res.Notice)
			}
		})
	}
}

func TestOllamaUnreachable(t *testing.T) {
	f := &fakeChat{}
	s, _ := ollamaService(t, f)
	s.cfg.Ollama.Host = "127.0.0.1:1" // nothing listens there
	_, err := s.ollamaExtract(context.Background(), "x", "/p", []index.MemEntry{{UUID: "u", Role: "user", Block: "text", Text: "hello there"}})
	if !errors.Is(err, ErrOllamaUnavailable) || !strings.Contains(err.Error(), "not reachable") {
		t.Fatalf("unreachable: %v", err)
	}
}

func TestChunkEntries(t *testing.T) {
	var es []index.MemEntry
	for i := range 40 {
		es = append(es, index.MemEntry{UUID: fmt.Sprintf("u%d", i), Role: "assistant", Block: "text", Text: strings.Repeat("word ", 80)})
	}
	cs := chunkEntries(es)
	if len(cs) < 2 {
		t.Fatalf("%d chunks", len(cs))
	}
	for i, c := range cs {
		if len(c.text) > chunkChars {
			t.Fatalf("chunk %d has %d chars", i, len(c.text))
		}
		if i > 0 {
			// Overlap: the chunk starts with entries the previous one ended with.
			shared := 0
			for ref := range c.refs {
				if _, ok := cs[i-1].refs[ref]; ok {
					shared++
				}
			}
			if shared == 0 {
				t.Fatalf("chunk %d does not overlap the previous one", i)
			}
		}
	}
	last := cs[len(cs)-1]
	if _, ok := last.refs["#40"]; !ok {
		t.Fatal("last entry missing")
	}
}

func TestOllamaSummary(t *testing.T) {
	ctx := context.Background()
	f := &fakeChat{answer: func(req ollama.ChatRequest) string {
		if !strings.Contains(string(req.Format), "next_steps") {
			return `{"memories":[]}`
		}
		return `{"request":["Switch installs to pnpm"],"investigated":[],"learned":["SSE stalled because nginx buffered it"],` +
			`"completed":["Set proxy_buffering off"],"next_steps":["Add a test for streaming"]}`
	}}
	s, tr := ollamaService(t, f)
	sum, err := s.StoreSummary(ctx, tr.sid)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Source != "ollama" || sum.Sections["Learned"][0] != "SSE stalled because nginx buffered it" || len(sum.Sections["Notes"]) != 1 ||
		!strings.Contains(sum.Markdown, "## Next steps") {
		t.Fatalf("summary: %+v", sum)
	}
	f.status = 500
	s.st.Mem().SaveSummary(ctx, &index.SummaryRow{Session: tr.sid, Source: "heuristic", Markdown: "x", Created: time.Now()})
	if sum, err = s.StoreSummary(ctx, tr.sid); err != nil || sum.Source != "heuristic" {
		t.Fatalf("fallback: %v %+v", err, sum)
	}
}

// TestOllamaSkippedUnderHookDeadline: a hook's short deadline never waits
// for a model.
func TestOllamaSkippedUnderHookDeadline(t *testing.T) {
	f := &fakeChat{sleep: 5 * time.Second}
	s, tr := ollamaService(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := s.Curator.ExtractSession(ctx, tr.sid, ExtractOptions{})
	if err != nil || res.Extractor != "builtin" || !strings.Contains(res.Notice, "deadline") || time.Since(start) > time.Second {
		t.Fatalf("%v %+v after %v", err, res, time.Since(start))
	}
	if len(f.requests) != 0 {
		t.Fatal("the model was called")
	}
}
