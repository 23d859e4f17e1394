// Package fakeclaude runs the real Claude Code CLI offline in tests: a
// scripted fake of the Anthropic Messages API (an httptest server on
// loopback) and a helper that finds or installs the pinned CLI.
//
// Typical use (see e2e/claudecode for many more):
//
//	cli := fakeclaude.RequireCLI(t) // installs @anthropic-ai/claude-code@Version once per machine
//	api := fakeclaude.NewServer(t, fakeclaude.Script(
//		fakeclaude.ToolUse("Bash", map[string]any{"command": "echo hi"}),
//		fakeclaude.Text("done"),
//	))
//	home, dir := t.TempDir(), t.TempDir() // a scratch HOME (its ~/.claude) and the project
//	cmd := cli.Command(t, api, home, dir, nil, "-p", "say hi", "--allowedTools", "Bash(echo:*)")
//	out, err := cmd.CombinedOutput() // an *exec.Cmd with the clean offline environment (Env)
//	for _, r := range api.MainRequests() { ... r.AllText(), r.SystemText(), r.ToolNames(), r.LastToolResult() ... }
//
// Extra environment (CLAUDE_CONFIG_DIR, a PATH with your binaries, …) goes
// in the extra argument of Command or Env as KEY=VALUE entries.
//
// The server answers every POST /v1/messages: requests of the main loop
// (those that offer tools, or any request when [Server.AllRequests] is set)
// get the next reply of the script, streamed as SSE when the request asks for
// a stream; side requests without tools (Claude Code's title and topic
// calls on a small model) get [SideReply]. POST /v1/messages/count_tokens
// gets a rough count. Every request body is recorded: it is exactly what the
// model would have seen (hook context, expanded slash commands, tool
// results), and tests assert on it.
//
// A [Responder] decides a reply from the request itself, which lets a script
// react to what Claude Code sent (e.g. answer a tool result).
package fakeclaude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Block is one content block of a reply: text or a tool call.
type Block struct {
	Type  string // "text" or "tool_use"
	Text  string // for text
	ID    string // for tool_use; generated when empty
	Name  string // for tool_use: the tool's name as Claude Code offered it (Bash, mcp__cairn__memory_search…)
	Input any    // for tool_use: marshalled to JSON
}

// Reply is one assistant message. Its stop reason is "tool_use" when it
// holds a tool call, else "end_turn".
type Reply struct {
	Blocks []Block
}

// Text is a reply of one text block.
func Text(s string) Reply { return Reply{Blocks: []Block{{Type: "text", Text: s}}} }

// ToolUse is a reply that calls one tool.
func ToolUse(name string, input any) Reply {
	return Reply{Blocks: []Block{{Type: "tool_use", Name: name, Input: input}}}
}

// TextAndTool is a reply of a text block followed by one tool call.
func TextAndTool(text, name string, input any) Reply {
	return Reply{Blocks: []Block{{Type: "text", Text: text}, {Type: "tool_use", Name: name, Input: input}}}
}

// SideReply answers requests outside the main loop (no tools offered):
// Claude Code asks a small model for a session title as JSON.
var SideReply = Text(`{"title":"test session","isNewTopic":false}`)

// Responder picks the reply to a main-loop request. n counts the main-loop
// requests answered before this one (0 for the first). The server calls it
// from its own goroutines, one call at a time: state it shares with the
// test needs a lock (or read it through Server.Locked).
type Responder func(n int, r *Request) Reply

// Script answers the main-loop requests with the replies in order, then with
// Text("done") for every further request.
func Script(replies ...Reply) Responder {
	return func(n int, _ *Request) Reply {
		if n < len(replies) {
			return replies[n]
		}
		return Text("done")
	}
}

// Request is one recorded request.
type Request struct {
	Path   string
	Header http.Header
	Body   []byte // verbatim

	// Decoded from Body (the Messages API request).
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	System   json.RawMessage   `json:"system"`
	Messages []Message         `json:"messages"`
	Tools    []json.RawMessage `json:"tools"`
	Main     bool              `json:"-"` // answered from the script
}

// Message is one message of a request.
type Message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string or an array of blocks
}

// ContentBlock is a block of a message's content.
type ContentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"` // tool_result: a string or blocks
	IsError   bool            `json:"is_error,omitempty"`
}

