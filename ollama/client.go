package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrUnreachable: nothing answers at the host (refused, reset, closed,
	// unknown host), or the server answered 404 for an API path, so it is
	// not Ollama.
	ErrUnreachable = errors.New("ollama is not reachable")
	// ErrModelNotFound: the server runs but does not have the model.
	ErrModelNotFound = errors.New("ollama model not found")
)

// Client calls one Ollama server. It is safe for concurrent use. Every
// request carries the caller's context; the client sets no timeout of its
// own.
type Client struct {
	base *url.URL
	http *http.Client
}

// New returns a client for the server at base (see ParseHost). hc nil
// means http.DefaultClient.
func New(base *url.URL, hc *http.Client) *Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	b := *base
	return &Client{base: &b, http: hc}
}

// Host is the base URL of the server, as used in messages.
func (c *Client) Host() string { return c.base.String() }

// Version is the answer of GET /api/version.
func (c *Client) Version(ctx context.Context) (string, error) {
	var v struct {
		Version string `json:"version"`
	}
	err := c.do(ctx, http.MethodGet, "/api/version", "", nil, &v)
	return v.Version, err
}

// ListResponse is the answer of GET /api/tags: the pulled models.
type ListResponse struct {
	Models []ListModel `json:"models"`
}

// ListModel is one pulled model.
type ListModel struct {
	Name       string    `json:"name"`
	Model      string    `json:"model"`
	ModifiedAt time.Time `json:"modified_at,omitzero"`
	Size       int64     `json:"size,omitempty"`
	Digest     string    `json:"digest"`
}

