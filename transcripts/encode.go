package transcripts

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"time"
)

// Encoding writes entries back as Claude Code transcript lines: what
// `cairn export --sessions` produces so that sessions whose files Claude
// Code has deleted can be read by any tool that reads ~/.claude/projects
// again. It is the inverse of parse.go for the fields cairn keeps; reading
// an encoded line gives the same Entry back (a round-trip test holds it).

// encLine is one transcript line, in Claude Code's field names.
type encLine struct {
	ParentUUID        *string     `json:"parentUuid"`
	LogicalParentUUID string      `json:"logicalParentUuid,omitempty"`
	IsSidechain       bool        `json:"isSidechain"`
	UserType          string      `json:"userType,omitempty"`
	CWD               string      `json:"cwd,omitempty"`
	SessionID         string      `json:"sessionId"`
	Version           string      `json:"version,omitempty"`
	GitBranch         string      `json:"gitBranch,omitempty"`
	AgentID           string      `json:"agentId,omitempty"`
	Type              string      `json:"type"`
	Subtype           string      `json:"subtype,omitempty"`
	IsMeta            bool        `json:"isMeta,omitempty"`
	IsCompactSummary  bool        `json:"isCompactSummary,omitempty"`
	Message           *encMessage `json:"message,omitempty"`
	Content           string      `json:"content,omitempty"`
	Operation         string      `json:"operation,omitempty"`
	CompactMetadata   *encCompact `json:"compactMetadata,omitempty"`
	DurationMs        int64       `json:"durationMs,omitempty"`
	ToolUseResult     *encResult  `json:"toolUseResult,omitempty"`
	RequestID         string      `json:"requestId,omitempty"`
	UUID              string      `json:"uuid"`
	Timestamp         string      `json:"timestamp,omitempty"`
}

type encMessage struct {
	ID      string          `json:"id,omitempty"`
	Role    string          `json:"role"`
	Model   string          `json:"model,omitempty"`
	Content json.RawMessage `json:"content"`
	Usage   *Usage          `json:"usage,omitempty"`
}

// encResult is the part of toolUseResult cairn keeps: the agent a
// Task/Agent call spawned.
type encResult struct {
	AgentID string `json:"agentId"`
}

type encCompact struct {
	Trigger   string `json:"trigger,omitempty"`
	PreTokens int64  `json:"preTokens,omitempty"`
}

type encBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   *string         `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	Source    *encSource      `json:"source,omitempty"`
}

type encSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data"`
}

// EncodeEntry writes e as one transcript line (no newline). Context the
// entry does not carry (cwd, branch, version) comes from ctx.
func EncodeEntry(e *Entry, ctx LineContext) ([]byte, error) {
	l := encLine{IsSidechain: e.IsSidechain, CWD: ctx.CWD, SessionID: cmp.Or(e.SessionID, ctx.SessionID), Version: ctx.Version, GitBranch: ctx.GitBranch,
		AgentID: e.AgentID, Type: e.Type, Subtype: e.Subtype, IsMeta: e.IsMeta, IsCompactSummary: e.IsCompactSummary,
		LogicalParentUUID: e.LogicalParentUUID, RequestID: e.RequestID, UUID: e.UUID, DurationMs: e.DurationMs}
	if e.ParentUUID != "" {
		p := e.ParentUUID
		l.ParentUUID = &p
	}
	if e.ResultAgentID != "" {
		l.ToolUseResult = &encResult{AgentID: e.ResultAgentID}
	}
	if !e.Timestamp.IsZero() {
		l.Timestamp = e.Timestamp.UTC().Format("2006-01-02T15:04:05.000Z")
	}
	if err := l.setBody(e); err != nil {
		return nil, fmt.Errorf("entry %s: %w", e.UUID, err)
	}
	return marshalRaw(l)
}

