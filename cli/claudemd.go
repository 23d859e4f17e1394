package cli

import (
	"fmt"
	"strings"

	"cairn/index"
	"cairn/memories"

	"github.com/spf13/cobra"
)

func init() { register(newSyncCmd) }

func newSyncCmd(o *Options) *cobra.Command {
	var project, target string
	var dry bool
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

The target is --target (e.g. CLAUDE.local.md, or a file your CLAUDE.md
@imports), else <project>/CLAUDE.md. The block holds at most
memories.sync_lines lines (150), grouped by type, ordered by
confidence × (1 + accesses/10); a last line says how many more are searchable.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if project == "" && target == "" {
				project = "."
			}
			return withMemories(cmd.Context(), o, false, func(svc *memories.Service, st *index.Store) error {
				p, err := resolveProject(st, project)
				if err != nil {
					return err
				}
				res, err := svc.Sync(cmd.Context(), memories.SyncOptions{Project: p, Target: target, DryRun: dry, Lines: lines})
				if err != nil {
					return err
				}
				if o.JSON {
					return writeJSON(o.Stdout, res)
				}
				switch {
				case !res.Changed:
					fmt.Fprintf(o.Stdout, "%s is up to date (%d memories)\n", res.Target, res.Memories)
				case dry:
					fmt.Fprint(o.Stdout, sanitizeBlock(res.Diff))
					fmt.Fprintf(o.Stdout, "dry run: %s not changed (%d memories, %d left out by the line budget)\n", res.Target, res.Memories, res.Omitted)
				default:
					fmt.Fprintf(o.Stdout, "wrote %d memories to %s (%d left out by the line budget)\n", res.Memories, res.Target, res.Omitted)
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&project, "project", "", "the project (a path, part of one, or .; default: the current directory)")
	f.StringVar(&target, "target", "", "file to write (default: <project>/CLAUDE.md)")
	f.BoolVar(&dry, "dry-run", false, "print the diff and change nothing")
	f.IntVar(&lines, "lines", 0, "line budget of the block (default memories.sync_lines)")
	addJSONFlag(cmd, o)
	return cmd
}

// sanitizeBlock neutralises control characters line by line.
func sanitizeBlock(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = sanitizeLine(l)
	}
	return strings.Join(lines, "\n")
}
