package tui

import (
	"context"
	"os"
	"strings"
	"testing"
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
	if len(r.matches) == 0 {
		t.Fatal("find found nothing")
	}
	if r.cur != r.matches[r.matchIdx] {
		t.Fatal("find did not move to the first match")
	}
	was := r.cur
	press(t, m, "n")
	if len(r.matches) > 1 && r.cur == was {
		t.Fatal("n did not move to the next match")
	}
	mustContain(t, screen(m), `"OtelTraceHelpers"`)
	// Copy id and export.
	press(t, m, "y")
	mustContain(t, m.status.flash, "copied session id "+r.conv.Session.ID)
	press(t, m, "e")
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
