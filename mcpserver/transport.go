package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK's stdio transport ends the session on the first line it cannot
// decode, answers calls made before `initialize` with error code 0 and
// still answers a call the client cancelled. guardTransport puts a guard
// in front of it (the SDK has no option for any of this): every line is
// checked before the SDK sees it, and
//   - a line that is not JSON gets -32700 (parse error) and the server
//     serves on;
//   - a line that is JSON but not a JSON-RPC 2.0 message (`{}`, a bare
//     string, `"jsonrpc":"1.0"`, a bad id or method, a batch under a
//     protocol version without batches: 2025-06-18 and later) gets -32600
//     (invalid request);
//   - a request other than initialize and ping before the server answered
//     initialize gets -32002 (server not initialized);
//   - the response to a request the client cancelled
//     (notifications/cancelled) is not sent, as the protocol asks.

// JSON-RPC error codes the guard answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeNotInitialized = -32002
)

// maxLine bounds one incoming message (a longer line is refused whole).
const maxLine = 16 << 20

// firstBatchlessVersion is the first protocol revision without JSON-RPC
// batches.
const firstBatchlessVersion = "2025-06-18"

type guardTransport struct {
	in  io.Reader
	out io.Writer
}

// guard is one connection's state.
type guard struct {
	out io.Writer

	mu        sync.Mutex
	initID    string // the raw id of the initialize request, once seen
	ready     bool   // initialize answered
	version   string // negotiated protocol version
	cancelled map[string]bool
	pending   []byte // a partial outgoing line
}

func (t *guardTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	g := &guard{out: t.out, cancelled: map[string]bool{}}
	pr, pw := io.Pipe()
	go g.pump(t.in, pw)
	return (&mcp.IOTransport{Reader: pr, Writer: nopCloser{g}, MaxLineLength: -1}).Connect(ctx)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// pump checks each line from in and forwards the good ones to the SDK.
func (g *guard) pump(in io.Reader, pw *io.PipeWriter) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := readLine(r)
		if len(bytes.TrimSpace(line)) > 0 {
			if fwd := g.check(line); fwd != nil {
				if _, werr := pw.Write(append(fwd, '\n')); werr != nil {
					return
				}
			}
		}
		if err != nil {
			pw.CloseWithError(err)
			return
		}
	}
}

// readLine reads one line; one over maxLine comes back as a marker that
// check refuses, the rest of it skipped.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) <= maxLine {
			line = append(line, chunk...)
		} else if line != nil {
			line = []byte("\x00too long")
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, err
	}
}

// message is the part of a JSON-RPC message the guard reads.
type message struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// check returns the line to forward, or nil after answering it.
func (g *guard) check(line []byte) []byte {
	line = bytes.TrimSpace(line)
	if r := g.judge(line); r != nil {
		g.reply(r.id, r.code, r.msg)
		return nil
	}
	return line
}

// refusal is the error answer to a line the guard does not forward.
type refusal struct {
	id   json.RawMessage
	code int
	msg  string
}

func refuse(id json.RawMessage, code int, msg string) *refusal {
	return &refusal{id: id, code: code, msg: msg}
}

// judge says why line is not forwarded, or nil when it is.
func (g *guard) judge(line []byte) *refusal {
	if bytes.HasPrefix(line, []byte("\x00")) {
		return refuse(nil, codeInvalidRequest, fmt.Sprintf("Invalid Request: a message over %d bytes", maxLine))
	}
	if !json.Valid(line) {
		return refuse(nil, codeParseError, "Parse error: the line is not valid JSON")
	}
	switch line[0] {
	case '[':
		return g.batch()
	case '{':
		return g.object(line)
	}
	return refuse(nil, codeInvalidRequest, "Invalid Request: a JSON-RPC message is an object")
}

