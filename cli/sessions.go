package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/termtext"
	"github.com/cairn-dev/cairn/transcripts"

	"github.com/spf13/cobra"
)

// SessionJSON is the stable --json shape of a session.
type SessionJSON struct {
	ID              string         `json:"id"`
	Project         string         `json:"project"`
	ProjectDir      string         `json:"project_dir"`
	CWD             string         `json:"cwd"` // the folder it ran in: the project, or a worktree or subfolder of it
	Title           string         `json:"title"`
	TitleSource     string         `json:"title_source"`
	Start           *time.Time     `json:"start"`
	End             *time.Time     `json:"end"`
	DurationSeconds int64          `json:"duration_seconds"`
	Model           string         `json:"model"`
	Models          []string       `json:"models"`
	Branches        []string       `json:"branches"`
	Prompts         int            `json:"prompts"`
	AssistantTurns  int            `json:"assistant_turns"`
	ToolCalls       int            `json:"tool_calls"`
	Errors          int            `json:"errors"`
	Entries         int            `json:"entries"`
	Tokens          TokensJSON     `json:"tokens"`
	FilesRead       []string       `json:"files_read"`
	FilesEdited     []string       `json:"files_edited"`
	Commands        int            `json:"commands"`
	Compactions     int            `json:"compactions"`
	Subagents       []SubagentJSON `json:"subagents"`
	Partial         bool           `json:"partial"`
	SourceNote      string         `json:"source_note,omitempty"`
	SourceExists    bool           `json:"source_exists"`
	Machine         string         `json:"machine,omitempty"` // the machine it was synced from (cairn remote); absent for this machine's
}

// TokensJSON is token usage.
type TokensJSON struct {
	Input         int64 `json:"input"`
	Output        int64 `json:"output"`
	CacheCreation int64 `json:"cache_creation"`
	CacheRead     int64 `json:"cache_read"`
	Total         int64 `json:"total"`
}

// SubagentJSON is one spawned agent.
type SubagentJSON struct {
	AgentID     string `json:"agent_id"`
	Type        string `json:"type"`
	Description string `json:"description"`
	ToolUseID   string `json:"tool_use_id"`
	Entries     int    `json:"entries"`
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// sortedCopy is list sorted, never nil: a stable order whatever order the
// files were read in.
func sortedCopy(list []string) []string {
	out := append([]string{}, list...)
	sort.Strings(out)
	return out
}

func sessionJSON(s *transcripts.Session) SessionJSON {
	j := SessionJSON{
		ID: s.ID, Project: s.ProjectPath, ProjectDir: s.Project, CWD: s.CWD, Title: s.Title, TitleSource: s.TitleSource,
		Start: timePtr(s.Start), End: timePtr(s.End), DurationSeconds: int64(s.Duration().Seconds()),
		Model: s.MainModel, Models: sortedCopy(s.Models), Branches: nonNil(s.Branches), Prompts: s.Prompts, AssistantTurns: s.AssistantTurns,
		ToolCalls: s.ToolCalls, Errors: s.Errors, Entries: s.Entries,
		Tokens: TokensJSON{Input: s.Usage.InputTokens, Output: s.Usage.OutputTokens,
			CacheCreation: s.Usage.CacheCreationInputTokens, CacheRead: s.Usage.CacheReadInputTokens, Total: s.Usage.Total()},
		FilesRead: nonNil(s.FilesRead), FilesEdited: nonNil(s.FilesEdited), Commands: len(s.Commands),
		Compactions: s.Compactions, Subagents: []SubagentJSON{}, Partial: s.Partial(), SourceNote: s.SourceNote(),
		SourceExists: s.SourceExists,
	}
	for _, a := range s.Subagents {
		j.Subagents = append(j.Subagents, SubagentJSON{AgentID: a.AgentID, Type: a.Type, Description: a.Description,
			ToolUseID: a.ToolUseID, Entries: a.Entries})
	}
	return j
}

func newSessionsCmd(o *Options) *cobra.Command {
	var project, machine string
	var days int
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List sessions, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var ss []*transcripts.Session
			var origins map[string]string // session id -> machine, for sessions synced from another
			err := withStore(cmd.Context(), o, func(st *index.Store) error {
				f := index.SessionFilter{Project: project}
				if days > 0 {
					f.Since = time.Now().AddDate(0, 0, -days)
				}
				var err error
				if ss, err = st.Sessions(cmd.Context(), f); err != nil {
					return err
				}
				origins, err = st.SessionOrigins(cmd.Context())
				return err
			})
			if err != nil {
				return err
			}
			if machine != "" {
				ss = slices.DeleteFunc(ss, func(s *transcripts.Session) bool {
					return origins[s.ID] != machine && !(machine == "local" && origins[s.ID] == "")
				})
			}
			if o.JSON {
				out := make([]SessionJSON, 0, len(ss))
				for _, s := range ss {
					j := sessionJSON(s)
					j.Machine = origins[s.ID]
					out = append(out, j)
				}
				return writeJSON(o.Stdout, out)
			}
			return o.page(func() error { return printSessions(o, ss, origins) })
		},
	}
	cmd.Flags().StringVar(&project, "project", "", "only sessions whose project path contains this text")
	cmd.Flags().IntVar(&days, "days", 0, "only sessions active in the last N days")
	cmd.Flags().StringVar(&machine, "machine", "", "only sessions synced from this machine (cairn remote), or local for this machine's")
	addJSONFlag(cmd, o)
	addWideFlag(cmd, o)
	return cmd
}

// printSessions prints ss as a table; origins marks the sessions synced
// from another machine (@name before the title).
func printSessions(o *Options, ss []*transcripts.Session, origins map[string]string) error {
	if len(ss) == 0 {
		fmt.Fprintln(o.Stdout, "No sessions found.")
		return nil
	}
	t := o.newTable()
	t.header("ID", "STARTED", "DURATION", "PROJECT", "TITLE", "MODEL", "PROMPTS", "TURNS", "TOOLS")
	t.cut(3, 30, true) // the project keeps its end
	t.cut(4, 50, false)
	t.optional(5, 2, 6, 7, 8) // on a narrow terminal: tools, turns, prompts, duration, then the model go first
	for _, s := range ss {
		title := termtext.Line(s.Title)
		if l := s.SourceLabel(); l != "" {
			title = "[" + l + "] " + title
		}
		if m := origins[s.ID]; m != "" {
			title = "@" + termtext.Line(m) + " · " + title
		}
		model := "-"
		if s.MainModel != "" {
			model = strings.TrimPrefix(s.MainModel, "claude-")
		}
		t.row(s.ID[:min(8, len(s.ID))], fmtTime(s.Start), human.Duration(s.Duration()),
			termtext.Line(projectLabel(s)), title, model, fmt.Sprint(s.Prompts), fmt.Sprint(s.AssistantTurns), fmt.Sprint(s.ToolCalls))
	}
	return t.flush()
}

// projectLabel is a session's project for a table: the repository, and
// the worktree or subfolder it ran in when that is another folder.
func projectLabel(s *transcripts.Session) string {
	p := human.Path(s.ProjectPath)
	if s.CWD != "" && s.CWD != s.ProjectPath {
		p += " (" + filepath.Base(s.CWD) + ")"
	}
	return p
}
