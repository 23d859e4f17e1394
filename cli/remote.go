package cli

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/remote"
	"github.com/cairn-dev/cairn/termtext"

	"github.com/spf13/cobra"
)

// newRemoteCmd is `cairn remote`: sync sessions and reviewed memories
// between machines through a git repository the user owns (the remote
// package; docs/remote.md).
func newRemoteCmd(o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "remote",
		Short: "Sync sessions and reviewed memories across machines through a git remote you own",
		Long: `cairn remote keeps several machines' cairn in step through a git repository
you own (any URL your git can push to: SSH, HTTPS, a bare repository on a
disk). Nothing leaves this machine until you run cairn remote init.

Each machine pushes its sessions (redacted as stored, one compressed file per
session, named by its content), its reviewed memories and review decisions,
and what cairn forget removed; it pulls and indexes the others'. Sessions
from another machine are marked with its name and are never resumed as if
local. Projects opted out (.cairnignore, index.exclude) never leave the
machine. See docs/remote.md.`,
	}
	cmd.AddCommand(newRemoteInitCmd(o), newRemoteSyncCmd(o), newRemoteStatusCmd(o), newRemoteSessionsCmd(o))
	return cmd
}

func newRemoteInitCmd(o *Options) *cobra.Command {
	var machine string
	cmd := &cobra.Command{
		Use:   "init <git-url>",
		Short: "Set the git remote and this machine's name (nothing is pushed until sync)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dataDir, err := o.ResolveDataDir()
			if err != nil {
				return err
			}
			c, err := remote.Init(cmd.Context(), dataDir, args[0], machine)
			if err != nil {
				if strings.HasPrefix(err.Error(), "machine name") {
					return usageError{err}
				}
				return err
			}
			return reply(o, c, "remote %s, this machine is %q: run `cairn remote sync` to push and pull", c.URL, c.Machine)
		},
	}
	cmd.Flags().StringVar(&machine, "machine", "", "this machine's name in the remote (default $CAIRN_MACHINE or the host name)")
	addJSONFlag(cmd, o)
	return cmd
}

func newRemoteSyncCmd(o *Options) *cobra.Command {
	var noIndex bool
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Pull the other machines' sessions, memories and forgets, then push this machine's",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkClaudeDir(o.ClaudeDir); err != nil {
				return err
			}
			opts := remote.Options{IndexFirst: !noIndex}
			if !o.JSON {
				opts.Progress = func(msg string) { fmt.Fprintln(o.Stderr, "cairn remote:", termtext.Line(msg)) }
			}
			// Pulling another machine's history indexes it: the bulk
			// indexing's memory policy (`cairn index`'s) from the start,
			// with a bound above the live heap of a 1 GB pull (~170 MB:
			// under 160 MB the collector ran without pause, 2.5x the time).
			bulk, restore := boundMemory(256 << 20)
			defer restore()
			bulk()
			res, err := remote.Sync(cmd.Context(), o.paths(), opts)
			if err != nil {
				return err
			}
			if o.JSON {
				return writeJSON(o.Stdout, res)
			}
			for _, w := range res.Warnings {
				fmt.Fprintln(o.Stderr, "cairn remote: warning:", termtext.Line(w))
			}
			fmt.Fprintf(o.Stdout, "%s: pushed %d sessions (%s), %d unchanged, %d opted out; pulled %d sessions (%s); memories: %d pushed, %d pulled, %d conflicts to review; %d forgotten",
				res.Machine, res.PushedSessions, byteSize(res.PushedBytes), res.KeptSessions, res.Excluded,
				res.PulledSessions, byteSize(res.PulledBytes), res.MemPushed, res.MemPulled, res.Conflicts, res.Forgotten)
			if res.Compacted {
				fmt.Fprint(o.Stdout, "; history replaced (a forget)")
			}
			fmt.Fprintf(o.Stdout, " in %s\n", res.Duration.Round(time.Millisecond))
			return nil
		},
	}
	cmd.Flags().BoolVar(&noIndex, "no-index", false, "push what the store holds without reading new transcripts first")
	addJSONFlag(cmd, o)
	return cmd
}

func newRemoteStatusCmd(o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status",
		Short: "The remote, this machine's name, the last sync and its errors (no network)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dataDir, err := o.ResolveDataDir()
			if err != nil {
				return err
			}
			s, err := remote.ReadStatus(dataDir)
			if err != nil {
				return err
			}
			if o.JSON {
				return writeJSON(o.Stdout, s)
			}
			fmt.Fprintf(o.Stdout, "remote   %s\nmachine  %s\n", termtext.Line(s.Config.URL), s.Config.Machine)
			if s.LastSync.IsZero() {
				fmt.Fprintln(o.Stdout, "last     never synced")
			} else {
				fmt.Fprintf(o.Stdout, "last     %s\n", s.LastSync.Local().Format("2006-01-02 15:04"))
			}
			if s.LastError != "" {
				fmt.Fprintf(o.Stdout, "error    %s (%s)\n", termtext.Line(s.LastError), s.LastErrorAt.Local().Format("2006-01-02 15:04"))
			}
			ms := make([]string, 0, len(s.Machines))
			for m := range s.Machines {
				ms = append(ms, m)
			}
			sort.Strings(ms)
			for _, m := range ms {
				fmt.Fprintf(o.Stdout, "from     %s: %d sessions\n", m, s.Machines[m])
			}
			return nil
		},
	}
	addJSONFlag(cmd, o)
	return cmd
}

// remoteSession is a session listed with the machine it came from.
type remoteSession struct {
	Machine string    `json:"machine"`
	ID      string    `json:"id"`
	Project string    `json:"project"`
	Title   string    `json:"title"`
	Start   time.Time `json:"start"`
}

func newRemoteSessionsCmd(o *Options) *cobra.Command {
	var machine string
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "Sessions imported from other machines, with the machine each came from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withApp(cmd.Context(), o, false, func(a *app.App) error {
				origins, err := a.Store.SessionOrigins(cmd.Context())
				if err != nil {
					return err
				}
				ss, err := a.Store.Sessions(cmd.Context(), index.SessionFilter{})
				if err != nil {
					return err
				}
				out := []remoteSession{}
				for _, s := range ss {
					m, ok := origins[s.ID]
					if !ok || machine != "" && m != machine {
						continue
					}
					out = append(out, remoteSession{Machine: m, ID: s.ID, Project: s.ProjectPath, Title: s.Title, Start: s.Start})
				}
				if o.JSON {
					return writeJSON(o.Stdout, out)
				}
				for _, r := range out {
					fmt.Fprintf(o.Stdout, "%-12s %s  %s  %s  %s\n", termtext.Line(r.Machine), r.ID[:8], r.Start.Local().Format("2006-01-02 15:04"),
						termtext.Line(r.Project), termtext.Line(r.Title))
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&machine, "machine", "", "only this machine's sessions")
	addJSONFlag(cmd, o)
	return cmd
}

// byteSize is n bytes for a person: 512 B, 3.4 KB, 12.0 MB.
func byteSize(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.2f GB", float64(n)/1e9)
}