// Blocks returns a message's content as blocks (a string is one text block).
func (m Message) Blocks() []ContentBlock {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []ContentBlock{{Type: "text", Text: s}}
	}
	var bs []ContentBlock
	_ = json.Unmarshal(m.Content, &bs)
	return bs
}

// Text is all text of a message: its text blocks and the text of its tool
// results, one per line.
func (m Message) Text() string {
	var sb strings.Builder
	for _, b := range m.Blocks() {
		switch b.Type {
		case "text":
			sb.WriteString(b.Text + "\n")
		case "tool_result":
			sb.WriteString(ResultText(b) + "\n")
		}
	}
	return sb.String()
}

// ResultText is a tool_result block's content as text.
func ResultText(b ContentBlock) string {
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		return s
	}
	var parts []ContentBlock
	_ = json.Unmarshal(b.Content, &parts)
	var sb strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			sb.WriteString(p.Text)
		}
	}
	return sb.String()
}

// SystemText is the system prompt as one string.
func (r *Request) SystemText() string {
	var s string
	if json.Unmarshal(r.System, &s) == nil {
		return s
	}
	var bs []ContentBlock
	_ = json.Unmarshal(r.System, &bs)
	var sb strings.Builder
	for _, b := range bs {
		sb.WriteString(b.Text + "\n")
	}
	return sb.String()
}

// ToolNames are the names of the tools the request offers.
func (r *Request) ToolNames() []string {
	var out []string
	for _, t := range r.Tools {
		var v struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(t, &v)
		out = append(out, v.Name)
	}
	return out
}

// Tool returns the definition of the named tool offered, or nil.
func (r *Request) Tool(name string) json.RawMessage {
	for _, t := range r.Tools {
		var v struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(t, &v)
		if v.Name == name {
			return t
		}
	}
	return nil
}

// AllText is every message's text, in order, one after another: what a
// test searches for injected context or tool output.
func (r *Request) AllText() string {
	var sb strings.Builder
	for _, m := range r.Messages {
		sb.WriteString(m.Text())
	}
	return sb.String()
}

// LastToolResult returns the last tool_result block after the request's
// last assistant message (Claude Code may add a reminder message after the
// results), if there is one.
func (r *Request) LastToolResult() (ContentBlock, bool) {
	for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role != "assistant"; i-- {
		bs := r.Messages[i].Blocks()
		for j := len(bs) - 1; j >= 0; j-- {
			if bs[j].Type == "tool_result" {
				return bs[j], true
			}
		}
	}
	return ContentBlock{}, false
}

// Server is the fake Messages API.
type Server struct {
	URL string
	// AllRequests makes every /v1/messages request a main-loop one, tools
	// or not (for runs with `--tools ""`). Set it, and Side, before the CLI
	// runs.
	AllRequests bool
	// Side answers the requests outside the main loop; nil means SideReply.
	Side func(r *Request) Reply

	t       testing.TB
	srv     *httptest.Server
	respond Responder

	respMu   sync.Mutex // one Responder call at a time
	mu       sync.Mutex
	requests []*Request
	main     int
	ids      int
}

// NewServer starts a fake API answering main-loop requests with respond;
// it stops when the test ends.
func NewServer(t testing.TB, respond Responder) *Server {
	t.Helper()
	s := &Server{t: t, respond: respond}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Locked runs fn while no Responder runs: a test reads what its
// Responder recorded through it.
func (s *Server) Locked(fn func()) {
	s.respMu.Lock()
	defer s.respMu.Unlock()
	fn()
}

// Requests returns every /v1/messages request so far (not token counts).
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Request
	for _, r := range s.requests {
		if r.Path == "/v1/messages" {
			out = append(out, r)
		}
	}
	return out
}

// MainRequests returns the main-loop requests so far.
func (s *Server) MainRequests() []*Request {
	var out []*Request
	for _, r := range s.Requests() {
		if r.Main {
			out = append(out, r)
		}
	}
	return out
}