// List returns the pulled models (GET /api/tags).
func (c *Client) List(ctx context.Context) (*ListResponse, error) {
	var r ListResponse
	if err := c.do(ctx, http.MethodGet, "/api/tags", "", nil, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ShowResponse is the part of POST /api/show's answer cairn reads.
type ShowResponse struct {
	// Capabilities such as "embedding", "completion", "tools" (empty from
	// servers older than 0.6).
	Capabilities []string `json:"capabilities,omitempty"`
	// ModelInfo holds GGUF metadata, e.g. "nomic-bert.embedding_length": 768.
	ModelInfo map[string]any `json:"model_info,omitempty"`
}

// Show describes a pulled model (POST /api/show).
func (c *Client) Show(ctx context.Context, model string) (*ShowResponse, error) {
	var r ShowResponse
	if err := c.do(ctx, http.MethodPost, "/api/show", model, map[string]string{"model": model}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// EmbedRequest is the body of POST /api/embed.
type EmbedRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
	// Truncate nil leaves the server default (truncate).
	Truncate   *bool `json:"truncate,omitempty"`
	Dimensions int   `json:"dimensions,omitempty"`
	// KeepAlive is sent as a duration string ("5m0s"); 0 leaves the server
	// default.
	KeepAlive time.Duration  `json:"-"`
	Options   map[string]any `json:"options,omitempty"`
}

// MarshalJSON writes keep_alive as Ollama expects it.
func (r EmbedRequest) MarshalJSON() ([]byte, error) {
	type plain EmbedRequest
	return json.Marshal(struct {
		plain
		KeepAlive string `json:"keep_alive,omitempty"`
	}{plain(r), durationString(r.KeepAlive)})
}

// EmbedResponse is the answer of POST /api/embed.
type EmbedResponse struct {
	Model           string        `json:"model"`
	Embeddings      [][]float32   `json:"embeddings"`
	TotalDuration   time.Duration `json:"total_duration,omitempty"`
	LoadDuration    time.Duration `json:"load_duration,omitempty"`
	PromptEvalCount int           `json:"prompt_eval_count,omitempty"`
}

// Embed embeds req.Input (POST /api/embed).
func (c *Client) Embed(ctx context.Context, req *EmbedRequest) (*EmbedResponse, error) {
	var r EmbedResponse
	if err := c.do(ctx, http.MethodPost, "/api/embed", req.Model, req, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is the body of POST /api/chat. The client always asks for a
// single, non-streamed answer.
type ChatRequest struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	// Format is "json" or a JSON schema the answer must follow.
	Format    json.RawMessage `json:"format,omitempty"`
	Options   map[string]any  `json:"options,omitempty"`
	KeepAlive time.Duration   `json:"-"`
	// Stream is always sent as false; it is here so that servers and tests
	// decoding the body into this type see it.
	Stream *bool `json:"stream,omitempty"`
}

// MarshalJSON writes stream:false and keep_alive as Ollama expects them.
func (r ChatRequest) MarshalJSON() ([]byte, error) {
	type plain ChatRequest
	f := false
	p := plain(r)
	p.Stream = &f
	return json.Marshal(struct {
		plain
		KeepAlive string `json:"keep_alive,omitempty"`
	}{p, durationString(r.KeepAlive)})
}

// ChatResponse is the answer of POST /api/chat.
type ChatResponse struct {
	Model      string  `json:"model"`
	Message    Message `json:"message"`
	Done       bool    `json:"done"`
	DoneReason string  `json:"done_reason,omitempty"`
}

// Chat sends the conversation and returns the assistant's answer (POST
// /api/chat, not streamed). Should the server stream anyway, the pieces of
// the message are joined.
func (c *Client) Chat(ctx context.Context, req *ChatRequest) (*ChatResponse, error) {
	resp, err := c.send(ctx, http.MethodPost, "/api/chat", req.Model, req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out ChatResponse
	var content strings.Builder
	dec := json.NewDecoder(resp.Body)
	for n := 0; ; n++ {
		var part struct {
			ChatResponse
			Error string `json:"error"`
		}
		err := dec.Decode(&part)
		if errors.Is(err, io.EOF) && n > 0 {
			break
		}
		if err != nil {
			return nil, c.transportOrDecode(ctx, "/api/chat", err)
		}
		if part.Error != "" {
			return nil, &StatusError{Host: c.Host(), Path: "/api/chat", Model: req.Model, StatusCode: resp.StatusCode, Message: part.Error}
		}
		content.WriteString(part.Message.Content)
		out = part.ChatResponse
		if part.Done {
			break
		}
	}
	out.Message.Content = content.String()
	return &out, nil
}

func durationString(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return d.String()
}

// do sends a request and decodes the JSON answer into out.
func (c *Client) do(ctx context.Context, method, path, model string, body, out any) error {
	resp, err := c.send(ctx, method, path, model, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return c.transportOrDecode(ctx, path, err)
	}
	return nil
}

// send builds and sends a request, and turns HTTP errors (status >= 400)
// into a *StatusError. On success the caller closes the body.
func (c *Client) send(ctx context.Context, method, path, model string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("ollama %s: %w", path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base.JoinPath(path).String(), rd)
	if err != nil {
		return nil, fmt.Errorf("ollama at %s: %w", c.Host(), err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "cairn")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.transportOrDecode(ctx, path, err)
	}
	if resp.StatusCode < http.StatusBadRequest {
		return resp, nil
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	se := &StatusError{Host: c.Host(), Path: path, Model: model, StatusCode: resp.StatusCode}
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(raw, &e) == nil && e.Error != "" {
		se.Message = e.Error
	} else {
		se.Message = strings.TrimSpace(string(raw))
	}
	if se.Message == "" {
		se.Message = http.StatusText(resp.StatusCode)
	}
	return nil, se
}

// transportOrDecode wraps an error from sending a request or reading its
// answer. A cancelled or expired context is returned as such (wrapped), so
// errors.Is(err, context.DeadlineExceeded) holds.
func (c *Client) transportOrDecode(ctx context.Context, path string, err error) error {
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return fmt.Errorf("ollama at %s: %s: %w", c.Host(), path, err)
	}
	if reason := unreachableReason(err); reason != "" {
		return &UnreachableError{Host: c.Host(), Reason: reason, Err: err}
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	if errors.As(err, &se) || errors.As(err, &te) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("ollama at %s: %s answered something that is not the expected JSON: %w", c.Host(), path, err)
	}
	return fmt.Errorf("ollama at %s: %s: %w", c.Host(), path, err)
}

// unreachableReason names a connection failure in a few words, or "".
func unreachableReason(err error) string {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.As(err, &dnsErr):
		return "unknown host " + dnsErr.Name
	case errors.As(err, &opErr):
		return opErr.Err.Error()
	}
	var ue *url.Error
	if errors.As(err, &ue) && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
		return "connection closed"
	}
	return ""
}

// UnreachableError: nothing usable answers at Host. errors.Is(err,
// ErrUnreachable) holds, and the cause (e.g. syscall.ECONNREFUSED) is kept.
type UnreachableError struct {
	Host   string
	Reason string // "connection refused", "unknown host gpu-box", …
	Err    error
}

func (e *UnreachableError) Error() string {
	if strings.HasPrefix(e.Reason, "unknown host") {
		return fmt.Sprintf("Ollama is not reachable at %s (%s): fix ollama.host or $%s", e.Host, e.Reason, EnvHost)
	}
	return fmt.Sprintf("Ollama is not reachable at %s (%s): is Ollama running? Start it with `ollama serve`", e.Host, e.Reason)
}

func (e *UnreachableError) Unwrap() []error { return []error{ErrUnreachable, e.Err} }

// StatusError is an HTTP error answer (status >= 400) from the server.
// errors.Is(err, ErrModelNotFound) holds for a 404 about the model, and
// errors.Is(err, ErrUnreachable) for another 404 (not an Ollama server).
type StatusError struct {
	Host       string
	Path       string // e.g. "/api/embed"
	Model      string // the model the request named, if any
	StatusCode int
	Message    string // the server's "error" text, or its body
}

// ModelNotFound reports whether the server said it does not have the model.
func (e *StatusError) ModelNotFound() bool {
	return e.StatusCode == http.StatusNotFound && strings.Contains(strings.ToLower(e.Message), "model")
}

func (e *StatusError) Error() string {
	switch {
	case e.ModelNotFound() && e.Model != "":
		return fmt.Sprintf("model %s is not pulled at %s (%s): run `ollama pull %s`", e.Model, e.Host, e.Message, e.Model)
	case e.StatusCode == http.StatusNotFound:
		return fmt.Sprintf("the server at %s answered HTTP 404 for %s (%s): it does not look like Ollama; check ollama.host or $%s", e.Host, e.Path, e.Message, EnvHost)
	case e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden:
		return fmt.Sprintf("ollama at %s requires authorization (HTTP %d): use a local server or sign in with `ollama signin`", e.Host, e.StatusCode)
	case e.StatusCode >= 500:
		return fmt.Sprintf("ollama at %s failed with HTTP %d: %s: check the `ollama serve` logs", e.Host, e.StatusCode, e.Message)
	}
	return fmt.Sprintf("ollama at %s rejected %s (HTTP %d): %s", e.Host, e.Path, e.StatusCode, e.Message)
}

// Is makes errors.Is(err, ErrModelNotFound) and errors.Is(err,
// ErrUnreachable) work on 404 answers.
func (e *StatusError) Is(target error) bool {
	switch target {
	case ErrModelNotFound:
		return e.ModelNotFound()
	case ErrUnreachable:
		return e.StatusCode == http.StatusNotFound && !e.ModelNotFound()
	}
	return false
}

// CanonicalModel makes "nomic-embed-text" and "nomic-embed-text:latest"
// (and their case variants) equal.
func CanonicalModel(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return s
	}
	if i := strings.LastIndex(s, "/"); !strings.Contains(s[i+1:], ":") {
		s += ":latest"
	}
	return s
}

// Find returns the listed model called name ("x" matches "x:latest"), or
// nil.
func (l *ListResponse) Find(name string) *ListModel {
	want := CanonicalModel(name)
	for i := range l.Models {
		m := &l.Models[i]
		if CanonicalModel(m.Name) == want || CanonicalModel(m.Model) == want {
			return m
		}
	}
	return nil
}
