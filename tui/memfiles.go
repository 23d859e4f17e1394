package tui

// The memory inbox shows the pending changes Claude made to its own
// auto-memory files (memories/memfiles.go) above the memories, while the
// status filter shows pending ones and no type is picked: a is approve
// (the text is kept), x reject (the file gets its reviewed text back), u
// undoes either (an undone reject puts Claude's text back). The other
// memory keys do not apply to them.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/memories"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// fileRowPrefix starts the id of a row that stands for a memory-file change.
const fileRowPrefix = "file:v"

// fileRowType is the type column of such a row.
const fileRowType = memories.Type("auto-mem")

// wantsFiles reports whether the pane's filters show memory-file changes.
func (p *memoriesPane) wantsFiles() bool {
	return p.typeIdx == 0 && slices.Contains(memStatusFilters[p.statusIdx].st, memories.Pending)
}

// fileRows turns memory-file changes into rows of the memory list.
func fileRows(cs []memories.FileChange) []memories.Memory {
	out := make([]memories.Memory, 0, len(cs))
	for _, c := range cs {
		what := fmt.Sprintf("%s +%d -%d: Claude changed its memory file", c.Name, c.Added, c.Removed)
		if c.Deleted {
			what = fmt.Sprintf("%s: Claude deleted its memory file", c.Name)
		}
		out = append(out, memories.Memory{ID: fmt.Sprintf("%s%d", fileRowPrefix, c.Version), Project: c.Project, Type: fileRowType,
			Content: what, Status: memories.Pending, Origin: "claude-auto-memory", Created: c.Seen, Updated: c.Seen,
			Tags: []string{"auto-memory"}, Links: []memories.Link{}})
	}
	return out
}

// fileChange is the memory-file change a row stands for, nil for a memory.
func (p *memoriesPane) fileChange(mm *memories.Memory) *memories.FileChange {
	if mm == nil || !strings.HasPrefix(mm.ID, fileRowPrefix) {
		return nil
	}
	return p.files[mm.ID]
}

// fileKey reviews memory-file change fc: approve or reject (u undoes
// either); the keys that only apply to memories say so.
func (p *memoriesPane) fileKey(k tea.KeyPressMsg, fc *memories.FileChange) (bool, tea.Cmd) {
	km := p.c.keys
	v, name := fc.Version, fc.Name
	svc, ctx := p.c.memories(), p.c.ctx
	var call func(context.Context, int64) (*memories.FileChange, error)
	var what, done string
	switch {
	case key.Matches(k, km.Approve):
		call, what, done = svc.Sync.ApproveMemoryFile, fmt.Sprintf("approve v%d of %s", v, name), fmt.Sprintf("approved v%d: %s keeps Claude's change", v, name)
	case key.Matches(k, km.Reject):
		call, what, done = svc.Sync.RejectMemoryFile, fmt.Sprintf("reject v%d of %s", v, name), fmt.Sprintf("rejected v%d: %s has its reviewed text back", v, name)
	case key.Matches(k, km.Edit, km.Delete, km.Mark, km.Merge, km.CycleType, km.ImportanceUp, km.ImportanceDown, km.Open,
		km.ApproveSession, km.RejectSession):
		p.c.flashError(fmt.Errorf("%s is a change to Claude's memory file: a approves it, x rejects it (the file gets its reviewed text back)", name))
		return true, nil
	default:
		return false, nil
	}
	p.keepPos = true
	return true, func() tea.Msg {
		if _, err := call(ctx, v); err != nil {
			return memActionMsg{err: fmt.Errorf("%s: %w", what, err)}
		}
		return memActionMsg{text: done + " — u undoes", undo: &undoStep{what: what, file: true}}
	}
}

// undoFile takes back the latest memory-file review.
func undoFile(ctx context.Context, svc MemoryService, step undoStep) tea.Msg {
	u, err := svc.Sync.UndoMemoryFileReview(ctx)
	if err != nil {
		return memActionMsg{err: fmt.Errorf("undo %s: %w", step.what, err), undone: true}
	}
	text := fmt.Sprintf("undid the %s of v%d", u.Undid, u.Change.Version)
	if u.Undid == "reject" {
		text += ": " + u.Change.Name + " has Claude's text back"
	}
	return memActionMsg{text: text, select_: fmt.Sprintf("%s%d", fileRowPrefix, u.Change.Version), undone: true}
}

// fileDetail is the detail panel of a memory-file change: where it is,
// and its diff against the reviewed text.
func (p *memoriesPane) fileDetail(fc *memories.FileChange, w, h int) string {
	s := p.c.sty
	out := []string{
		s.Bold.Render(trunc(fmt.Sprintf(" v%d · %s · Claude's auto memory · %s", fc.Version, sanitizeLine(fc.Name), fc.Status), w)),
		s.Muted.Render(trunc(" "+sanitizeLine(fc.Path), w)),
		s.Muted.Render(trunc(fmt.Sprintf(" project %s · seen %s · a keeps it, x gives the file its reviewed text back",
			lastElem(sanitizeLine(human.OrDash(fc.Project))), p.c.fmtTime(fc.Seen)), w)),
		"",
	}
	out = append(out, styledDiff(s, fc.Diff, " ", w)...)
	if len(out) > h {
		out = out[:max(0, h)]
	}
	return strings.Join(out, "\n")
}
