package mcpserver

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/index"
	_ "github.com/cairn-dev/cairn/index/fts" // the full-text engine: memory_recall searches
	"github.com/cairn-dev/cairn/termtext"
	"github.com/cairn-dev/cairn/transcripts"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds that keep every answer far below Claude Code's 25k-token limit.
const (
	maxRecall       = 5
	maxAlternatives = 4
	maxTimeline     = 60
	maxProjects     = 100
	maxReadEntries  = 40
	maxEntryChars   = 1500
	maxReadChars    = 24000
	maxExcerptChars = 400
	maxSummaryChars = 240
	maxTimelineDays = 365
)

// --- memory_recall ---

type RecallIn struct {
	Query        string   `json:"query" jsonschema:"what to look for: words, identifiers, error messages or a description"`
	Project      string   `json:"project,omitempty" jsonschema:"only sessions of this project (its path, or part of it)"`
	Alternatives []string `json:"alternatives,omitempty" jsonschema:"up to 4 rephrasings of the query (synonyms, likely identifiers); their rankings are fused with the query's"`
	Machine      string   `json:"machine,omitempty" jsonschema:"only sessions synced from this machine by cairn remote (its name), or local for this machine's own"`
}

type RecallResult struct {
	SessionID string  `json:"session_id"`
	Project   string  `json:"project"`
	Summary   string  `json:"summary" jsonschema:"the session's title or first request"`
	Timestamp string  `json:"timestamp" jsonschema:"time of the best matching entry (RFC 3339)"`
	Relevance float64 `json:"relevance" jsonschema:"0..1 on a fixed scale, the same for every query: the share of the query's information (its words, the rare ones above all) the excerpt holds, best over the query and its alternatives; for a match by meaning alone, its closeness in meaning"`
	Excerpt   string  `json:"excerpt" jsonschema:"the best matching text of the session"`
	EntryUUID string  `json:"entry_uuid,omitempty" jsonschema:"the matching entry: pass it to session_read as around_uuid"`
	Machine   string  `json:"machine,omitempty" jsonschema:"the machine the session ran on, when it was synced from another (cairn remote): it cannot be resumed here"`
	Match     string  `json:"match" jsonschema:"words: the excerpt has (most of) the query's words; partial: only some of them (weak evidence: its relevance says how much); typo: nothing matched as typed, the excerpt has the words spelled nearly so; meaning: none of them, but close in meaning (weaker evidence)"`
}

type RecallOut struct {
	Results               []RecallResult `json:"results"`
	TotalSessionsSearched int            `json:"total_sessions_searched"`
	Mode                  string         `json:"mode" jsonschema:"hybrid or text (when no embedder is ready)"`
	Suggestion            string         `json:"suggestion,omitempty" jsonschema:"what to try when nothing was found"`
}

func (s *Server) recall(ctx context.Context, _ *mcp.CallToolRequest, in RecallIn) (*mcp.CallToolResult, RecallOut, error) {
	out := RecallOut{Results: []RecallResult{}}
	queries := recallQueries(in)
	if queries[0] == "" {
		return nil, out, toolError("query is empty: pass the words or topic to look for")
	}
	s.syncMaybe(ctx)
	projects, err := s.resolveProjects(ctx, in.Project)
	if err != nil {
		return nil, out, err
	}
	out.TotalSessionsSearched = s.sessionCount(ctx, projects)
	sr, err := s.st.OpenSearcher(ctx, s.o.LockWait)
	if err != nil {
		return nil, out, toolError("searching failed: %v", err)
	}
	defer sr.Close()
	found, mode, err := sr.RecallSessionsOf(ctx, queries, projects, in.Machine, maxRecall)
	if errors.Is(err, index.ErrNoMachine) {
		return nil, out, toolError("%v: pass one of those as machine, or leave it out for every machine", err)
	}
	if err != nil {
		return nil, out, toolError("%v", err)
	}
	out.Mode = mode
	sums := s.storedSummaries(ctx)
	for _, r := range found {
		out.Results = append(out.Results, RecallResult{
			SessionID: r.SessionID, Project: r.Project, Summary: clip(cmp.Or(sums[r.SessionID], r.Title), maxSummaryChars),
			Timestamp: rfc3339(r.Timestamp), Relevance: r.Relevance,
			Excerpt: clip(r.Snippet, maxExcerptChars), EntryUUID: r.UUID, Match: r.Match, Machine: r.Machine,
		})
	}
	if len(out.Results) == 0 {
		out.Suggestion = noRecallSuggestion(len(projects) > 0)
	}
	return nil, out, nil
}

