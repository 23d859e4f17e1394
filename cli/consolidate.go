package cli

import (
	"context"
	"fmt"

	"github.com/cairn-dev/cairn/memories"
	"github.com/cairn-dev/cairn/termtext"

	"github.com/spf13/cobra"
)

func newMemConsolidateCmd(o *Options) *cobra.Command {
	var dry, archive, undo bool
	cmd := &cobra.Command{
		Use:   "consolidate",
		Short: "Propose merges of overlapping memories, list stale ones, prune long-retired ones (undoable)",
		Long: `consolidate keeps the memory store healthy. It
  - proposes one pending memory for each cluster of overlapping memories of
    a project (paraphrases the add-time dedup missed); it keeps every
    source, and approving it retires the cluster, rejecting it leaves them;
  - lists approved memories whose confidence has faded to nothing or that
    were injected 5+ times and never used; --archive archives them;
  - deletes archived, superseded and rejected memories older than
    memories.retention_days (180), kept for undo a while longer.
Nothing approved changes without review. --dry-run shows what it would do;
--undo reverts the last run you made (archived memories get back their
own last update, so a faded one stays faded); run it again to revert the
run before. The hooks' background work runs it once a day, and those runs
never replace yours: --undo reverts one of them only when no run of yours
is left. The last 30 runs are kept.`,
		Args: cobra.NoArgs,
	}
	cmd.Flags().BoolVar(&dry, "dry-run", false, "show what would be done; change nothing")
	cmd.Flags().BoolVar(&archive, "archive", false, "also archive the stale approved memories it lists")
	cmd.Flags().BoolVar(&undo, "undo", false, "revert the last consolidation you ran (again: the one before)")
	return serviceCmd(o, cmd, func(ctx context.Context, svc *memories.Service, _ []string) (memories.ConsolidateReport, error) {
		if undo {
			if dry || archive {
				return memories.ConsolidateReport{}, usageError{fmt.Errorf("--undo takes no other flag")}
			}
			return svc.Curator.ConsolidateUndo(ctx)
		}
		return svc.Curator.Consolidate(ctx, memories.ConsolidateOptions{DryRun: dry, Archive: archive})
	}, func(r memories.ConsolidateReport) {
		if undo {
			printConsolidateUndo(o, r)
			return
		}
		printConsolidate(o, r)
	})
}

// printConsolidateUndo reports what `cairn memories consolidate --undo`
// reverted.
func printConsolidateUndo(o *Options, r memories.ConsolidateReport) {
	which := ""
	if r.Auto {
		which = " (the hooks' daily run)"
	}
	fmt.Fprintf(o.Stdout, "undid the consolidation of %s%s: %d merge proposals withdrawn, %d memories approved again, %d restored\n",
		r.At.Local().Format("2006-01-02 15:04"), which, len(r.Merges), len(r.Archived), len(r.Pruned))
}

// printConsolidate reports a consolidation (or, dry, what it would do):
// the merges proposed, the stale memories, the memories pruned.
func printConsolidate(o *Options, r memories.ConsolidateReport) {
	verb := map[bool]string{true: "would ", false: ""}[r.DryRun]
	fmt.Fprintf(o.Stdout, "%d memories checked in %s\n", r.Scanned, r.Took.Round(1e6))
	fmt.Fprintf(o.Stdout, "\n%spropose %d merges\n", verb, len(r.Merges))
	for _, m := range r.Merges {
		id := m.Proposal
		if id == "" {
			id = "(new)"
		}
		fmt.Fprintf(o.Stdout, "  %s ← %v  %s\n", id, m.Members, truncate(termtext.Line(oneLineText(m.Content)), 70))
	}
	printStale(o, r)
	fmt.Fprintf(o.Stdout, "\n%sprune %d retired memories", verb, len(r.Pruned))
	if r.TrashPurged > 0 {
		fmt.Fprintf(o.Stdout, "; %d deleted long ago purged for good", r.TrashPurged)
	}
	fmt.Fprintln(o.Stdout)
	if !r.DryRun && (len(r.Merges)+len(r.Archived)+len(r.Pruned)) > 0 {
		fmt.Fprintln(o.Stdout, "\nreview the proposals with `cairn memories list --status pending`; undo all of it with `cairn memories consolidate --undo`")
	}
}

// printStale lists a consolidation's stale approved memories, and
// whether they were archived.
func printStale(o *Options, r memories.ConsolidateReport) {
	fmt.Fprintf(o.Stdout, "\n%d stale approved memories", len(r.Stale))
	if len(r.Archived) > 0 {
		fmt.Fprintf(o.Stdout, " (%d archived)", len(r.Archived))
	} else if len(r.Stale) > 0 {
		fmt.Fprint(o.Stdout, " (archive them with --archive, or one by one: cairn memories archive ID)")
	}
	fmt.Fprintln(o.Stdout)
	for _, m := range r.Stale {
		fmt.Fprintf(o.Stdout, "  %s  %s  — %s\n", m.ID, truncate(termtext.Line(oneLineText(m.Content)), 60), m.Reason)
	}
}
