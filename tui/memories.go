package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/memories"
	"github.com/cairn-dev/cairn/transcripts"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// MemoryService is what the TUI needs of memories.Service (an interface so
// tests can fail calls on purpose).
type MemoryService interface {
	List(ctx context.Context, f memories.Filter) ([]memories.Memory, error)
	Get(ctx context.Context, idPrefix string) (*memories.Memory, error)
	SetStatus(ctx context.Context, id string, st memories.Status) (*memories.Memory, error)
	Update(ctx context.Context, id string, u memories.Update) (*memories.Memory, error)
	Delete(ctx context.Context, id string) error
	Undo(ctx context.Context) (*memories.Memory, error)
	Merge(ctx context.Context, keepID, otherID string) (*memories.Memory, error)
	Counts(ctx context.Context) (memories.Counts, error)
	Drafts(ctx context.Context, status string) ([]memories.Draft, error)
	ApproveDraft(ctx context.Context, id string) (*memories.Draft, []memories.AddResult, error)
	RejectDraft(ctx context.Context, id string) error
	EditDraft(ctx context.Context, id, markdown string) (*memories.Draft, error)
}

var _ MemoryService = (*memories.Service)(nil)

type (
	memoriesMsg struct {
		list   []memories.Memory
		linked map[string]memories.Memory
		counts memories.Counts
		err    error
	}
	memActionMsg struct {
		text    string
		err     error
		select_ string // memory id to put the cursor on
	}
	sourceMsg struct {
		key   string // session#uuid
		lines []string
		err   error
	}
)

// Status filters the memory inbox cycles through.
var memStatusFilters = []struct {
	name string
	st   []memories.Status
}{
	{"pending + approved", []memories.Status{memories.Pending, memories.Approved}},
	{"pending", []memories.Status{memories.Pending}},
	{"approved", []memories.Status{memories.Approved}},
	{"rejected", []memories.Status{memories.Rejected}},
	{"superseded", []memories.Status{memories.Superseded}},
	{"archived", []memories.Status{memories.Archived}},
	{"all", nil},
}

// memoriesPane is the review inbox.
type memoriesPane struct {
	list      []memories.Memory
	linked    map[string]memories.Memory
	ls        listState
	statusIdx int
	typeIdx   int // 0 = all, else memories.Types[typeIdx-1]
	project   bool
	marked    string // id marked for merge
	loaded    bool
	err       error
	sources   map[string]sourceMsg
	wantID    string
	keepPos   bool // after approve/reject/delete: keep the cursor's row
	clicks    clickMap
}

func newMemoriesPane() *memoriesPane {
	return &memoriesPane{sources: map[string]sourceMsg{}}
}

func (m *Model) loadMemories() tea.Cmd {
	svc := m.cfg.Memories
	if svc == nil {
		return nil
	}
	p := m.mems
	f := memories.Filter{Statuses: memStatusFilters[p.statusIdx].st, Limit: 2000}
	if p.typeIdx > 0 {
		f.Types = []memories.Type{memories.Types[p.typeIdx-1]}
	}
	if p.project {
		f.Project = m.scopeProject()
		f.IncludeGlobal = true
	}
	return func() tea.Msg {
		ctx := context.Background()
		l, err := svc.List(ctx, f)
		if err != nil {
			return memoriesMsg{err: err}
		}
		// Memories these link to (superseded, contradicted), for the side panel.
		linked := map[string]memories.Memory{}
		for _, mm := range l {
			for _, ln := range mm.Links {
				if _, ok := linked[ln.Target]; ok || len(linked) > 500 {
					continue
				}
				if t, err := svc.Get(ctx, ln.Target); err == nil {
					linked[ln.Target] = *t
				}
			}
		}
		c, _ := svc.Counts(ctx)
		return memoriesMsg{list: l, linked: linked, counts: c}
	}
}

