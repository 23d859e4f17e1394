package cli

import (
	"context"
	"fmt"
	"io"
	"log"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/index/embed"
	_ "github.com/cairn-dev/cairn/index/fts" // the full-text engine: index, search
)

func init() {
	// bleve logs to the standard logger (damaged snapshots, merges); that
	// must never reach a terminal table, a hook's stdout or the TUI.
	log.SetOutput(io.Discard)
}

// openStore opens the store in the data dir.
func openStore(o *Options) (*index.Store, error) {
	return openStoreWith(o, index.OpenOptions{})
}

// openStoreWith is openStore with options (e.g. a small page cache for the
// long-running TUI).
func openStoreWith(o *Options, oo index.OpenOptions) (*index.Store, error) {
	dir, err := o.ResolveDataDir()
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(dir)
	if err != nil {
		return nil, err
	}
	st, err := index.OpenWith(dir, oo)
	if err != nil {
		return nil, err
	}
	st.SetEmbedder(embedderConfig(cfg))
	return st, nil
}

// embedderConfig turns the config's embedder settings into the index's.
func embedderConfig(cfg config.Config) index.EmbedderConfig {
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

// syncOptions are the sync settings from the config, with a progress bar
// on a terminal stderr when showProgress is set (nil bar otherwise).
func syncOptions(o *Options, showProgress bool) (index.SyncOptions, *progressBar, error) {
	cfg, err := loadConfig(o)
	if err != nil {
		return index.SyncOptions{}, nil, err
	}
	opts := index.SyncOptions{ToolHead: cfg.Index.ToolOutputHead, ToolTail: cfg.Index.ToolOutputTail}
	var bar *progressBar
	if showProgress {
		bar = newProgressBar(o.Stderr, "indexing")
		opts.Progress = func(p index.Progress) {
			bar.update(p.FilesDone, p.FilesTotal, p.BytesDone, p.BytesTotal, p.Entries)
		}
	}
	return opts, bar, nil
}

// reportSync prints what a sync could not read.
func reportSync(o *Options, stats index.SyncStats) {
	for _, p := range stats.Problems {
		fmt.Fprintln(o.Stderr, "cairn: warning:", p)
	}
	if stats.BadLines > 0 {
		fmt.Fprintf(o.Stderr, "cairn: skipped %d unreadable line(s); first ones:\n", stats.BadLines)
		for _, le := range stats.LineErrors {
			fmt.Fprintln(o.Stderr, "  ", le.Error())
		}
	}
}

// syncStore brings the store up to date with the transcripts: incremental,
// so a second run reads only what changed. A progress bar is drawn on a
// terminal stderr when showProgress is set.
func syncStore(ctx context.Context, o *Options, st *index.Store, showProgress bool) (index.SyncStats, error) {
	claude, err := o.ResolveClaudeDir()
	if err != nil {
		return index.SyncStats{}, err
	}
	opts, bar, err := syncOptions(o, showProgress)
	if err != nil {
		return index.SyncStats{}, err
	}
	stats, err := st.Sync(ctx, claude, opts)
	if bar != nil {
		bar.done()
	}
	reportSync(o, stats)
	return stats, err
}

// withStore opens the store, syncs it (quietly) and runs fn.
func withStore(ctx context.Context, o *Options, fn func(st *index.Store) error) error {
	st, err := openStore(o)
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := syncStore(ctx, o, st, true); err != nil {
		// Listings still work from what is stored (transcripts Claude Code
		// deleted included): say so and go on, unless there is nothing.
		if stats, serr := st.Stats(); serr != nil || stats.Sessions == 0 {
			return err
		}
		fmt.Fprintln(o.Stderr, "cairn: warning: could not refresh the index:", err)
	}
	return fn(st)
}
