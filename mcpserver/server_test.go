package mcpserver

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/memories"

	"github.com/cairn-dev/cairn/internal/testutil"
	"github.com/cairn-dev/cairn/internal/testutil/teststore"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func sample() string { return filepath.Join(testutil.RepoRoot(), "testdata", "claude") }

// fixture is a store synced from the bundled sample and a client session
// connected to a cairn MCP server over the SDK's in-memory transport.
type fixture struct {
	st      *index.Store
	cs      *mcp.ClientSession
	schemas map[string]*jsonschema.Resolved
}

func newMemFixture(t *testing.T) *fixture {
	return newFixtureWith(t, func(st *index.Store) MemoryService { return memories.New(st, config.Default()) })
}

func newFixture(t *testing.T, mem MemoryService) *fixture {
	return newFixtureWith(t, func(*index.Store) MemoryService { return mem })
}

// newFixtureWith serves mem(st); opts change the server's options.
func newFixtureWith(t *testing.T, mem func(st *index.Store) MemoryService, opts ...func(*Options)) *fixture {
	t.Helper()
	return newFixtureDir(t, sample(), mem, opts...)
}

// newFixtureDir is newFixtureWith for the transcripts in claude: synced
// into a store of the test's own (for the sample, a copy of the one
// synced once for the package: syncedSample).
func newFixtureDir(t *testing.T, claude string, mem func(st *index.Store) MemoryService, opts ...func(*Options)) *fixture {
	t.Helper()
	ctx := context.Background()
	var st *index.Store
	if claude == sample() {
		st = syncedSample(t)
	} else {
		st = teststore.Synced(t, claude)
	}
	now := time.Date(2026, 2, 15, 12, 0, 0, 0, time.UTC)
	a := &app.App{Paths: app.Paths{ClaudeDir: claude}, Config: config.Default(), Store: st}
	o := Options{App: a, Memories: mem(st), Project: "/path/to/Demo", LockWait: 300 * time.Millisecond, Now: func() time.Time { return now }}
	for _, f := range opts {
		f(&o)
	}
	srv := New(o)
	ct, stt := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, stt, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	f := &fixture{st: st, cs: cs, schemas: map[string]*jsonschema.Resolved{}}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.OutputSchema == nil || tl.InputSchema == nil {
			t.Fatalf("tool %s lacks an input or output schema", tl.Name)
		}
		if len(tl.Description) > 2048 {
			t.Errorf("tool %s: description over 2 KB", tl.Name)
		}
		b, _ := json.Marshal(tl.OutputSchema)
		var sch jsonschema.Schema
		if err := json.Unmarshal(b, &sch); err != nil {
			t.Fatal(err)
		}
		r, err := sch.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: output schema does not resolve: %v", tl.Name, err)
		}
		f.schemas[tl.Name] = r
	}
	return f
}

