package tui

import (
	"strings"
	"testing"
)

// TestReaderShowsWhatTheUserSaid: the reader draws a rejection's reason
// and an AskUserQuestion answer as the person's words under the call, and
// a prompt only ever queued as their turn, marked as queued
// (testdata/usersaid: real lines).
func TestReaderShowsWhatTheUserSaid(t *testing.T) {
	m := newTestModel(t, 120, 40, syncedStore(t, "usersaid"), nil)
	for _, c := range []struct {
		sid  string
		want []string
	}{
		{"7acd37a8-2745-4b58-a8a9-46164b22ad9e", []string{"● Bash(npm install)", "↩ rejected by you: use pnpm"}},
		{"4d5611e5-241a-462a-8d15-5122611a9569", []string{"↩ answer: Pre-commit hook blocks", "→ main was clean; fix the issues"}},
		{"258c7280-ae70-4798-800f-63464d01a85d", []string{"▶ You, queued while Claude worked", "check again", "new beads for the epic were added. tackle them"}},
	} {
		send(t, m, openSessionMsg{id: c.sid})
		screen(m)
		var all []string
		for i := range m.reader.items {
			all = append(all, m.reader.lines(i)...)
		}
		got := strings.Join(all, "\n")
		mustContain(t, got, c.want...)
		if strings.Contains(got, "The user provided the following reason") || strings.Contains(got, "User has answered your questions") {
			t.Errorf("%s: the reader draws Claude Code's wrapping of the person's words:\n%s", c.sid[:8], got)
		}
	}
}
