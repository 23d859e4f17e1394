package cli

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/cairn-dev/cairn/index"

	"github.com/spf13/cobra"
)

func newIndexCmd(o *Options) *cobra.Command {
	var rebuild, retrain, noEmbed bool
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Index new transcript lines into the store, the full-text index and the vectors",
		Long: `index reads every transcript line added since the last run (all of them the
first time) into cairn's store, fills the full-text index while it does, then
brings the vectors up to date with the configured embedder (built-in by
default; Ollama when embedder.kind = "ollama"). --rebuild throws the derived
indexes away and rebuilds them from the store; the store itself is never
deleted. Interrupted runs resume where they stopped.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := openStore(o)
			if err != nil {
				return err
			}
			defer st.Close()
			stats, err := updateStore(cmd.Context(), o, st, index.UpdateOptions{Rebuild: rebuild, Retrain: retrain || rebuild, NoEmbed: noEmbed})
			if err != nil {
				return err
			}
			if stats.FTSBusy {
				fmt.Fprintln(o.Stderr, "cairn: the full-text index is busy (another cairn holds it): its updates stay queued for the next run")
			}
			if stats.EmbedErr != nil {
				fmt.Fprintln(o.Stderr, "cairn: warning: embeddings not updated:", stats.EmbedErr)
			}
			s := stats.Sync
			mb := float64(s.BytesRead) / (1 << 20)
			secs := stats.Duration.Seconds()
			fmt.Fprintf(o.Stdout, "indexed %d files (%d new, %d changed, %d missing), %.1f MB, %d entries added, %d duplicates, %d bad lines, %d secrets redacted; %d documents to full-text, %d embedded (%s) in %.1fs\n",
				s.FilesScanned, s.FilesNew, s.FilesChanged, s.FilesMissing, mb, s.EntriesAdded,
				s.Duplicates, s.BadLines, s.Redactions, stats.FTSDocs, stats.Embedded, orDash(stats.Embedder), secs)
			return nil
		},
	}
	cmd.Flags().BoolVar(&rebuild, "rebuild", false, "rebuild the full-text index and the embeddings from the store")
	cmd.Flags().BoolVar(&retrain, "retrain", false, "retrain the built-in embedder on the current store")
	cmd.Flags().BoolVar(&noEmbed, "no-embed", false, "leave the vectors for a later run (they stay queued)")
	return cmd
}

// updateStore brings the store, the full-text index and the vectors up to
// date (index.Store.Update), drawing a progress bar on a terminal stderr and
// then the phase that follows (full-text catching up, embeddings). It
// reports what could not be read; the caller reports the rest.
func updateStore(ctx context.Context, o *Options, st *index.Store, uo index.UpdateOptions) (index.UpdateStats, error) {
	// A bulk run allocates a lot of short-lived memory: collect less often,
	// but within a bound, so peak RSS stays ~280 MB on a 1 GB corpus. A
	// small run (the usual incremental one) does not collect at all below
	// the bound: its garbage dies with the process.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(160 << 20))
	var bulk sync.Once
	if uo.Rebuild || uo.Retrain {
		bulk.Do(func() { debug.SetGCPercent(300) })
	}
	claude, err := o.ResolveClaudeDir()
	if err != nil {
		return index.UpdateStats{}, err
	}
	so, bar, err := syncOptions(o, true)
	if err != nil {
		return index.UpdateStats{}, err
	}
	tty := isTerminal(o.Stderr)
	// Phase messages share the terminal line with the progress bar: they
	// show once the bar is done.
	var mu sync.Mutex
	barDone := false
	uo.Status = func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		if tty && barDone {
			fmt.Fprintf(o.Stderr, "\r%s\x1b[K", msg)
		}
	}
	inner := so.Progress
	so.Progress = func(p index.Progress) {
		if p.BytesTotal > 32<<20 {
			bulk.Do(func() { debug.SetGCPercent(300) })
		}
		if inner != nil {
			inner(p)
		}
		if p.FilesDone == p.FilesTotal && bar != nil {
			mu.Lock()
			bar.done()
			barDone = true
			mu.Unlock()
		}
	}
	uo.Sync = so
	stats, err := st.Update(ctx, claude, uo)
	mu.Lock()
	if bar != nil && !barDone {
		bar.done()
	}
	if tty && barDone {
		fmt.Fprint(o.Stderr, "\r\x1b[K")
	}
	barDone = false
	mu.Unlock()
	reportSync(o, stats.Sync)
	return stats, err
}
