package cli

import (
	"fmt"
	"os"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/memories"
	"github.com/cairn-dev/cairn/termtext"

	"github.com/spf13/cobra"
)

func init() { register(newSynthesizeCmd) }

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
			return withMemories(cmd.Context(), o, false, func(svc *memories.Service, st *index.Store) error {
				p, err := resolveProject(cmd.Context(), st, project)
				if err != nil {
					return err
				}
				syn, err := svc.Synthesize(cmd.Context(), p, dry)
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
