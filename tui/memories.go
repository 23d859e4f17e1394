package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/memories"
	"github.com/cairn-dev/cairn/theme"
	"github.com/cairn-dev/cairn/transcripts"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// MemoryService is the memory domain the TUI works on: its panes call
// the job they mean (Curator, Drafts, Sync, Feedback, Recall).
type MemoryService = *memories.Service

type (
	memoriesMsg struct {
		list    []memories.Memory
		linked  map[string]memories.Memory
		counts  memories.Counts
		err     error
		files   []memories.FileChange // pending changes to Claude's memory files (memfiles.go)
		fileErr error
	}
	memActionMsg struct {
		text    string
		err     error
		select_ string    // memory id to put the cursor on
		undo    *undoStep // how to undo what was done (nil: nothing to undo)
		undone  bool      // this was an undo: drop the step
	}
	sourceMsg struct {
		key   string // session#uuid
		lines []string
		files []memories.SourceFile // what the source turn edited, and whether it changed since
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
	c         *common
	all       []memories.Memory // as loaded
	mems      []memories.Memory // shown: all that pass the text filter
	linked    map[string]memories.Memory
	list      list
	statusIdx int
	typeIdx   int              // 0 = all, else memories.Types[typeIdx-1]
	marked    *memories.Memory // marked for merge
	loaded    bool
	err       error
	counts    memories.Counts
	sources   map[string]sourceMsg
	wantID    string
	findID    string     // a memory asked for that the filters may hide
	reload    bool       // the filters changed while loading: load again
	keepPos   bool       // after approve/reject/delete: keep the cursor's row
	undos     []undoStep // this run's reviews, the last one last (u: journal.go's undo)
	clicks    clickMap
	stats     *statsView                      // shown over the list while set
	files     map[string]*memories.FileChange // the rows that stand for memory-file changes, by row id
}

var memoriesPaneSpec = paneSpec{name: "Memories", short: "Mem",
	build: func(c *common) pane { return newMemoriesPane(c) },
	keys: func(k *KeyMap, typing bool) []key.Binding {
		if typing {
			return append(k.TypingList.bindings(), k.Done)
		}
		return append(k.List.bindings(), k.Filter, k.ApproveSession, k.RejectSession, k.StatusFilter, k.TypeFilter, k.ProjectFilter, k.Undo, k.Approve, k.Reject,
			k.Delete, k.Mark, k.Merge, k.CycleType, k.ImportanceUp, k.ImportanceDown, k.Edit, k.Open, k.Stats)
	},
	helpKeys: func(k *KeyMap) []key.Binding {
		return []key.Binding{k.Approve, k.Reject, k.ApproveSession, k.RejectSession, k.Edit, k.Delete, k.Undo, k.Mark, k.Merge, k.CycleType,
			k.ImportanceUp, k.ImportanceDown, k.StatusFilter, k.TypeFilter, k.Open, k.Stats}
	},
}

func newMemoriesPane(c *common) *memoriesPane {
	return &memoriesPane{c: c, sources: map[string]sourceMsg{}, list: list{filter: newFilterBox("words in memories, types, #tags")}}
}

// filter is what the pane's filters ask the service for.
func (p *memoriesPane) filter() memories.Filter {
	f := memories.Filter{Statuses: memStatusFilters[p.statusIdx].st, Limit: 2000}
	if p.typeIdx > 0 {
		f.Types = []memories.Type{memories.Types[p.typeIdx-1]}
	}
	if pr := p.c.scopeProject(); pr != "" {
		f.Project = pr
		f.IncludeGlobal = true
	}
	return f
}

// loadData loads the list (dataLoader): at start and on refresh.
func (p *memoriesPane) loadData() tea.Cmd { return p.load() }

// load asks for the memories the filters select, the memories they link
// to and the counts.
func (p *memoriesPane) load() tea.Cmd {
	svc, ctx := p.c.memories(), p.c.ctx
	if svc == nil {
		return nil
	}
	f := p.filter()
	files := p.wantsFiles()
	return func() tea.Msg {
		l, err := svc.List(ctx, f)
		if err != nil {
			return memoriesMsg{err: err}
		}
		c, _ := svc.Counts(ctx)
		msg := memoriesMsg{list: l, linked: linkedMemories(ctx, svc, l), counts: c}
		if files {
			msg.files, msg.fileErr = svc.Sync.MemoryFileChanges(ctx, f.Project)
		}
		return msg
	}
}

// linkedMemories are the memories l links to (superseded, contradicted),
// for the side panel.
func linkedMemories(ctx context.Context, svc MemoryService, l []memories.Memory) map[string]memories.Memory {
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
	return linked
}

func (p *memoriesPane) data(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case memoriesMsg:
		return p.listLoaded(msg)
	case memActionMsg:
		return p.actionDone(msg)
	case sourceMsg:
		p.sources[msg.key] = msg
	case memStatsMsg:
		if p.stats != nil {
			p.stats.loaded(msg)
		}
	}
	return nil
}