// recallQueries are the query and up to maxAlternatives rephrasings, each
// trimmed; empty alternatives are dropped.
func recallQueries(in RecallIn) []string {
	queries := []string{strings.TrimSpace(in.Query)}
	for _, a := range in.Alternatives {
		if a = strings.TrimSpace(a); a != "" && len(queries) <= maxAlternatives {
			queries = append(queries, a)
		}
	}
	return queries
}

// noRecallSuggestion is what to try when recall found nothing.
func noRecallSuggestion(filtered bool) string {
	s := "No matches by words or meaning; try other words or identifiers, pass rephrasings in alternatives"
	if filtered {
		s += ", drop the project filter"
	}
	return s + ", or use memory_timeline to browse recent sessions."
}

// resolveProjects turns a project argument into stored project paths by
// the store's one rule (index.Store.MatchProjects); no match is a tool
// error that says what to call.
func (s *Server) resolveProjects(ctx context.Context, p string) ([]string, error) {
	ps, err := s.st.MatchProjects(ctx, p)
	if errors.Is(err, index.ErrNoProject) {
		return nil, toolError("no project matches %q: call memory_projects for the list of project paths", strings.TrimSpace(p))
	}
	return ps, err
}

// oneProject is the one stored project a project argument names, or def
// when the argument is empty or names none; one that matches several is
// a tool error.
func (s *Server) oneProject(ctx context.Context, arg, def string) (string, error) {
	if strings.TrimSpace(arg) == "" {
		return def, nil
	}
	ps, err := s.resolveProjects(ctx, arg)
	if err != nil {
		return "", err
	}
	switch len(ps) {
	case 0:
		return def, nil
	case 1:
		return ps[0], nil
	}
	return "", toolError("%q matches %d projects (%s): pass more of the path", arg, len(ps), strings.Join(ps, ", "))
}

func (s *Server) sessionCount(ctx context.Context, projects []string) int {
	ps, err := s.st.Projects(ctx)
	if err != nil {
		return 0
	}
	n := 0
	for _, x := range ps {
		if len(projects) == 0 || slices.Contains(projects, x.Path) {
			n += x.Sessions
		}
	}
	return n
}

// --- memory_timeline ---

type TimelineIn struct {
	Days    int    `json:"days,omitempty" jsonschema:"how many days back (default 7, at most 365)"`
	Project string `json:"project,omitempty" jsonschema:"only this project (its path, or part of it)"`
}

type TimelineSession struct {
	SessionID string `json:"session_id"`
	Project   string `json:"project"`
	Summary   string `json:"summary"`
	Timestamp string `json:"timestamp" jsonschema:"when the session started (RFC 3339)"`
	Model     string `json:"model"`
}

type DateRange struct {
	From string `json:"from"`
	To   string `json:"to"`
}

type TimelineOut struct {
	Sessions      []TimelineSession `json:"sessions"`
	TotalSessions int               `json:"total_sessions" jsonschema:"sessions in the range (the list shows at most 60, newest first)"`
	DateRange     DateRange         `json:"date_range"`
}

func (s *Server) timeline(ctx context.Context, _ *mcp.CallToolRequest, in TimelineIn) (*mcp.CallToolResult, TimelineOut, error) {
	out := TimelineOut{Sessions: []TimelineSession{}}
	days := cmp.Or(in.Days, 7)
	if days < 0 || days > maxTimelineDays {
		return nil, out, toolError("days = %d: pass a number of days between 1 and %d", in.Days, maxTimelineDays)
	}
	s.syncMaybe(ctx)
	now := s.o.Now()
	from := now.AddDate(0, 0, -days)
	out.DateRange = DateRange{From: rfc3339(from), To: rfc3339(now)}
	projects, err := s.resolveProjects(ctx, in.Project)
	if err != nil {
		return nil, out, err
	}
	ss, err := s.st.Sessions(ctx, index.SessionFilter{Since: from})
	if err != nil {
		return nil, out, toolError("reading sessions failed: %v", err)
	}
	out.addSessions(ss, projects, s.storedSummaries(ctx))
	return nil, out, nil
}

// addSessions counts the sessions of ss in projects (any project when
// none) and lists the first maxTimeline of them, each with its stored
// summary or else its title and first prompt.
func (out *TimelineOut) addSessions(ss []*transcripts.Session, projects []string, sums map[string]string) {
	for _, x := range ss {
		if len(projects) > 0 && !slices.Contains(projects, x.ProjectPath) {
			continue
		}
		out.TotalSessions++
		if len(out.Sessions) >= maxTimeline {
			continue
		}
		model := x.MainModel // the main thread's, not the last one seen (a subagent's)
		out.Sessions = append(out.Sessions, TimelineSession{SessionID: x.ID, Project: x.ProjectPath,
			Summary: clip(cmp.Or(sums[x.ID], sessionSummary(x)), maxSummaryChars), Timestamp: rfc3339(x.Start), Model: model})
	}
}