func (p *memoriesPane) data(m *Model, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case memoriesMsg:
		p.loaded = true
		p.err = msg.err
		if msg.err != nil {
			return nil
		}
		keep := ""
		if s := p.selected(); s != nil {
			keep = s.ID
		}
		if p.wantID != "" {
			keep, p.wantID = p.wantID, ""
		}
		p.list, p.linked = msg.list, msg.linked
		p.ls.setLen(len(p.list))
		if p.keepPos {
			// Reviewed: the cursor stays put and lands on the next one.
			p.keepPos = false
		} else {
			for i := range p.list {
				if keep != "" && (p.list[i].ID == keep || strings.HasPrefix(p.list[i].ID, keep)) {
					p.ls.cursor = i
				}
			}
		}
		m.pending = msg.counts.PendingMemories
		m.draftsN = msg.counts.PendingDrafts
		return p.loadSource(m)
	case memActionMsg:
		if msg.err != nil {
			m.flashError(msg.err)
		} else if msg.text != "" {
			m.flashf("%s", msg.text)
		}
		if msg.select_ != "" {
			p.wantID = msg.select_
		}
		return m.loadMemories()
	case sourceMsg:
		p.sources[msg.key] = msg
	}
	return nil
}

// selectID shows the memory id (from a search result).
func (p *memoriesPane) selectID(m *Model, id string) tea.Cmd {
	p.wantID = id
	p.statusIdx = len(memStatusFilters) - 1 // all: the hit may be any status
	return m.loadMemories()
}

func (p *memoriesPane) selected() *memories.Memory {
	if c := p.ls.cursor; c >= 0 && c < len(p.list) {
		return &p.list[c]
	}
	return nil
}

// loadSource fetches the transcript turn the selected memory came from.
func (p *memoriesPane) loadSource(m *Model) tea.Cmd {
	mm := p.selected()
	if mm == nil || mm.SourceSession == "" {
		return nil
	}
	k := sourceKey(mm)
	if _, ok := p.sources[k]; ok {
		return nil
	}
	p.sources[k] = sourceMsg{key: k} // loading
	st := m.cfg.Store
	sid := mm.SourceSession
	uuids := mm.SourceUUIDs
	return func() tea.Msg {
		c, err := st.Conversation(context.Background(), sid)
		if err != nil {
			return sourceMsg{key: k, err: err}
		}
		return sourceMsg{key: k, lines: sourceLines(c, uuids)}
	}
}

func sourceKey(mm *memories.Memory) string {
	return mm.SourceSession + "#" + strings.Join(mm.SourceUUIDs, ",")
}

// sourceLines is the text of the source entries (or the session's first
// prompt when no entry is named).
func sourceLines(c *transcripts.Conversation, uuids []string) []string {
	var out []string
	want := map[string]bool{}
	for _, u := range uuids {
		want[u] = true
	}
	add := func(es []transcripts.Entry) {
		for i := range es {
			e := &es[i]
			if !want[e.UUID] {
				continue
			}
			who := "Claude"
			switch {
			case e.Type == "user" && e.IsToolResultOnly():
				who = "Output" // tool results arrive as user-type entries
			case e.Type == "user":
				who = "You"
			}
			text := e.JoinedText()
			if text == "" {
				for _, b := range e.Blocks {
					switch b.Type {
					case transcripts.BlockToolUse:
						text += b.ToolName + "(" + transcripts.ToolSummary(&b) + ") "
					case transcripts.BlockToolResult:
						text += b.Text
					}
				}
			}
			text = strings.TrimSpace(text)
			if ls := strings.Split(text, "\n"); len(ls) > 8 {
				text = strings.Join(ls[:8], "\n") + fmt.Sprintf("\n… %d more lines (enter opens the session)", len(ls)-8)
			}
			out = append(out, who+": "+sanitize(text))
		}
	}
	add(c.Entries)
	for _, es := range c.Agents {
		add(es)
	}
	if len(out) == 0 && c.Session != nil {
		out = append(out, "(source entries not found; first prompt) "+sanitize(c.Session.FirstPrompt))
	}
	return out
}

func (p *memoriesPane) typing() bool { return false }