// listLoaded shows a loaded list of memories and memory-file changes,
// then loads again (a filter changed on the way) or loads the selected
// memory's source.
func (p *memoriesPane) listLoaded(msg memoriesMsg) tea.Cmd {
	p.loaded = true
	p.err = msg.err
	if msg.err != nil {
		return nil
	}
	p.counts = msg.counts
	if msg.fileErr != nil {
		p.c.flashError(fmt.Errorf("reading the changes to Claude's memory files: %w", msg.fileErr))
	}
	p.files = map[string]*memories.FileChange{}
	for i := range msg.files {
		p.files[fmt.Sprintf("%s%d", fileRowPrefix, msg.files[i].Version)] = &msg.files[i]
	}
	p.setMemories(append(fileRows(msg.files), msg.list...), msg.linked)
	if p.reload {
		p.reload = false
		return p.load()
	}
	return p.loadSource()
}

// maxUndos is how many actions u can undo.
const maxUndos = 50

// actionDone reports an action on a memory, keeps its undo, and
// reloads the list (on the memory the action asks for, if any).
func (p *memoriesPane) actionDone(msg memActionMsg) tea.Cmd {
	if msg.undo != nil {
		p.undos = append(p.undos, *msg.undo)
		if len(p.undos) > maxUndos {
			p.undos = p.undos[1:]
		}
	}
	if msg.err != nil {
		p.c.flashError(msg.err)
	} else if msg.text != "" {
		p.c.flashf("%s", msg.text)
	}
	if msg.select_ != "" {
		p.wantID = msg.select_
	}
	return p.load()
}

// setMemories shows a new list: the cursor stays on the same memory, on
// the one asked for, or (after a review) on the same row.
func (p *memoriesPane) setMemories(l []memories.Memory, linked map[string]memories.Memory) {
	keep := ""
	if s := p.selected(); s != nil {
		keep = s.ID
	}
	if p.wantID != "" {
		keep, p.wantID = p.wantID, ""
	}
	p.all, p.linked = l, linked
	p.applyText()
	if id := p.findID; id != "" {
		p.findID = ""
		if p.revealFound(id, l) {
			return
		}
	}
	if p.keepPos {
		// Reviewed: the cursor stays put and lands on the next one.
		p.keepPos = false
		return
	}
	p.cursorTo(keep)
}

// revealFound makes the memory asked for visible: it clears a text
// filter that hides it and, when the status filter hides it, shows
// every status and reports true (the list loads again).
func (p *memoriesPane) revealFound(id string, l []memories.Memory) (reload bool) {
	hasID := func(mm memories.Memory) bool { return mm.ID == id }
	if p.list.filter.value() != "" && !slices.ContainsFunc(p.mems, hasID) {
		p.c.flashf("cleared the text filter %q to show %s", p.list.filter.value(), id)
		p.list.filter.input.SetValue("")
		p.applyText()
	}
	all := len(memStatusFilters) - 1
	if slices.ContainsFunc(l, hasID) || p.statusIdx == all {
		return false
	}
	was := memStatusFilters[p.statusIdx].name
	p.statusIdx = all
	p.wantID = id
	p.c.flashf("%s is hidden by the status filter %q: showing every status (s cycles)", id, was)
	p.reload = true
	return true
}

