package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"
)

// server answers with h and returns a client for it.
func server(t *testing.T, h http.HandlerFunc) (*Client, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return New(u, srv.Client()), srv
}

func TestClientEndpoints(t *testing.T) {
	var bodies = map[string]map[string]any{}
	c, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			if ct := r.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("%s: Content-Type %q", r.URL.Path, ct)
			}
			var m map[string]any
			if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
				t.Errorf("%s: body: %v", r.URL.Path, err)
			}
			bodies[r.URL.Path] = m
		}
		switch r.Method + " " + r.URL.Path {
		case "GET /api/version":
			fmt.Fprint(w, `{"version":"0.12.3"}`)
		case "GET /api/tags":
			fmt.Fprint(w, `{"models":[{"name":"nomic-embed-text:latest","model":"nomic-embed-text:latest","modified_at":"2025-05-01T10:00:00Z","size":274302450,"digest":"0a109f42"},{"name":"qwen3:4b","model":"qwen3:4b","digest":"ffee"}]}`)
		case "POST /api/show":
			fmt.Fprint(w, `{"modelfile":"FROM x","capabilities":["embedding"],"model_info":{"nomic-bert.embedding_length":768}}`)
		case "POST /api/embed":
			fmt.Fprint(w, `{"model":"nomic-embed-text","embeddings":[[0.5,0.25],[1,0]],"total_duration":1200000,"prompt_eval_count":4}`)
		case "POST /api/chat":
			fmt.Fprint(w, `{"model":"qwen3:4b","message":{"role":"assistant","content":"{\"memories\":[]}"},"done":true,"done_reason":"stop"}`)
		default:
			http.NotFound(w, r)
		}
	})
	ctx := context.Background()
	if v, err := c.Version(ctx); err != nil || v != "0.12.3" {
		t.Errorf("Version: %q %v", v, err)
	}
	list, err := c.List(ctx)
	if err != nil || len(list.Models) != 2 || list.Models[0].Size != 274302450 {
		t.Fatalf("List: %+v %v", list, err)
	}
	if m := list.Find("nomic-embed-text"); m == nil || m.Digest != "0a109f42" {
		t.Errorf("Find without tag: %+v", m)
	}
	if list.Find("QWEN3:4b") == nil || list.Find("qwen3") != nil || list.Find("llama3") != nil {
		t.Error("Find matches the wrong models")
	}
	show, err := c.Show(ctx, "nomic-embed-text")
	if err != nil || len(show.Capabilities) != 1 || show.ModelInfo["nomic-bert.embedding_length"] != float64(768) {
		t.Errorf("Show: %+v %v", show, err)
	}
	if bodies["/api/show"]["model"] != "nomic-embed-text" {
		t.Errorf("show body %v", bodies["/api/show"])
	}
	tr := true
	emb, err := c.Embed(ctx, &EmbedRequest{Model: "nomic-embed-text", Input: []string{"a", "b"}, Truncate: &tr, Dimensions: 2,
		KeepAlive: 5 * time.Minute, Options: map[string]any{"num_ctx": 2048}})
	if err != nil || len(emb.Embeddings) != 2 || emb.Embeddings[0][1] != 0.25 || emb.PromptEvalCount != 4 {
		t.Fatalf("Embed: %+v %v", emb, err)
	}
	b := bodies["/api/embed"]
	if b["keep_alive"] != "5m0s" || b["truncate"] != true || b["dimensions"] != float64(2) || len(b["input"].([]any)) != 2 ||
		b["options"].(map[string]any)["num_ctx"] != float64(2048) {
		t.Errorf("embed body %v", b)
	}
	chat, err := c.Chat(ctx, &ChatRequest{Model: "qwen3:4b", Format: json.RawMessage(`{"type":"object"}`),
		Messages: []Message{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}}})
	if err != nil || chat.Message.Content != `{"memories":[]}` || !chat.Done {
		t.Fatalf("Chat: %+v %v", chat, err)
	}
	b = bodies["/api/chat"]
	if b["stream"] != false || b["format"].(map[string]any)["type"] != "object" || len(b["messages"].([]any)) != 2 {
		t.Errorf("chat body %v", b)
	}
	if _, ok := b["keep_alive"]; ok {
		t.Errorf("keep_alive sent though unset: %v", b)
	}
}

// A server that streams the chat anyway: the pieces are joined; an error
// in the stream is an error.
func TestClientChatStreamed(t *testing.T) {
	c, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		for _, p := range []string{`{"a":`, `1}`} {
			fmt.Fprintf(w, `{"model":"m","message":{"role":"assistant","content":%q},"done":false}`+"\n", p)
		}
		if r.URL.Query().Get("fail") != "" {
			fmt.Fprintln(w, `{"error":"out of memory"}`)
			return
		}
		fmt.Fprintln(w, `{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}`)
	})
	resp, err := c.Chat(context.Background(), &ChatRequest{Model: "m"})
	if err != nil || resp.Message.Content != `{"a":1}` || !resp.Done {
		t.Fatalf("%+v %v", resp, err)
	}
	c.base.RawQuery = "fail=1"
	if _, err := c.Chat(context.Background(), &ChatRequest{Model: "m"}); err == nil || !strings.Contains(err.Error(), "out of memory") {
		t.Fatalf("error in stream: %v", err)
	}
}

