package install

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/config"
)

func TestCheckOllama(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/version":
			fmt.Fprint(w, `{"version":"0.9.9"}`)
		case "/api/tags":
			fmt.Fprint(w, `{"models":[{"name":"nomic-embed-text:latest","model":"nomic-embed-text:latest"}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	cfg := config.Default()
	cfg.Ollama.Host = srv.URL

	cfg.Embedder.Kind = "ollama"
	if c := checkOllama(ctx, cfg, time.Second); c.Status != OK || !strings.Contains(c.Detail, "0.9.9") {
		t.Errorf("embed model pulled: %+v", c)
	}
	cfg.Memories.Extractor, cfg.Ollama.ChatModel = "ollama", "qwen3:4b"
	if c := checkOllama(ctx, cfg, time.Second); c.Status != Warn || !strings.Contains(c.Detail, "qwen3:4b not pulled") || c.Fix != "ollama pull qwen3:4b" {
		t.Errorf("chat model missing: %+v", c)
	}

	// The host forms of $OLLAMA_HOST, through the one parser.
	cfg.Ollama.Host = strings.TrimPrefix(srv.URL, "http://")
	if c := checkOllama(ctx, cfg, time.Second); !strings.Contains(c.Detail, "reachable at "+srv.URL) {
		t.Errorf("host without scheme: %+v", c)
	}
	cfg.Ollama.Host = "ftp://gpu-box"
	if c := checkOllama(ctx, cfg, time.Second); c.Status != Warn || !strings.Contains(c.Detail, `"ftp://gpu-box"`) || !strings.Contains(c.Fix, "ollama.host") {
		t.Errorf("bad host: %+v", c)
	}
}
