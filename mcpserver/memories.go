package mcpserver

import (
	"context"
	"errors"
	"strings"

	"github.com/cairn-dev/cairn/memories"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MemoryService is the memory domain the memory tools call (each tool
// the job it means: Recall, Curator, Drafts); nil without one.
type MemoryService = *memories.Service

// storedSummaries maps session ids to a one-line version of their stored
// summaries (reviewed drafts, or the heuristic ones written when sessions
// end); nil without the memory service.
func (s *Server) storedSummaries(ctx context.Context) map[string]string {
	if s.o.Memories == nil {
		return nil
	}
	sums, err := s.o.Memories.Drafts.Summaries(ctx, "", 1000)
	if err != nil {
		return nil
	}
	out := make(map[string]string, len(sums))
	for _, sm := range sums {
		var parts []string
		for _, sec := range []string{"Request", "Completed", "Learned"} {
			if items := sm.Sections[sec]; len(items) > 0 {
				parts = append(parts, sec+": "+items[0])
			}
		}
		if len(parts) > 0 {
			out[sm.SessionID] = strings.Join(parts, " · ")
		}
	}
	return out
}

const (
	maxMemories      = 10
	maxMemoryChars   = 1200
	maxRememberChars = memories.MaxContent
)

// MemoryOut is a memory as the tools return it.
type MemoryOut struct {
	ID         string   `json:"id"`
	Type       string   `json:"type"`
	Status     string   `json:"status" jsonschema:"approved memories were reviewed by the user; pending ones were not"`
	Content    string   `json:"content"`
	Tags       []string `json:"tags"`
	Importance int      `json:"importance"`
	Project    string   `json:"project" jsonschema:"empty for a global memory"`
	Updated    string   `json:"updated"`
	Score      float64  `json:"score,omitempty"`
	Match      string   `json:"match,omitempty" jsonschema:"for a search: words (shares (most of) the query's words), partial (only some of them: weak evidence) or meaning (none of them, but close in meaning: weaker evidence)"`
	Relevance  float64  `json:"relevance,omitempty" jsonschema:"for a search: 0..1 on a fixed scale, the share of the query's information (its words, the rare ones above all) the memory holds"`
	Matched    []string `json:"matched,omitempty" jsonschema:"for a search: the query's words the memory holds (why it was chosen)"`
	Files      []string `json:"files,omitempty" jsonschema:"files the memory's source turn edited that changed or are gone since: the memory may no longer hold"`
}

func memoryOut(m memories.Memory, score float64) MemoryOut {
	tags := m.Tags
	if tags == nil {
		tags = []string{}
	}
	return MemoryOut{ID: m.ID, Type: string(m.Type), Status: string(m.Status), Content: clip(m.Content, maxMemoryChars),
		Tags: tags, Importance: m.Importance, Project: m.Project, Updated: rfc3339(m.Updated), Score: round(score, 3)}
}

func typeNames() string {
	names := make([]string, len(memories.Types))
	for i, t := range memories.Types {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

func (s *Server) registerMemoryTools(srv *mcp.Server) {
	addTool(s, srv, &mcp.Tool{Name: "memory_search", Description: toolDescriptions["memory_search"],
		Annotations: readOnly("Search memories")}, s.memSearch)
	addTool(s, srv, &mcp.Tool{Name: "memory_related", Description: toolDescriptions["memory_related"],
		Annotations: readOnly("Related memories")}, s.memRelated)
	addTool(s, srv, &mcp.Tool{Name: "memory_remember", Description: toolDescriptions["memory_remember"],
		InputSchema: inputSchema[RememberIn](between("importance", 1, 5)),
		Annotations: &mcp.ToolAnnotations{Title: "Remember", ReadOnlyHint: false, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}}, s.memRemember)
	s.registerChangeTools(srv)
	s.registerAsk(srv)
}

func (s *Server) needMemories() error {
	if s.o.Memories == nil {
		return toolError("cairn's memory service is not available in this server; memory_recall still searches past sessions")
	}
	return nil
}

type MemSearchIn struct {
	Query string   `json:"query" jsonschema:"words or a description of what to find; empty lists the newest"`
	Type  string   `json:"type,omitempty" jsonschema:"only this type: decision, architecture, pattern, gotcha, preference, fact, bugfix, progress or context"`
	Tags  []string `json:"tags,omitempty" jsonschema:"only memories carrying all these tags"`
}

type MemListOut struct {
	Memories []MemoryOut `json:"memories"`
	Total    int         `json:"total" jsonschema:"memories returned (at most 10)"`
	Hint     string      `json:"hint,omitempty"`
}

func (s *Server) memSearch(ctx context.Context, _ *mcp.CallToolRequest, in MemSearchIn) (*mcp.CallToolResult, MemListOut, error) {
	out := MemListOut{Memories: []MemoryOut{}}
	if err := s.needMemories(); err != nil {
		return nil, out, err
	}
	var types []memories.Type
	if t := strings.TrimSpace(in.Type); t != "" {
		pt, err := memories.ParseType(t)
		if err != nil {
			return nil, out, toolError("type %q is not a memory type: use one of %s", t, typeNames())
		}
		types = append(types, pt)
	}
	if err := s.searchInto(ctx, &out, strings.TrimSpace(in.Query), types, in.Tags, true); err != nil {
		return nil, out, err
	}
	out.finish("No memory matches by words or meaning; try other words, drop the type or tag filter, or search past sessions with memory_recall.")
	return nil, out, nil
}

// searchInto appends the memories Search finds to out, with their scores
// when scored (else 0).
func (s *Server) searchInto(ctx context.Context, out *MemListOut, query string, types []memories.Type, tags []string, scored bool) error {
	rs, err := s.o.Memories.Recall.Search(ctx, query, types, tags, maxMemories)
	if err != nil {
		return toolError("searching memories failed: %v", err)
	}
	found := make([]memories.Memory, len(rs))
	for i, r := range rs {
		found[i] = r.Memory
	}
	files, err := s.o.Memories.Recall.SourceFilesEach(ctx, found)
	if err != nil {
		files = make([][]memories.SourceFile, len(rs)) // a mark to add, never a reason to fail the search
	}
	for i, r := range rs {
		score := 0.0
		if scored {
			score = r.Score
		}
		m := memoryOut(r.Memory, score)
		m.Match, m.Relevance = r.Match, r.Relevance
		if query != "" {
			m.Matched = memories.MatchedWords(query, r.Content)
		}
		m.Files = memories.Stale(files[i])
		out.Memories = append(out.Memories, m)
	}
	return nil
}

// finish sets Total, and Hint when nothing was found.
func (o *MemListOut) finish(hint string) {
	o.Total = len(o.Memories)
	if o.Total == 0 {
		o.Hint = hint
	}
}

type MemRelatedIn struct {
	MemoryID string   `json:"memory_id,omitempty" jsonschema:"a memory id (m-...; 4+ characters of it are enough)"`
	Tags     []string `json:"tags,omitempty" jsonschema:"with no memory_id: the memories carrying all these tags"`
}

func (s *Server) memRelated(ctx context.Context, _ *mcp.CallToolRequest, in MemRelatedIn) (*mcp.CallToolResult, MemListOut, error) {
	out := MemListOut{Memories: []MemoryOut{}}
	if err := s.needMemories(); err != nil {
		return nil, out, err
	}
	id := strings.TrimSpace(in.MemoryID)
	if id == "" && len(in.Tags) == 0 {
		return nil, out, toolError("pass memory_id (from memory_search) or tags")
	}
	if id == "" {
		if err := s.searchInto(ctx, &out, "", nil, in.Tags, false); err != nil {
			return nil, out, err
		}
	} else {
		ms, err := s.o.Memories.Recall.Related(ctx, id, in.Tags, maxMemories)
		if errors.Is(err, memories.ErrNotFound) {
			return nil, out, toolError("no memory %s: memory_search lists memory ids (%v)", id, err)
		}
		if err != nil {
			return nil, out, toolError("finding related memories failed: %v", err)
		}
		for _, m := range ms {
			out.Memories = append(out.Memories, memoryOut(m, 0))
		}
	}
	out.finish("Nothing related found.")
	return nil, out, nil
}

type RememberIn struct {
	Content    string   `json:"content" jsonschema:"one self-contained sentence to remember (no secrets)"`
	Type       string   `json:"type" jsonschema:"decision, architecture, pattern, gotcha, preference, fact, bugfix, progress or context"`
	Tags       []string `json:"tags,omitempty"`
	Importance int      `json:"importance,omitempty" jsonschema:"1 (minor) to 5 (critical); leave it out for 3"`
	Global     bool     `json:"global,omitempty" jsonschema:"true: for every project, not only this one"`
}

type RememberOut struct {
	Memory    MemoryOut `json:"memory"`
	Action    string    `json:"action" jsonschema:"added, merged (into a similar memory), bumped (an identical one) or skipped-rejected (the user rejected it before)"`
	Conflicts []string  `json:"conflicts" jsonschema:"ids of memories it may contradict (the user reviews them)"`
	Message   string    `json:"message"`
}

func (s *Server) memRemember(ctx context.Context, _ *mcp.CallToolRequest, in RememberIn) (*mcp.CallToolResult, RememberOut, error) {
	out := RememberOut{Conflicts: []string{}, Memory: MemoryOut{Tags: []string{}}}
	if err := s.needMemories(); err != nil {
		return nil, out, err
	}
	n, err := s.newMemory(in)
	if err != nil {
		return nil, out, err
	}
	r, err := s.o.Memories.Curator.Add(ctx, n)
	if err != nil {
		return nil, out, toolError("storing the memory failed: %v", err)
	}
	if r.Memory != nil {
		out.Memory = memoryOut(*r.Memory, 0)
	}
	out.Action = r.Action
	if r.Conflicts != nil {
		out.Conflicts = r.Conflicts
	}
	out.Message = rememberMessage(r.Action, out.Memory)
	return nil, out, nil
}

// newMemory checks memory_remember's input and makes it a memory of this
// session, for this project unless in.Global. Its errors are tool errors
// that say what to send instead.
func (s *Server) newMemory(in RememberIn) (memories.NewMemory, error) {
	content := strings.TrimSpace(in.Content)
	if content == "" {
		return memories.NewMemory{}, toolError("content is empty: pass the sentence to remember")
	}
	if len(content) > maxRememberChars {
		return memories.NewMemory{}, toolError("content is %d characters: keep a memory under %d (one or two sentences)", len(content), maxRememberChars)
	}
	t, err := memories.ParseType(in.Type)
	if err != nil {
		return memories.NewMemory{}, toolError("type %q is not a memory type: use one of %s", in.Type, typeNames())
	}
	if in.Importance != 0 && (in.Importance < 1 || in.Importance > 5) {
		return memories.NewMemory{}, toolError("importance %d is out of range: use 1 (minor) to 5 (critical)", in.Importance)
	}
	n := memories.NewMemory{Type: t, Content: content, Tags: in.Tags, Importance: in.Importance,
		Origin: memories.OriginRemember, SourceSession: s.o.SessionID, Scope: s.scope()}
	if !in.Global {
		n.Project = s.o.Project
	}
	return n, nil
}

// rememberMessage tells Claude what became of the memory it sent: action
// is memories.AddResult.Action and m the memory stored (or the similar one
// kept).
func rememberMessage(action string, m MemoryOut) string {
	switch {
	case action == memories.ActionAdded && m.Status == string(memories.Pending):
		return "Saved as " + m.ID + "; it awaits the user's review in cairn before it is used."
	case action == memories.ActionAdded:
		return "Saved as " + m.ID + "."
	case action == memories.ActionSkippedRejected:
		return "Not saved: the user rejected this memory before."
	}
	return "A similar memory exists (" + m.ID + "): " + action + " instead of adding a new one."
}
