package cli

import (
	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/hook"
)

func newHookCmd(o *Options) *cobra.Command {
	var background, session string
	cmd := &cobra.Command{
		Use:   "hook [EVENT]",
		Short: "Handle a Claude Code hook (reads the hook JSON on stdin; installed by `cairn install`)",
		Long: `hook is the headless handler Claude Code runs for SessionStart,
UserPromptSubmit, Stop, SubagentStop, PreCompact and SessionEnd. It reads the
hook JSON on stdin, never blocks Claude Code and never fails it: problems go
to hooks.log in the data dir and the hook exits 0 with nothing on stdout.
CAIRN_DISABLE=1 turns it off.

The cairn-hook binary (go install ./...) does the same with a fraction of
the start-up time (it does not link the terminal UI); cairn install uses it
when it is installed beside cairn.`,
		Hidden:      true,
		Args:        cobra.ArbitraryArgs,
		Annotations: map[string]string{annFailOpen: "hooks never fail Claude Code"},
		// Claude Code must never see a usage error from a hook.
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			var a []string
			if len(args) > 0 {
				a = append(a, args[0])
			}
			for _, f := range [][2]string{{"--data", o.DataDir}, {"--claude-dir", o.ClaudeDir}, {"--background", background}, {"--session", session}} {
				if f[1] != "" {
					a = append(a, f[0], f[1])
				}
			}
			hook.Main(a, o.Stdin, o.Stdout)
			return nil
		},
	}
	cmd.Flags().StringVar(&background, "background", "", "")
	cmd.Flags().StringVar(&session, "session", "", "")
	cmd.Flags().MarkHidden("background")
	cmd.Flags().MarkHidden("session")
	return cmd
}
