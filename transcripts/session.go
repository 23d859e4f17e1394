package transcripts

import (
	"sort"
	"strings"
	"time"

	json "github.com/go-json-experiment/json"
)

// Session is what cairn knows about one Claude Code session.
type Session struct {
	ID          string
	Project     string // project folder name <P>
	ProjectPath string // real path: first cwd seen, else the decoded folder name
	Title       string
	TitleSource string // custom, ai, last-prompt, summary, first-prompt
	FirstPrompt string
	Start, End  time.Time
	Branches    []string
	Models      []string
	Versions    []string

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

	SourceFiles  []string // transcript files holding its entries
	HasMainFile  bool     // false: known only through subagent files (partial)
	SourceExists bool     // the files are still on disk
}

// Duration is the time between the first and last entry.
func (s *Session) Duration() time.Duration {
	if s.Start.IsZero() || s.End.IsZero() {
		return 0
	}
	return s.End.Sub(s.Start)
}

// Partial reports that the session's main transcript is missing.
func (s *Session) Partial() bool { return !s.HasMainFile }

// Subagent is one agent a session spawned.
type Subagent struct {
	AgentID     string
	Type        string // subagent_type, "compact" for compaction agents
	Description string
	ToolUseID   string // the Task/Agent tool call that spawned it
	Entries     int
	File        string
}

// Builder assembles Sessions from the entries of one project's files. Files
// must be fed oldest first: entries are de-duplicated by uuid, keeping the
// first seen.
type Builder struct {
	project, decodedPath string
	seen                 map[string]string // entry uuid -> session id
	sessions             map[string]*acc
	summaries            []summaryRef
}

type summaryRef struct{ text, leaf string }

// acc accumulates one session.
type acc struct {
	s          Session
	responses  map[string]bool // message.id:requestId already counted
	turns      map[string]bool
	branches   map[string]bool
	models     map[string]bool
	versions   map[string]bool
	read       map[string]bool
	edited     map[string]bool
	files      map[string]bool
	agents     map[string]*Subagent
	spawns     map[string]*Subagent // tool_use id -> spawned agent
	custom, ai string
	lastPrompt string
	summary    string
	command    string // first slash command, the title of last resort
	sidePrompt string // first subagent prompt, for sessions known only through subagents
}

// NewBuilder starts a project. decodedPath is the fallback project path.
func NewBuilder(project, decodedPath string) *Builder {
	return &Builder{project: project, decodedPath: decodedPath,
		seen: map[string]string{}, sessions: map[string]*acc{}}
}

func (b *Builder) acc(id string) *acc {
	a := b.sessions[id]
	if a == nil {
		a = &acc{s: Session{ID: id, Project: b.project},
			responses: map[string]bool{}, turns: map[string]bool{}, branches: map[string]bool{},
			models: map[string]bool{}, versions: map[string]bool{}, read: map[string]bool{},
			edited: map[string]bool{}, files: map[string]bool{}, agents: map[string]*Subagent{},
			spawns: map[string]*Subagent{}}
		b.sessions[id] = a
	}
	return a
}

// Add feeds one entry read from f. It reports false when the entry was a
// duplicate (same uuid seen earlier) and was ignored.
func (b *Builder) Add(f *File, e *Entry) bool {
	if e.Type == "summary" {
		if e.Summary != "" && e.LeafUUID != "" {
			b.summaries = append(b.summaries, summaryRef{e.Summary, e.LeafUUID})
		}
		return true
	}
	sid := e.SessionID
	if sid == "" {
		sid = f.SessionID
	}
	if sid == "" {
		return true // nothing to attach it to (snapshots of unknown sessions)
	}
	if e.UUID != "" && e.Type != "progress" {
		if _, dup := b.seen[e.UUID]; dup {
			return false
		}
		b.seen[e.UUID] = sid
	}
	a := b.acc(sid)
	if !a.files[f.Path] {
		a.files[f.Path] = true
		a.s.SourceFiles = append(a.s.SourceFiles, f.Path)
	}
	if f.Kind == MainFile && f.SessionID == sid {
		a.s.HasMainFile = true
	}
	a.add(f, e)
	return true
}

