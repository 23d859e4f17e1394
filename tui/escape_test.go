package tui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/index"

	tea "charm.land/bubbletea/v2"
)

// nasty is terminal control text a transcript could carry: clear screen
// and home, an OSC 52 clipboard write, an OSC 8 link, cursor movement, a
// C1 CSI, a bell and a backspace.
var nasty = []string{
	"\x1b[2J\x1b[H",
	"\x1b]52;c;cm0gLXJmIH4=\x07",
	"\x1b]8;;https://evil.example\x1b\\click me\x1b]8;;\x1b\\",
	"\x1b[10A\x1b[5C",
	"\u009b2J",
	"\x07\x08",
}

func writeNastySession(t *testing.T, dir string) string {
	t.Helper()
	sid := "e5ca0000-0000-4000-8000-000000000001"
	proj := filepath.Join(dir, "projects", "-tmp-evil")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	evil := strings.Join(nasty, " ")
	ts := func(i int) string { return time.Date(2026, 2, 1, 10, i, 0, 0, time.UTC).Format(time.RFC3339) }
	lines := []any{
		map[string]any{"type": "user", "uuid": "u1", "sessionId": sid, "timestamp": ts(0), "cwd": "/tmp/evil",
			"message": map[string]any{"role": "user", "content": "escape test " + evil}},
		map[string]any{"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": sid, "timestamp": ts(1), "cwd": "/tmp/evil",
			"message": map[string]any{"role": "assistant", "id": "msg_1", "model": "claude-test", "content": []any{
				map[string]any{"type": "thinking", "thinking": "thinking " + evil},
				map[string]any{"type": "text", "text": "# Reply " + evil + "\n\n- item " + evil + "\n\n```\ncode " + evil + "\n```\n"},
				map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": "echo " + evil}},
			}}},
		map[string]any{"type": "user", "uuid": "r1", "parentUuid": "a1", "sessionId": sid, "timestamp": ts(2), "cwd": "/tmp/evil",
			"message": map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": "out " + evil + "\nline2 " + evil},
			}}},
	}
	var b strings.Builder
	for _, l := range lines {
		j, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(proj, sid+".jsonl"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return sid
}

// Only SGR (colours, bold…) may reach the terminal from a view.
var (
	escRe = regexp.MustCompile("\x1b")
	sgrRe = regexp.MustCompile("^\x1b\\[[0-9;:]*m")
)

func assertInert(t *testing.T, where, out string) {
	t.Helper()
	for _, loc := range escRe.FindAllStringIndex(out, -1) {
		if !sgrRe.MatchString(out[loc[0]:]) {
			end := min(len(out), loc[0]+20)
			t.Errorf("%s: a control sequence other than SGR reaches the terminal: %q", where, out[loc[0]:end])
		}
	}
	for _, c := range []string{"\x07", "\x08", "\u009b"} {
		if strings.Contains(out, c) {
			t.Errorf("%s: raw control character %q in the view", where, c)
		}
	}
}

func TestTranscriptEscapesRenderInert(t *testing.T) {
	dir := t.TempDir()
	sid := writeNastySession(t, dir)
	st, err := index.Open(filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Sync(context.Background(), dir, index.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	// Colours on: the test must see real styling next to the transcript text.
	dark := true
	m := New(Config{Store: st, Now: func() time.Time { return fixedNow }, Location: time.UTC, Dark: &dark,
		NoIndex: true, Poll: -1, Resync: -1})
	defer m.Close()
	send(t, m, tea.WindowSizeMsg{Width: 100, Height: 40})
	run(t, m, m.Init())
	assertInert(t, "projects", m.render())
	press(t, m, "2")
	assertInert(t, "timeline", m.render())
	run(t, m, m.openSession(sid, ""))
	press(t, m, "t", "O") // thinking on, every tool call expanded
	out := m.render()
	assertInert(t, "reader", out)
	// The sequences are visible as text.
	mustContain(t, out, `\x1b[2J`, `\x1b]52;c;`, `\x1b]8;;https://evil.example`, `\x1b[10A`, `\x9b2J`, `\x07`)
	press(t, m, "F")
	typeQuery(t, m, "escape")
	if len(m.search.results) == 0 {
		t.Fatal("the session is not searchable")
	}
	assertInert(t, "search", m.render())
	md := ExportMarkdown(m.reader.conv, true)
	if strings.ContainsAny(md, "\x1b\x07\x08\u009b") {
		t.Error("the Markdown export carries control characters")
	}
}

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"plain":             "plain",
		"a\tb":              "a    b",
		"a\r\nb":            "a\nb",
		"\x1b[31mred":       `\x1b[31mred`,
		"x\u009by":          `x\x9by`,
		"bad \xff byte":     "bad   byte",
		"line\u2028sep":     "line sep",
		"keep ünïcødé ✓ 日本": "keep ünïcødé ✓ 日本",
	} {
		if got := sanitize(in); got != want {
			t.Errorf("sanitize(%q) = %q, want %q", in, got, want)
		}
	}
	if got := sanitizeLine("a\nb\x1b"); got != `a b\x1b` {
		t.Errorf("sanitizeLine = %q", got)
	}
}
