package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/memories"

	"github.com/spf13/cobra"
)

func init() {
	register(newExportCmd)
	register(newImportCmd)
}

func newExportCmd(o *Options) *cobra.Command {
	var format, output string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export memories, their links, session summaries and drafts (jsonl or markdown)",
		Long: `export writes every memory (with its links), session summary and draft.
--format jsonl (default) is exact: ` + "`cairn import`" + ` reads it back unchanged.
--format markdown is for reading.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "jsonl" && format != "markdown" && format != "md" {
				return usageError{fmt.Errorf("unknown format %q: use jsonl or markdown", format)}
			}
			return withMemories(cmd.Context(), o, false, func(svc *memories.Service) error {
				var w io.Writer = o.Stdout
				var f *os.File
				if output != "" && output != "-" {
					var err error
					f, err = os.CreateTemp(filepath.Dir(output), ".cairn-export-*")
					if err != nil {
						return fmt.Errorf("writing %s: %w", output, err)
					}
					defer os.Remove(f.Name())
					w = f
				}
				var c memories.ExportCounts
				var err error
				if format == "jsonl" {
					c, err = svc.ExportJSONL(cmd.Context(), w)
				} else {
					c, err = svc.ExportMarkdown(cmd.Context(), w)
				}
				if err != nil {
					return err
				}
				if f != nil {
					if err := f.Close(); err != nil {
						return err
					}
					if err := os.Chmod(f.Name(), 0o600); err != nil {
						return err
					}
					if err := os.Rename(f.Name(), output); err != nil {
						return err
					}
				}
				fmt.Fprintf(o.Stderr, "exported %d memories (%d links), %d summaries, %d drafts\n", c.Memories, c.Links, c.Summaries, c.Drafts)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "jsonl", "jsonl (exact, importable) or markdown (for reading)")
	f.StringVarP(&output, "output", "o", "", "write to this file instead of stdout")
	flagChoices(cmd, "format", false, "jsonl", "markdown")
	return cmd
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
				c, err := svc.Import(cmd.Context(), r)
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
