package cli

import (
	"errors"
	"fmt"

	"github.com/cairn-dev/cairn/app"

	"github.com/spf13/cobra"
)

func newForgetCmd(o *Options) *cobra.Command {
	var project, session string
	cmd := &cobra.Command{
		Use:   "forget (--project P | --session ID)",
		Short: "Delete a project or a session from cairn for good, and never index it again",
		Long: `forget deletes everything cairn stored of a project or a session: its
sessions and entries, redaction records, summaries, drafts, the memories
drawn from it (trash, corrections and their audit trails included), the
syntheses and recent-session lists quoting it, its vectors and full-text
documents. Deleted pages are overwritten, the search indexes (and the
built-in embedder's model) are rebuilt without it, and a tombstone keeps the
next index, import-claude and extract from reading it again although the
transcript files stay where Claude Code wrote them. It is forgotten in the
automatic backups and in the stores restores kept aside (before-restore-*)
too; backups you wrote elsewhere with ` + "`cairn backup -o`" + ` still hold it. A forget
that is interrupted is finished by the next cairn command.

To keep a project out before it is indexed, add its path to index.exclude
in the config, or put a .cairnignore file in its folder.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (project == "") == (session == "") {
				return usageError{errors.New("give exactly one of --project and --session")}
			}
			return withApp(cmd.Context(), o, false, func(a *app.App) error {
				res, err := a.Forget(cmd.Context(), project, session, nil)
				if err != nil {
					return err
				}
				what := "project " + res.Project
				if res.Session != "" {
					what = "session " + res.Session
				}
				if res.Pending && !o.JSON {
					o.Stderr.Write([]byte("cairn: another cairn process holds an old snapshot: the deleted pages are overwritten once it closes\n"))
				}
				if len(res.Copies) > 0 && !o.JSON {
					for _, c := range res.Copies {
						fmt.Fprintf(o.Stderr, "forgotten in the copy %s too\n", c)
					}
				}
				return reply(o, res, "forgot %s: %d sessions, %d entries, %d memories, %d summaries, %d drafts; it will not be indexed again",
					what, res.Sessions, res.Entries, res.Memories, res.Summaries, res.Drafts)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&project, "project", "", "the project to forget (a path or a unique part of it)")
	f.StringVar(&session, "session", "", "the session to forget (an id or a prefix of 8+ characters)")
	return cmd
}
