package tui

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/transcripts"
)

// openFirst opens the session whose title contains title in the reader.
func openFirst(t *testing.T, m *Model, title string) {
	t.Helper()
	press(t, m, "2")
	for i, r := range m.timeline.rows {
		if r.s != nil && strings.Contains(r.s.Title+r.s.FirstPrompt, title) {
			m.timeline.list.cursor = i
			press(t, m, "enter")
			if m.reader.conv == nil {
				t.Fatal("reader did not load")
			}
			return
		}
	}
	t.Fatalf("no session titled %q", title)
}

func TestReaderPane(t *testing.T) {
	st := testStore(t)
	goldenSizes(t, "reader", st, nil, func(m *Model) { openFirst(t, m, "create the beads") })
	m := newTestModel(t, 80, 24, st, nil)
	openFirst(t, m, "spotter-4te")
	r := m.reader
	if r.items[0].kind != kHeader {
		t.Fatal("first item is not the session header")
	}
	// The session was compacted: the reader marks where.
	screen(m)
	compact := -1
	for i, it := range r.items {
		if it.kind == kCompact {
			compact = i
		}
	}
	if compact < 0 {
		t.Fatal("no compaction marker in a compacted session")
	}
	if l := r.lines(compact); !strings.Contains(strings.Join(l, ""), "conversation compacted") {
		t.Fatalf("compaction marker renders as %q", l)
	}
	// ] jumps from prompt to prompt.
	press(t, m, "]")
	if it := r.items[r.cur]; it.kind != kPrompt {
		t.Fatalf("] landed on kind %d", it.kind)
	}
	first := r.cur
	press(t, m, "]")
	if r.cur <= first || r.items[r.cur].kind != kPrompt {
		t.Fatalf("second ] did not reach the next prompt (%d → %d)", first, r.cur)
	}
	press(t, m, "[")
	if r.cur != first {
		t.Fatalf("[ went to %d, want %d", r.cur, first)
	}
	screen(m)
	// Tool calls are one line until expanded.
	tool := -1
	for i, it := range r.items {
		if it.kind == kTool && it.result != nil && strings.Count(it.result.Text, "\n") > 3 && it.agentID == "" {
			tool = i
			break
		}
	}
	if tool < 0 {
		t.Fatal("no tool call with output in the sample")
	}
	r.setCursor(tool, true)
	screen(m)
	collapsed := len(r.lines(tool))
	press(t, m, "enter")
	screen(m)
	if expanded := len(r.lines(r.cur)); expanded <= collapsed+2 {
		t.Fatalf("expanding a tool call: %d lines → %d", collapsed, expanded)
	}
	press(t, m, "enter")
	if len(r.lines(r.cur)) != collapsed {
		t.Fatal("enter again did not collapse")
	}
	// Subagent transcripts expand where they were spawned.
	agent := -1
	for i, it := range r.items {
		if it.kind == kTool && it.agentID != "" {
			agent = i
			break
		}
	}
	if agent < 0 {
		t.Fatal("no subagent call in the spotter-4te session")
	}
	n := len(r.items)
	r.setCursor(agent, true)
	press(t, m, "enter")
	if len(r.items) <= n || r.items[agent+1].depth != 1 {
		t.Fatalf("expanding a subagent call: %d items → %d", n, len(r.items))
	}
	press(t, m, "enter")
	// Thinking is hidden until t.
	countThinking := func() int {
		c := 0
		for _, it := range r.items {
			if it.kind == kThinking {
				c++
			}
		}
		return c
	}
	if countThinking() != 0 {
		t.Fatal("thinking shown by default")
	}
	press(t, m, "t")
	if countThinking() == 0 {
		t.Fatal("t did not show thinking")
	}
	press(t, m, "t")
	// Find within the session.
	press(t, m, "g", "f")
	typeText(t, m, "OtelTraceHelpers")
	press(t, m, "enter")
	if len(r.find.matches) == 0 {
		t.Fatal("find found nothing")
	}
	if r.cur != r.find.matches[r.find.idx] {
		t.Fatal("find did not move to the first match")
	}
	was := r.cur
	press(t, m, "n")
	if len(r.find.matches) > 1 && r.cur == was {
		t.Fatal("n did not move to the next match")
	}
	mustContain(t, screen(m), `"OtelTraceHelpers"`)
	// Copy id and export.
	press(t, m, "y")
	mustContain(t, m.status.flash, "copied session id "+r.conv.Session.ID)
	press(t, m, "E")
	b, err := os.ReadFile(m.c.exportPath(r.conv.Session.ID))
	if err != nil {
		t.Fatalf("export: %v (flash %q)", err, m.status.flash)
	}
	mustContain(t, string(b), "## You", "**Bash**", r.conv.Session.ID)
	// G then scrolling back up stays inside the conversation.
	press(t, m, "G")
	screen(m)
	if r.cur != len(r.items)-1 {
		t.Fatal("G did not reach the end")
	}
	press(t, m, "pgup", "pgup", "k")
	checkSize(t, screen(m), 80, 24)
	top := r.topItem
	for i := 0; i < 20; i++ {
		send(t, m, wheel(-1))
	}
	screen(m)
	if r.topItem >= top || r.cur < r.topItem || r.cur > r.lastVisible(r.lastH) {
		t.Fatalf("wheel up: top %d → %d, cursor %d not in view", top, r.topItem, r.cur)
	}
	press(t, m, "g")
	screen(m)
	if r.topItem != 0 || r.topLine != 0 || r.cur != 0 {
		t.Fatalf("g did not go to the top: %d/%d", r.topItem, r.topLine)
	}
}