// call runs a tool and checks its result: a tool error when wantErr, else
// structured content valid against the declared output schema, mirrored
// as text, and well under the 25k-token limit.
func (f *fixture) call(t *testing.T, name string, args map[string]any, out any, wantErr bool) string {
	t.Helper()
	res, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError != wantErr {
		t.Fatalf("%s(%v): isError=%v, want %v: %s", name, args, res.IsError, wantErr, text)
	}
	if wantErr {
		return text
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 60_000 {
		t.Errorf("%s: %d bytes of output: too close to the 25k-token limit", name, len(b))
	}
	var inst any
	if err := json.Unmarshal(b, &inst); err != nil {
		t.Fatal(err)
	}
	sch := f.schemas[name]
	if sch == nil {
		t.Fatalf("no schema for %s", name)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("%s: output does not match its schema: %v\n%s", name, err, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestToolsListed(t *testing.T) {
	f := newFixture(t, nil)
	for _, name := range []string{"memory_recall", "memory_timeline", "memory_projects", "session_read"} {
		if f.schemas[name] == nil {
			t.Errorf("tool %s not listed", name)
		}
	}
}

func TestProjects(t *testing.T) {
	f := newFixture(t, nil)
	var out ProjectsOut
	f.call(t, "memory_projects", map[string]any{}, &out, false)
	if out.TotalProjects != 3 || len(out.Projects) != 3 { // four folders, two of them worktrees of one repository
		t.Fatalf("projects: %+v", out)
	}
	sum := 0
	for _, p := range out.Projects {
		sum += p.SessionCount
		if p.Path == "" || p.LastUsed == "" {
			t.Errorf("incomplete %+v", p)
		}
	}
	if sum != out.TotalSessions || sum < 7 {
		t.Fatalf("sessions %d vs total %d", sum, out.TotalSessions)
	}
	if out.Projects[0].LastUsed < out.Projects[len(out.Projects)-1].LastUsed {
		t.Errorf("not most recent first: %+v", out.Projects)
	}
}

func TestTimeline(t *testing.T) {
	f := newFixture(t, nil)
	var out TimelineOut
	f.call(t, "memory_timeline", map[string]any{}, &out, false)
	// Now is 2026-02-15: the last 7 days hold the 4te worktree session (Feb 12).
	if out.TotalSessions == 0 || out.DateRange.From == "" {
		t.Fatalf("default 7 days: %+v", out)
	}
	for _, s := range out.Sessions {
		if s.Timestamp < "2026-02-08" && s.Timestamp != "" {
			t.Errorf("session %s from %s is older than 7 days", s.SessionID, s.Timestamp)
		}
	}
	var all TimelineOut
	f.call(t, "memory_timeline", map[string]any{"days": 365}, &all, false)
	if all.TotalSessions <= out.TotalSessions {
		t.Fatalf("a year should hold more sessions than a week: %d vs %d", all.TotalSessions, out.TotalSessions)
	}
	var demo TimelineOut
	f.call(t, "memory_timeline", map[string]any{"days": 365, "project": "/path/to/Demo"}, &demo, false)
	if demo.TotalSessions != 3 {
		t.Fatalf("Demo sessions: %+v", demo)
	}
	for _, s := range demo.Sessions {
		if s.Project != "/path/to/Demo" || s.Summary == "" {
			t.Errorf("bad %+v", s)
		}
	}
	msg := f.call(t, "memory_timeline", map[string]any{"days": 5000}, &out, true)
	if !strings.Contains(msg, "days") || !strings.Contains(msg, "365") {
		t.Errorf("error message: %s", msg)
	}
	msg = f.call(t, "memory_timeline", map[string]any{"project": "no-such-project"}, &out, true)
	if !strings.Contains(msg, "memory_projects") {
		t.Errorf("error message: %s", msg)
	}
}

func TestRecallAndRead(t *testing.T) {
	f := newFixture(t, nil)
	var out RecallOut
	f.call(t, "memory_recall", map[string]any{"query": "CLAUDE.md", "alternatives": []string{"project documentation file"}}, &out, false)
	if len(out.Results) == 0 || len(out.Results) > 5 {
		t.Fatalf("recall: %+v", out)
	}
	if out.TotalSessionsSearched < 7 {
		t.Errorf("total_sessions_searched %d", out.TotalSessionsSearched)
	}
	seen := map[string]bool{}
	for i, r := range out.Results {
		if seen[r.SessionID] {
			t.Errorf("session %s twice", r.SessionID)
		}
		seen[r.SessionID] = true
		if r.Relevance <= 0 || r.Relevance > 1 || (i > 0 && r.Relevance > out.Results[i-1].Relevance) {
			t.Errorf("relevance out of order or range: %+v", out.Results)
		}
	}
	if out.Results[0].Project != "/path/to/Demo" {
		t.Errorf("CLAUDE.md is the Demo project's topic; got %+v", out.Results[0])
	}
	var scoped RecallOut
	f.call(t, "memory_recall", map[string]any{"query": "CLAUDE.md", "project": "spotter"}, &scoped, false)
	for _, r := range scoped.Results {
		if !strings.Contains(r.Project, "spotter") {
			t.Errorf("project filter leaked %s", r.Project)
		}
	}
	var none RecallOut
	f.call(t, "memory_recall", map[string]any{"query": "zzqxjv"}, &none, false)
	if len(none.Results) != 0 || none.Suggestion == "" {
		t.Fatalf("empty recall needs a suggestion: %+v", none)
	}
	f.call(t, "memory_recall", map[string]any{"query": "  "}, &none, true)
	f.call(t, "memory_recall", map[string]any{}, &none, true) // query is required

	// Read around the best hit.
	best := out.Results[0]
	var rd ReadOut
	f.call(t, "session_read", map[string]any{"session_id": best.SessionID[:8], "around_uuid": best.EntryUUID}, &rd, false)
	if rd.SessionID != best.SessionID || len(rd.Entries) == 0 || len(rd.Entries) > 40 {
		t.Fatalf("read: %d entries of %s", len(rd.Entries), rd.SessionID)
	}
	found := false
	for _, e := range rd.Entries {
		found = found || e.UUID == best.EntryUUID
	}
	if best.EntryUUID != "" && !found {
		t.Errorf("excerpt does not contain %s", best.EntryUUID)
	}
	// Paging through the biggest session stays bounded.
	var big ReadOut
	raw := f.call(t, "session_read", map[string]any{"session_id": "ae4a77f8"}, &big, false)
	if big.TotalEntries <= 40 || big.NextOffset == 0 || len(raw) > 40_000 {
		t.Fatalf("big session: total %d next %d, %d bytes", big.TotalEntries, big.NextOffset, len(raw))
	}
	var next ReadOut
	f.call(t, "session_read", map[string]any{"session_id": "ae4a77f8", "offset": big.NextOffset}, &next, false)
	if next.Entries[0].Index != big.NextOffset {
		t.Errorf("paging: got index %d, want %d", next.Entries[0].Index, big.NextOffset)
	}
	msg := f.call(t, "session_read", map[string]any{"session_id": "deadbeef-0000"}, &rd, true)
	if !strings.Contains(msg, "memory_recall") {
		t.Errorf("unknown session message: %s", msg)
	}
	f.call(t, "session_read", map[string]any{"session_id": best.SessionID, "around_uuid": "nope"}, &rd, true)
}

// The full-text index is opened per query: another process (here: this
// one, outside the server) holding it makes recall fail with an error
// Claude can act on, and recall works again once it is released.
func TestRecallWhileIndexBusy(t *testing.T) {
	f := newFixture(t, nil)
	ix, err := f.st.Derived().OpenFTS(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var out RecallOut
	msg := f.call(t, "memory_recall", map[string]any{"query": "CLAUDE.md"}, &out, true)
	if !strings.Contains(msg, "try again") {
		t.Errorf("busy message: %s", msg)
	}
	ix.Close()
	f.call(t, "memory_recall", map[string]any{"query": "CLAUDE.md"}, &out, false)
	if len(out.Results) == 0 {
		t.Fatal("no results after the index was released")
	}
}

func TestTimelineUsesStoredSummaries(t *testing.T) {
	f := newMemFixture(t)
	svc := memories.New(f.st, config.Default())
	if _, err := svc.StoreSummary(context.Background(), "fe5e1c67-53e7-4862-81ae-d0e013e3270b"); err != nil {
		t.Fatal(err)
	}
	var out TimelineOut
	f.call(t, "memory_timeline", map[string]any{"days": 365, "project": "/path/to/Demo"}, &out, false)
	found := false
	for _, s := range out.Sessions {
		if s.SessionID == "fe5e1c67-53e7-4862-81ae-d0e013e3270b" {
			found = strings.HasPrefix(s.Summary, "Request: ")
		}
	}
	if !found {
		t.Fatalf("the stored summary is not used: %+v", out.Sessions)
	}
}

func TestMemoryTools(t *testing.T) {
	f := newMemFixture(t)
	var rem RememberOut
	f.call(t, "memory_remember", map[string]any{"content": "The websocket reconnect test is flaky: await the open event before sending", "type": "gotcha", "tags": []string{"tests", "websocket"}, "importance": 4}, &rem, false)
	if rem.Action != "added" || rem.Memory.Status != "pending" || rem.Memory.Project != "/path/to/Demo" || !strings.Contains(rem.Message, "review") {
		t.Fatalf("remember: %+v", rem)
	}
	var again RememberOut
	f.call(t, "memory_remember", map[string]any{"content": "The websocket reconnect test is flaky: await the open event before sending", "type": "gotcha"}, &again, false)
	if again.Action == "added" || again.Memory.ID != rem.Memory.ID {
		t.Fatalf("a duplicate was added: %+v", again)
	}
	var other RememberOut
	f.call(t, "memory_remember", map[string]any{"content": "The websocket reconnect test sits in test/spotter_web/channels and waits for the open event", "type": "architecture", "tags": []string{"websocket"}, "global": true}, &other, false)
	if other.Memory.Project != "" {
		t.Fatalf("global memory has project %q", other.Memory.Project)
	}
	f.call(t, "memory_remember", map[string]any{"content": "x", "type": "opinion"}, &rem, true)
	f.call(t, "memory_remember", map[string]any{"content": "  ", "type": "fact"}, &rem, true)
	f.call(t, "memory_remember", map[string]any{"content": strings.Repeat("long ", 1000), "type": "fact"}, &rem, true)
	f.call(t, "memory_remember", map[string]any{"content": "fine", "type": "fact", "importance": 9}, &rem, true)

	var s MemListOut
	f.call(t, "memory_search", map[string]any{"query": "flaky websocket test"}, &s, false)
	if s.Total == 0 || s.Memories[0].ID != rem.Memory.ID {
		t.Fatalf("search: %+v", s)
	}
	f.call(t, "memory_search", map[string]any{"query": "websocket", "type": "architecture"}, &s, false)
	if s.Total != 1 || s.Memories[0].ID != other.Memory.ID {
		t.Fatalf("type filter: %+v", s)
	}
	f.call(t, "memory_search", map[string]any{"query": "websocket", "tags": []string{"tests"}}, &s, false)
	if s.Total != 1 || s.Memories[0].ID != rem.Memory.ID {
		t.Fatalf("tag filter: %+v", s)
	}
	f.call(t, "memory_search", map[string]any{"query": "zzqxj"}, &s, false)
	if s.Total != 0 || s.Hint == "" {
		t.Fatalf("empty search: %+v", s)
	}
	msg := f.call(t, "memory_search", map[string]any{"query": "x", "type": "nope"}, &s, true)
	if !strings.Contains(msg, "decision") {
		t.Errorf("type error should list the types: %s", msg)
	}
	var rel MemListOut
	f.call(t, "memory_related", map[string]any{"memory_id": rem.Memory.ID}, &rel, false)
	found := false
	for _, m := range rel.Memories {
		found = found || m.ID == other.Memory.ID
		if m.ID == rem.Memory.ID {
			t.Errorf("a memory is not related to itself")
		}
	}
	if !found {
		t.Errorf("related: %+v", rel)
	}
	f.call(t, "memory_related", map[string]any{"tags": []string{"websocket"}}, &rel, false)
	if rel.Total != 2 {
		t.Errorf("related by tag: %+v", rel)
	}
	msg = f.call(t, "memory_related", map[string]any{"memory_id": "m-zzzzzzzz"}, &rel, true)
	if !strings.Contains(msg, "memory_search") {
		t.Errorf("unknown id message: %s", msg)
	}
	f.call(t, "memory_related", map[string]any{}, &rel, true)
}

// Without the memory service the memory tools say so.
func TestMemoryToolsUnavailable(t *testing.T) {
	f := newFixture(t, nil)
	var s MemListOut
	msg := f.call(t, "memory_search", map[string]any{"query": "x"}, &s, true)
	if !strings.Contains(msg, "memory_recall") {
		t.Errorf("message: %s", msg)
	}
}