func TestClientBasePath(t *testing.T) {
	var path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path = r.URL.Path
		fmt.Fprint(w, `{"version":"1"}`)
	}))
	defer srv.Close()
	u, err := ParseHost(srv.URL + "/ollama/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(u, nil).Version(context.Background()); err != nil || path != "/ollama/api/version" {
		t.Fatalf("path %q, %v", path, err)
	}
}

func TestClientErrors(t *testing.T) {
	ctx := context.Background()
	c, srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/embed":
			w.WriteHeader(404)
			fmt.Fprint(w, `{"error":"model \"nomic-embed-text\" not found, try pulling it first"}`)
		case "/api/chat":
			w.WriteHeader(500)
			fmt.Fprint(w, `{"error":"llama runner process has terminated"}`)
		case "/api/show":
			w.WriteHeader(401)
			fmt.Fprint(w, `{"error":"unauthorized"}`)
		case "/api/tags":
			fmt.Fprint(w, `<html>not json</html>`)
		case "/api/version":
			time.Sleep(200 * time.Millisecond)
			fmt.Fprint(w, `{"version":"1"}`)
		default:
			http.NotFound(w, r)
		}
	})
	host := srv.URL

	_, err := c.Embed(ctx, &EmbedRequest{Model: "nomic-embed-text", Input: []string{"a"}})
	var se *StatusError
	if !errors.Is(err, ErrModelNotFound) || errors.Is(err, ErrUnreachable) || !errors.As(err, &se) || se.StatusCode != 404 {
		t.Errorf("model missing: %v", err)
	}
	if msg := fmt.Sprint(err); !strings.Contains(msg, host) || !strings.Contains(msg, "run `ollama pull nomic-embed-text`") {
		t.Errorf("model missing: %q", msg)
	}

	_, err = c.Chat(ctx, &ChatRequest{Model: "m"})
	if !errors.As(err, &se) || se.StatusCode != 500 || se.Message != "llama runner process has terminated" ||
		!strings.Contains(err.Error(), host) || errors.Is(err, ErrModelNotFound) {
		t.Errorf("HTTP 500: %v", err)
	}

	_, err = c.Show(ctx, "m")
	if !errors.As(err, &se) || se.StatusCode != 401 || !strings.Contains(err.Error(), "requires authorization") {
		t.Errorf("HTTP 401: %v", err)
	}

	_, err = c.List(ctx)
	if err == nil || !strings.Contains(err.Error(), "not the expected JSON") || !strings.Contains(err.Error(), host) {
		t.Errorf("not JSON: %v", err)
	}

	// A server that is not Ollama answers 404 without naming a model.
	u, _ := url.Parse(host + "/elsewhere")
	_, err = New(u, nil).Embed(ctx, &EmbedRequest{Model: "m"})
	if !errors.Is(err, ErrUnreachable) || errors.Is(err, ErrModelNotFound) || !strings.Contains(err.Error(), "does not look like Ollama") {
		t.Errorf("not Ollama: %v", err)
	}

	tctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err = c.Version(tctx); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), host) {
		t.Errorf("deadline: %v", err)
	}
}

func TestClientUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close() // nothing listens there now
	u, _ := url.Parse(srv.URL)
	_, err := New(u, nil).Version(context.Background())
	var ue *UnreachableError
	if !errors.Is(err, ErrUnreachable) || !errors.Is(err, syscall.ECONNREFUSED) || !errors.As(err, &ue) || ue.Reason != "connection refused" {
		t.Fatalf("refused: %#v", err)
	}
	want := "Ollama is not reachable at " + srv.URL + " (connection refused): is Ollama running? Start it with `ollama serve`"
	if err.Error() != want {
		t.Errorf("message %q\nwant    %q", err, want)
	}

	// The server hangs up without answering.
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer hang.Close()
	u, _ = url.Parse(hang.URL)
	_, err = New(u, nil).Version(context.Background())
	if !errors.As(err, &ue) || ue.Reason != "connection closed" {
		t.Errorf("hang-up: %v", err)
	}
}

// Requests send no body where the endpoint takes none.
func TestClientGetHasNoBody(t *testing.T) {
	c, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if len(b) != 0 || r.Header.Get("Content-Type") != "" {
			t.Errorf("GET with body %q", b)
		}
		fmt.Fprint(w, `{"models":[]}`)
	})
	if _, err := c.List(context.Background()); err != nil {
		t.Fatal(err)
	}
}
