package tui

import (
	"strings"
	"testing"
)

// S in the Memories pane shows the stats view (the same report as `cairn
// stats`), which scrolls and closes with esc back to the list.
func TestStatsView(t *testing.T) {
	st := testStore(t)
	svc := testService(t, st)
	seedMemories(t, st, svc)
	m := newTestModel(t, 100, 30, st, svc)
	press(t, m, "5")
	if m.mems.stats != nil {
		t.Fatal("stats open before S")
	}
	press(t, m, "S")
	s := screen(m)
	mustContain(t, s, "Memory stats", "Memories: 3", "By type", "hit rate", "Extraction")
	checkSize(t, s, 100, 30)
	press(t, m, "j", "j")
	if m.mems.stats.offset != 2 {
		t.Fatalf("offset %d after two downs", m.mems.stats.offset)
	}
	press(t, m, "esc")
	if m.mems.stats != nil || m.focus != paneMemories {
		t.Fatalf("esc did not close the stats (focus %d)", m.focus)
	}
	if s := screen(m); strings.Contains(s, "Memory stats") {
		t.Fatalf("stats still drawn:\n%s", s)
	}
	// At 80x24 it fits too.
	m = newTestModel(t, 80, 24, st, svc)
	press(t, m, "5", "S")
	checkSize(t, screen(m), 80, 24)
}
