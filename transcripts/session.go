package transcripts

import (
	"slices"
	"sort"
	"time"

	json "github.com/go-json-experiment/json"
)

// Session is what cairn knows about one Claude Code session.
type Session struct {
	ID      string
	Project string // project folder name <P>
	// ProjectPath is the project the session belongs to. Read from
	// transcripts alone it is the session's first cwd, else the decoded
	// folder name; the store replaces it with the git repository holding
	// that folder (index.ProjectOf), so worktrees and subfolders of one
	// repository are one project.
	ProjectPath string
	// CWD is where the session ran (its first cwd, else the decoded folder
	// name): a worktree or subfolder of ProjectPath, or ProjectPath itself.
	CWD         string
	Title       string
	TitleSource string // custom, ai, last-prompt, summary, first-prompt
	FirstPrompt string
	Start, End  time.Time
	Branches    []string
	// Models is every model (subagents' included): MainModel first, then
	// the others first seen first, so every list of them (timeline,
	// reader, show) names the session's model first, as `sessions` does.
	Models    []string
	MainModel string // the session's model: of most main-thread responses (SessionState.mainModel)
	Versions  []string

	Prompts        int // typed prompts and slash commands of the main thread
	AssistantTurns int // distinct assistant API responses of the main thread
	ToolCalls      int
	Errors         int   // failed tool results and API errors
	Entries        int   // user and assistant entries, subagents included
	Usage          Usage // de-duplicated by message id + request id, subagents included

	FilesRead   []string
	FilesEdited []string
	Commands    []string
	Compactions int
	Subagents   []Subagent

	SourceFiles []string // transcript files holding its entries
	HasMainFile bool     // its own <id>.jsonl gave it entries
	// HostSession is the session whose main file holds this session's
	// main thread, when it is not its own file (Claude Code bugs wrote
	// lines of one session into another's file).
	HostSession string
	// MainFileEmpty: its own <id>.jsonl exists but holds no conversation
	// (2.0.x "Warmup" sessions, whose entries are all in agent files).
	MainFileEmpty bool
	SourceExists  bool // the files are still on disk
}

// MainFirst is models with main moved to the front (a new slice when it
// moves; models itself otherwise).
func MainFirst(models []string, main string) []string {
	i := slices.Index(models, main)
	if i <= 0 {
		return models
	}
	out := make([]string, 0, len(models))
	out = append(out, main)
	out = append(out, models[:i]...)
	return append(out, models[i+1:]...)
}

// Duration is the time between the first and last entry.
func (s *Session) Duration() time.Duration {
	if s.Start.IsZero() || s.End.IsZero() {
		return 0
	}
	return s.End.Sub(s.Start)
}

// Partial reports that the session's main thread is nowhere: only its
// subagents' files hold entries.
func (s *Session) Partial() bool { return !s.HasMainFile && s.HostSession == "" }

// SourceNote says in a few words where the session's entries are, when
// that is not its own main file; "" when it is.
func (s *Session) SourceNote() string {
	switch {
	case s.HasMainFile:
		return ""
	case s.HostSession != "":
		return "recorded in the file of session " + s.HostSession
	case s.MainFileEmpty:
		return "main transcript empty; only subagent files hold entries"
	}
	return "main transcript missing; only subagent files remain"
}

// SourceLabel is SourceNote as a short tag for listings ("" when the
// session has its own main file).
func (s *Session) SourceLabel() string {
	switch {
	case s.HasMainFile:
		return ""
	case s.HostSession != "":
		return "in " + s.HostSession[:min(8, len(s.HostSession))] + "'s file"
	case s.MainFileEmpty:
		return "main file empty"
	}
	return "main file missing"
}

// Subagent is one agent a session spawned.
type Subagent struct {
	AgentID     string
	Type        string // subagent_type, "compact" for compaction agents
	Description string
	ToolUseID   string // the Task/Agent tool call that spawned it
	Entries     int
	File        string
}

// EntrySessionID is the session an entry belongs to: its own sessionId
// (files can hold entries of another session), else the file's.
func EntrySessionID(f *File, e *Entry) string {
	if e.SessionID != "" {
		return e.SessionID
	}
	return f.SessionID
}

// ToolInput is the subset of tool inputs cairn reads.
type ToolInput struct {
	Command      string `json:"command"`
	Description  string `json:"description"`
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	Path         string `json:"path"`
	Pattern      string `json:"pattern"`
	URL          string `json:"url"`
	Query        string `json:"query"`
	Prompt       string `json:"prompt"`
	SubagentType string `json:"subagent_type"`
}

// DecodeToolInput reads the fields cairn uses from a tool_use input; fields
// of unexpected shapes are left empty.
func DecodeToolInput(raw []byte) ToolInput {
	var in ToolInput
	if len(raw) == 0 {
		return in
	}
	if json.Unmarshal(raw, &in, decodeOpts) != nil {
		var loose map[string]any
		if json.Unmarshal(raw, &loose, decodeOpts) == nil {
			str := func(k string) string { v, _ := loose[k].(string); return v }
			in = ToolInput{Command: str("command"), Description: str("description"), FilePath: str("file_path"),
				NotebookPath: str("notebook_path"), Path: str("path"), Pattern: str("pattern"), URL: str("url"),
				Query: str("query"), Prompt: str("prompt"), SubagentType: str("subagent_type")}
		}
	}
	return in
}

// IsAgentTool reports whether a tool spawns a subagent (Task before 2.1, Agent after).
func IsAgentTool(name string) bool { return name == "Task" || name == "Agent" }

func addOnce(seen map[string]bool, list *[]string, v string) {
	if v == "" || seen[v] {
		return
	}
	seen[v] = true
	*list = append(*list, v)
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

// SortNewestFirst orders sessions by start time, newest first.
func SortNewestFirst(ss []*Session) {
	sort.SliceStable(ss, func(i, j int) bool {
		if !ss[i].Start.Equal(ss[j].Start) {
			return ss[i].Start.After(ss[j].Start)
		}
		return ss[i].ID < ss[j].ID
	})
}
