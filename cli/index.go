package cli

import (
	"errors"
	"fmt"
	"time"

	"cairn/index"
	"cairn/index/fts"

	"github.com/spf13/cobra"
)

func newIndexCmd(o *Options) *cobra.Command {
	var rebuild, retrain bool
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Index new transcript lines into the store, the full-text index and the vectors",
		Long: `index reads every transcript line added since the last run (all of them the
first time) into cairn's store, then brings the full-text index and the
built-in embeddings up to date. --rebuild throws the derived indexes away
and rebuilds them from the store; the store itself is never deleted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			st, err := openStore(o)
			if err != nil {
				return err
			}
			defer st.Close()
			start := time.Now()
			stats, err := syncStore(ctx, o, st, true)
			if err != nil {
				return err
			}
			tty := isTerminal(o.Stderr)
			status := func(msg string) {
				if tty {
					fmt.Fprintf(o.Stderr, "\r%s\x1b[K", msg)
				}
			}
			var docs int
			if rebuild {
				status("rebuilding the full-text index…")
				docs, err = st.RebuildFTS(ctx, func(n int) { status(fmt.Sprintf("rebuilding the full-text index: %d documents", n)) })
			} else {
				ix, oerr := st.OpenFTS(2 * time.Second)
				if oerr != nil {
					if errors.Is(oerr, fts.ErrLocked) {
						fmt.Fprintln(o.Stderr, "cairn: the full-text index is busy (another cairn holds it): its updates stay queued for the next run")
					} else {
						return oerr
					}
				} else {
					docs, err = st.DrainFTS(ctx, ix, func(n int) { status(fmt.Sprintf("full-text index: %d documents", n)) })
					if cerr := ix.Close(); err == nil {
						err = cerr
					}
				}
			}
			if err != nil {
				return err
			}
			status("embeddings…")
			embedded, embedder, err := embedAll(cmd, st, rebuild || retrain, status)
			if tty {
				fmt.Fprint(o.Stderr, "\r\x1b[K")
			}
			if err != nil {
				fmt.Fprintln(o.Stderr, "cairn: warning: embeddings not updated:", err)
			}
			mb := float64(stats.BytesRead) / (1 << 20)
			secs := time.Since(start).Seconds()
			fmt.Fprintf(o.Stdout, "indexed %d files (%d new, %d changed, %d missing), %.1f MB, %d entries added, %d duplicates, %d bad lines, %d secrets redacted; %d documents to full-text, %d embedded (%s) in %.1fs\n",
				stats.FilesScanned, stats.FilesNew, stats.FilesChanged, stats.FilesMissing, mb, stats.EntriesAdded,
				stats.Duplicates, stats.BadLines, stats.Redactions, docs, embedded, embedder, secs)
			return nil
		},
	}
	cmd.Flags().BoolVar(&rebuild, "rebuild", false, "rebuild the full-text index and the embeddings from the store")
	cmd.Flags().BoolVar(&retrain, "retrain", false, "retrain the built-in embedder on the current store")
	return cmd
}

// embedAll trains the built-in embedder when needed and embeds what is
// queued, then refreshes the vector cache.
func embedAll(cmd *cobra.Command, st *index.Store, retrain bool, status func(string)) (int, string, error) {
	ctx := cmd.Context()
	m, err := st.BuiltinEmbedder(ctx, retrain)
	if err != nil {
		return 0, "none", err
	}
	n, err := st.EmbedQueued(ctx, m, func(d int) { status(fmt.Sprintf("embeddings: %d documents", d)) })
	if err != nil {
		return n, m.ID(), err
	}
	return n, m.ID(), st.RefreshVecCache(ctx, m.ID(), m.Dims())
}