// Dump is the messages of every main-loop request, each cut to 1,500
// characters (Claude Code's own reminders are long), for a failing test's
// log.
func (s *Server) Dump() string {
	var sb strings.Builder
	for i, r := range s.MainRequests() {
		fmt.Fprintf(&sb, "--- request %d (%s)\n", i, r.Model)
		for _, m := range r.Messages {
			t := m.Text()
			if len(t) > 1500 {
				t = t[:1500] + "…\n"
			}
			fmt.Fprintf(&sb, "[%s] %s", m.Role, t)
		}
	}
	return sb.String()
}

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	body, _ := io.ReadAll(hr.Body)
	r := &Request{Path: hr.URL.Path, Header: hr.Header.Clone(), Body: body}
	_ = json.Unmarshal(body, r)
	switch {
	case hr.Method == http.MethodPost && hr.URL.Path == "/v1/messages/count_tokens":
		s.record(r)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"input_tokens":%d}`, len(body)/4+1)
		return
	case hr.Method == http.MethodPost && hr.URL.Path == "/v1/messages":
	default:
		s.record(r)
		// Anything else Claude Code may try (none is needed offline).
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"type":"error","error":{"type":"not_found_error","message":"not served by the fake API"}}`)
		return
	}
	s.mu.Lock()
	r.Main = s.AllRequests || len(r.Tools) > 0
	n := s.main
	if r.Main {
		s.main++
	}
	s.requests = append(s.requests, r)
	s.mu.Unlock()

	reply := SideReply
	s.respMu.Lock()
	switch {
	case r.Main:
		reply = s.respond(n, r)
	case s.Side != nil:
		reply = s.Side(r)
	}
	s.respMu.Unlock()
	msg := s.message(r, reply)
	if r.Stream {
		s.stream(w, msg, reply)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(msg)
}

func (s *Server) record(r *Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r)
	s.mu.Unlock()
}

func (s *Server) nextID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids++
	return fmt.Sprintf("%s_fake%06d", prefix, s.ids)
}

type apiBlock struct {
	Type  string          `json:"type"`
	Text  *string         `json:"text,omitempty"`
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
}

type apiMessage struct {
	ID           string     `json:"id"`
	Type         string     `json:"type"`
	Role         string     `json:"role"`
	Model        string     `json:"model"`
	Content      []apiBlock `json:"content"`
	StopReason   *string    `json:"stop_reason"`
	StopSequence *string    `json:"stop_sequence"`
	Usage        apiUsage   `json:"usage"`
}

type apiUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

func (s *Server) message(r *Request, reply Reply) apiMessage {
	model := r.Model
	if model == "" {
		model = "claude-sonnet-4-5"
	}
	stop := "end_turn"
	var blocks []apiBlock
	for _, b := range reply.Blocks {
		switch b.Type {
		case "tool_use":
			stop = "tool_use"
			id := b.ID
			if id == "" {
				id = s.nextID("toolu")
			}
			in, err := json.Marshal(b.Input)
			if err != nil || b.Input == nil {
				in = []byte("{}")
			}
			blocks = append(blocks, apiBlock{Type: "tool_use", ID: id, Name: b.Name, Input: in})
		default:
			text := b.Text
			blocks = append(blocks, apiBlock{Type: "text", Text: &text})
		}
	}
	return apiMessage{ID: s.nextID("msg"), Type: "message", Role: "assistant", Model: model, Content: blocks,
		StopReason: &stop, Usage: apiUsage{InputTokens: len(r.Body)/4 + 1, OutputTokens: 10}}
}

// stream writes msg as the Messages API's server-sent events.
func (s *Server) stream(w http.ResponseWriter, msg apiMessage, _ Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl, _ := w.(http.Flusher)
	event := func(name string, v any) {
		var buf bytes.Buffer
		b, _ := json.Marshal(v)
		fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", name, b)
		_, _ = w.Write(buf.Bytes())
		if fl != nil {
			fl.Flush()
		}
	}
	start := msg
	start.Content = []apiBlock{}
	start.StopReason = nil
	start.Usage.OutputTokens = 1
	event("message_start", map[string]any{"type": "message_start", "message": start})
	for i, b := range msg.Content {
		switch b.Type {
		case "tool_use":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			// Split the arguments in two deltas, as the real API streams them.
			js := string(b.Input)
			half := len(js) / 2
			for _, part := range []string{js[:half], js[half:]} {
				event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		default:
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": *b.Text}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": *msg.StopReason, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": msg.Usage.OutputTokens}})
	event("message_stop", map[string]any{"type": "message_stop"})
}