// cursorTo puts the cursor on the memory whose ID is (or starts with)
// id; the last such row wins. An empty id leaves the cursor alone.
func (p *memoriesPane) cursorTo(id string) {
	if id == "" {
		return
	}
	for i := range p.mems {
		if p.mems[i].ID == id || strings.HasPrefix(p.mems[i].ID, id) {
			p.list.set(i)
		}
	}
}

// applyText shows the loaded memories that hold every word of the text
// filter (in their content, type, tags or project).
func (p *memoriesPane) applyText() {
	words := strings.Fields(strings.ToLower(p.list.filter.value()))
	p.mems = p.mems[:0:0]
	for _, mm := range p.all {
		hay := strings.ToLower(mm.Content + " " + string(mm.Type) + " #" + strings.Join(mm.Tags, " #") + " " + mm.Project + " " + mm.ID)
		ok := true
		for _, w := range words {
			if !strings.Contains(hay, w) {
				ok = false
				break
			}
		}
		if ok {
			p.mems = append(p.mems, mm)
		}
	}
	p.list.setLen(len(p.mems))
}

func (p *memoriesPane) paste(msg tea.PasteMsg) tea.Cmd {
	return p.list.paste(msg, func() {
		p.applyText()
	})
}

// selectID shows the memory id (from a search result) under the current
// filters; when they hide it, the status filter becomes "all" and the
// status bar says so (setMemories).
func (p *memoriesPane) selectID(id string) tea.Cmd {
	p.wantID, p.findID = id, id
	return p.load()
}

func (p *memoriesPane) selected() *memories.Memory {
	if c := p.list.cursor; c >= 0 && c < len(p.mems) {
		return &p.mems[c]
	}
	return nil
}