// batch refuses a JSON-RPC batch unless the protocol version agreed on
// still has them.
func (g *guard) batch() *refusal {
	g.mu.Lock()
	v := g.version
	g.mu.Unlock()
	if v == "" || v >= firstBatchlessVersion {
		return refuse(nil, codeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported by protocol version "+versionName(v))
	}
	return nil
}

// object judges one JSON-RPC message: a request, a notification or a
// response to a request of the server.
func (g *guard) object(line []byte) *refusal {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		return refuse(nil, codeInvalidRequest, "Invalid Request: "+err.Error())
	}
	id, idOK := validID(m.ID)
	if r := m.envelope(id, idOK); r != nil {
		return r
	}
	if m.Method == nil {
		return m.response(id)
	}
	method, ok := m.method()
	if !ok {
		return refuse(id, codeInvalidRequest, `Invalid Request: "method" must be a non-empty string`)
	}
	if m.ID == nil {
		g.notification(method, m.Params)
		return nil
	}
	return g.request(method, id)
}

// envelope refuses a message that is not JSON-RPC 2.0 or whose id (idOK
// from validID) is neither a string nor a number; nil when it is fine.
func (m *message) envelope(id json.RawMessage, idOK bool) *refusal {
	switch {
	case m.JSONRPC == nil || *m.JSONRPC != "2.0":
		return refuse(id, codeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`)
	case m.ID != nil && !idOK:
		return refuse(nil, codeInvalidRequest, "Invalid Request: an id is a string or a number")
	}
	return nil
}

// method is the message's method; ok is false when it is not a
// non-empty string.
func (m *message) method() (string, bool) {
	var method string
	if json.Unmarshal(m.Method, &method) != nil || method == "" {
		return "", false
	}
	return method, true
}

// response judges a message without a method: a response to a request
// of the server passes, anything else is refused.
func (m *message) response(id json.RawMessage) *refusal {
	if m.ID != nil && (m.Result != nil || m.Error != nil) {
		return nil
	}
	return refuse(id, codeInvalidRequest, `Invalid Request: no "method"`)
}

// notification notes a cancelled request.
func (g *guard) notification(method string, params json.RawMessage) {
	if method != "notifications/cancelled" {
		return
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	if rid, ok := validID(p.RequestID); ok {
		g.mu.Lock()
		g.cancelled[string(rid)] = true
		g.mu.Unlock()
	}
}

// request notes initialize's id and refuses requests before it.
func (g *guard) request(method string, id json.RawMessage) *refusal {
	g.mu.Lock()
	if method == "initialize" {
		g.initID = string(id)
	}
	early := !g.ready && method != "initialize" && method != "ping"
	g.mu.Unlock()
	if early {
		return refuse(id, codeNotInitialized, "Server not initialized: send initialize first")
	}
	return nil
}

// validID returns a request id in canonical form when it is a string or
// a number.
func validID(raw json.RawMessage) (json.RawMessage, bool) {
	if raw == nil {
		return nil, false
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil, false
	}
	switch v.(type) {
	case string, float64:
		b, _ := json.Marshal(v)
		return b, true
	}
	return nil, false
}

// reply writes an error response (id null when id is nil).
func (g *guard) reply(id json.RawMessage, code int, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	g.mu.Lock()
	defer g.mu.Unlock()
	_, _ = g.out.Write(append(b, '\n'))
}

// Write takes the SDK's outgoing lines: it notes the answer to initialize
// and drops answers to cancelled requests.
func (g *guard) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending = append(g.pending, p...)
	for {
		i := bytes.IndexByte(g.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := g.pending[:i+1]
		g.pending = g.pending[i+1:]
		if g.drop(line) {
			continue
		}
		if _, err := g.out.Write(line); err != nil {
			return len(p), err
		}
	}
}

// drop inspects an outgoing line (under g.mu) and reports whether it
// answers a cancelled request.
func (g *guard) drop(line []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Result *struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != nil {
		return false
	}
	id, ok := validID(m.ID)
	if !ok {
		return false
	}
	if string(id) == g.initID && !g.ready {
		g.ready = true
		if m.Result != nil {
			g.version = m.Result.ProtocolVersion
		}
	}
	if g.cancelled[string(id)] {
		delete(g.cancelled, string(id))
		return true
	}
	return false
}

func versionName(s string) string {
	if s == "" {
		return "(none negotiated yet)"
	}
	return s
}
