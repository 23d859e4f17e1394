// Package transcripts discovers and parses Claude Code transcript files
// (projects/<P>/*.jsonl and their subagent files). It knows the file formats
// and nothing about storage: everything here is a pure function over readers.
package transcripts

import (
	"time"
)

// Entry is one parsed transcript line, normalised across Claude Code versions.
// Every field is optional: the format drifts between releases.
type Entry struct {
	Type    string // user, assistant, system, progress, attachment, summary, custom-title, ...
	Subtype string // system.subtype, progress data.type or attachment.type

	UUID              string
	ParentUUID        string
	LogicalParentUUID string // compact_boundary: the last pre-compaction entry
	SessionID         string
	AgentID           string // subagent entries
	Timestamp         time.Time

	CWD       string
	GitBranch string
	Version   string

	IsSidechain      bool
	IsMeta           bool // injected text, hidden in a transcript view
	IsCompactSummary bool

	// Assistant API response identity; one response is written as one line per
	// content block sharing MessageID and RequestID.
	MessageID string
	RequestID string
	Model     string
	Role      string // message.role
	// IsAPIError marks an assistant entry Claude Code wrote for a failed
	// API call (isApiErrorMessage); see IsSyntheticReply.
	IsAPIError bool
	Usage      *Usage

	// Content blocks. A user prompt given as a plain string becomes one text block.
	Blocks []Block
	// StringContent is true when message.content was a plain string (typed
	// prompts, command wrappers, compaction summaries).
	StringContent bool

	// Metadata entries.
	Summary     string // summary entries (1.x–2.0.x)
	LeafUUID    string
	CustomTitle string
	AITitle     string
	LastPrompt  string

	// System entries.
	Text           string // system content ("Conversation compacted", local command output)
	CompactTrigger string
	PreTokens      int64
	DurationMs     int64

	// Tool result envelope: the agent a Task/Agent call spawned.
	ResultAgentID string
	// Progress entries: linkage of legacy subagents and tool progress.
	ToolUseID       string
	ParentToolUseID string
	// Hooks are the hook runs a 2.x hook line records (hooks.go).
	Hooks []HookRun

	// Position in the source file.
	Line   int   // 1-based line number
	Offset int64 // byte offset of the start of the line
}

// Usage is the token usage reported on an assistant response.
type Usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

// Total is every token the response accounted for.
func (u Usage) Total() int64 {
	return u.InputTokens + u.OutputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
}

// Add accumulates o into u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheCreationInputTokens += o.CacheCreationInputTokens
	u.CacheReadInputTokens += o.CacheReadInputTokens
}

// Block kinds.
const (
	BlockText             = "text"
	BlockThinking         = "thinking"
	BlockRedactedThinking = "redacted_thinking"
	BlockToolUse          = "tool_use"
	BlockToolResult       = "tool_result"
	BlockImage            = "image"
	BlockDocument         = "document"
	BlockServerToolUse    = "server_tool_use"
)

// Block is one content block. Binary payloads (images, documents) are never
// kept: Text holds a placeholder with the media type and decoded size instead.
type Block struct {
	Type string
	Text string // text, thinking, tool result text, or a media placeholder

	// tool_use
	ToolID    string
	ToolName  string
	ToolInput []byte // raw JSON object of the tool input

	// tool_result
	ToolUseID string
	IsError   bool

	// image/document
	MediaType string
	Size      int // decoded payload size in bytes
}

// IsUserOrAssistant reports whether the entry is part of the conversation
// proper (not metadata, progress or bookkeeping).
func (e *Entry) IsUserOrAssistant() bool { return e.Type == "user" || e.Type == "assistant" }

// IsToolResultOnly reports whether a user entry carries only tool results
// (what Claude Code writes back after running a tool), as opposed to a prompt.
func (e *Entry) IsToolResultOnly() bool {
	if e.Type != "user" || len(e.Blocks) == 0 {
		return false
	}
	for _, b := range e.Blocks {
		if b.Type != BlockToolResult {
			return false
		}
	}
	return true
}

// PromptText returns what the person wrote in a user prompt: its text
// blocks judged one by one, leaving out the markers Claude Code or the IDE
// extension added as blocks of their own (IsSynthetic: <ide_opened_file>,
// <system-reminder>, interruption notes, ...). It is "" when the entry is
// not a user prompt or holds only markers.
func (e *Entry) PromptText() string {
	if e.Type != "user" || e.IsToolResultOnly() {
		return ""
	}
	return blocksPrompt(e.Blocks)
}

// IDEContext returns the context the IDE extension (VS Code, JetBrains)
// wrote beside a prompt, one line per block: "The user opened the file …",
// "The user selected the lines … from …". It is shown as a detail of the
// prompt, never as the prompt.
func (e *Entry) IDEContext() []string {
	if e.Type != "user" {
		return nil
	}
	var out []string
	for _, b := range e.Blocks {
		if b.Type != BlockText {
			continue
		}
		ctx, _ := splitIDE(b.Text)
		out = append(out, ctx...)
	}
	return out
}

// Media returns the placeholders of the images and documents of the entry
// ("[image: image/png, 1.2 MB]").
func (e *Entry) Media() []string {
	var out []string
	for _, b := range e.Blocks {
		if b.Type == BlockImage || b.Type == BlockDocument {
			out = append(out, b.Text)
		}
	}
	return out
}

// onlyText is the entry's text block when it has exactly one, else nil.
func (e *Entry) onlyText() *Block {
	var one *Block
	for i := range e.Blocks {
		if e.Blocks[i].Type != BlockText {
			continue
		}
		if one != nil {
			return nil
		}
		one = &e.Blocks[i]
	}
	return one
}

// JoinedText joins the text blocks of the entry.
func (e *Entry) JoinedText() string {
	if b := e.onlyText(); b != nil {
		return b.Text // as it is: no copy
	}
	var out []byte
	for _, b := range e.Blocks {
		if b.Type != BlockText {
			continue
		}
		if len(out) > 0 {
			out = append(out, '\n')
		}
		out = append(out, b.Text...)
	}
	return string(out)
}
