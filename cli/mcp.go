package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/mcpserver"
	"github.com/cairn-dev/cairn/plugin"

	"github.com/spf13/cobra"
)

func newMCPCmd(o *Options) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Run cairn's MCP server on stdin/stdout (registered with Claude Code by `cairn install`)",
		Long: `mcp serves the Model Context Protocol over stdio for Claude Code: tools to
recall past sessions (memory_recall, memory_timeline, memory_projects,
session_read), curated memories (memory_brief, memory_search,
memory_related, memory_remember, memory_correct, memory_forget,
memory_ask) and save a session's summary (session_save_summary). Register
it with ` + "`cairn install`" + ` or:

  claude mcp add --scope user cairn -- cairn mcp`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f, ok := o.Stdin.(*os.File); ok && isTerminal(f) {
				fmt.Fprintln(o.Stderr, "cairn mcp speaks JSON-RPC on stdin/stdout for Claude Code; register it with `cairn install` (Ctrl-C to quit)")
			}
			opts := mcpserver.Options{Version: strings.TrimPrefix(VersionString(), "cairn "),
				Project: currentProject(), SessionID: os.Getenv("CLAUDE_CODE_SESSION_ID")}
			if os.Getenv(plugin.EnvViaPlugin) == "1" {
				if files := installedMCP(o, opts.Project); len(files) > 0 {
					// The plugin's copy stands down: the server cairn
					// install registered answers (doctor reports it).
					opts.StandDown = "cairn is installed twice (this plugin, and `cairn install` in " + strings.Join(files, ", ") +
						"): this copy offers no tools; use the tools of the `cairn` server. Tell the user to run `cairn doctor`."
					return serveMCP(cmd, opts)
				}
			}
			a, err := openApp(o, app.Options{BusyTimeout: 2 * time.Second, SmallCache: true})
			switch {
			case app.IsConfigError(err):
				// The server still starts: every tool says what to fix.
				fmt.Fprintln(o.Stderr, "cairn:", err)
				opts.Broken = err
			case err != nil:
				return err
			default:
				defer a.Close()
				opts.App = a
			}
			return serveMCP(cmd, opts)
		},
	}
}

// serveMCP runs the MCP server until stdin closes or cmd's context ends;
// neither is an error.
func serveMCP(cmd *cobra.Command, opts mcpserver.Options) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	if err := mcpserver.Run(ctx, opts); err != nil && ctx.Err() == nil && !isClosed(err) {
		return err
	}
	return nil
}

// installedMCP lists the files where cairn install registered cairn's MCP
// server (user, local or project scope).
func installedMCP(o *Options, project string) []string {
	claude, err := o.ResolveClaudeDir()
	if err != nil {
		return nil
	}
	return plugin.InstalledMCP(project, claudeJSON(o, claude), filepath.Join(project, ".mcp.json"))
}

func isClosed(err error) bool {
	s := err.Error()
	return strings.Contains(s, "EOF") || strings.Contains(s, "closed") || os.IsNotExist(err)
}
