package mcpserver

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/memories"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tools behind the slash commands: /recall (memory_brief with no
// query, memory_recall and memory_search with one), /remember
// (memory_remember) and /summarize (session_save_summary). The commands
// hand the user's text to these tools as JSON arguments, never to a shell:
// no text can end a heredoc or trip Claude Code's Bash checks, and it
// arrives byte for byte.

const (
	maxBriefMemories  = 40
	maxBriefSummaries = 3
	maxBriefSummary   = 1500
)

func (s *Server) registerCommandTools(srv *mcp.Server) {
	addTool(s, srv, &mcp.Tool{Name: "session_save_summary", Description: toolDescriptions["session_save_summary"],
		Annotations: &mcp.ToolAnnotations{Title: "Save a session summary", DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}}, s.saveSummary)
	addTool(s, srv, &mcp.Tool{Name: "memory_brief", Description: toolDescriptions["memory_brief"],
		Annotations: readOnly("This project's memory")}, s.brief)
}

// --- session_save_summary ---

type SaveSummaryIn struct {
	Summary   string `json:"summary" jsonschema:"the summary in Markdown: ## Request, ## Investigated, ## Decisions, ## Discoveries, ## Learned, ## Completed, ## Next steps, ## Files read, ## Files edited, ## Notes (leave out empty sections)"`
	SessionID string `json:"session_id,omitempty" jsonschema:"the session it summarises (the id /summarize names); leave it out for the current session"`
}

type SaveSummaryOut struct {
	DraftID   string `json:"draft_id"`
	SessionID string `json:"session_id"`
	Status    string `json:"status" jsonschema:"pending: the draft awaits the user's review in cairn"`
	Message   string `json:"message"`
}

func (s *Server) saveSummary(ctx context.Context, _ *mcp.CallToolRequest, in SaveSummaryIn) (*mcp.CallToolResult, SaveSummaryOut, error) {
	var out SaveSummaryOut
	if err := s.needMemories(); err != nil {
		return nil, out, err
	}
	sid := cmp.Or(strings.TrimSpace(in.SessionID), s.o.SessionID)
	if sid == "" {
		return nil, out, toolError("no session_id given and the current session is unknown: pass the session id /summarize names (or the one in cairn's context at session start)")
	}
	if strings.TrimSpace(in.Summary) == "" {
		return nil, out, toolError("summary is empty: pass the summary's Markdown")
	}
	d, err := s.addDraft(ctx, sid, in.Summary)
	if err != nil {
		return nil, out, err
	}
	out = SaveSummaryOut{DraftID: d.ID, SessionID: d.SessionID, Status: d.Status,
		Message: "Saved as draft " + d.ID + "; it awaits the user's review (run `cairn`, or `cairn drafts list`)."}
	return nil, out, nil
}

// addDraft files a session's summary as a draft, when the session is in
// scope.
func (s *Server) addDraft(ctx context.Context, sid, summary string) (*memories.Draft, error) {
	if err := s.draftInScope(ctx, sid); err != nil {
		return nil, err
	}
	d, err := s.o.Memories.Drafts.AddDraft(ctx, sid, summary)
	// A session that started moments ago: read its transcript now, and
	// again for a little while, as Claude Code may not have written its
	// first lines yet when the command's tool call comes (seen once in the
	// e2e suite on 2.1.197: the one sync found no transcript).
	for wait := 250 * time.Millisecond; errors.Is(err, memories.ErrNotFound) && wait <= time.Second; wait *= 2 {
		s.syncNow(ctx)
		if err := s.draftInScope(ctx, sid); err != nil {
			return nil, err
		}
		if d, err = s.o.Memories.Drafts.AddDraft(ctx, sid, summary); !errors.Is(err, memories.ErrNotFound) {
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
	return d, draftError(sid, err)
}

// draftError is what the tool says of a draft not stored (nil when it was).
func draftError(sid string, err error) error {
	switch {
	case errors.Is(err, memories.ErrNotFound):
		return toolError("session %s is not in cairn's index yet (its transcript was not found): try again in a moment, or check the id", sid)
	case errors.Is(err, memories.ErrBadDraft):
		return toolError("%v", err)
	case err != nil:
		return toolError("storing the summary failed: %v", err)
	}
	return nil
}

// draftInScope refuses a summary of another project's session (see
// scope): the person reviews drafts, but one project's Claude must not
// file summaries under another. A session not indexed yet passes: it is
// checked again after the sync that finds it.
func (s *Server) draftInScope(ctx context.Context, sid string) error {
	if s.st == nil {
		return nil
	}
	ss, err := s.st.Session(ctx, sid)
	if err != nil || ss == nil || ss.ProjectPath == s.o.Project {
		return nil
	}
	return toolError("refused: session %s belongs to project %s, and this server runs for %s: summarise only this project's sessions (memories.Scope). Do not retry", ss.ID, ss.ProjectPath, s.o.Project)
}

// syncNow syncs the transcripts whatever the time since the last sync.
func (s *Server) syncNow(ctx context.Context) {
	s.mu.Lock()
	s.lastSync = s.lastSync.AddDate(-1, 0, 0)
	s.mu.Unlock()
	s.syncMaybe(ctx)
}

// --- memory_brief ---

type BriefIn struct {
	Project string `json:"project,omitempty" jsonschema:"another project (its path, or part of it); default: the current one"`
}

type BriefSummary struct {
	SessionID string `json:"session_id"`
	Created   string `json:"created" jsonschema:"RFC 3339"`
	Markdown  string `json:"markdown"`
}

type BriefOut struct {
	Project         string         `json:"project"`
	Memories        []MemoryOut    `json:"memories" jsonschema:"the project's approved memories (and global ones), best first"`
	Summaries       []BriefSummary `json:"summaries" jsonschema:"the project's latest session summaries, newest first"`
	PendingMemories int            `json:"pending_memories" jsonschema:"memories awaiting the user's review (all projects)"`
	PendingDrafts   int            `json:"pending_drafts" jsonschema:"summary drafts awaiting the user's review (all projects)"`
	Note            string         `json:"note,omitempty"`
}

func (s *Server) brief(ctx context.Context, _ *mcp.CallToolRequest, in BriefIn) (*mcp.CallToolResult, BriefOut, error) {
	out := BriefOut{Memories: []MemoryOut{}, Summaries: []BriefSummary{}}
	if err := s.needMemories(); err != nil {
		return nil, out, err
	}
	project, err := s.oneProject(ctx, in.Project, s.o.Project)
	if err != nil {
		return nil, out, err
	}
	b, err := s.o.Memories.Recall.Brief(ctx, project, memories.BriefOptions{Memories: maxBriefMemories, Summaries: maxBriefSummaries})
	if err != nil {
		return nil, out, toolError("reading this project's memory failed: %v", err)
	}
	out.Project, out.PendingMemories, out.PendingDrafts = project, b.PendingMemories, b.PendingDrafts
	for _, m := range b.Memories {
		out.Memories = append(out.Memories, memoryOut(m.Memory, 0))
	}
	for _, sm := range b.Summaries {
		out.Summaries = append(out.Summaries, BriefSummary{SessionID: sm.SessionID, Created: rfc3339(sm.Created), Markdown: clip(sm.Markdown, maxBriefSummary)})
	}
	if len(out.Memories) == 0 {
		out.Note = "No approved memories yet: memories are extracted when sessions end and approved by the user in cairn; memory_remember proposes one."
	}
	return nil, out, nil
}