func TestReaderOpensAtTurn(t *testing.T) {
	st := testStore(t)
	m := newTestModel(t, 100, 30, st, nil)
	// An entry deep in a session: the reader must open with it selected.
	ss, _ := st.Sessions(t.Context(), indexFilterAll())
	var sid, uuid string
	for _, s := range ss {
		if strings.Contains(s.Title+s.FirstPrompt, "spotter-4te") {
			sid = s.ID
		}
	}
	c, err := st.Conversation(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(c.Entries) / 2; i < len(c.Entries); i++ {
		if c.Entries[i].Type == "assistant" && strings.TrimSpace(c.Entries[i].JoinedText()) != "" {
			uuid = c.Entries[i].UUID
			break
		}
	}
	run(t, m, m.openSession(sid, uuid))
	screen(m)
	if got := m.reader.items[m.reader.cur].uuid; got != uuid {
		t.Fatalf("cursor on %s, want %s", got, uuid)
	}
	if m.reader.topItem < 5 {
		t.Fatalf("view did not scroll to the turn (top item %d)", m.reader.topItem)
	}
	// A subagent's entry: its call is expanded and the entry selected.
	var agentUUID string
	for _, es := range c.Agents {
		for _, e := range es {
			if e.Type == "assistant" {
				agentUUID = e.UUID
				break
			}
		}
		if agentUUID != "" {
			break
		}
	}
	run(t, m, m.openSession(sid, agentUUID))
	screen(m)
	if got := m.reader.items[m.reader.cur]; got.uuid != agentUUID || got.depth == 0 {
		t.Fatalf("subagent entry: cursor on %s depth %d", got.uuid, got.depth)
	}
}

// Issue 18 item 6: an Edit shows as a unified diff, a MultiEdit as one per
// edit, a Write as numbered lines; other tools' inputs show their text
// with real line breaks, and long output lines wrap at word boundaries.
func TestReaderFileChanges(t *testing.T) {
	st := testStore(t)
	const sid, edit, multi = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7", "d2a42b7c-e641-4abe-baa9-b5ee11b95a7a", "f8368b17-2bd0-4150-96be-0e5065eaeee0"
	expandAt := func(m *Model, uuid string) string {
		t.Helper()
		send(t, m, openSessionMsg{id: sid, uuid: uuid})
		screen(m)
		if it := m.reader.items[m.reader.cur]; it.kind != kTool {
			t.Fatalf("cursor on kind %d, want the tool call %s", it.kind, uuid)
		}
		press(t, m, "enter")
		return strings.Join(m.reader.lines(m.reader.cur), "\n")
	}
	goldenSizes(t, "reader_edit", st, nil, func(m *Model) { expandAt(m, edit) })

	m := newTestModel(t, 100, 40, st, nil)
	got := expandAt(m, edit)
	mustContain(t, got, "/path/to/Demo/CLAUDE.md", "@@ ", "-A fully functional TODO application built with Next.js 14,",
		"+A fully functional TODO application built with Next.js 15.5.2,")
	if strings.Contains(got, `\n`) || strings.Contains(got, `"old_string"`) {
		t.Fatalf("the edit is shown as JSON:\n%s", got)
	}
	got = expandAt(m, multi)
	mustContain(t, got, "edit 1 of ", "edit 2 of ", "-A fully functional", "+A fully functional")

	// A Write: the file's lines, numbered.
	c, err := st.Conversation(context.Background(), "fe5e1c67-53e7-4862-81ae-d0e013e3270b")
	if err != nil {
		t.Fatal(err)
	}
	var write string
	for _, e := range c.Entries {
		for _, b := range e.Blocks {
			if b.ToolName == "Write" && write == "" {
				write = e.UUID
			}
		}
	}
	send(t, m, openSessionMsg{id: c.Session.ID, uuid: write})
	screen(m)
	press(t, m, "enter")
	got = strings.Join(m.reader.lines(m.reader.cur), "\n")
	mustContain(t, got, "lines written", " 1 │ ", " 2 │ ")
}

func TestWrapIndent(t *testing.T) {
	line := "    if err := doSomething(withAVeryLongArgument, andAnother); err != nil { return err }"
	got := wrapIndent(line, 40, "  ", 0)
	if len(got) < 2 {
		t.Fatalf("not wrapped: %q", got)
	}
	for i, l := range got {
		if w := len([]rune(l)); w > 40 {
			t.Errorf("line %d is %d wide: %q", i, w, l)
		}
		if i > 0 && !strings.HasPrefix(l, "      ") {
			t.Errorf("continuation %d lost the indent: %q", i, l)
		}
	}
	// Words are not cut: every word of the line is whole on some line.
	joined := strings.Join(got, " ")
	for _, w := range strings.Fields(line) {
		if !strings.Contains(joined, w) {
			t.Errorf("word %q was cut: %q", w, got)
		}
	}
}

// A NotebookEdit shows the cell's new source, numbered.
func TestReaderNotebookEdit(t *testing.T) {
	m := newTestModel(t, 80, 24, testStore(t), nil)
	p := m.reader
	in := `{"notebook_path":"/tmp/a.ipynb","cell_id":"c1","new_source":"import pandas as pd\ndf = pd.read_csv(\"x.csv\")","edit_mode":"replace"}`
	out, ok := p.fileChange(&transcripts.Block{ToolName: "NotebookEdit", ToolID: "t1", ToolInput: []byte(in)}, 70)
	if !ok {
		t.Fatal("NotebookEdit not drawn as a file change")
	}
	got := strings.Join(out, "\n")
	mustContain(t, got, "/tmp/a.ipynb · replace · cell c1", "1 │ import pandas as pd", `2 │ df = pd.read_csv("x.csv")`)
}
