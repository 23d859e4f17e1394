package mcpserver

import (
	"context"
	"strings"

	"github.com/cairn-dev/cairn/memories"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// --- memory_ask ---

type AskIn struct {
	Question string `json:"question" jsonschema:"the question, in plain words (e.g. how did we fix the websocket reconnect loop?)"`
	Project  string `json:"project,omitempty" jsonschema:"only this project's sessions and memories (its path, or part of it)"`
}

type AskEvidence struct {
	Kind      string `json:"kind" jsonschema:"memory, summary or excerpt"`
	Ref       string `json:"ref" jsonschema:"what the answer cites: a memory id, or s: and a session id"`
	SessionID string `json:"session_id,omitempty"`
	Project   string `json:"project,omitempty"`
	Title     string `json:"title,omitempty"`
	Text      string `json:"text"`
	Timestamp string `json:"timestamp,omitempty"`
}

type AskOut struct {
	Answer   string        `json:"answer" jsonschema:"the synthesized answer with inline citations; empty when no model is configured or nothing matched (see note)"`
	Model    string        `json:"model,omitempty" jsonschema:"who wrote the answer"`
	Cited    []string      `json:"cited" jsonschema:"the refs the answer used"`
	Evidence []AskEvidence `json:"evidence" jsonschema:"what was found, best first: approved memories, then session summaries and excerpts"`
	Note     string        `json:"note,omitempty" jsonschema:"what to know: no model configured, the model failed, nothing matched"`
}

func (s *Server) registerAsk(srv *mcp.Server) {
	addTool(s, srv, &mcp.Tool{Name: "memory_ask", Description: toolDescriptions["memory_ask"],
		Annotations: readOnly("Ask past sessions and memories")}, s.ask)
}

func (s *Server) ask(ctx context.Context, _ *mcp.CallToolRequest, in AskIn) (*mcp.CallToolResult, AskOut, error) {
	out := AskOut{Cited: []string{}, Evidence: []AskEvidence{}}
	if err := s.needMemories(); err != nil {
		return nil, out, err
	}
	q := strings.TrimSpace(in.Question)
	if q == "" {
		return nil, out, toolError("question is empty: ask in plain words what you want to know")
	}
	if len(q) > maxRememberChars*4 {
		return nil, out, toolError("question is %d characters: ask in a sentence or two", len(q))
	}
	s.syncMaybe(ctx)
	project, err := s.oneProject(ctx, in.Project, "")
	if err != nil {
		return nil, out, err
	}
	a, err := s.o.Memories.Recall.Ask(ctx, q, memories.AskOptions{Project: project, LockWait: s.o.LockWait})
	if err != nil {
		return nil, out, toolError("%v", err)
	}
	out.Answer, out.Model, out.Cited, out.Note = a.Answer, a.Model, a.Cited, a.Note
	for _, e := range a.Evidence {
		ae := AskEvidence{Kind: e.Kind, Ref: e.Ref, SessionID: e.SessionID, Project: e.Project, Title: clip(e.Title, maxSummaryChars), Text: clip(e.Text, maxExcerptChars)}
		if !e.Time.IsZero() {
			ae.Timestamp = rfc3339(e.Time)
		}
		out.Evidence = append(out.Evidence, ae)
	}
	return nil, out, nil
}