func (a *acc) add(f *File, e *Entry) {
	s := &a.s
	switch e.Type {
	case "custom-title":
		if e.CustomTitle != "" {
			a.custom = e.CustomTitle
		}
		return
	case "ai-title":
		if e.AITitle != "" {
			a.ai = e.AITitle
		}
		return
	case "last-prompt":
		if e.LastPrompt != "" {
			a.lastPrompt = e.LastPrompt
		}
		return
	case "file-history-snapshot", "queue-operation":
		return
	}
	if !e.Timestamp.IsZero() {
		if s.Start.IsZero() || e.Timestamp.Before(s.Start) {
			s.Start = e.Timestamp
		}
		if e.Timestamp.After(s.End) {
			s.End = e.Timestamp
		}
	}
	if s.ProjectPath == "" && e.CWD != "" {
		s.ProjectPath = e.CWD
	}
	if e.GitBranch != "" && !a.branches[e.GitBranch] {
		a.branches[e.GitBranch] = true
		s.Branches = append(s.Branches, e.GitBranch)
	}
	if e.Version != "" && !a.versions[e.Version] {
		a.versions[e.Version] = true
		s.Versions = append(s.Versions, e.Version)
	}
	sidechain := e.IsSidechain || f.Kind != MainFile
	var agent *Subagent
	if sidechain {
		agent = a.agent(f, e)
	}
	switch e.Type {
	case "system":
		switch e.Subtype {
		case "compact_boundary":
			if !sidechain {
				s.Compactions++
			}
		case "api_error":
			s.Errors++
		}
	case "user", "assistant":
		s.Entries++
		if agent != nil {
			agent.Entries++
		}
		a.message(e, sidechain)
	}
}

// agent finds or creates the subagent record an entry belongs to.
func (a *acc) agent(f *File, e *Entry) *Subagent {
	id := f.AgentID
	if id == "" {
		id = e.AgentID
	}
	if id == "" {
		return nil
	}
	ag := a.agents[id]
	if ag == nil {
		ag = &Subagent{AgentID: id, File: f.Path}
		if strings.HasPrefix(id, "acompact") {
			ag.Type = "compact"
		}
		a.agents[id] = ag
	}
	if f.Meta != nil {
		if f.Meta.AgentType != "" {
			ag.Type = f.Meta.AgentType
		}
		if f.Meta.Description != "" {
			ag.Description = f.Meta.Description
		}
		if f.Meta.ToolUseID != "" {
			ag.ToolUseID = f.Meta.ToolUseID
		}
	}
	return ag
}

