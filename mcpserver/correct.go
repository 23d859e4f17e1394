package mcpserver

import (
	"context"
	"errors"
	"strings"

	"github.com/cairn-dev/cairn/memories"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The rules of what a correction or a forget request does live in
// memories (Service.Correct, Service.Forget): these tools only expose them.

type CorrectIn struct {
	MemoryID string `json:"memory_id" jsonschema:"the memory to correct (an id from memory_search or the injected context; 4+ characters are enough)"`
	Content  string `json:"content" jsonschema:"the whole corrected memory: one self-contained sentence (no secrets)"`
	Reason   string `json:"reason,omitempty" jsonschema:"why it was wrong (kept in the audit trail the user sees)"`
}

// ChangeOut is what memory_correct and memory_forget answer.
type ChangeOut struct {
	Action      string     `json:"action" jsonschema:"corrected (changed in place), replacement-proposed (a pending memory replaces it once the user approves), rejected (forgotten) or back-to-review (approved memory sent back to the user's review)"`
	Memory      MemoryOut  `json:"memory" jsonschema:"the memory as it is now"`
	Replacement *MemoryOut `json:"replacement,omitempty" jsonschema:"the pending memory proposed instead of it"`
	Message     string     `json:"message"`
}

type ForgetIn struct {
	MemoryID string `json:"memory_id" jsonschema:"the memory to forget (an id from memory_search or the injected context; 4+ characters are enough)"`
	Reason   string `json:"reason" jsonschema:"why it should be forgotten (kept in the audit trail the user sees)"`
}

func (s *Server) registerChangeTools(srv *mcp.Server) {
	addTool(s, srv, &mcp.Tool{Name: "memory_correct", Description: toolDescriptions["memory_correct"],
		Annotations: &mcp.ToolAnnotations{Title: "Correct a memory", DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}}, s.memCorrect)
	addTool(s, srv, &mcp.Tool{Name: "memory_forget", Description: toolDescriptions["memory_forget"],
		Annotations: &mcp.ToolAnnotations{Title: "Forget a memory", DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)}}, s.memForget)
}

func (s *Server) memCorrect(ctx context.Context, _ *mcp.CallToolRequest, in CorrectIn) (*mcp.CallToolResult, ChangeOut, error) {
	out := ChangeOut{Memory: MemoryOut{Tags: []string{}}}
	if err := s.needMemories(); err != nil {
		return nil, out, err
	}
	if len(strings.TrimSpace(in.Content)) > maxRememberChars {
		return nil, out, toolError("content is %d characters: keep a memory under %d (one or two sentences)", len(in.Content), maxRememberChars)
	}
	r, err := s.o.Memories.Curator.Correct(ctx, memories.CorrectRequest{ID: strings.TrimSpace(in.MemoryID), Content: in.Content,
		Reason: in.Reason, Session: s.o.SessionID, By: "mcp", Scope: s.scope()})
	if err != nil {
		return nil, out, changeError(in.MemoryID, err)
	}
	return nil, changeOut(r), nil
}

func (s *Server) memForget(ctx context.Context, _ *mcp.CallToolRequest, in ForgetIn) (*mcp.CallToolResult, ChangeOut, error) {
	out := ChangeOut{Memory: MemoryOut{Tags: []string{}}}
	if err := s.needMemories(); err != nil {
		return nil, out, err
	}
	r, err := s.o.Memories.Curator.Forget(ctx, memories.ForgetRequest{ID: strings.TrimSpace(in.MemoryID), Reason: in.Reason,
		Session: s.o.SessionID, By: "mcp", Scope: s.scope()})
	if err != nil {
		return nil, out, changeError(in.MemoryID, err)
	}
	return nil, changeOut(r), nil
}

// scope is what this server's write tools may change: its own project's
// memories, and global ones when memories.mcp_global allows it. Claude
// reads untrusted text (files, web pages, tool output) in this project; a
// prompt injection there must not silence what the user approved in
// another (see memories.Scope).
func (s *Server) scope() *memories.Scope {
	return &memories.Scope{Project: s.o.Project, Global: s.cfg.Memories.MCPGlobal}
}

// changeError is a tool error that says what to do instead.
func changeError(id string, err error) error {
	switch {
	case errors.Is(err, memories.ErrNotFound):
		return toolError("no memory %s: memory_search lists memory ids (%v)", strings.TrimSpace(id), err)
	case errors.Is(err, memories.ErrNotEditable):
		return toolError("%v; to record something new, use memory_remember", err)
	case errors.Is(err, memories.ErrOutOfScope):
		return toolError("refused: %v. Do not retry; if the user asked for this change, tell them to make it in cairn (`cairn memories`)", err)
	}
	return toolError("%v", err)
}

func changeOut(r memories.ChangeResult) ChangeOut {
	out := ChangeOut{Action: r.Action, Memory: memoryOut(*r.Memory, 0)}
	if r.Replacement != nil {
		rep := memoryOut(*r.Replacement, 0)
		out.Replacement = &rep
	}
	switch r.Action {
	case memories.ActionCorrected:
		out.Message = "Corrected " + out.Memory.ID + "."
	case memories.ActionReplacementProposed:
		out.Message = "The user approved " + out.Memory.ID + ", so it stays in use until they review the correction " + out.Replacement.ID + " in cairn (tell the user)."
	case memories.ActionRejected:
		out.Message = "Forgotten: " + out.Memory.ID + " is rejected and will not be proposed again."
	case memories.ActionBackToReview:
		out.Message = "The user approved " + out.Memory.ID + ": it is no longer used and awaits their review in cairn (tell the user)."
	}
	return out
}
