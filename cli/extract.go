package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/cairn-dev/cairn/memories"
	"github.com/cairn-dev/cairn/termtext"

	"github.com/spf13/cobra"
)

func newExtractCmd(o *Options) *cobra.Command {
	var session, since string
	var dry, noNative, noSummaries bool
	cmd := &cobra.Command{
		Use:   "extract",
		Short: "Propose memories from new session entries (and Claude's own memory files)",
		Long: `extract indexes new transcript lines, then reads every session's entries
past its extraction cursor (so nothing is read twice) and proposes memories:
explicit instructions and preferences, decisions, bug causes and fixes,
commands that worked after failures, and open to-dos. They land pending:
review them with ` + "`cairn memories list`" + ` and approve or reject them.
It also stores each session's heuristic summary and imports Claude Code's
own memory files (projects/<P>/memory/*.md) as pending memories.

The extractor is memories.extractor in the config: builtin (default, no
model), ollama (ollama.chat_model) or claude (your Claude Code, claude -p,
one run per session with new entries, within claude.daily_runs); when the
model cannot be used the built-in extractor is used and a notice says why.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := memories.ExtractOptions{Session: session, DryRun: dry, Summaries: !noSummaries}
			if err := sinceOrSession(&opts, since); err != nil {
				return err
			}
			claude, err := o.ResolveClaudeDir()
			if err != nil {
				return err
			}
			return withMemories(cmd.Context(), o, true, func(svc *memories.Service) error {
				start := time.Now()
				res, err := svc.Curator.Extract(cmd.Context(), opts)
				if err != nil {
					return err
				}
				if !noNative && session == "" {
					res.Proposed = append(res.Proposed, importNative(cmd.Context(), o, svc, claude, dry)...)
				}
				if res.Notice != "" {
					fmt.Fprintln(o.Stderr, "cairn:", res.Notice)
				}
				if o.JSON {
					return writeJSON(o.Stdout, res)
				}
				printProposed(o, res.Proposed, dry)
				fmt.Fprintf(o.Stdout, "read %d new entries of %d session(s) with the %s extractor in %s\n",
					res.Entries, res.Sessions, res.Extractor, time.Since(start).Round(time.Millisecond))
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&session, "session", "", "only this session (an id or 8+ characters of one)")
	f.StringVar(&since, "since", "", "only sessions active since: 7d, 24h, 2w or a date")
	flagCheck(cmd, "since", checkSince)
	f.BoolVar(&dry, "dry-run", false, "show what would be proposed; store nothing and move no cursor")
	f.BoolVar(&noNative, "no-claude-memory", false, "do not import Claude Code's memory files")
	f.BoolVar(&noSummaries, "no-summaries", false, "do not store heuristic session summaries")
	addJSONFlag(cmd, o)
	return cmd
}

// sinceOrSession sets opts.Since from --since, which does not go with
// --session.
func sinceOrSession(opts *memories.ExtractOptions, since string) error {
	if since == "" {
		return nil
	}
	if opts.Session != "" {
		return usageError{fmt.Errorf("give --session or --since, not both")}
	}
	t, err := parseSince(since, time.Now())
	if err != nil {
		return usageError{fmt.Errorf("--since: %w", err)}
	}
	opts.Since = t
	return nil
}

// importNative imports Claude Code's own memory files under claude as
// pending memories, and returns those proposed; a failure is a warning.
func importNative(ctx context.Context, o *Options, svc *memories.Service, claude string, dry bool) []memories.AddResult {
	native, err := svc.Sync.ImportClaudeMemory(ctx, claude, dry)
	if err != nil {
		fmt.Fprintln(o.Stderr, "cairn: warning: importing Claude's memory files:", err)
	}
	return native.Proposed
}

func newSummaryCmd(o *Options) *cobra.Command {
	var store bool
	cmd := &cobra.Command{
		Use:   "summary SESSION",
		Short: "Print a session's summary (the stored one, else built from the transcript)",
		Long: `summary prints the structured summary of a session (Request, Investigated,
Learned, Completed, Next steps, Files read, Files edited, Notes): the approved
draft or stored summary when there is one, else one built from the
transcript (--store keeps it; ` + "`cairn extract`" + ` stores them too).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withMemories(cmd.Context(), o, true, func(svc *memories.Service) error {
				var sum *memories.Summary
				var err error
				if store {
					sum, err = svc.StoreSummary(cmd.Context(), args[0])
				} else {
					sum, err = svc.Drafts.Summary(cmd.Context(), args[0])
				}
				if err != nil {
					return err
				}
				if o.JSON {
					return writeJSON(o.Stdout, sum)
				}
				fmt.Fprintf(o.Stdout, "session %s · %s summary · %s\n\n", sum.SessionID, sum.Source, fmtTime(sum.Created))
				fmt.Fprint(o.Stdout, termtext.Safe(sum.Markdown))
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&store, "store", false, "store the built summary (search finds it with --kind summaries)")
	addJSONFlag(cmd, o)
	return cmd
}
