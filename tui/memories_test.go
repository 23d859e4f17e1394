package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/memories"
)

// seedMemories adds three memories with sources in the sample and returns
// their ids (pending decision, pending gotcha, approved preference).
func seedMemories(t *testing.T, st *index.Store, svc *memories.Service) (sid, uuid string, ids []string) {
	t.Helper()
	ctx := context.Background()
	ss, err := st.Sessions(ctx, index.SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var proj string
	for _, s := range ss {
		if strings.Contains(s.Title, "create the beads") {
			sid, proj = s.ID, s.ProjectPath
		}
	}
	c, err := st.Conversation(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range c.Entries {
		if e.Type == "user" && strings.Contains(e.JoinedText(), "igniter") {
			uuid = e.UUID
		}
	}
	step := 0
	add := func(n memories.NewMemory) string {
		step++
		at := fixedNow.Add(-time.Duration(10-step) * time.Hour)
		svc.SetClock(func() time.Time { return at })
		defer svc.SetClock(func() time.Time { return fixedNow })
		n.Project, n.SourceSession, n.SourceUUIDs, n.Origin = proj, sid, []string{uuid}, memories.OriginManual
		r, err := svc.Curator.Add(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		return r.Memory.ID
	}
	ids = append(ids,
		add(memories.NewMemory{Type: memories.Decision, Content: "Use igniter installers to set up credo, dialyxir and mix_audit", Importance: 4}),
		add(memories.NewMemory{Type: memories.Gotcha, Content: "mix phx.server does not start when port 4000 is taken by another beam", Importance: 3}),
		add(memories.NewMemory{Type: memories.Preference, Content: "The user prefers beads drafted before any code is written", Importance: 2, Status: memories.Approved}),
	)
	return sid, uuid, ids
}

func TestMemoriesPane(t *testing.T) {
	st := testStore(t)
	svc := testService(t, st)
	sid, uuid, ids := seedMemories(t, st, svc)
	goldenSizes(t, "memories", st, svc, func(m *Model) { press(t, m, "5") })
	m := newTestModel(t, 80, 24, st, svc)
	p := m.mems
	press(t, m, "5")
	if len(p.mems) != 3 || p.mems[0].Status != memories.Pending || p.mems[2].Status != memories.Approved {
		t.Fatalf("inbox order: %+v", p.mems)
	}
	if m.pending != 2 {
		t.Fatalf("pending count %d, want 2", m.pending)
	}
	get := func(id string) *memories.Memory {
		mm, err := svc.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return mm
	}
	sel := func(id string) {
		for i := range p.mems {
			if p.mems[i].ID == id {
				p.list.cursor = i
				return
			}
		}
		t.Fatalf("%s not listed", id)
	}
	// Source turn is loaded for the side panel.
	sel(ids[0])
	run(t, m, p.loadSource())
	mustContain(t, screen(m), "source: session "+sid[:8], "igniter")
	// approve
	press(t, m, "a")
	if get(ids[0]).Status != memories.Approved {
		t.Fatal("a did not approve")
	}
	// u undoes an approve (issue 18 item 12), and again after a redo
	press(t, m, "u")
	if st := get(ids[0]).Status; st != memories.Pending {
		t.Fatalf("u after approve left %s", st)
	}
	sel(ids[0])
	press(t, m, "a")
	if get(ids[0]).Status != memories.Approved {
		t.Fatal("a did not approve again")
	}
	// importance and type
	sel(ids[1])
	press(t, m, "+")
	if get(ids[1]).Importance != 4 {
		t.Fatalf("+ gave importance %d", get(ids[1]).Importance)
	}
	press(t, m, "-", "-")
	if get(ids[1]).Importance != 2 {
		t.Fatalf("- - gave importance %d", get(ids[1]).Importance)
	}
	press(t, m, "t")
	if get(ids[1]).Type != memories.Preference { // gotcha → preference
		t.Fatalf("t gave type %s", get(ids[1]).Type)
	}
	// edit with the multi-line editor
	sel(ids[1])
	press(t, m, "e")
	if m.editor == nil {
		t.Fatal("e did not open the editor")
	}
	press(t, m, "end")
	typeText(t, m, " (use PORT=4001)")
	press(t, m, "ctrl+s")
	if m.editor != nil || !strings.HasSuffix(get(ids[1]).Content, "(use PORT=4001)") {
		t.Fatalf("edit not saved: %q (flash %q)", get(ids[1]).Content, m.status.flash)
	}
	// esc cancels an edit: with changes, after asking (issue 18 item 12)
	sel(ids[1])
	press(t, m, "e")
	press(t, m, "esc")
	if m.editor != nil {
		t.Fatal("esc without changes did not close the editor")
	}
	press(t, m, "e")
	typeText(t, m, "garbage")
	press(t, m, "esc")
	if m.editor == nil || !strings.Contains(screen(m), "Discard your changes?") {
		t.Fatal("esc discarded changes without asking")
	}
	typeText(t, m, "!")
	press(t, m, "esc", "esc")
	if m.editor != nil || strings.Contains(get(ids[1]).Content, "garbage") {
		t.Fatal("esc esc saved the edit")
	}
	// reject
	sel(ids[2])
	press(t, m, "x")
	if get(ids[2]).Status != memories.Rejected {
		t.Fatal("x did not reject")
	}
	press(t, m, "u")
	if st := get(ids[2]).Status; st != memories.Approved {
		t.Fatalf("u after reject left %s, want approved again", st)
	}
	press(t, m, "s", "s", "s", "s", "s", "s", "s") // the same filter
	sel(ids[2])
	press(t, m, "x")
	// delete, then undo
	press(t, m, "s", "s", "s", "s", "s", "s") // back to "pending + approved"
	sel(ids[1])
	press(t, m, "D")
	if _, err := svc.Get(context.Background(), ids[1]); err == nil {
		t.Fatal("d did not delete")
	}
	press(t, m, "u")
	if get(ids[1]).ID != ids[1] {
		t.Fatal("u did not restore")
	}
	// merge: mark one, merge into another
	sel(ids[1])
	press(t, m, "m")
	if p.marked == nil || p.marked.ID != ids[1] {
		t.Fatal("m did not mark")
	}
	sel(ids[0])
	keepText, otherText := get(ids[0]).Content, get(ids[1]).Content
	press(t, m, "M")
	// M opens the editor with what both say; nothing is merged before
	// ctrl+s (issue 26 item 3).
	if m.editor == nil || get(ids[1]).Status == memories.Superseded {
		t.Fatal("M merged without showing the merged text")
	}
	if v := m.editor.ta.Value(); !strings.Contains(v, keepText) || !strings.Contains(v, otherText) {
		t.Fatalf("the merge editor holds %q, want both %q and %q", v, keepText, otherText)
	}
	press(t, m, "ctrl+s")
	if c := get(ids[0]).Content; !strings.Contains(c, otherText) {
		t.Fatalf("the merged memory lost the other's text: %q", c)
	}
	if get(ids[1]).Status != memories.Superseded {
		t.Fatalf("merge left %s %s", ids[1], get(ids[1]).Status)
	}
	// u undoes the merge: both as they were
	linksBefore := len(get(ids[0]).Links)
	press(t, m, "u")
	if st := get(ids[1]).Status; st == memories.Superseded {
		t.Fatalf("u after merge left %s %s", ids[1], st)
	}
	if n := len(get(ids[0]).Links); n >= linksBefore {
		t.Fatalf("u after merge kept the kept memory's links (%d, merged %d)", n, linksBefore)
	}
	sel(ids[1])
	press(t, m, "m")
	sel(ids[0])
	press(t, m, "M", "ctrl+s")
	// filters: status cycles; type filter; project filter
	press(t, m, "s", "s")
	if memStatusFilters[p.statusIdx].name != "pending" {
		t.Fatalf("s did not cycle the status filter: %s", memStatusFilters[p.statusIdx].name)
	}
	for _, mm := range p.mems {
		if mm.Status != memories.Pending {
			t.Fatalf("pending filter listed a %s memory", mm.Status)
		}
	}
	press(t, m, "s", "s", "s", "s", "s", "s")
	press(t, m, "T")
	for _, mm := range p.mems {
		if mm.Type != memories.Decision {
			t.Fatalf("type filter decision listed a %s", mm.Type)
		}
	}
	press(t, m, "T", "T", "T", "T", "T", "T", "T", "T", "T")
	// enter opens the source turn in the reader
	sel(ids[0])
	press(t, m, "enter")
	if m.focus != paneReader || m.reader.conv == nil || m.reader.conv.Session.ID != sid {
		t.Fatal("enter did not open the source session")
	}
	screen(m)
	// The source is the skill text injected after a /command: the reader
	// does not show injected text and lands on the command prompt.
	if it := m.reader.items[m.reader.cur]; it.uuid != uuid && it.kind != kPrompt {
		t.Fatalf("reader at %s (kind %d), want the source turn %s", it.uuid, it.kind, uuid)
	}
}

// The side panel shows what a memory supersedes or contradicts.
func TestMemoriesLinksSideBySide(t *testing.T) {
	st := testStore(t)
	m := newTestModel(t, 120, 40, st, testService(t, st))
	press(t, m, "5")
	old := memories.Memory{ID: "m-00000001", Type: memories.Decision, Content: "Deploy with Fly.io machines", Status: memories.Superseded, Importance: 3}
	cur := memories.Memory{ID: "m-00000002", Type: memories.Decision, Content: "Deploy with Kamal on Hetzner", Status: memories.Pending, Importance: 3,
		Links: []memories.Link{{Kind: memories.Supersedes, Target: old.ID}, {Kind: memories.Contradicts, Target: "m-00000003"}}}
	other := memories.Memory{ID: "m-00000003", Type: memories.Fact, Content: "Production runs on Render", Status: memories.Approved, Importance: 3}
	send(t, m, memoriesMsg{list: []memories.Memory{cur}, linked: map[string]memories.Memory{old.ID: old, other.ID: other}})
	s := screen(m)
	mustContain(t, s, "supersedes m-00000001", "Deploy with Fly.io machines", "contradicts m-00000003", "Production runs on Render", "Deploy with Kamal")
}

func TestDraftsPane(t *testing.T) {
	st := testStore(t)
	svc := testService(t, st)
	sid, _, _ := seedMemories(t, st, svc)
	ctx := context.Background()
	md := "# Beads for the Elixir tooling\n\n## Decisions\n- Decision: use igniter to install credo\n\n## Next steps\n- set up mix_audit in CI\n"
	svc.SetClock(func() time.Time { return fixedNow.Add(-2 * time.Hour) })
	d, err := svc.Drafts.AddDraft(ctx, sid, md)
	if err != nil {
		t.Fatal(err)
	}
	svc.SetClock(func() time.Time { return fixedNow.Add(-time.Hour) })
	d2, err := svc.Drafts.AddDraft(ctx, sid, "# Second draft\n\nnothing new")
	svc.SetClock(func() time.Time { return fixedNow })
	if err != nil {
		t.Fatal(err)
	}
	goldenSizes(t, "drafts", st, svc, func(m *Model) {
		press(t, m, "6")
		for i := range m.drafts.drafts {
			if m.drafts.drafts[i].ID == d.ID {
				m.drafts.list.cursor = i
			}
		}
	})
	m := newTestModel(t, 80, 24, st, svc)
	press(t, m, "6")
	p := m.drafts
	if len(p.drafts) != 2 || m.draftsN != 2 {
		t.Fatalf("%d drafts listed, %d pending counted", len(p.drafts), m.draftsN)
	}
	sel := func(id string) {
		for i := range p.drafts {
			if p.drafts[i].ID == id {
				p.list.cursor = i
			}
		}
	}
	sel(d.ID)
	mustContain(t, screen(m), "Beads for the Elixir tooling", "set up mix_audit in CI")
	press(t, m, "e")
	typeText(t, m, "- added in the editor")
	press(t, m, "ctrl+s")
	got, err := svc.Drafts.Draft(ctx, d.ID)
	if err != nil || !strings.Contains(got.Markdown, "- added in the editor") {
		t.Fatalf("edit: %v %q", err, got.Markdown)
	}
	press(t, m, "a")
	if got, _ := svc.Drafts.Draft(ctx, d.ID); got.Status != "approved" {
		t.Fatalf("a left the draft %s (flash %q)", got.Status, m.status.flash)
	}
	sel(d2.ID)
	press(t, m, "x")
	if got, _ := svc.Drafts.Draft(ctx, d2.ID); got.Status != "rejected" {
		t.Fatalf("x left the draft %s", got.Status)
	}
	if len(p.drafts) != 0 {
		t.Fatalf("pending filter still lists %d drafts", len(p.drafts))
	}
	press(t, m, "s")
	if len(p.drafts) != 1 || p.drafts[0].ID != d.ID {
		t.Fatal("approved filter does not list the approved draft")
	}
}

// Memories another process adds (cairn extract, a hook) appear on the next
// poll.
func TestMemoriesPickedUp(t *testing.T) {
	st := testStore(t)
	svc := testService(t, st)
	m := newTestModel(t, 80, 24, st, svc)
	send(t, m, pollMsg{lastSync: "x", memSig: "before"})
	if len(m.mems.mems) != 0 {
		t.Fatal("inbox not empty at start")
	}
	if _, err := svc.Curator.Add(context.Background(), memories.NewMemory{Type: memories.Fact, Content: "The staging database is reset every Monday"}); err != nil {
		t.Fatal(err)
	}
	send(t, m, pollMsg{lastSync: "x", memSig: "after"})
	if len(m.mems.mems) != 1 || m.pending != 1 {
		t.Fatalf("after another process added a memory: %d listed, %d pending", len(m.mems.mems), m.pending)
	}
}

// Issue 18 item 7: a memory found by search opens the session at the turn
// it came from; one without a source opens in the memories pane, whose
// filter changes only when it hides the memory, and then says so.
func TestMemorySearchResultOpensSource(t *testing.T) {
	st := testStore(t)
	svc := testService(t, st)
	sid, uuid, _ := seedMemories(t, st, svc)
	ctx := context.Background()
	g, err := svc.Curator.Add(ctx, memories.NewMemory{Type: memories.Fact, Content: "Zanzibar quokka builds run on the blue runner", Origin: memories.OriginManual})
	if err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, 80, 24, st, svc)
	press(t, m, "5", "s", "s")           // memories: approved only (the global one is pending)
	press(t, m, "F", "ctrl+k", "ctrl+k") // kind: memories
	typeQuery(t, m, "igniter installers")
	if len(m.search.results) == 0 || m.search.results[0].Kind != "memory" {
		t.Fatalf("no memory hit: %+v", m.search.results)
	}
	press(t, m, "enter")
	if m.focus != paneReader || m.reader.conv == nil || m.reader.conv.Session.ID != sid {
		t.Fatalf("enter on a memory hit: focus %s", paneName(m.focus))
	}
	screen(m)
	got := m.reader.cur
	// Where the reader lands when asked for the source turn itself.
	m.reader.cur = 0
	m.reader.jumpTo(uuid)
	if want := m.reader.cur; got != want || want == 0 {
		t.Fatalf("the reader opened at item %d, want the memory's source turn (item %d)", got, want)
	}
	press(t, m, "esc")
	if m.focus != paneSearch {
		t.Fatalf("esc went to %s", paneName(m.focus))
	}
	// A global memory without a source, hidden by the status filter.
	for range len("igniter installers") {
		press(t, m, "backspace")
	}
	typeQuery(t, m, "zanzibar quokka")
	if len(m.search.results) == 0 {
		t.Fatal("no hit for the global memory")
	}
	press(t, m, "enter")
	sel := m.mems.selected()
	if m.focus != paneMemories || sel == nil || sel.ID != g.Memory.ID {
		t.Fatalf("enter on a global memory: focus %s, selected %v", paneName(m.focus), sel)
	}
	if memStatusFilters[m.mems.statusIdx].name != "all" || !strings.Contains(m.status.flash, "hidden by the status filter") {
		t.Fatalf("filter %q changed silently (flash %q)", memStatusFilters[m.mems.statusIdx].name, m.status.flash)
	}
	press(t, m, "esc")
	if m.focus != paneSearch {
		t.Fatalf("esc from a memory opened by search went to %s", paneName(m.focus))
	}
}

// Issue 18 item 12: a text filter in Memories, and every pending memory
// of a session approved (A) or rejected (X) at once, undone by one u.
func TestMemoriesTextFilterAndSessionReview(t *testing.T) {
	st := testStore(t)
	svc := testService(t, st)
	_, _, ids := seedMemories(t, st, svc)
	m := newTestModel(t, 80, 24, st, svc)
	p := m.mems
	press(t, m, "5", "f")
	if !p.typing() {
		t.Fatal("f did not open the filter")
	}
	typeText(t, m, "igniter credo")
	if len(p.mems) != 1 || p.mems[0].ID != ids[0] {
		t.Fatalf("filter shows %d memories", len(p.mems))
	}
	mustContain(t, screen(m), "filter: igniter credo")
	press(t, m, "enter")
	if p.typing() || len(p.mems) != 1 {
		t.Fatal("enter did not keep the filter")
	}
	press(t, m, "esc")
	if len(p.mems) != 3 {
		t.Fatalf("esc left %d memories shown", len(p.mems))
	}
	status := func(id string) memories.Status {
		mm, err := svc.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return mm.Status
	}
	press(t, m, "A")
	if status(ids[0]) != memories.Approved || status(ids[1]) != memories.Approved {
		t.Fatalf("A: %s %s", status(ids[0]), status(ids[1]))
	}
	mustContain(t, m.status.flash, "approved 2 memories of session")
	press(t, m, "u")
	if status(ids[0]) != memories.Pending || status(ids[1]) != memories.Pending {
		t.Fatalf("u after A: %s %s", status(ids[0]), status(ids[1]))
	}
	p.list.cursor = 0
	press(t, m, "X")
	if status(ids[0]) != memories.Rejected || status(ids[1]) != memories.Rejected || status(ids[2]) != memories.Approved {
		t.Fatalf("X: %s %s %s", status(ids[0]), status(ids[1]), status(ids[2]))
	}
}
