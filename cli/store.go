package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/index"
	_ "github.com/cairn-dev/cairn/index/fts" // the full-text engine: index, search
	"github.com/cairn-dev/cairn/memories"

	"github.com/spf13/cobra"
)

func init() {
	// bleve logs to the standard logger (damaged snapshots, merges); that
	// must never reach a terminal table, a hook's stdout or the TUI.
	log.SetOutput(io.Discard)
}

// paths are the folders the flags name (empty: app.ResolvePaths decides).
func (o *Options) paths() app.Paths {
	return app.Paths{DataDir: o.DataDir, ClaudeDir: o.ClaudeDir}
}

// openApp opens cairn (folders, config, store, memories) for a command.
// A --claude-dir that names no folder is refused first (exit 2), before
// a store is created for it.
func openApp(o *Options, ao app.Options) (*app.App, error) {
	if err := checkClaudeDir(o.ClaudeDir); err != nil {
		return nil, err
	}
	return app.Open(o.paths(), ao)
}

// checkClaudeDir refuses a --claude-dir given that is not a folder.
func checkClaudeDir(dir string) error {
	if dir == "" {
		return nil
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usageError{fmt.Errorf("--claude-dir %s: no such folder (Claude Code's config folder holds projects/; default $CLAUDE_CONFIG_DIR or ~/.claude)", dir)}
	case err != nil:
		return fmt.Errorf("--claude-dir: %w", err)
	case !fi.IsDir():
		return usageError{fmt.Errorf("--claude-dir %s is a file, not a folder", dir)}
	}
	return nil
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

// syncStore brings the store up to date with the transcripts (the
// pipeline's store-only run: incremental, so a second run reads only what
// changed). A progress bar is drawn on a terminal stderr when showProgress
// is set.
func syncStore(ctx context.Context, o *Options, a *app.App, showProgress bool) (index.SyncStats, error) {
	io := app.IndexOptions{StoreOnly: true}
	var bar *progressBar
	if showProgress {
		bar = newProgressBar(o.Stderr, "indexing")
		io.Progress = func(p app.Progress) {
			if p.Stage == app.StageSync {
				bar.update(p.Sync.FilesDone, p.Sync.FilesTotal, p.Sync.BytesDone, p.Sync.BytesTotal, p.Sync.Entries)
			}
		}
	}
	res, err := a.Index(ctx, io)
	if bar != nil {
		bar.done()
	}
	reportSync(o, res.Sync)
	reportMemoryFiles(o, res, false)
	return res.Sync, err
}

// withApp opens cairn, syncs the store first when sync is set (listings
// still work from what is stored when that fails), and runs fn.
func withApp(ctx context.Context, o *Options, sync bool, fn func(a *app.App) error) error {
	a, err := openApp(o, app.Options{})
	if err != nil {
		return err
	}
	defer a.Close()
	if sync {
		if _, err := syncStore(ctx, o, a, true); err != nil {
			// Listings still work from what is stored (transcripts Claude
			// Code deleted included): say so and go on, unless there is
			// nothing.
			if stats, serr := a.Store.Stats(ctx); serr != nil || stats.Sessions == 0 {
				return err
			}
			fmt.Fprintln(o.Stderr, "cairn: warning: could not refresh the index:", err)
		}
	}
	return fn(a)
}

// withStore opens the store, syncs it (quietly) and runs fn.
func withStore(ctx context.Context, o *Options, fn func(st *index.Store) error) error {
	return withApp(ctx, o, true, func(a *app.App) error { return fn(a.Store) })
}

// withMemories runs fn with the memory service; sync first indexes new
// transcript lines (quietly).
func withMemories(ctx context.Context, o *Options, sync bool, fn func(svc *memories.Service) error) error {
	return withApp(ctx, o, sync, func(a *app.App) error { return fn(a.Memories) })
}

// serviceCmd finishes cmd as a command that makes one call on the memory
// service (without syncing first) and prints the answer: as JSON with
// --json, else as text (say writes it).
func serviceCmd[T any](o *Options, cmd *cobra.Command, call func(ctx context.Context, svc *memories.Service, args []string) (T, error), say func(T)) *cobra.Command {
	cmd.RunE = func(c *cobra.Command, args []string) error {
		return withMemories(c.Context(), o, false, func(svc *memories.Service) error {
			v, err := call(c.Context(), svc, args)
			if err != nil {
				return err
			}
			if o.JSON {
				return writeJSON(o.Stdout, v)
			}
			say(v)
			return nil
		})
	}
	addJSONFlag(cmd, o)
	return cmd
}
