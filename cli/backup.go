package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/human"

	"github.com/spf13/cobra"
)

func newBackupCmd(o *Options) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "backup",
		Short: "Write a verified snapshot of the whole store (sessions, memories, reviews) to one file",
		Long: `backup writes everything cairn keeps — every indexed session and entry
(also those whose transcripts Claude Code has deleted), memories, reviews,
drafts, summaries — to one SQLite file, while other cairn processes keep
working. The file is checked with integrity_check before it is named.
The search indexes are not in it: ` + "`cairn restore`" + ` rebuilds them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Refused before anything is opened or created: a folder
			// that is not there is a typo, not a request to make one.
			if output != "" {
				if fi, err := os.Stat(filepath.Dir(output)); err != nil || !fi.IsDir() {
					return usageError{fmt.Errorf("-o %s: the folder %s does not exist (create it first)", output, filepath.Dir(output))}
				}
			}
			return withApp(cmd.Context(), o, false, func(a *app.App) error {
				info, err := a.Backup(cmd.Context(), output)
				if err != nil {
					return err
				}
				return reply(o, info, "backed up %d sessions (%d entries) and %d memories to %s (%s)",
					info.Sessions, info.Entries, info.Memories, info.Path, human.Bytes(info.Bytes))
			})
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "backup file (default ./cairn-backup-<time>.db); must not exist")
	return cmd
}

func newRestoreCmd(o *Options) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "restore FILE",
		Short: "Replace the store with a backup file and rebuild its search indexes",
		Long: `restore checks FILE (a ` + "`cairn backup`" + ` file: SQLite's integrity check, cairn's
own tables and nothing else — no triggers, views or foreign tables — and
every compressed value), copies it into a folder beside the store, migrates
it there, keeps the current store in <data dir>/before-restore-<time>
(nothing is deleted), and puts the backup in its place with one rename: a
failure, a full disk or a kill at any moment leaves the old store or the new
one, never none. It then rebuilds the full-text index and vectors; if that is
interrupted, the next search rebuilds the full-text index from the store.
It refuses while another cairn process (the TUI, ` + "`cairn mcp`" + `) has the store
open, and refuses to replace a store holding sessions or memories without
--force. What ` + "`cairn forget`" + ` removed from the store stays forgotten in the
restored one. To go back, restore the database kept aside:
` + "`cairn restore --force <data dir>/before-restore-<time>/cairn.db`" + `.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := app.Restore(cmd.Context(), o.paths(), args[0], force, nil)
			if err != nil {
				return err
			}
			b := res.Backup
			if !o.JSON && res.Aside != "" {
				fmt.Fprintf(o.Stderr, "the previous store is kept in %s\n", res.Aside)
			}
			return reply(o, res.RestoreResult, "restored %d sessions (%d entries) and %d memories from %s; search indexes rebuilt",
				b.Sessions, b.Entries, b.Memories, b.Path)
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "replace a store that holds sessions or memories (it is kept aside)")
	return cmd
}
