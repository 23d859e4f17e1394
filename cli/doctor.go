package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/install"
	"github.com/cairn-dev/cairn/memories"
	"github.com/cairn-dev/cairn/termtext"

	"github.com/spf13/cobra"
)

func newDoctorCmd(o *Options) *cobra.Command {
	var full bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check cairn's installation: hooks, MCP server, store, index lag, embedder, Ollama, reviews, hook errors",
		Long: `doctor checks everything cairn needs and says what to do about what is
wrong: the binary and its version, where the hooks, the MCP server and the
slash commands are installed, the store's health and size, how far the
derived indexes lag behind, the embedder in use and whether Ollama answers,
what awaits review, and the last problems the hooks logged. It checks the
store with SQLite's quick_check (--full: integrity_check, which also
compares every index with its table) and that the full-text index is not
empty over a full store. It changes nothing. Exit status 1 when a check
failed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			uo, err := installOptions(o, install.ScopeUser, true)
			if err != nil {
				return err
			}
			po, err := installOptions(o, install.ScopeProject, true)
			if err != nil {
				po = install.Options{}
			}
			dataDir, err := o.ResolveDataDir()
			if err != nil {
				return err
			}
			cfg, cerr := config.Load(dataDir)
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			rep := install.Doctor(ctx, install.DoctorOptions{User: uo, Project: po, DataDir: dataDir, Version: VersionString(),
				Config: cfg, Full: full, ConfigErr: cerr,
				Pending: func(ctx context.Context, st *index.Store) (int, int, error) {
					c, err := memories.New(st, cfg).Counts(ctx)
					return c.PendingMemories, c.PendingDrafts, err
				}})
			if o.JSON {
				if err := writeJSON(o.Stdout, rep); err != nil {
					return err
				}
			} else {
				printDoctor(o, rep)
			}
			if !rep.Healthy() {
				return errSilentFailure
			}
			return nil
		},
	}
	addJSONFlag(cmd, o)
	cmd.Flags().BoolVar(&full, "full", false, "run SQLite's full integrity_check (slower on a large store)")
	return cmd
}

// errSilentFailure makes the command exit 1 after it printed its own
// report.
var errSilentFailure = fmt.Errorf("some checks failed (see above)")

func printDoctor(o *Options, r *install.Report) {
	color := o.colorFor(o.Stdout)
	mark := map[string]string{install.OK: "ok  ", install.Warn: "WARN", install.Fail: "FAIL", install.Info: "info"}
	attrs := map[string]string{install.OK: "32", install.Warn: "33", install.Fail: "31", install.Info: "2"}
	for _, c := range r.Checks {
		m := sgr(color, attrs[c.Status], mark[c.Status])
		fmt.Fprintf(o.Stdout, "%s  %-15s %s\n", m, c.Name, termtext.Line(c.Detail))
		if c.Fix != "" && c.Status != install.OK {
			fmt.Fprintf(o.Stdout, "      %-15s → %s\n", "", c.Fix)
		}
	}
	for _, l := range r.HookLog {
		fmt.Fprintf(o.Stdout, "      %s\n", termtext.Line(truncate(l, 220)))
	}
	_ = os.Stdout
}
