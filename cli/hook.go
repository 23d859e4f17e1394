package cli

import (
	"context"
	"os"
	"strings"
	"time"

	"cairn/config"
	"cairn/hook"
	"cairn/index"
	"cairn/memories"

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

func init() {
	hookMemories = func(st *index.Store, cfg config.Config) hook.Memories {
		return hookMem{memories.New(st, cfg)}
	}
}

// hookMem adapts the memory service to what the hooks need.
type hookMem struct{ s *memories.Service }

func toHookMemories(rs []memories.Ranked) []hook.Memory {
	out := make([]hook.Memory, len(rs))
	for i, r := range rs {
		out[i] = hook.Memory{ID: r.ID, Type: string(r.Type), Content: r.Content, Importance: r.Importance, Score: r.Score}
	}
	return out
}

func (m hookMem) Top(ctx context.Context, project string, limit int) ([]hook.Memory, error) {
	rs, err := m.s.Top(ctx, project, limit)
	return toHookMemories(rs), err
}

func (m hookMem) Rank(ctx context.Context, query, project string, limit int, threshold float64, exclude []string) ([]hook.Memory, error) {
	if threshold <= 0 {
		threshold = 1e-9 // 0 would mean memories.min_relevance
	}
	rs, err := m.s.Rank(ctx, query, memories.RankOptions{Project: project, Limit: limit, Threshold: threshold, Exclude: exclude, Touch: true})
	return toHookMemories(rs), err
}

func (m hookMem) Summaries(ctx context.Context, project string, limit int) ([]hook.Summary, error) {
	ss, err := m.s.Summaries(ctx, project, limit)
	out := make([]hook.Summary, len(ss))
	for i, s := range ss {
		out[i] = hook.Summary{SessionID: s.SessionID, Created: s.Created, Sections: s.Sections}
	}
	return out, err
}

func (m hookMem) Pending(ctx context.Context) (int, int, error) {
	c, err := m.s.Counts(ctx)
	return c.PendingMemories, c.PendingDrafts, err
}

func (m hookMem) Injected(ctx context.Context, session string) ([]string, error) {
	return m.s.Injected(ctx, session)
}

func (m hookMem) RecordInjection(ctx context.Context, session, event string, ids []string) error {
	return m.s.RecordInjection(ctx, session, event, ids)
}

func (m hookMem) ScoreUsage(ctx context.Context, session string) (int, int, error) {
	return m.s.ScoreUsage(ctx, session)
}

func (m hookMem) ExtractSession(ctx context.Context, session string) (int, error) {
	r, err := m.s.ExtractSession(ctx, session, memories.ExtractOptions{MaxEntries: hookExtractMax})
	n := 0
	for _, p := range r.Proposed {
		if p.Action == "added" {
			n++
		}
	}
	return n, err
}

func (m hookMem) StoreSummary(ctx context.Context, session string) error {
	_, err := m.s.StoreSummary(ctx, session)
	return err
}

// hookExtractMax caps the entries one hook extracts from (the rest is
// extracted by the next Stop): it bounds the hook's time on a session that
// was never extracted.
const hookExtractMax = 400