// setBody fills in what a line of e's type holds: a system line's text and
// compaction, a queued prompt, or a user's or assistant's message.
func (l *encLine) setBody(e *Entry) error {
	switch e.Type {
	case "system":
		l.Content = e.Text
		if e.CompactTrigger != "" || e.PreTokens != 0 {
			l.CompactMetadata = &encCompact{Trigger: e.CompactTrigger, PreTokens: e.PreTokens}
		}
	case "queue-operation":
		// A prompt queued while Claude worked (QueuedText).
		l.Operation, l.Subtype, l.Content = e.Subtype, "", e.JoinedText()
	case "user", "assistant":
		if e.Type == "user" {
			l.UserType = "external"
		}
		content, err := encodeContent(e)
		if err != nil {
			return err
		}
		l.Message = &encMessage{ID: e.MessageID, Role: cmp.Or(e.Role, e.Type), Model: e.Model, Content: content, Usage: e.Usage}
	default:
		return fmt.Errorf("cannot encode a %q line", e.Type)
	}
	return nil
}

// LineContext is what a line carries that cairn keeps per session, not per
// entry.
type LineContext struct {
	SessionID, CWD, GitBranch, Version string
}

func encodeContent(e *Entry) (json.RawMessage, error) {
	if e.StringContent && len(e.Blocks) == 1 && e.Blocks[0].Type == "text" {
		return marshalRaw(e.Blocks[0].Text)
	}
	blocks := make([]encBlock, 0, len(e.Blocks))
	for _, b := range e.Blocks {
		blocks = append(blocks, encodeBlock(b))
	}
	return marshalRaw(blocks)
}

// encodeBlock is one content block in Claude Code's field names.
func encodeBlock(b Block) encBlock {
	eb := encBlock{Type: b.Type}
	text := b.Text
	switch b.Type {
	case "text":
		eb.Text = &text
	case "thinking":
		eb.Thinking = &text
	case "tool_use":
		eb.ID, eb.Name = b.ToolID, b.ToolName
		eb.Input = json.RawMessage(b.ToolInput)
		if len(eb.Input) == 0 || !json.Valid(eb.Input) {
			eb.Input = json.RawMessage("{}")
		}
	case "tool_result":
		eb.ToolUseID, eb.IsError = b.ToolUseID, b.IsError
		eb.Content = &text
	case "image", "document":
		// The payload is not kept: a placeholder of the same kind.
		eb.Source = &encSource{Type: "base64", MediaType: b.MediaType, Data: ""}
	default:
		eb.Text = &text
	}
	return eb
}

// marshalRaw is json.Marshal without HTML escaping: Claude Code writes
// "<" as is, and an escaped "\u003c" would make a text six times longer
// than what was read.
func marshalRaw(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// EncodeTitle writes the line that gives a session its title as cairn
// knows it (a custom or AI title, or a 1.x summary), or nil when the title
// comes from the conversation itself.
func EncodeTitle(s *Session, leaf string) ([]byte, error) {
	var v any
	switch s.TitleSource {
	case "custom":
		v = map[string]string{"type": "custom-title", "customTitle": s.Title, "sessionId": s.ID}
	case "ai":
		v = map[string]string{"type": "ai-title", "aiTitle": s.Title, "sessionId": s.ID}
	case "last-prompt":
		v = map[string]string{"type": "last-prompt", "lastPrompt": s.Title, "sessionId": s.ID}
	case "summary":
		if leaf == "" {
			return nil, nil
		}
		v = map[string]string{"type": "summary", "summary": s.Title, "leafUuid": leaf}
	default:
		return nil, nil
	}
	return json.Marshal(v)
}

// EncodeMark writes a progress line that only marks a moment of a session
// (its start or end when no stored entry carries it): readers count its
// time and nothing else.
func EncodeMark(sid, what string, t time.Time, ctx LineContext) []byte {
	b, _ := json.Marshal(map[string]any{"type": "progress", "sessionId": sid, "cwd": ctx.CWD,
		"uuid": "cairn-" + what + "-" + sid, "timestamp": t.UTC().Format("2006-01-02T15:04:05.000Z"),
		"data": map[string]string{"type": "cairn_export_" + what}})
	return b
}