func (p *memoriesPane) act(m *Model, what string, fn func(ctx context.Context, svc MemoryService) (string, string, error)) tea.Cmd {
	svc := m.cfg.Memories
	if svc == nil {
		m.flashError(fmt.Errorf("memories are not available in this build"))
		return nil
	}
	return func() tea.Msg {
		text, sel, err := fn(context.Background(), svc)
		if err != nil {
			err = fmt.Errorf("%s: %w", what, err)
		}
		return memActionMsg{text: text, err: err, select_: sel}
	}
}

func (p *memoriesPane) key(m *Model, k tea.KeyPressMsg) (bool, tea.Cmd) {
	km := &m.keys
	mm := p.selected()
	var id string
	if mm != nil {
		id = mm.ID
	}
	switch {
	case key.Matches(k, km.Up):
		p.ls.move(-1)
		return true, p.loadSource(m)
	case key.Matches(k, km.Down):
		p.ls.move(1)
		return true, p.loadSource(m)
	case key.Matches(k, km.PageUp):
		p.ls.move(-5)
		return true, p.loadSource(m)
	case key.Matches(k, km.PageDown):
		p.ls.move(5)
		return true, p.loadSource(m)
	case key.Matches(k, km.Top):
		p.ls.cursor = 0
		return true, p.loadSource(m)
	case key.Matches(k, km.Bottom):
		p.ls.cursor = p.ls.n - 1
		return true, p.loadSource(m)
	case key.Matches(k, km.StatusFilter):
		p.statusIdx = (p.statusIdx + 1) % len(memStatusFilters)
		return true, m.loadMemories()
	case key.Matches(k, km.TypeFilter):
		p.typeIdx = (p.typeIdx + 1) % (len(memories.Types) + 1)
		return true, m.loadMemories()
	case key.Matches(k, km.ProjectFilter):
		p.project = !p.project
		return true, m.loadMemories()
	case key.Matches(k, km.Undo):
		return true, p.act(m, "undo", func(ctx context.Context, svc MemoryService) (string, string, error) {
			r, err := svc.Undo(ctx)
			if err != nil {
				return "", "", err
			}
			return "restored " + r.ID, r.ID, nil
		})
	}
	if mm == nil {
		return false, nil
	}
	switch {
	case key.Matches(k, km.Approve):
		p.keepPos = true
		return true, p.act(m, "approve "+id, func(ctx context.Context, svc MemoryService) (string, string, error) {
			_, err := svc.SetStatus(ctx, id, memories.Approved)
			return "approved " + id, "", err
		})
	case key.Matches(k, km.Reject):
		p.keepPos = true
		return true, p.act(m, "reject "+id, func(ctx context.Context, svc MemoryService) (string, string, error) {
			_, err := svc.SetStatus(ctx, id, memories.Rejected)
			return "rejected " + id + " (it will not be proposed again)", "", err
		})
	case key.Matches(k, km.Delete):
		p.keepPos = true
		return true, p.act(m, "delete "+id, func(ctx context.Context, svc MemoryService) (string, string, error) {
			err := svc.Delete(ctx, id)
			return "deleted " + id + " — u undoes", "", err
		})
	case key.Matches(k, km.Mark):
		if p.marked == id {
			p.marked = ""
			m.flashf("unmarked %s", id)
		} else {
			p.marked = id
			m.flashf("marked %s: move to another memory and press M to merge it there", id)
		}
	case key.Matches(k, km.Merge):
		other := p.marked
		if other == "" || other == id {
			m.flashError(fmt.Errorf("mark a memory with m first, then press M on the memory to keep"))
			return true, nil
		}
		p.marked = ""
		return true, p.act(m, "merge", func(ctx context.Context, svc MemoryService) (string, string, error) {
			_, err := svc.Merge(ctx, id, other)
			return fmt.Sprintf("merged %s into %s", other, id), id, err
		})
	case key.Matches(k, km.CycleType):
		i := slices.Index(memories.Types, mm.Type)
		t := memories.Types[(i+1)%len(memories.Types)]
		return true, p.act(m, "change type", func(ctx context.Context, svc MemoryService) (string, string, error) {
			_, err := svc.Update(ctx, id, memories.Update{Type: &t})
			return fmt.Sprintf("%s is now a %s", id, t), id, err
		})
	case key.Matches(k, km.ImportanceUp), key.Matches(k, km.ImportanceDown):
		imp := mm.Importance + 1
		if key.Matches(k, km.ImportanceDown) {
			imp = mm.Importance - 1
		}
		imp = min(5, max(1, imp))
		return true, p.act(m, "importance", func(ctx context.Context, svc MemoryService) (string, string, error) {
			_, err := svc.Update(ctx, id, memories.Update{Importance: &imp})
			return fmt.Sprintf("%s importance %d", id, imp), id, err
		})
	case key.Matches(k, km.Edit):
		return true, m.openEditor(editTarget{memoryID: id}, "Editing memory "+id, mm.Content)
	case key.Matches(k, km.Open):
		if mm.SourceSession == "" {
			m.flashError(fmt.Errorf("%s has no source session (origin %s)", id, mm.Origin))
			return true, nil
		}
		uuid := ""
		if len(mm.SourceUUIDs) > 0 {
			uuid = mm.SourceUUIDs[0]
		}
		return true, m.openSession(mm.SourceSession, uuid)
	case key.Matches(k, km.Back) && p.marked != "":
		p.marked = ""
	default:
		return false, nil
	}
	return true, nil
}