func sessionSummary(x *transcripts.Session) string {
	t := x.Title
	if t == "" {
		t = x.FirstPrompt
	}
	if x.FirstPrompt != "" && x.FirstPrompt != t {
		t += " — " + x.FirstPrompt
	}
	return t
}

// --- memory_projects ---

type ProjectsIn struct{}

type ProjectInfo struct {
	Path         string  `json:"path"`
	SessionCount int     `json:"session_count"`
	LastUsed     string  `json:"last_used" jsonschema:"RFC 3339"`
	TotalSizeMB  float64 `json:"total_size_mb" jsonschema:"transcripts still on disk"`
}

type ProjectsOut struct {
	Projects      []ProjectInfo `json:"projects" jsonschema:"most recently used first (at most 100)"`
	TotalProjects int           `json:"total_projects"`
	TotalSessions int           `json:"total_sessions"`
	TotalSizeGB   float64       `json:"total_size_gb"`
}

func (s *Server) projects(ctx context.Context, _ *mcp.CallToolRequest, _ ProjectsIn) (*mcp.CallToolResult, ProjectsOut, error) {
	out := ProjectsOut{Projects: []ProjectInfo{}}
	s.syncMaybe(ctx)
	ps, err := s.st.Projects(ctx)
	if err != nil {
		return nil, out, toolError("reading projects failed: %v", err)
	}
	var size int64
	for _, p := range ps {
		if p.Sessions == 0 {
			continue
		}
		out.TotalProjects++
		out.TotalSessions += p.Sessions
		size += p.Size
		if len(out.Projects) < maxProjects {
			out.Projects = append(out.Projects, ProjectInfo{Path: p.Path, SessionCount: p.Sessions,
				LastUsed: rfc3339(p.LastUsed), TotalSizeMB: round(float64(p.Size)/(1<<20), 2)})
		}
	}
	out.TotalSizeGB = round(float64(size)/(1<<30), 3)
	return nil, out, nil
}

// --- session_read ---

type ReadIn struct {
	SessionID  string `json:"session_id" jsonschema:"the session id (8+ characters of it are enough)"`
	AroundUUID string `json:"around_uuid,omitempty" jsonschema:"centre the excerpt on this entry (entry_uuid from memory_recall)"`
	Offset     int    `json:"offset,omitempty" jsonschema:"start at this entry index instead (from next_offset)"`
	AgentID    string `json:"agent_id,omitempty" jsonschema:"read this subagent's thread instead of the main one (agent_id from an earlier session_read)"`
}

type ReadEntry struct {
	Index     int    `json:"index"`
	UUID      string `json:"uuid"`
	Role      string `json:"role" jsonschema:"user, assistant, tool or system"`
	Timestamp string `json:"timestamp"`
	Text      string `json:"text"`
}

type ReadOut struct {
	SessionID string `json:"session_id"`
	Project   string `json:"project"`
	Title     string `json:"title"`
	Start     string `json:"start"`
	// AgentID: the excerpt is this subagent's thread (around_uuid was one
	// of its entries); pass it back with next_offset to read on.
	AgentID      string      `json:"agent_id,omitempty" jsonschema:"set when the excerpt is a subagent's thread, not the main conversation: pass it with offset to read on"`
	TotalEntries int         `json:"total_entries"`
	Entries      []ReadEntry `json:"entries"`
	NextOffset   int         `json:"next_offset,omitempty" jsonschema:"pass as offset to read on; absent at the end"`
	Truncated    bool        `json:"truncated" jsonschema:"entries were shortened to stay within the output budget"`
}

func (s *Server) sessionRead(ctx context.Context, _ *mcp.CallToolRequest, in ReadIn) (*mcp.CallToolResult, ReadOut, error) {
	out := ReadOut{Entries: []ReadEntry{}}
	id := strings.TrimSpace(in.SessionID)
	if len(id) < transcripts.MinIDPrefix {
		return nil, out, toolError("session_id %q is too short: pass at least %d characters of a session id from memory_recall or memory_timeline", id, transcripts.MinIDPrefix)
	}
	if in.Offset < 0 {
		return nil, out, toolError("offset must not be negative")
	}
	s.syncMaybe(ctx)
	c, err := s.st.Conversation(ctx, id)
	if err != nil {
		return nil, out, toolError("cannot read session %s: %v (memory_recall and memory_timeline list session ids)", id, err)
	}
	out.SessionID, out.Project, out.Title, out.Start = c.Session.ID, c.Session.ProjectPath, clip(c.Session.Title, maxSummaryChars), rfc3339(c.Session.Start)
	thread, err := readThread(c, in)
	if err != nil {
		return nil, out, err
	}
	all := readEntries(c.Agents[thread])
	if thread == "" {
		all = readEntries(c.Entries)
	}
	out.AgentID, out.TotalEntries = thread, len(all)
	start, err := readStart(all, in, c.Session.ID)
	if err != nil {
		return nil, out, err
	}
	out.Entries, out.NextOffset, out.Truncated = readPage(all, start)
	return nil, out, nil
}