func (a *acc) message(e *Entry, sidechain bool) {
	s := &a.s
	if e.Model != "" && e.Model != "<synthetic>" && !a.models[e.Model] {
		a.models[e.Model] = true
		s.Models = append(s.Models, e.Model)
	}
	if e.Usage != nil {
		key := e.MessageID + ":" + e.RequestID
		if e.MessageID == "" {
			key = "uuid:" + e.UUID
		}
		if !a.responses[key] {
			a.responses[key] = true
			s.Usage.Add(*e.Usage)
		}
	}
	if sidechain {
		if a.sidePrompt == "" && e.Type == "user" && IsRealPrompt(e) {
			a.sidePrompt = CleanPrompt(e.PromptText())
		}
		return
	}
	if e.Type == "assistant" {
		key := e.MessageID
		if key == "" {
			key = "uuid:" + e.UUID
		}
		if !a.turns[key] {
			a.turns[key] = true
			s.AssistantTurns++
		}
	}
	if e.Type == "user" && IsRealPrompt(e) {
		s.Prompts++
		if IsCommandWrapper(e.PromptText()) {
			if a.command == "" {
				a.command = CleanPrompt(e.PromptText())
			}
		} else if s.FirstPrompt == "" {
			s.FirstPrompt = CleanPrompt(e.PromptText())
		}
	}
	if e.ResultAgentID != "" {
		// toolUseResult.agentId links the spawning call to the agent.
		for _, b := range e.Blocks {
			if b.Type == BlockToolResult {
				if sp := a.spawns[b.ToolUseID]; sp != nil && sp.AgentID == "" {
					sp.AgentID = e.ResultAgentID
				}
			}
		}
	}
	for i := range e.Blocks {
		b := &e.Blocks[i]
		switch b.Type {
		case BlockToolUse:
			s.ToolCalls++
			a.tool(b)
		case BlockToolResult:
			if b.IsError {
				s.Errors++
			}
		}
	}
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

func (a *acc) tool(b *Block) {
	s := &a.s
	in := DecodeToolInput(b.ToolInput)
	switch b.ToolName {
	case "Read", "NotebookRead":
		addOnce(a.read, &s.FilesRead, firstNonEmpty(in.FilePath, in.NotebookPath))
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		addOnce(a.edited, &s.FilesEdited, firstNonEmpty(in.FilePath, in.NotebookPath))
	case "Bash":
		if in.Command != "" {
			s.Commands = append(s.Commands, in.Command)
		}
	}
	if IsAgentTool(b.ToolName) {
		sp := &Subagent{Type: in.SubagentType, Description: in.Description, ToolUseID: b.ToolID}
		if sp.Type == "" {
			sp.Type = "general-purpose"
		}
		a.spawns[b.ToolID] = sp
	}
}

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

// Sessions finishes the project: resolves summaries through their leaf uuid,
// picks titles, links subagents to the calls that spawned them, and returns
// the sessions that have at least one user or assistant entry, newest first.
func (b *Builder) Sessions() []*Session {
	for _, sm := range b.summaries {
		if sid, ok := b.seen[sm.leaf]; ok {
			if a := b.sessions[sid]; a != nil {
				a.summary = sm.text
			}
		}
	}
	out := make([]*Session, 0, len(b.sessions))
	for _, a := range b.sessions {
		if a.s.Entries == 0 {
			continue
		}
		a.finish(b.decodedPath)
		out = append(out, &a.s)
	}
	SortNewestFirst(out)
	return out
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

func (a *acc) finish(decodedPath string) {
	s := &a.s
	if s.ProjectPath == "" {
		s.ProjectPath = decodedPath
	}
	switch {
	case a.custom != "":
		s.Title, s.TitleSource = a.custom, "custom"
	case a.ai != "":
		s.Title, s.TitleSource = a.ai, "ai"
	case a.lastPrompt != "":
		s.Title, s.TitleSource = CleanPrompt(a.lastPrompt), "last-prompt"
	case a.summary != "":
		s.Title, s.TitleSource = a.summary, "summary"
	case s.FirstPrompt != "":
		s.Title, s.TitleSource = s.FirstPrompt, "first-prompt"
	case a.command != "":
		s.Title, s.TitleSource = a.command, "command"
	case a.sidePrompt != "":
		s.Title, s.TitleSource = a.sidePrompt, "subagent-prompt"
	}
	s.Title = OneLine(s.Title, 200)
	// Merge spawning calls with the agent files they produced.
	byTool := map[string]*Subagent{}
	for _, ag := range a.agents {
		if ag.ToolUseID != "" {
			byTool[ag.ToolUseID] = ag
		}
	}
	for tid, sp := range a.spawns {
		if ag := byTool[tid]; ag != nil {
			if ag.Description == "" {
				ag.Description = sp.Description
			}
			if ag.Type == "" {
				ag.Type = sp.Type
			}
			continue
		}
		if sp.AgentID != "" {
			if ag := a.agents[sp.AgentID]; ag != nil {
				ag.ToolUseID = tid
				if ag.Description == "" {
					ag.Description = sp.Description
				}
				if ag.Type == "" {
					ag.Type = sp.Type
				}
				continue
			}
		}
		cp := *sp
		a.agents["tool:"+tid] = &cp // spawned, but its transcript is not on disk
	}
	for _, ag := range a.agents {
		if ag.Type == "" {
			ag.Type = "general-purpose"
		}
		s.Subagents = append(s.Subagents, *ag)
	}
	sort.Slice(s.Subagents, func(i, j int) bool {
		if s.Subagents[i].AgentID != s.Subagents[j].AgentID {
			return s.Subagents[i].AgentID < s.Subagents[j].AgentID
		}
		return s.Subagents[i].ToolUseID < s.Subagents[j].ToolUseID
	})
	s.SourceExists = len(s.SourceFiles) > 0
}
