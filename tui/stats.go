package tui

import (
	"errors"
	"strings"

	"charm.land/bubbles/v2/key"

	"github.com/cairn-dev/cairn/memories"

	tea "charm.land/bubbletea/v2"
)

// memStatsMsg carries the memory store's stats to the Memories pane.
type memStatsMsg struct {
	st  memories.Stats
	err error
}

// statsView is the Stats view over the Memories pane (S): what the store
// keeps, whether injected memories get used, what to prune. It shows the
// same report as `cairn stats`, fitted to the pane and scrollable.
type statsView struct {
	c      *common
	st     *memories.Stats
	err    error
	offset int
}

func newStatsView(c *common) *statsView { return &statsView{c: c} }

// load asks the service for the stats, under the model's context.
func (v *statsView) load() tea.Cmd {
	svc, ctx := v.c.memories(), v.c.ctx
	if svc == nil {
		v.err = errors.New("memories are not available in this build")
		return nil
	}
	return func() tea.Msg {
		st, err := svc.Feedback.Stats(ctx)
		return memStatsMsg{st: st, err: err}
	}
}

func (v *statsView) loaded(msg memStatsMsg) {
	v.err = msg.err
	if msg.err == nil {
		v.st = &msg.st
	}
}

// key scrolls the report; it reports whether it used the key.
func (v *statsView) key(k tea.KeyPressMsg) bool {
	km, h := v.c.keys.List, v.c.lay.body.h
	switch {
	case key.Matches(k, km.Down):
		v.offset++
	case key.Matches(k, km.Up):
		v.offset--
	case key.Matches(k, km.PageDown):
		v.offset += max(1, h-2)
	case key.Matches(k, km.PageUp):
		v.offset -= max(1, h-2)
	default:
		return false
	}
	v.offset = max(0, v.offset)
	return true
}

func (v *statsView) view() string {
	s, w, h := v.c.sty, v.c.lay.body.w, v.c.lay.body.h
	head := s.Title.Render("Memory stats") + s.Subtle.Render("  (esc: back to the memories · same as `cairn stats`)")
	switch {
	case v.err != nil:
		return head + "\n" + s.Error.Render("cannot count the memories: "+sanitizeLine(v.err.Error()))
	case v.st == nil:
		return head + "\n" + s.Subtle.Render("counting…")
	}
	lines := strings.Split(strings.TrimRight(v.st.Report(w), "\n"), "\n")
	v.offset = min(v.offset, max(0, len(lines)-(h-1)))
	lines = lines[v.offset:]
	for i, l := range lines {
		if l != "" && !strings.HasPrefix(l, " ") {
			lines[i] = s.Title.Render(l) // section headings
		}
	}
	return head + "\n" + fitLines(lines, w, h-1)
}
