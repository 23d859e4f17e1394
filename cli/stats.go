package cli

import (
	"context"
	"fmt"

	"github.com/cairn-dev/cairn/memories"

	"github.com/spf13/cobra"
)

func newStatsCmd(o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "What the memory store holds, whether injected memories get used, and what to prune",
		Long: `stats counts memories by type, status and project; injections, uses and
hit rate per type over the last 7 and 30 days and overall (with a
sparkline per day); the most used memories and the approved ones never
used after several injections (candidates to prune); what each extractor
proposed and how much of it was kept; and the store's size, including the
sessions kept after Claude Code deleted their transcripts.`,
		Args: cobra.NoArgs,
	}
	return serviceCmd(o, cmd, func(ctx context.Context, svc *memories.Service, _ []string) (memories.Stats, error) {
		return svc.Feedback.Stats(ctx)
	}, func(st memories.Stats) {
		w := terminalWidth(o.Stdout)
		if w == 0 {
			w = 100
		}
		fmt.Fprint(o.Stdout, st.Report(w))
	})
}
