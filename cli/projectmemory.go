// The commands that write a project's memory out as Markdown: `cairn sync`
// (the CLAUDE.md block) and `cairn synthesize` (the project's synthesis
// file, what /synthesize runs).

package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/memories"
	"github.com/cairn-dev/cairn/termtext"

	"github.com/spf13/cobra"
)

func newSyncCmd(o *Options) *cobra.Command {
	var project, target string
	var dry, all bool
	var lines int
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Write the project's approved memories into CLAUDE.md between cairn markers",
		Long: `sync writes a project's approved memories (and global ones) into a file
Claude Code reads, between the lines
  ` + memories.MarkerStart + `
  ` + memories.MarkerEnd + `
(appended at the end the first time). Everything outside the markers is
kept byte for byte; the write is atomic, and concurrent syncs of one file
take turns through a lock file. A file whose markers are broken or repeated
is refused with an explanation.

The project is a git repository: its worktrees and subfolders share its
memories. The target is --target (e.g. CLAUDE.local.md, or a file your
CLAUDE.md @imports), else the CLAUDE.md of the checkout you are in (a
linked worktree's own, since that is the one Claude Code reads there), else
<project>/CLAUDE.md. The block holds at most
memories.sync_lines lines (150), grouped by type, ordered by
confidence × (1 + accesses/10); a last line says how many more are searchable.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if all {
				if project != "" || target != "" {
					return usageError{fmt.Errorf("--all syncs every project's own CLAUDE.md: give it without --project or --target")}
				}
				return syncAll(cmd, o, dry, lines)
			}
			if project == "" && target == "" {
				project, target = ".", checkoutClaudeMD()
			}
			return syncProject(cmd.Context(), o, project, memories.SyncOptions{Target: target, DryRun: dry, Lines: lines})
		},
	}
	f := cmd.Flags()
	f.StringVar(&project, "project", "", "the project (a path, part of one, or .; default: the current directory)")
	f.StringVar(&target, "target", "", "file to write (default: <project>/CLAUDE.md)")
	f.BoolVar(&dry, "dry-run", false, "print the diff and change nothing")
	f.IntVar(&lines, "lines", 0, "line budget of the block (default memories.sync_lines)")
	f.BoolVar(&all, "all", false, "every project that has approved memories and whose folder exists")
	addJSONFlag(cmd, o)
	return cmd
}

// syncProject syncs project (as the person named it) with so.
func syncProject(ctx context.Context, o *Options, project string, so memories.SyncOptions) error {
	return withMemories(ctx, o, false, func(svc *memories.Service) error {
		p, err := resolveProject(ctx, svc.Store(), project)
		if err != nil {
			return err
		}
		so.Project = p
		res, err := svc.Sync.Sync(ctx, so)
		if err != nil {
			return err
		}
		if o.JSON {
			return writeJSON(o.Stdout, res)
		}
		printSynced(o, res, so.DryRun)
		return nil
	})
}

// checkoutClaudeMD is the CLAUDE.md of the checkout the current directory
// is in (a linked worktree's own: the one Claude Code reads there); ""
// when the directory is unknown.
func checkoutClaudeMD() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return filepath.Join(index.CheckoutOf(wd), "CLAUDE.md")
}

// printSynced says what `cairn sync` of one project did, with its counts:
// nothing, the diff it would write (dry), or what it wrote.
func printSynced(o *Options, res memories.SyncResult, dry bool) {
	switch {
	case !res.Changed:
		fmt.Fprintf(o.Stdout, "%s is up to date (%d memories)\n", res.Target, res.Memories)
	case dry:
		fmt.Fprint(o.Stdout, termtext.Safe(res.Diff))
		fmt.Fprintf(o.Stdout, "dry run: %s not changed (%d memories, %d left out by the line budget)\n", res.Target, res.Memories, res.Omitted)
	default:
		fmt.Fprintf(o.Stdout, "wrote %d memories to %s (%d left out by the line budget)\n", res.Memories, res.Target, res.Omitted)
	}
}

// projectsOf is the projects of ms, each once, in the order they first
// appear; memories of no project are left out.
func projectsOf(ms []memories.Memory) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		if m.Project != "" && !seen[m.Project] {
			seen[m.Project] = true
			out = append(out, m.Project)
		}
	}
	return out
}

// printSyncResult says what a sync of one project did: nothing, the
// diff it would write (dry), or what it wrote.
func printSyncResult(o *Options, res memories.SyncResult, dry bool) {
	switch {
	case !res.Changed:
		fmt.Fprintf(o.Stdout, "%s is up to date\n", res.Target)
	case dry:
		fmt.Fprint(o.Stdout, termtext.Safe(res.Diff))
	default:
		fmt.Fprintf(o.Stdout, "wrote %d memories to %s\n", res.Memories, res.Target)
	}
}

// syncAll syncs the CLAUDE.md of every project with approved memories
// whose folder still exists.
func syncAll(cmd *cobra.Command, o *Options, dry bool, lines int) error {
	return withMemories(cmd.Context(), o, false, func(svc *memories.Service) error {
		ms, err := svc.List(cmd.Context(), memories.Filter{Statuses: []memories.Status{memories.Approved}})
		if err != nil {
			return err
		}
		projects := projectsOf(ms)
		results := []memories.SyncResult{}
		for _, project := range projects {
			if res, ok := syncFolder(cmd.Context(), o, svc, memories.SyncOptions{Project: project, DryRun: dry, Lines: lines}); ok {
				results = append(results, res)
			}
		}
		if o.JSON {
			return writeJSON(o.Stdout, results)
		}
		if len(projects) == 0 {
			fmt.Fprintln(o.Stdout, "no project has approved memories")
		}
		return nil
	})
}

// syncFolder is one project of `cairn sync --all`: skipped, with a word
// on stderr, when its folder is gone or the sync fails.
func syncFolder(ctx context.Context, o *Options, svc *memories.Service, so memories.SyncOptions) (memories.SyncResult, bool) {
	if fi, err := os.Stat(so.Project); err != nil || !fi.IsDir() {
		fmt.Fprintf(o.Stderr, "cairn: skipped %s: the folder is gone\n", so.Project)
		return memories.SyncResult{}, false
	}
	res, err := svc.Sync.Sync(ctx, so)
	if err != nil {
		fmt.Fprintln(o.Stderr, "cairn:", err)
		return res, false
	}
	if !o.JSON {
		printSyncResult(o, res, so.DryRun)
	}
	return res, true
}

func newSynthesizeCmd(o *Options) *cobra.Command {
	var project, output string
	var dry, print bool
	cmd := &cobra.Command{
		Use:   "synthesize --project P",
		Short: "Write the project memory from approved memories and summaries; print what changed",
		Long: `synthesize writes a project's memory: current status, key decisions by
theme, learnings, how things evolved and open questions, from its approved
memories and session summaries. It is incremental: when nothing changed
since the last synthesis it says so and rewrites nothing; otherwise it
prints a diff of what changed. The synthesis is kept in the store
(--print shows it; --output also writes it to a file).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if project == "" {
				return usageError{fmt.Errorf("--project is required (a path, part of one, or .)")}
			}
			return withMemories(cmd.Context(), o, false, func(svc *memories.Service) error {
				st := svc.Store()
				p, err := resolveProject(cmd.Context(), st, project)
				if err != nil {
					return err
				}
				syn, err := svc.Drafts.Synthesize(cmd.Context(), p, dry)
				if err != nil {
					return err
				}
				if output != "" && !dry {
					if err := os.WriteFile(output, []byte(syn.Markdown), 0o644); err != nil {
						return fmt.Errorf("writing %s: %w", output, err)
					}
				}
				if o.JSON {
					return writeJSON(o.Stdout, syn)
				}
				printSynthesis(o, p, syn, print, dry)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&project, "project", "", "the project (a path, part of one, or .)")
	f.BoolVar(&dry, "dry-run", false, "show the diff without storing the new synthesis")
	f.BoolVar(&print, "print", false, "print the whole synthesis instead of the diff")
	f.StringVar(&output, "output", "", "also write the synthesis to this file")
	addJSONFlag(cmd, o)
	return cmd
}

// printSynthesis shows project p's synthesis syn: whole (print), or what
// changed since the last one.
func printSynthesis(o *Options, p string, syn memories.Synthesis, print, dry bool) {
	switch {
	case print:
		fmt.Fprint(o.Stdout, termtext.Safe(syn.Markdown))
	case !syn.Changed:
		fmt.Fprintf(o.Stdout, "synthesis of %s is up to date (nothing changed since the last one)\n", p)
	default:
		fmt.Fprint(o.Stdout, termtext.Safe(syn.Diff))
		verb := "updated"
		if dry {
			verb = "would be updated (dry run)"
		}
		fmt.Fprintf(o.Stdout, "synthesis of %s %s: %d input(s) added, %d changed, %d removed\n", p, verb, syn.Added, syn.Updated, syn.Removed)
	}
}
