package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/memories"

	"github.com/spf13/cobra"
)

func newExportCmd(o *Options) *cobra.Command {
	var format, output, project string
	var sessions bool
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export memories, their links, session summaries and drafts (jsonl or markdown)",
		Long: `export writes every memory (with its links), session summary and draft.
--format jsonl (default) is exact: ` + "`cairn import`" + ` reads it back unchanged.
--format markdown is for reading.

--sessions instead writes the stored sessions (all, or --project's) back out
as Claude Code transcripts under DIR/projects/ (-o DIR, a new or empty
folder): history Claude Code deleted becomes readable by any tool again,
and ` + "`cairn index --claude-dir DIR`" + ` reads it back to the same sessions.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if sessions {
				return exportSessions(cmd, o, output, project)
			}
			if project != "" {
				return usageError{fmt.Errorf("--project goes with --sessions")}
			}
			if format != "jsonl" && format != "markdown" && format != "md" {
				return usageError{fmt.Errorf("unknown format %q: use jsonl or markdown", format)}
			}
			return withMemories(cmd.Context(), o, false, func(svc *memories.Service) error {
				var c memories.ExportCounts
				err := writeOutput(o, output, func(w io.Writer) (err error) {
					c, err = exportMemories(cmd, svc, format, w)
					return err
				})
				if err != nil {
					return err
				}
				fmt.Fprintf(o.Stderr, "exported %d memories (%d links), %d summaries, %d drafts\n", c.Memories, c.Links, c.Summaries, c.Drafts)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "jsonl", "jsonl (exact, importable) or markdown (for reading)")
	f.StringVarP(&output, "output", "o", "", "write to this file instead of stdout (with --sessions: the folder to write to)")
	f.BoolVar(&sessions, "sessions", false, "export the stored sessions as Claude Code JSONL files (-o DIR)")
	f.StringVar(&project, "project", "", "with --sessions: only this project's sessions")
	flagChoices(cmd, "format", false, "jsonl", "markdown")
	return cmd
}

// exportMemories writes svc's memories, links, summaries and drafts to
// w as format: jsonl, or else markdown.
func exportMemories(cmd *cobra.Command, svc *memories.Service, format string, w io.Writer) (memories.ExportCounts, error) {
	if format == "jsonl" {
		return svc.Sync.ExportJSONL(cmd.Context(), w)
	}
	return svc.Sync.ExportMarkdown(cmd.Context(), w)
}

// writeOutput has write write to stdout, or, for an output file (not ""
// or "-"), to a temporary file beside it that replaces output (mode
// 0600) only once write has succeeded.
func writeOutput(o *Options, output string, write func(io.Writer) error) error {
	if output == "" || output == "-" {
		return write(o.Stdout)
	}
	f, err := os.CreateTemp(filepath.Dir(output), ".cairn-export-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", output, err)
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o600); err != nil {
		return err
	}
	return os.Rename(f.Name(), output)
}

// exportSessions is `cairn export --sessions`.
func exportSessions(cmd *cobra.Command, o *Options, dir, project string) error {
	if dir == "" || dir == "-" {
		return usageError{fmt.Errorf("--sessions needs -o DIR: the folder to write projects/ into")}
	}
	if cmd.Flags().Changed("format") {
		return usageError{fmt.Errorf("--format does not apply to --sessions (they are written as Claude Code JSONL)")}
	}
	return withApp(cmd.Context(), o, true, func(a *app.App) error {
		res, err := a.ExportSessions(cmd.Context(), dir, project)
		if err != nil {
			return err
		}
		return reply(o, res, "exported %d sessions (%d entries) as %d Claude Code transcript files under %s",
			res.Sessions, res.Entries, res.Files, filepath.Join(dir, "projects"))
	})
}

func newImportCmd(o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import [FILE]",
		Short: "Import a JSONL export (memories, links, summaries, drafts); FILE or stdin",
		Long: `import reads what ` + "`cairn export --format jsonl`" + ` wrote. Every line is checked
first: a bad line is reported by number and nothing is imported. Records
whose id exists replace it, so importing the same file twice is harmless.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var r io.Reader = o.Stdin
			if len(args) == 1 && args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				r = f
			}
			return withMemories(cmd.Context(), o, false, func(svc *memories.Service) error {
				c, err := svc.Sync.Import(cmd.Context(), r)
				if err != nil {
					return err
				}
				if o.JSON {
					return writeJSON(o.Stdout, c)
				}
				fmt.Fprintf(o.Stdout, "imported %d memories (%d links, %d replaced existing ones), %d summaries, %d drafts\n",
					c.Memories, c.Links, c.Replaced, c.Summaries, c.Drafts)
				return nil
			})
		},
	}
	addJSONFlag(cmd, o)
	return cmd
}