// loadSource fetches the transcript turn the selected memory came from.
func (p *memoriesPane) loadSource() tea.Cmd {
	mm := p.selected()
	if mm == nil || mm.SourceSession == "" {
		return nil
	}
	k := sourceKey(mm)
	if _, ok := p.sources[k]; ok {
		return nil
	}
	p.sources[k] = sourceMsg{key: k} // loading
	st, svc, ctx := p.c.store(), p.c.memories(), p.c.ctx
	sid := mm.SourceSession
	uuids := mm.SourceUUIDs
	m := *mm
	return func() tea.Msg {
		c, err := st.Conversation(ctx, sid)
		if err != nil {
			return sourceMsg{key: k, err: err}
		}
		var files []memories.SourceFile
		if svc != nil {
			files, _ = svc.Recall.SourceFiles(ctx, &m) // a mark to add, never a reason to fail the pane
		}
		return sourceMsg{key: k, lines: sourceLines(c, uuids), files: files}
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
			if e := &es[i]; want[e.UUID] {
				out = append(out, entryWho(e)+": "+sanitize(sourceExcerpt(e)))
			}
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

// sourceExcerptLines is how many lines of a source entry the pane shows.
const sourceExcerptLines = 8

// sourceExcerpt is an entry's text (its tool calls and results when it
// has none), cut to sourceExcerptLines with a count of the rest.
func sourceExcerpt(e *transcripts.Entry) string {
	text := e.JoinedText()
	if text == "" {
		text = toolText(e.Blocks)
	}
	text = strings.TrimSpace(text)
	if ls := strings.Split(text, "\n"); len(ls) > sourceExcerptLines {
		text = strings.Join(ls[:sourceExcerptLines], "\n") + fmt.Sprintf("\n… %d more lines (enter opens the session)", len(ls)-sourceExcerptLines)
	}
	return text
}

// toolText is the tool calls (name and summary) and results of blocks.
func toolText(blocks []transcripts.Block) string {
	text := ""
	for _, b := range blocks {
		switch b.Type {
		case transcripts.BlockToolUse:
			text += b.ToolName + "(" + transcripts.ToolSummary(&b) + ") "
		case transcripts.BlockToolResult:
			text += b.Text
		}
	}
	return text
}

func (p *memoriesPane) typing() bool { return p.list.typing() }

// undoStep is one review done in this run, for u to take back in order:
// a memory action (in the memory journal, which outlives the run) or a
// review of a memory file (memfiles.go).
type undoStep struct {
	what string
	file bool
}

// review runs fn like act, recorded in the memory journal (ids are the
// memories it changes) so u, or `cairn memories undo` later, undoes it.
func (p *memoriesPane) review(what string, ids []string, fn func(ctx context.Context, svc MemoryService) (string, string, error)) tea.Cmd {
	svc, ctx := p.c.memories(), p.c.ctx
	if svc == nil {
		p.c.flashError(fmt.Errorf("memories are not available in this build"))
		return nil
	}
	return func() tea.Msg {
		var text, sel string
		err := svc.Curator.Record(ctx, what, ids, func(ctx context.Context) error {
			var err error
			text, sel, err = fn(ctx, svc)
			return err
		})
		if err != nil {
			return memActionMsg{err: fmt.Errorf("%s: %w", what, err), undo: &undoStep{what: what}}
		}
		return memActionMsg{text: text + " — u undoes", select_: sel, undo: &undoStep{what: what}}
	}
}

// fromSession is the ids of the memories of l from session sid.
func fromSession(l []memories.Memory, sid string) []string {
	var ids []string
	for _, m := range l {
		if m.SourceSession == sid {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

// reviewSession approves or rejects every pending memory proposed from
// mm's session at once (one u undoes them all).
func (p *memoriesPane) reviewSession(mm *memories.Memory, st memories.Status) tea.Cmd {
	sid := mm.SourceSession
	if sid == "" {
		p.c.flashError(fmt.Errorf("%s has no source session: a or x reviews it alone", mm.ID))
		return nil
	}
	svc, ctx := p.c.memories(), p.c.ctx
	verb := map[memories.Status]string{memories.Approved: "approved", memories.Rejected: "rejected"}[st]
	short := sid[:min(8, len(sid))]
	return func() tea.Msg {
		l, err := svc.List(ctx, memories.Filter{Statuses: []memories.Status{memories.Pending}, Limit: 5000})
		if err != nil {
			return memActionMsg{err: fmt.Errorf("listing session %s's pending memories: %w", short, err)}
		}
		ids := fromSession(l, sid)
		if len(ids) == 0 {
			return memActionMsg{text: "session " + short + " has no pending memories"}
		}
		what := fmt.Sprintf("%s %s of session %s", verb, plural(len(ids), "memory"), short)
		done := 0
		err = svc.Curator.Record(ctx, what, ids, func(ctx context.Context) error {
			for _, id := range ids {
				if _, err := svc.Curator.SetStatus(ctx, id, st); err != nil {
					return err
				}
				done++
			}
			return nil
		})
		if err != nil {
			return memActionMsg{err: fmt.Errorf("%s: stopped after %d: %w", what, done, err), undo: &undoStep{what: what}}
		}
		return memActionMsg{text: what + " — u undoes", undo: &undoStep{what: what}}
	}
}

// undo takes back the last review: a memory-file review of this run, else
// the newest action in the memory journal (this run's, or an earlier
// run's or the command line's).
func (p *memoriesPane) undo() tea.Cmd {
	svc, ctx := p.c.memories(), p.c.ctx
	if svc == nil {
		p.c.flashError(fmt.Errorf("memories are not available in this build"))
		return nil
	}
	var step undoStep
	if n := len(p.undos); n > 0 {
		step = p.undos[n-1]
		p.undos = p.undos[:n-1]
	}
	return func() tea.Msg {
		if step.file {
			return undoFile(ctx, svc, step)
		}
		e, err := svc.Curator.UndoLast(ctx)
		if errors.Is(err, memories.ErrNothingLogged) {
			return memActionMsg{err: fmt.Errorf("nothing to undo: approve, reject, edit, merge and delete are kept for undo (here and by cairn memories)"), undone: true}
		}
		if err != nil {
			return memActionMsg{err: fmt.Errorf("undo: %w", err), undone: true}
		}
		sel := ""
		if ids := e.IDs(); len(ids) > 0 {
			sel = ids[0]
		}
		return memActionMsg{text: "undid " + e.What, select_: sel, undone: true}
	}
}

func (p *memoriesPane) key(k tea.KeyPressMsg) (bool, tea.Cmd) {
	if p.stats != nil {
		return p.statsKey(k), nil
	}
	if key.Matches(k, p.c.keys.Stats) {
		p.stats = newStatsView(p.c)
		return true, p.stats.load()
	}
	if ok, cmd := p.listKey(k); ok {
		return true, cmd
	}
	if ok, cmd := p.filterKey(k); ok {
		return true, cmd
	}
	return p.selectionKey(k)
}

// statsKey handles a key while the statistics are shown: theirs, or
// back (or the stats key again) to close them.
func (p *memoriesPane) statsKey(k tea.KeyPressMsg) bool {
	if p.stats.key(k) {
		return true
	}
	if key.Matches(k, p.c.keys.Back, p.c.keys.Stats) {
		p.stats = nil
		return true
	}
	return false
}

// listKey moves in or filters the list, then loads the source of the
// memory under the cursor.
func (p *memoriesPane) listKey(k tea.KeyPressMsg) (bool, tea.Cmd) {
	switch res, cmd := p.list.update(k, p.c.keys); res {
	case listFiltered:
		p.applyText()
		return true, tea.Batch(cmd, p.loadSource())
	case listHandled:
		return true, tea.Batch(cmd, p.loadSource())
	}
	return false, nil
}

// selectionKey acts on the row under the cursor: a memory-file change,
// or a memory (review, organize, open).
func (p *memoriesPane) selectionKey(k tea.KeyPressMsg) (bool, tea.Cmd) {
	mm := p.selected()
	if mm == nil {
		return false, nil
	}
	if fc := p.fileChange(mm); fc != nil {
		return p.fileKey(k, fc)
	}
	for _, f := range []func(tea.KeyPressMsg, *memories.Memory) (bool, tea.Cmd){p.reviewKey, p.organizeKey, p.openKey} {
		if ok, cmd := f(k, mm); ok {
			return true, cmd
		}
	}
	return false, nil
}

// filterKey handles the filters and undo, which need no selection.
func (p *memoriesPane) filterKey(k tea.KeyPressMsg) (bool, tea.Cmd) {
	km := p.c.keys
	switch {
	case key.Matches(k, km.StatusFilter):
		p.statusIdx = (p.statusIdx + 1) % len(memStatusFilters)
	case key.Matches(k, km.TypeFilter):
		p.typeIdx = (p.typeIdx + 1) % (len(memories.Types) + 1)
	case key.Matches(k, km.ProjectFilter):
		proj := ""
		if mm := p.selected(); mm != nil {
			proj = mm.Project
		}
		return true, msgCmd(scopeMsg{project: proj})
	case key.Matches(k, km.Undo):
		return true, p.undo()
	default:
		return false, nil
	}
	return true, p.load()
}

// reviewKey approves, rejects or deletes mm; the cursor keeps its row.
func (p *memoriesPane) reviewKey(k tea.KeyPressMsg, mm *memories.Memory) (bool, tea.Cmd) {
	km, id := p.c.keys, mm.ID
	var cmd tea.Cmd
	switch {
	case key.Matches(k, km.Approve):
		cmd = p.review("approve "+id, []string{id}, func(ctx context.Context, svc MemoryService) (string, string, error) {
			_, err := svc.Curator.SetStatus(ctx, id, memories.Approved)
			return "approved " + id, "", err
		})
	case key.Matches(k, km.Reject):
		cmd = p.review("reject "+id, []string{id}, func(ctx context.Context, svc MemoryService) (string, string, error) {
			_, err := svc.Curator.SetStatus(ctx, id, memories.Rejected)
			return "rejected " + id + " (it will not be proposed again)", "", err
		})
	case key.Matches(k, km.ApproveSession):
		cmd = p.reviewSession(mm, memories.Approved)
	case key.Matches(k, km.RejectSession):
		cmd = p.reviewSession(mm, memories.Rejected)
	case key.Matches(k, km.Delete):
		cmd = p.review("delete "+id, []string{id}, func(ctx context.Context, svc MemoryService) (string, string, error) {
			err := svc.Curator.Delete(ctx, id)
			return "deleted " + id, "", err
		})
	default:
		return false, nil
	}
	p.keepPos = true
	return true, cmd
}

// organizeKey marks and merges, changes the type or the importance.
func (p *memoriesPane) organizeKey(k tea.KeyPressMsg, mm *memories.Memory) (bool, tea.Cmd) {
	km, id := p.c.keys, mm.ID
	switch {
	case key.Matches(k, km.Mark):
		p.toggleMark(mm)
	case key.Matches(k, km.Merge):
		return true, p.merge(mm)
	case key.Matches(k, km.CycleType):
		i := slices.Index(memories.Types, mm.Type)
		t := memories.Types[(i+1)%len(memories.Types)]
		return true, p.review("change the type of "+id, []string{id}, func(ctx context.Context, svc MemoryService) (string, string, error) {
			_, err := svc.Curator.Update(ctx, id, memories.Update{Type: &t})
			return fmt.Sprintf("%s is now a %s", id, t), id, err
		})
	case key.Matches(k, km.ImportanceUp):
		return true, p.setImportance(mm, mm.Importance+1)
	case key.Matches(k, km.ImportanceDown):
		return true, p.setImportance(mm, mm.Importance-1)
	case key.Matches(k, km.Back) && p.marked != nil:
		p.marked = nil
	default:
		return false, nil
	}
	return true, nil
}

func (p *memoriesPane) toggleMark(mm *memories.Memory) {
	if p.marked != nil && p.marked.ID == mm.ID {
		p.marked = nil
		p.c.flashf("unmarked %s", mm.ID)
		return
	}
	cp := *mm
	p.marked = &cp
	p.c.flashf("marked %s: move to another memory and press M to merge it there", mm.ID)
}

// merge merges the marked memory into mm: the editor opens with what both
// say, and saving it merges (esc: nothing is merged).
func (p *memoriesPane) merge(mm *memories.Memory) tea.Cmd {
	other := p.marked
	if other == nil || other.ID == mm.ID {
		p.c.flashError(fmt.Errorf("mark a memory with m first, then press M on the memory to keep"))
		return nil
	}
	p.marked = nil
	return msgCmd(openEditorMsg{target: editTarget{memoryID: mm.ID, mergeOther: other.ID},
		title: fmt.Sprintf("Merging %s into %s: one memory holding what both said", other.ID, mm.ID),
		text:  memories.MergedContent(mm.Content, other.Content)})
}

func (p *memoriesPane) setImportance(mm *memories.Memory, imp int) tea.Cmd {
	id := mm.ID
	imp = min(5, max(1, imp))
	return p.review("importance of "+id, []string{id}, func(ctx context.Context, svc MemoryService) (string, string, error) {
		_, err := svc.Curator.Update(ctx, id, memories.Update{Importance: &imp})
		return fmt.Sprintf("%s importance %d", id, imp), id, err
	})
}

// openKey edits mm or opens its source turn in the reader.
func (p *memoriesPane) openKey(k tea.KeyPressMsg, mm *memories.Memory) (bool, tea.Cmd) {
	km, id := p.c.keys, mm.ID
	switch {
	case key.Matches(k, km.Edit):
		return true, msgCmd(openEditorMsg{target: editTarget{memoryID: id}, title: "Editing memory " + id, text: mm.Content})
	case key.Matches(k, km.Open):
		if mm.SourceSession == "" {
			p.c.flashError(fmt.Errorf("%s has no source session (origin %s)", id, mm.Origin))
			return true, nil
		}
		uuid := ""
		if len(mm.SourceUUIDs) > 0 {
			uuid = mm.SourceUUIDs[0]
		}
		return true, msgCmd(openSessionMsg{id: mm.SourceSession, uuid: uuid, sentence: mm.Content})
	}
	return false, nil
}

func (p *memoriesPane) click(y int) tea.Cmd {
	if i := p.clicks.row(y); i >= 0 {
		p.list.set(i)
		return p.loadSource()
	}
	return nil
}

func (p *memoriesPane) scroll(n int) { p.list.step(n) }

func (p *memoriesPane) help() []key.Binding {
	k := p.c.keys
	if p.stats != nil {
		return []key.Binding{k.List.Down, k.List.Up, k.List.PageDown, k.Back}
	}
	if p.typing() {
		return []key.Binding{k.Done}
	}
	return []key.Binding{k.Approve, k.Reject, k.Edit, k.Open, k.Filter, k.Delete, k.Undo, k.Mark, k.Merge, k.StatusFilter, k.TypeFilter, k.ProjectFilter,
		k.CycleType, k.ImportanceUp, k.Stats}
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

func (p *memoriesPane) view() string {
	if p.stats != nil {
		return p.stats.view()
	}
	s, w, h := p.c.sty, p.c.lay.body.w, p.c.lay.body.h
	head := []string{p.heading(w)}
	if p.list.filter.shown() {
		head = append(head, p.list.filter.view(w))
	}
	if msg := p.state(); msg != nil {
		return strings.Join(append(head, msg...), "\n")
	}
	bodyH := h - 1
	side := w >= 100
	listW, detW, listH := w, w, max(3, bodyH*2/5)
	if side {
		listW = w / 2
		detW, listH = w-listW-1, bodyH
	}
	rows := p.rows(listW, listH, len(head))
	if side {
		left := fitLines(rows, listW, bodyH)
		right := fitLines(strings.Split(p.detail(detW, bodyH), "\n"), detW, bodyH)
		sep := strings.TrimRight(strings.Repeat(s.Subtle.Render("│")+"\n", bodyH), "\n")
		return strings.Join(head, "\n") + "\n" + lipgloss.JoinHorizontal(lipgloss.Top, left, sep, right)
	}
	out := append(head, rows...)
	out = append(out, s.Subtle.Render(strings.Repeat("─", w)))
	out = append(out, strings.Split(p.detail(detW, bodyH-len(rows)-1), "\n")...)
	return strings.Join(out, "\n")
}

// heading is the title with the filters and the pending count.
func (p *memoriesPane) heading(w int) string {
	s := p.c.sty
	filt := memStatusFilters[p.statusIdx].name
	if p.typeIdx > 0 {
		filt += " · " + string(memories.Types[p.typeIdx-1])
	}
	if pr := p.c.scopeProject(); pr != "" {
		filt += " · project " + lastElem(sanitizeLine(pr)) + " + global"
	} else {
		filt += " · every project"
	}
	return s.Title.Render(fmt.Sprintf(" Memories (%d) ", len(p.mems))) +
		s.Muted.Render(trunc(filt+fmt.Sprintf(" · %d pending", p.counts.PendingMemories+len(p.files)), w-16))
}

// state is what the pane shows instead of memories: unavailable, an
// error, loading, none.
func (p *memoriesPane) state() []string {
	if st := p.c.memLoadState("Memories", "memories", p.err, p.loaded); st != nil || len(p.mems) > 0 {
		return st
	}
	s := p.c.sty
	return []string{"",
		s.Muted.Render(" Nothing to review here."),
		s.Muted.Render(" Memories are proposed from your sessions (cairn extract, or the Stop hook)."),
		s.Muted.Render(" s changes the status filter, T the type, p the project (this one or every one).")}
}

// rows draws the visible memories, w wide, at most h, below top lines.
func (p *memoriesPane) rows(w, h, top int) []string {
	var rows []string
	from, to := p.list.window(h)
	p.clicks = clickMap{top: p.c.lay.body.y + top, from: from, to: to, per: 1}
	for i := from; i < to; i++ {
		mm := p.mems[i]
		mark := statusMark(mm.Status)
		marked := p.marked != nil && mm.ID == p.marked.ID
		if marked {
			mark = "◆"
		}
		row := fmt.Sprintf(" %s %-9s %s %s", mark, trunc(string(mm.Type), 9), strings.Repeat("★", mm.Importance)+strings.Repeat("·", max(0, 5-mm.Importance)),
			sanitizeLine(mm.Content))
		if marked && i != p.list.cursor {
			rows = append(rows, p.c.sty.Marked.Render(pad(row, w)))
			continue
		}
		rows = append(rows, p.c.rowStyle(i == p.list.cursor, pad(row, w)))
	}
	return rows
}

// detail is the selected memory: content, facts, the memories it
// supersedes or contradicts and its source turn.
func (p *memoriesPane) detail(w, h int) string {
	s := p.c.sty
	mm := p.selected()
	if mm == nil || h <= 0 {
		return ""
	}
	if fc := p.fileChange(mm); fc != nil {
		return p.fileDetail(fc, w, h)
	}
	var out []string
	out = append(out, s.Bold.Render(trunc(fmt.Sprintf(" %s · %s · importance %d · %s", mm.ID, mm.Type, mm.Importance, mm.Status), w)))
	out = append(out, wrap(sanitize(mm.Content), w-1, " ")...)
	for _, l := range wrap(strings.Join(p.facts(mm), " · "), w-1, " ") {
		out = append(out, s.Muted.Render(l))
	}
	out = append(out, p.links(mm, w)...)
	out = append(out, p.source(mm, w)...)
	if len(out) > h {
		out = out[:h]
	}
	return strings.Join(out, "\n")
}

func (p *memoriesPane) facts(mm *memories.Memory) []string {
	facts := []string{fmt.Sprintf("confidence %.2f", mm.Confidence), "origin " + human.OrDash(mm.Origin),
		fmt.Sprintf("injected %d · used %d", mm.Injected, mm.Used)}
	if mm.Project != "" {
		facts = append(facts, "project "+lastElem(sanitizeLine(mm.Project)))
	} else {
		facts = append(facts, "global")
	}
	if len(mm.Tags) > 0 {
		facts = append(facts, "#"+strings.Join(mm.Tags, " #"))
	}
	return append(facts, "created "+p.c.fmtTime(mm.Created))
}

// links are the memories mm supersedes or contradicts.
func (p *memoriesPane) links(mm *memories.Memory, w int) []string {
	s := p.c.sty
	var out []string
	for _, ln := range mm.Links {
		if ln.Kind != memories.Supersedes && ln.Kind != memories.Contradicts {
			continue
		}
		other, ok := p.linked[ln.Target]
		label := map[memories.LinkKind]string{memories.Supersedes: "supersedes", memories.Contradicts: "contradicts"}[ln.Kind]
		out = append(out, "", s.Warn.Render(trunc(fmt.Sprintf(" %s %s", label, ln.Target), w)))
		if ok {
			for _, l := range wrap(sanitize(other.Content), w-3, "   ") {
				out = append(out, s.Muted.Render(l))
			}
		}
	}
	return out
}

// source is the transcript turn mm came from.
func (p *memoriesPane) source(mm *memories.Memory, w int) []string {
	if mm.SourceSession == "" {
		return nil
	}
	s := p.c.sty
	out := []string{"", s.Muted.Render(trunc(" source: session "+mm.SourceSession[:min(8, len(mm.SourceSession))]+" (enter opens it at the turn)", w))}
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
		out = append(out, staleLines(src.files, s, w)...)
	}
	return out
}

// staleLines mark a memory whose source turn edited files that changed
// since or are gone: it may no longer hold.
func staleLines(files []memories.SourceFile, s theme.Styles, w int) []string {
	stale := memories.Stale(files)
	if len(stale) == 0 {
		return nil
	}
	line := fmt.Sprintf(" ⚠ stale? %d of %d files it came from changed or are gone: %s", len(stale), len(files), strings.Join(stale, ", "))
	return []string{"", s.Warn.Render(trunc(sanitizeLine(line), w))}
}