// readThread is which thread of the session an excerpt reads: the
// subagent in.AgentID names, the one holding in.AroundUUID when the main
// thread does not (memory_recall's best entry may be a subagent's), or ""
// for the main thread.
func readThread(c *transcripts.Conversation, in ReadIn) (string, error) {
	if in.AgentID != "" {
		if _, ok := c.Agents[in.AgentID]; !ok {
			return "", toolError("session %s has no subagent %s: call session_read without agent_id to read the main conversation", c.Session.ID, in.AgentID)
		}
		return in.AgentID, nil
	}
	has := func(e transcripts.Entry) bool { return e.UUID == in.AroundUUID }
	if in.AroundUUID == "" || slices.ContainsFunc(c.Entries, has) {
		return "", nil
	}
	for agent, entries := range c.Agents {
		if slices.ContainsFunc(entries, has) {
			return agent, nil
		}
	}
	return "", nil
}

// readEntries are the session's entries that have text, numbered.
func readEntries(entries []transcripts.Entry) []ReadEntry {
	var all []ReadEntry
	for i := range entries {
		e := &entries[i]
		if text := entryText(e); text != "" {
			all = append(all, ReadEntry{Index: len(all), UUID: e.UUID, Role: role(e), Timestamp: rfc3339(e.Timestamp), Text: text})
		}
	}
	return all
}

// readStart is where an excerpt starts: the offset, or a little before
// the entry named by around_uuid.
func readStart(all []ReadEntry, in ReadIn, session string) (int, error) {
	start := in.Offset
	if in.AroundUUID != "" {
		i := slices.IndexFunc(all, func(e ReadEntry) bool { return e.UUID == in.AroundUUID })
		if i < 0 {
			return 0, toolError("entry %s is not in session %s (or has no text): call session_read without around_uuid to read from the start", in.AroundUUID, session)
		}
		start = max(0, i-maxReadEntries/4)
	}
	if start >= len(all) && len(all) > 0 {
		return 0, toolError("offset %d is past the end of session %s (%d entries)", start, session, len(all))
	}
	return start, nil
}

// readPage takes entries from start within the output budget; next is
// the offset to read on (0 at the end).
func readPage(all []ReadEntry, start int) (page []ReadEntry, next int, truncated bool) {
	page = []ReadEntry{}
	chars := 0
	i := start
	for ; i < len(all) && len(page) < maxReadEntries; i++ {
		e := all[i]
		if len(e.Text) > maxEntryChars {
			e.Text = clip(e.Text, maxEntryChars)
			truncated = true
		}
		if chars+len(e.Text) > maxReadChars && len(page) > 0 {
			break
		}
		chars += len(e.Text)
		page = append(page, e)
	}
	if i < len(all) {
		next = i
	}
	return page, next, truncated
}

func role(e *transcripts.Entry) string {
	switch {
	case e.Type == "assistant":
		return "assistant"
	case e.Type == "system":
		return "system"
	case e.IsToolResultOnly():
		return "tool"
	}
	return "user"
}

// entryText renders an entry as plain text: prompts and replies in full,
// tool calls as one line, tool output and thinking shortened.
func entryText(e *transcripts.Entry) string {
	if e.Type == "system" {
		return termtext.Safe(e.Text)
	}
	var parts []string
	for i := range e.Blocks {
		b := &e.Blocks[i]
		switch b.Type {
		case transcripts.BlockText:
			parts = append(parts, b.Text)
		case transcripts.BlockToolUse:
			parts = append(parts, "["+b.ToolName+"] "+transcripts.ToolSummary(b))
		case transcripts.BlockToolResult:
			parts = append(parts, "[result] "+clip(b.Text, 600))
		case transcripts.BlockThinking:
			// Claude's private reasoning: left out of excerpts.
		default:
			if b.Text != "" {
				parts = append(parts, clip(b.Text, 200))
			}
		}
	}
	return termtext.Safe(strings.TrimSpace(strings.Join(parts, "\n")))
}

// --- helpers ---

// clip shortens s to n runes with an ellipsis.
func clip(s string, n int) string {
	s = termtext.Safe(s)
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func round(f float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(f*p) / p
}
