package cli

import (
	"context"
	"os"
	"strings"
	"time"

	"cairn/config"
	"cairn/hook"
	"cairn/index"

	"github.com/spf13/cobra"
)

func init() { register(newHookCmd) }

// hookMemories wires the memory service into the hooks and the MCP server
// (set by the file that adapts cairn/memories; nil: no memories).
var hookMemories func(st *index.Store, cfg config.Config) hook.Memories

// hookWatchdog is the longest a hook process lives, whatever happens.
const hookWatchdog = 8 * time.Second

func newHookCmd(o *Options) *cobra.Command {
	var background, session string
	cmd := &cobra.Command{
		Use:   "hook [EVENT]",
		Short: "Handle a Claude Code hook (reads the hook JSON on stdin; installed by `cairn install`)",
		Long: `hook is the headless handler Claude Code runs for SessionStart,
UserPromptSubmit, Stop, SubagentStop, PreCompact and SessionEnd. It reads the
hook JSON on stdin, never blocks Claude Code and never fails it: problems go
to hooks.log in the data dir and the hook exits 0 with nothing on stdout.
CAIRN_DISABLE=1 turns it off.`,
		Hidden: true,
		Args:   cobra.ArbitraryArgs,
		// Claude Code must never see a usage error from a hook.
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			if os.Getenv("CAIRN_DISABLE") == "1" {
				return nil
			}
			dataDir, err := o.ResolveDataDir()
			if err != nil {
				return nil
			}
			claudeDir, err := o.ResolveClaudeDir()
			if err != nil {
				hook.NewLogger(dataDir).Printf("hook: %v", err)
				return nil
			}
			exe, _ := os.Executable()
			env := hook.Env{
				Stdin: o.Stdin, Stdout: o.Stdout, DataDir: dataDir, ClaudeDir: claudeDir,
				ProjectDir: os.Getenv("CLAUDE_PROJECT_DIR"), Executable: exe,
				Memories: hookMemories,
			}
			if len(args) > 0 {
				env.Event = strings.TrimSpace(args[0])
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			if background != "" {
				_ = hook.Background(ctx, env, background, session)
				return nil
			}
			// Whatever happens below, this process ends in time and
			// with exit code 0.
			t := time.AfterFunc(hookWatchdog, func() {
				hook.NewLogger(dataDir).Printf("hook: still running after %s: exiting", hookWatchdog)
				os.Exit(0)
			})
			defer t.Stop()
			hook.Run(ctx, env)
			return nil
		},
	}
	cmd.Flags().StringVar(&background, "background", "", "")
	cmd.Flags().StringVar(&session, "session", "", "")
	cmd.Flags().MarkHidden("background")
	cmd.Flags().MarkHidden("session")
	return cmd
}
