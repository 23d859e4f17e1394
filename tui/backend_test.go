package tui

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/config"
	_ "github.com/cairn-dev/cairn/index/fts"
)

// The TUI's background indexing runs the one pipeline: with
// embedder.kind = "none" it must not train or activate the built-in
// embedder (its own copy of the pipeline used to, on every open).
func TestBackgroundIndexHonoursEmbedderKind(t *testing.T) {
	data := t.TempDir()
	os.WriteFile(filepath.Join(data, config.FileName), []byte("[embedder]\nkind = \"none\"\n"), 0o600)
	t.Setenv("CAIRN_CONFIG", "")
	a, err := app.Open(app.Paths{DataDir: data, ClaudeDir: "../testdata/claude"}, app.Options{SmallCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	hub := newSearchHub(a.Store, time.Second)
	defer hub.Close()
	ch := make(chan indexMsg, 64)
	go runIndex(context.Background(), a.Index, hub, false, ch)
	var last indexMsg
	for m := range ch {
		last = m
	}
	if !last.finished || last.err != nil || last.stats.EntriesAdded == 0 {
		t.Fatalf("final message %+v", last)
	}
	if v, ok, _ := a.Store.Setting(t.Context(), "embed.active"); ok {
		t.Fatalf("embedder.kind = none, yet the TUI activated %q", v)
	}
	s, err := a.Store.Stats(t.Context())
	if err != nil || s.FTSQueue != 0 || s.Embeddings != 0 {
		t.Fatalf("stats %+v %v: the full-text queue must be drained and nothing embedded", s, err)
	}
}