func (p *memoriesPane) click(m *Model, y int) tea.Cmd {
	if i := p.clicks.row(y); i >= 0 {
		p.ls.cursor = i
		return p.loadSource(m)
	}
	return nil
}

func (p *memoriesPane) scroll(m *Model, n int) {
	if n > 0 {
		p.ls.move(1)
	} else {
		p.ls.move(-1)
	}
}

func (p *memoriesPane) help(k *KeyMap) []key.Binding {
	return []key.Binding{k.Approve, k.Reject, k.Edit, k.Delete, k.Open, k.Mark, k.StatusFilter}
}

func statusMark(st memories.Status) string {
	switch st {
	case memories.Pending:
		return "●"
	case memories.Approved:
		return "✓"
	case memories.Rejected:
		return "✗"
	case memories.Superseded:
		return "↷"
	}
	return "·"
}

func (p *memoriesPane) view(m *Model, w, h int) string {
	s := m.sty
	filt := memStatusFilters[p.statusIdx].name
	if p.typeIdx > 0 {
		filt += " · " + string(memories.Types[p.typeIdx-1])
	}
	if p.project {
		filt += " · project " + lastElem(m.scopeProject())
	}
	head := []string{s.Title.Render(fmt.Sprintf(" Memories (%d) ", len(p.list))) + s.Muted.Render(trunc(filt+fmt.Sprintf(" · %d pending", m.pending), w-16))}
	switch {
	case m.cfg.Memories == nil:
		return strings.Join(append(head, "", s.Muted.Render(" Memories are not available.")), "\n")
	case p.err != nil:
		return strings.Join(append(head, "", s.Error.Render(" Could not list memories: "+sanitizeLine(p.err.Error())),
			s.Muted.Render(" ctrl+r retries.")), "\n")
	case !p.loaded:
		return strings.Join(append(head, s.Muted.Render(" loading…")), "\n")
	case len(p.list) == 0:
		return strings.Join(append(head, "",
			s.Muted.Render(" Nothing to review here."),
			s.Muted.Render(" Memories are proposed from your sessions (cairn extract, or the Stop hook)."),
			s.Muted.Render(" s changes the status filter, T the type, p limits to this project.")), "\n")
	}
	bodyH := h - 1
	var listW, detW int
	side := w >= 100
	if side {
		listW = w / 2
		detW = w - listW - 1
	} else {
		listW, detW = w, w
	}
	listH := bodyH
	if !side {
		listH = max(3, bodyH*2/5)
	}
	var rows []string
	from, to := p.ls.window(listH)
	p.clicks = clickMap{top: 1 + len(head), from: from, to: to, per: 1}
	for i := from; i < to; i++ {
		mm := p.list[i]
		mark := statusMark(mm.Status)
		if mm.ID == p.marked {
			mark = "◆"
		}
		row := fmt.Sprintf(" %s %-9s %s %s", mark, trunc(string(mm.Type), 9), strings.Repeat("★", mm.Importance)+strings.Repeat("·", max(0, 5-mm.Importance)),
			sanitizeLine(mm.Content))
		if mm.ID == p.marked && i != p.ls.cursor {
			rows = append(rows, s.Marked.Render(pad(row, listW)))
			continue
		}
		rows = append(rows, m.rowStyle(i == p.ls.cursor, pad(row, listW)))
	}
	det := p.detail(m, detW, bodyH-len(rows))
	if side {
		det = p.detail(m, detW, bodyH)
		left := fitLines(rows, listW, bodyH)
		right := fitLines(strings.Split(det, "\n"), detW, bodyH)
		sep := strings.TrimRight(strings.Repeat(s.Subtle.Render("│")+"\n", bodyH), "\n")
		return strings.Join(head, "\n") + "\n" + lipgloss.JoinHorizontal(lipgloss.Top, left, sep, right)
	}
	out := append(head, rows...)
	out = append(out, s.Subtle.Render(strings.Repeat("─", w)))
	out = append(out, strings.Split(p.detail(m, detW, bodyH-len(rows)-1), "\n")...)
	return strings.Join(out, "\n")
}

