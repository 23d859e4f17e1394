// Package mcpserver is `cairn mcp`: a Model Context Protocol server (stdio)
// that lets Claude search and read past sessions and cairn's memories.
//
// Every tool declares its input and output schema (mcp.AddTool with typed
// In/Out), returns structured content far below Claude Code's 25k-token
// tool output limit, and reports failures as tool errors (isError) with a
// message Claude can act on. The server holds the SQLite store open (cheap,
// shared with other processes) but opens the bleve full-text index only for
// the duration of one query: bleve admits one process at a time.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/termtext"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Name is the server name registered with Claude Code.
const Name = "cairn"

// Options configure a server.
type Options struct {
	// App is the open cairn the tools work on: its store, config, memory
	// service, and the Claude dir transcripts are synced from before
	// searches (none: never). Nil with Broken or StandDown.
	App     *app.App
	Version string
	// Memories is the memory service (nil: App's); when there is none,
	// the memory_* tools that need it answer with an error that says so.
	Memories MemoryService
	// Project is the project memory_remember files memories under
	// ($CLAUDE_PROJECT_DIR or the working directory); SessionID the session
	// they come from ($CLAUDE_CODE_SESSION_ID), when known.
	Project, SessionID string
	// SyncEvery is the least time between two incremental syncs (0: 30s).
	SyncEvery time.Duration
	// LockWait is how long a search waits for the full-text index (0: 3s).
	LockWait time.Duration
	Now      func() time.Time
	// Broken is why cairn cannot serve (a config file that cannot be
	// used): every tool answers with it, so Claude can tell the user what
	// to fix, instead of the server failing to start.
	Broken error
	// StandDown, when set, says why this server offers no tools: it is the
	// plugin's copy and `cairn install` registered cairn's server too
	// (every tool would be offered twice).
	StandDown string
}

// Server answers the tools.
type Server struct {
	o Options
	// st, cfg and claudeDir are the App's (zero without one).
	st        *index.Store
	cfg       config.Config
	claudeDir string
	mu        sync.Mutex
	lastSync  time.Time
	// schemas are the input schemas tools declare with bounds (argErrors).
	schemas map[string]*jsonschema.Schema
}

// New builds the MCP server with every tool registered.
func New(o Options) *mcp.Server {
	o.setDefaults()
	s := &Server{o: o, schemas: map[string]*jsonschema.Schema{}}
	if a := o.App; a != nil {
		s.st, s.cfg, s.claudeDir = a.Store, a.Config, a.Paths.ClaudeDir
		if s.o.Memories == nil && a.Memories != nil {
			s.o.Memories = a.Memories
		}
	}
	if o.StandDown != "" {
		return mcp.NewServer(&mcp.Implementation{Name: Name, Title: "cairn: memory for Claude Code", Version: o.Version},
			&mcp.ServerOptions{Instructions: o.StandDown})
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "cairn: memory for Claude Code", Version: o.Version},
		&mcp.ServerOptions{Instructions: instructions})
	s.register(srv)
	srv.AddReceivingMiddleware(s.argErrors)
	return srv
}

