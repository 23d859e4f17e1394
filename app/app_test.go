package app_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	_ "github.com/cairn-dev/cairn/index/fts"
)

// sample is the bundled demo: real transcripts of four projects.
const sample = "../testdata/claude"

func openSample(t *testing.T, toml string) *app.App {
	t.Helper()
	data := t.TempDir()
	if toml != "" {
		if err := os.WriteFile(filepath.Join(data, config.FileName), []byte(toml), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("CAIRN_CONFIG", "")
	a, err := app.Open(app.Paths{DataDir: data, ClaudeDir: sample}, app.Options{SmallCache: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// The TUI's background indexing used to be its own copy of the pipeline
// and trained the built-in embedder whatever embedder.kind said. Every
// profile now honours it.
func TestEveryProfileHonoursEmbedderKind(t *testing.T) {
	for _, p := range []app.Profile{app.Bulk, app.Interactive} {
		a := openSample(t, "[embedder]\nkind = \"none\"\n")
		o := app.IndexOptions{Profile: p}
		drained := 0
		if p == app.Interactive {
			// The TUI's searcher owns the full-text index and drains it.
			o.DrainFTS = func(ctx context.Context, progress func(int)) (int, error) {
				ix, err := a.Store.Derived().OpenFTS(time.Second)
				if err != nil {
					return 0, err
				}
				defer ix.Close()
				n, err := a.Store.Derived().DrainFTS(ctx, ix, progress)
				drained = n
				return n, err
			}
		}
		res, err := a.Index(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if res.Sync.EntriesAdded == 0 || res.FTSDocs == 0 {
			t.Fatalf("profile %d: nothing indexed: %+v", p, res.UpdateStats)
		}
		if p == app.Interactive && drained == 0 {
			t.Fatalf("the caller's DrainFTS was not used")
		}
		if v, ok, _ := a.Store.Setting(t.Context(), "embed.active"); ok {
			t.Fatalf("profile %d: embedder.kind = none, yet %q was activated", p, v)
		}
		if res.Embedded != 0 || res.Embedder != "" {
			t.Fatalf("profile %d: embedded %d with %q under embedder.kind = none", p, res.Embedded, res.Embedder)
		}
	}
}

func TestHookProfileLeavesFullTextAndVectorsQueued(t *testing.T) {
	a := openSample(t, "")
	res, err := a.Index(context.Background(), app.IndexOptions{Profile: app.Hook, Projects: []string{"-path-to-Demo"}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := a.Store.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if res.Sync.EntriesAdded == 0 || res.FTSDocs != 0 || res.Embedded != 0 || st.FTSQueue == 0 {
		t.Fatalf("hook run: %+v, fts queue %d", res.UpdateStats, st.FTSQueue)
	}
	ps, _ := a.Store.Projects(t.Context())
	if len(ps) != 1 {
		t.Fatalf("hook run synced %d projects, want only the one named", len(ps))
	}
}

func TestPostIndexExtraction(t *testing.T) {
	if withoutRace.RanAlone(t) {
		return
	}
	a := openSample(t, "")
	res, err := a.Index(context.Background(), app.IndexOptions{Extract: true, NoEmbed: true})
	if err != nil || res.ExtractErr != nil {
		t.Fatal(err, res.ExtractErr)
	}
	if res.Proposed == 0 {
		t.Fatal("the built-in extractor proposed nothing from the sample")
	}
	// Cursor-based: a second run proposes nothing new.
	res, err = a.Index(context.Background(), app.IndexOptions{Extract: true, NoEmbed: true})
	if err != nil || res.Proposed != 0 {
		t.Fatalf("second run: %v, %d proposed", err, res.Proposed)
	}
	b := openSample(t, "[memories]\nextractor = \"ollama\"\n[ollama]\nchat_model = \"m\"\n")
	res, err = b.Index(context.Background(), app.IndexOptions{Extract: true, NoEmbed: true})
	if err != nil || !res.ExtractDeferred || res.Proposed != 0 {
		t.Fatalf("ollama extractor: %v %+v", err, res)
	}
}

func TestBadConfigIsOneError(t *testing.T) {
	data := t.TempDir()
	os.WriteFile(filepath.Join(data, config.FileName), []byte("[search]\nfusion = \"best\"\n"), 0o600)
	_, err := app.Open(app.Paths{DataDir: data, ClaudeDir: sample}, app.Options{})
	if !app.IsConfigError(err) {
		t.Fatalf("got %v, want a ConfigError", err)
	}
	var ce *app.ConfigError
	if !errors.As(err, &ce) || ce.Error() == "" {
		t.Fatal("no message")
	}
	if _, err := os.Stat(filepath.Join(data, index.DBName)); err == nil {
		t.Fatal("a store was created despite the bad config")
	}
}

func TestResolvePaths(t *testing.T) {
	t.Setenv("CAIRN_HOME", "")
	t.Setenv("XDG_DATA_HOME", "/xdg")
	t.Setenv("CLAUDE_CONFIG_DIR", "/cc")
	p, err := app.ResolvePaths(app.Paths{})
	if err != nil || p.DataDir != "/xdg/cairn" || p.ClaudeDir != "/cc" {
		t.Fatalf("%+v %v", p, err)
	}
	t.Setenv("CAIRN_HOME", "/ch")
	if p, _ := app.ResolvePaths(app.Paths{}); p.DataDir != "/ch" {
		t.Fatalf("CAIRN_HOME: %+v", p)
	}
	if p, _ := app.ResolvePaths(app.Paths{DataDir: "/flag", ClaudeDir: "/c"}); p.DataDir != "/flag" || p.ClaudeDir != "/c" {
		t.Fatalf("flags: %+v", p)
	}
}