// detail is the selected memory: content, facts, its source turn and the
// memories it supersedes or contradicts.
func (p *memoriesPane) detail(m *Model, w, h int) string {
	s := m.sty
	mm := p.selected()
	if mm == nil || h <= 0 {
		return ""
	}
	var out []string
	out = append(out, s.Bold.Render(trunc(fmt.Sprintf(" %s · %s · importance %d · %s", mm.ID, mm.Type, mm.Importance, mm.Status), w)))
	for _, l := range wrap(sanitize(mm.Content), w-1, " ") {
		out = append(out, l)
	}
	facts := []string{fmt.Sprintf("confidence %.2f", mm.Confidence), "origin " + orDash(mm.Origin),
		fmt.Sprintf("injected %d · used %d", mm.Injected, mm.Used)}
	if mm.Project != "" {
		facts = append(facts, "project "+lastElem(sanitizeLine(mm.Project)))
	} else {
		facts = append(facts, "global")
	}
	if len(mm.Tags) > 0 {
		facts = append(facts, "#"+strings.Join(mm.Tags, " #"))
	}
	facts = append(facts, "created "+m.fmtTime(mm.Created))
	for _, l := range wrap(strings.Join(facts, " · "), w-1, " ") {
		out = append(out, s.Muted.Render(l))
	}
	for _, ln := range mm.Links {
		if ln.Kind != memories.Supersedes && ln.Kind != memories.Contradicts {
			continue
		}
		other, ok := p.linked[ln.Target]
		label := map[memories.LinkKind]string{memories.Supersedes: "supersedes", memories.Contradicts: "contradicts"}[ln.Kind]
		st := s.Warn
		out = append(out, "", st.Render(trunc(fmt.Sprintf(" %s %s", label, ln.Target), w)))
		if ok {
			for _, l := range wrap(sanitize(other.Content), w-3, "   ") {
				out = append(out, s.Muted.Render(l))
			}
		}
	}
	if mm.SourceSession != "" {
		out = append(out, "", s.Muted.Render(trunc(" source: session "+mm.SourceSession[:min(8, len(mm.SourceSession))]+" (enter opens it at the turn)", w)))
		src, ok := p.sources[sourceKey(mm)]
		switch {
		case !ok || (src.lines == nil && src.err == nil):
			out = append(out, s.Subtle.Render(" loading…"))
		case src.err != nil:
			out = append(out, s.Error.Render(trunc(" "+sanitizeLine(src.err.Error()), w)))
		default:
			for _, sl := range src.lines {
				for _, l := range wrap(sl, w-3, "   ") {
					out = append(out, s.Tool.Render(l))
				}
			}
		}
	}
	if len(out) > h {
		out = out[:h]
	}
	return strings.Join(out, "\n")
}
