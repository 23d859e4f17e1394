// Package app is the layer between cairn's domain (transcripts → index →
// memories) and its four front ends (cli, tui, hook, mcpserver). Every
// front end opens cairn the same way (Open: the folders resolved once, the
// config loaded once with one policy for a bad file, the store opened with
// the configured embedder and search defaults, the memories service built)
// and indexes through the same pipeline (App.Index). Front ends only parse
// their input and render the result.
//
// It must not import the full-text engine (index/fts): the lean hook
// binary links it. Programs that search register the engine themselves
// (`import _ ".../index/fts"`).
package app

import (
	"context"
	"errors"
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/index/embed"
	"github.com/cairn-dev/cairn/memories"
)

// Options tune how the store is opened.
type Options struct {
	// SmallCache keeps SQLite's page caches small: for long-running
	// processes (the TUI, the MCP server).
	SmallCache bool
	// BusyTimeout is how long a write waits for another process (0: the
	// store's default). Hooks use ~100 ms.
	BusyTimeout time.Duration
	// MapReads reads the store through a memory map: for a command that
	// searches and exits (index.OpenOptions.MapReads).
	MapReads bool
	// DeferRewrites leaves an upgrade that rewrites the store's rows to a
	// process with time (index.OpenOptions.DeferRewrites): hooks.
	DeferRewrites bool
}

// App is an open cairn: what every front end works with.
type App struct {
	Paths    Paths
	Config   config.Config
	Store    *index.Store
	Memories *memories.Service
}

// ConfigError is a config file that cannot be used. Every front end treats
// it the same way: nothing runs on a guess of what the file meant. The CLI
// prints it and exits 1, the MCP server answers every tool with it, the
// hooks log it and inject nothing, `cairn doctor` reports it.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// IsConfigError reports whether err is (or wraps) a ConfigError.
func IsConfigError(err error) bool {
	var ce *ConfigError
	return errors.As(err, &ce)
}

// LoadConfig reads the config for the data dir (a missing file gives the
// defaults). A file that cannot be used is a *ConfigError.
func LoadConfig(dataDir string) (config.Config, error) {
	cfg, err := config.Load(dataDir)
	if err != nil {
		return cfg, &ConfigError{Err: err}
	}
	return cfg, nil
}

// Open resolves the folders (flags first, see ResolvePaths), loads the
// config and opens the store with the configured embedder and search
// defaults.
func Open(flags Paths, o Options) (*App, error) {
	paths, err := ResolvePaths(flags)
	if err != nil {
		return nil, err
	}
	cfg, err := LoadConfig(paths.DataDir)
	if err != nil {
		return nil, err
	}
	return OpenWith(paths, cfg, o)
}

// OpenWith opens cairn with folders and a config already resolved (the
// hooks, which take their config from the caller in tests).
func OpenWith(paths Paths, cfg config.Config, o Options) (*App, error) {
	st, err := index.OpenWith(paths.DataDir, StoreOptions(cfg, index.OpenOptions{SmallCache: o.SmallCache, BusyTimeout: o.BusyTimeout, MapReads: o.MapReads, DeferRewrites: o.DeferRewrites}))
	if err != nil {
		return nil, writableError(paths.DataDir, err)
	}
	a := &App{Paths: paths, Config: cfg, Store: st, Memories: memories.New(st, cfg)}
	if err := a.finishInterruptedForget(context.Background()); err != nil {
		st.Close()
		return nil, err
	}
	return a, nil
}

// StoreOptions are o with the config's embedder, search defaults and
// opt-outs: how every process opens the store (the hooks too, with their
// own busy timeout).
func StoreOptions(cfg config.Config, o index.OpenOptions) index.OpenOptions {
	o.Embedder = EmbedderConfig(cfg)
	o.Search = index.SearchDefaults{
		Fusion:       cfg.Search.Fusion,
		VectorWeight: cfg.Search.VectorWeight,
		Recency:      cfg.Search.Recency,
	}
	o.Exclusion = index.Exclusion{Globs: cfg.Index.Exclude}
	return o
}

// EmbedderConfig turns the config's embedder settings into the index's.
func EmbedderConfig(cfg config.Config) index.EmbedderConfig {
	return index.EmbedderConfig{
		Kind: cfg.Embedder.Kind,
		Ollama: embed.OllamaConfig{
			Host:       cfg.Ollama.Host,
			Model:      cfg.Ollama.EmbedModel,
			Dimensions: cfg.Ollama.Dimensions,
			BatchSize:  cfg.Ollama.BatchSize,
			Timeout:    cfg.Ollama.Timeout.Duration,
		},
	}
}

// Close closes the store.
func (a *App) Close() error { return a.Store.Close() }

// writableError is index.WritableError: the data dir named when it cannot
// be written.
func writableError(dir string, err error) error { return index.WritableError(dir, err) }
