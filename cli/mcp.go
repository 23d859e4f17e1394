package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/mcpserver"
	"github.com/cairn-dev/cairn/memories"

	"github.com/spf13/cobra"
)

func init() { register(newMCPCmd) }

func newMCPCmd(o *Options) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Run cairn's MCP server on stdin/stdout (registered with Claude Code by `cairn install`)",
		Long: `mcp serves the Model Context Protocol over stdio for Claude Code: tools to
recall past sessions (memory_recall, memory_timeline, memory_projects,
session_read) and curated memories (memory_search, memory_related,
memory_remember). Register it with ` + "`cairn install`" + ` or:

  claude mcp add --scope user cairn -- cairn mcp`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f, ok := o.Stdin.(*os.File); ok && isTerminal(f) {
				fmt.Fprintln(o.Stderr, "cairn mcp speaks JSON-RPC on stdin/stdout for Claude Code; register it with `cairn install` (Ctrl-C to quit)")
			}
			dir, err := o.ResolveDataDir()
			if err != nil {
				return err
			}
			st, err := index.OpenWith(dir, index.OpenOptions{BusyTimeout: 2 * time.Second, SmallCache: true})
			if err != nil {
				return err
			}
			defer st.Close()
			cfg, err := config.Load(dir)
			if err != nil {
				fmt.Fprintln(o.Stderr, "cairn:", err, "(using the defaults)")
			}
			st.SetEmbedder(embedderConfig(cfg))
			claude, err := o.ResolveClaudeDir()
			if err != nil {
				claude = ""
			}
			opts := mcpserver.Options{Store: st, Config: cfg, ClaudeDir: claude, Version: strings.TrimPrefix(VersionString(), "cairn "),
				Memories: memories.New(st, cfg), Project: os.Getenv("CLAUDE_PROJECT_DIR"), SessionID: os.Getenv("CLAUDE_CODE_SESSION_ID")}
			if opts.Project == "" {
				opts.Project, _ = os.Getwd()
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			err = mcpserver.Run(ctx, opts)
			if err != nil && ctx.Err() == nil && !isClosed(err) {
				return err
			}
			return nil
		},
	}
}

func isClosed(err error) bool {
	s := err.Error()
	return strings.Contains(s, "EOF") || strings.Contains(s, "closed") || os.IsNotExist(err)
}
