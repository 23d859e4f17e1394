package tui

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/transcripts"

	tea "charm.land/bubbletea/v2"
)

// syntheticConversation is a session of n entries: prompts, Markdown
// replies, tool calls with long output, in the proportions of real ones.
func syntheticConversation(n int) *transcripts.Conversation {
	s := &transcripts.Session{ID: "bench-0000-0000-0000-000000000000", ProjectPath: "/home/u/bench", Title: "synthetic 5,000-entry session",
		Start: fixedNow.Add(-10 * time.Hour), End: fixedNow, HasMainFile: true, SourceExists: true}
	c := &transcripts.Conversation{Session: s, Agents: map[string][]transcripts.Entry{}, SpawnedBy: map[string]string{}}
	ts := s.Start
	for i := 0; len(c.Entries) < n; i++ {
		ts = ts.Add(time.Second)
		switch i % 4 {
		case 0:
			c.Entries = append(c.Entries, transcripts.Entry{Type: "user", UUID: fmt.Sprintf("u%d", i), Timestamp: ts,
				Blocks: []transcripts.Block{{Type: transcripts.BlockText, Text: fmt.Sprintf("Please fix the failing test number %d in the parser and explain why it failed.", i)}}})
		case 1:
			c.Entries = append(c.Entries, transcripts.Entry{Type: "assistant", UUID: fmt.Sprintf("a%d", i), Timestamp: ts,
				Blocks: []transcripts.Block{{Type: transcripts.BlockText, Text: fmt.Sprintf(
					"## Step %d\n\nThe test fails because the **lexer** drops the last token when the input ends without a newline.\n\n- read `parse.go`\n- add a guard\n\n```go\nif i == len(s) {\n\treturn tok\n}\n```\n", i)}}})
		case 2:
			c.Entries = append(c.Entries, transcripts.Entry{Type: "assistant", UUID: fmt.Sprintf("t%d", i), Timestamp: ts,
				Blocks: []transcripts.Block{{Type: transcripts.BlockToolUse, ToolID: fmt.Sprintf("tool%d", i), ToolName: "Bash",
					ToolInput: []byte(`{"command":"go test ./parser/ -run TestLexer -count=1"}`)}}})
		case 3:
			c.Entries = append(c.Entries, transcripts.Entry{Type: "user", UUID: fmt.Sprintf("r%d", i), Timestamp: ts,
				Blocks: []transcripts.Block{{Type: transcripts.BlockToolResult, ToolUseID: fmt.Sprintf("tool%d", i-1),
					Text: strings.Repeat("--- FAIL: TestLexer (0.00s)\n    lexer_test.go:42: got 3 tokens, want 4\n", 20)}}})
		}
	}
	return c
}

func benchModel(b *testing.B, st *index.Store) *Model {
	dark := true
	m := New(Config{Store: st, Now: func() time.Time { return fixedNow }, Location: time.UTC, Dark: &dark,
		NoIndex: true, Poll: -1, Resync: -1})
	b.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	return m
}

// BenchmarkReaderOpen: a 5,000-entry session from loaded to its first frame.
func BenchmarkReaderOpen(b *testing.B) {
	c := syntheticConversation(5000)
	m := benchModel(b, nil)
	b.ReportAllocs()
	for b.Loop() {
		m.reader = newReaderPane(m.c)
		m.panes[paneReader] = m.reader
		m.focus = paneReader
		m.reader.loading = c.Session.ID
		m.reader.loaded(convMsg{id: c.Session.ID, conv: c})
		_ = m.render()
	}
}

// BenchmarkReaderScroll: one frame of scrolling (a page down, or a jump
// to the end and back) through a 5,000-entry session, colours on.
func BenchmarkReaderScroll(b *testing.B) {
	c := syntheticConversation(5000)
	m := benchModel(b, nil)
	m.focus = paneReader
	m.reader.loading = c.Session.ID
	m.reader.loaded(convMsg{id: c.Session.ID, conv: c})
	_ = m.render()
	pg := keyMsg("pgdown")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		switch {
		case i%500 == 0:
			m.Update(keyMsg("g"))
		case i%250 == 0:
			m.Update(keyMsg("G"))
		default:
			m.Update(pg)
		}
		_ = m.render()
	}
}

// BenchmarkSearchPane: a query (searcher open, as while typing) and the
// frame that shows its results. CAIRN_TUI_BENCH_DATA points it at a big
// store (a copy: the searcher takes bleve's lock).
func BenchmarkSearchPane(b *testing.B) {
	var st *index.Store
	if dir := os.Getenv("CAIRN_TUI_BENCH_DATA"); dir != "" {
		var err error
		st, err = index.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
	} else {
		st = testStore(b)
	}
	m := benchModel(b, st)
	m.focus = paneSearch
	queries := []string{"dialyzer", "opentelemetry tracing", "mix phx.server", "websocket reconnect", "credo igniter"}
	q := m.search.query()
	q.Text = queries[0]
	if _, err := m.hub.Search(context.Background(), q); err != nil { // open the searcher
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		m.search.input.SetValue(queries[i%len(queries)])
		msg := m.search.run(m.search.seq)()
		m.Update(msg)
		_ = m.render()
	}
}

// BenchmarkSearchPaneTyping: as BenchmarkSearchPane, with the last word
// half typed, so it is matched as a prefix (issue 18.3): the costly case
// of search as you type.
func BenchmarkSearchPaneTyping(b *testing.B) {
	var st *index.Store
	if dir := os.Getenv("CAIRN_TUI_BENCH_DATA"); dir != "" {
		var err error
		st, err = index.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
	} else {
		st = testStore(b)
	}
	m := benchModel(b, st)
	m.focus = paneSearch
	queries := []string{"dialy", "opentelemetry trac", "mix phx.ser", "websocket reconn", "credo ign", "sqli", "websock"}
	q := m.search.query()
	q.Text = queries[0]
	if _, err := m.hub.Search(context.Background(), q); err != nil { // open the searcher
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		m.search.input.SetValue(queries[i%len(queries)])
		msg := m.search.run(m.search.seq)()
		m.Update(msg)
		_ = m.render()
	}
}