// setDefaults fills in what o leaves unset: the sync period, the lock
// wait, the clock and the version.
func (o *Options) setDefaults() {
	if o.SyncEvery <= 0 {
		o.SyncEvery = 30 * time.Second
	}
	if o.LockWait <= 0 {
		o.LockWait = 3 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Version == "" {
		o.Version = "dev"
	}
}

const instructions = `cairn indexes every past Claude Code session of this user and keeps curated memories (decisions, gotchas, preferences...). ` +
	`Use memory_recall to find past sessions about a topic (pass rephrasings as alternatives), memory_timeline for recent work, ` +
	`session_read to read part of one session, memory_brief for this project's memory at a glance, memory_search/memory_related for curated memories, ` +
	`memory_remember to propose a new memory (a person reviews it), session_save_summary to save a summary of this session (a draft the person reviews), ` +
	`and memory_correct/memory_forget when a memory is wrong.`

// Run serves over stdin/stdout until the client disconnects.
func Run(ctx context.Context, o Options) error {
	return Serve(ctx, o, os.Stdin, os.Stdout)
}

// Serve serves newline-delimited JSON-RPC read from in and written to out
// (Run's stdio), behind the guard of transport.go: a bad line is answered
// with an error and the server serves on.
func Serve(ctx context.Context, o Options, in io.Reader, out io.Writer) error {
	return New(o).Run(ctx, &guardTransport{in: in, out: out})
}

func (s *Server) register(srv *mcp.Server) {
	addTool(s, srv, &mcp.Tool{Name: "memory_recall", Description: toolDescriptions["memory_recall"],
		InputSchema: inputSchema[RecallIn](atMostItems("alternatives", maxAlternatives)),
		Annotations: readOnly("Recall past sessions")}, s.recall)
	addTool(s, srv, &mcp.Tool{Name: "memory_timeline", Description: toolDescriptions["memory_timeline"],
		InputSchema: inputSchema[TimelineIn](between("days", 1, maxTimelineDays)),
		Annotations: readOnly("Recent sessions")}, s.timeline)
	addTool(s, srv, &mcp.Tool{Name: "memory_projects", Description: toolDescriptions["memory_projects"],
		Annotations: readOnly("Projects")}, s.projects)
	addTool(s, srv, &mcp.Tool{Name: "session_read", Description: toolDescriptions["session_read"], InputSchema: inputSchema[ReadIn](between("offset", 0, 1<<31-1)),
		Annotations: readOnly("Read a session")}, s.sessionRead)
	s.registerMemoryTools(srv)
	s.registerCommandTools(srv)
}

// addTool registers a tool whose calls answer with o.Broken, when set.
func addTool[In, Out any](s *Server, srv *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	if t.InputSchema != nil {
		s.schemas[t.Name] = t.InputSchema.(*jsonschema.Schema)
	}
	if hint := toolSearchHints[t.Name]; hint != "" {
		t.Meta = mcp.Meta{"anthropic/searchHint": hint}
	}
	mcp.AddTool(srv, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		if s.o.Broken != nil {
			var zero Out
			return nil, zero, toolError("cairn cannot answer: %v. Tell the user to fix or delete that file (`cairn config` prints every setting and its default).", s.o.Broken)
		}
		res, out, err := h(ctx, req, in)
		if err != nil {
			return res, out, safeError(err)
		}
		safeStrings(reflect.ValueOf(&out).Elem())
		safeContent(res)
		return res, out, nil
	})
}

// safeError is err with a message termtext shows as is (the same error
// when it is already).
func safeError(err error) error {
	if msg := err.Error(); termtext.Safe(msg) != msg {
		return errors.New(termtext.Safe(msg))
	}
	return err
}

// safeContent passes the text content of res (nil: none) through
// termtext.Safe, in place.
func safeContent(res *mcp.CallToolResult) {
	if res == nil {
		return
	}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			tc.Text = termtext.Safe(tc.Text)
		}
	}
}

// safeStrings passes every string v holds (fields, slices, maps, pointers)
// through termtext.Safe, in place. Everything a tool answers reaches a
// model and, through the client, a terminal: a project path, a model name
// or a title read from a transcript can carry C1 controls, bidi overrides,
// zero-width or tag characters, so the one rule applies to every field,
// not only to the text fields each tool remembered to clean.
func safeStrings(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if s := v.String(); v.CanSet() && termtext.Safe(s) != s {
			v.SetString(termtext.Safe(s))
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			safeStrings(v.Elem())
		}
	case reflect.Struct:
		safeFields(v)
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			safeStrings(v.Index(i))
		}
	case reflect.Map:
		safeMapValues(v)
	}
}

// safeFields is safeStrings on each exported field of the struct v.
func safeFields(v reflect.Value) {
	for i := range v.NumField() {
		if v.Type().Field(i).IsExported() {
			safeStrings(v.Field(i))
		}
	}
}

// safeMapValues is safeStrings on each value of the map v: a map value
// cannot be set in place, so each goes through a copy and back.
func safeMapValues(v reflect.Value) {
	for _, k := range v.MapKeys() {
		e := reflect.New(v.Type().Elem()).Elem()
		e.Set(v.MapIndex(k))
		safeStrings(e)
		v.SetMapIndex(k, e)
	}
}

func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, OpenWorldHint: ptr(false)}
}

func ptr[T any](v T) *T { return &v }

// syncMaybe brings the store up to date with the transcripts (incremental,
// quick) at most every SyncEvery. Failures are not fatal: the store
// answers from what it has.
func (s *Server) syncMaybe(ctx context.Context) {
	if s.claudeDir == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.o.Now().Sub(s.lastSync) < s.o.SyncEvery {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	_, err := s.st.Sync(ctx, s.claudeDir, index.SyncOptions{})
	if err == nil || errors.Is(err, index.ErrBusy) {
		s.lastSync = s.o.Now()
	}
}

// toolError is a failure Claude can act on.
func toolError(format string, args ...any) error { return fmt.Errorf(format, args...) }
