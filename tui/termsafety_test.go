package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/index"

	tea "charm.land/bubbletea/v2"
)

// hostileClasses: every class of control a transcript field may carry, as
// JSON string escapes (bidi overrides and isolates included).
var hostileClasses = []string{
	`\u001b[2J`, `\u001b]0;pwned\u0007`, `\u009b31m`, `\b`, `file\u202etxt.exe`, `\u202aa\u202c`,
	`\u2066x\u2069\u2067y\u2068`, `\u2028`, `ok\rEVIL`,
}

var sgrOnly = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// viewControls lists raw controls in a rendered view once the TUI's own
// SGR styling is taken out: C0 (but newline), DEL, C1, bidi, separators.
func viewControls(out string) []string {
	out = sgrOnly.ReplaceAllString(out, "")
	var found []string
	for i, r := range out {
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 || r >= 0x202a && r <= 0x202e ||
			r >= 0x2066 && r <= 0x2069 || r == 0x2028 || r == 0x2029 || r == 0x200e || r == 0x200f {
			found = append(found, fmt.Sprintf("U+%04X in %q", r, out[max(0, i-30):min(len(out), i+8)]))
		}
	}
	return found
}

// Every pane, with a session whose cwd, branch, model, prompt, reply,
// thinking, tool name, input and output carry every control class.
func TestEveryPaneShowsNoRawControls(t *testing.T) {
	all := strings.Join(hostileClasses, " ")
	dir := t.TempDir()
	sid := "b1d10000-0000-4000-8000-000000000001"
	proj := filepath.Join(dir, "projects", "-tmp-bidi")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`{"type":"summary","summary":"title ` + all + `","leafUuid":"a1"}`,
		`{"type":"user","uuid":"u1","sessionId":"` + sid + `","timestamp":"2026-02-01T10:00:00Z","cwd":"/tmp/bidi ` + all + `","gitBranch":"b ` + all + `","message":{"role":"user","content":"bidi prompt ` + all + `"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"` + sid + `","timestamp":"2026-02-01T10:01:00Z","cwd":"/tmp/bidi ` + all + `","message":{"id":"m1","role":"assistant","model":"claude ` + all + `","content":[{"type":"thinking","thinking":"think ` + all + `"},{"type":"text","text":"bidi reply ` + all + `"},{"type":"tool_use","id":"t1","name":"Bash ` + all + `","input":{"command":"ls ` + all + `"}}]}}`,
		`{"type":"user","uuid":"r1","parentUuid":"a1","sessionId":"` + sid + `","timestamp":"2026-02-01T10:02:00Z","cwd":"/tmp/bidi ` + all + `","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"out ` + all + `"}]}}`,
	}
	if err := os.WriteFile(filepath.Join(proj, sid+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := index.Open(filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Sync(context.Background(), dir, index.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	dark := true
	m := New(Config{Store: st, Now: func() time.Time { return fixedNow }, Location: time.UTC, Dark: &dark, NoIndex: true, Poll: -1, Resync: -1})
	defer m.Close()
	send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	run(t, m, m.Init())
	check := func(where string) {
		t.Helper()
		if bad := viewControls(m.render()); len(bad) > 0 {
			t.Errorf("%s: %d raw control(s), first %s", where, len(bad), bad[0])
		}
	}
	check("projects")
	for _, k := range []string{"2", "3", "4", "5"} {
		press(t, m, k)
		check("pane " + k)
	}
	run(t, m, m.openSession(sid, ""))
	press(t, m, "t", "O")
	check("reader")
	if bad := viewControls(ExportMarkdown(m.reader.conv, true)); len(bad) > 0 {
		t.Errorf("Markdown export: %d raw control(s), first %s", len(bad), bad[0])
	}
	press(t, m, "/")
	typeQuery(t, m, "bidi")
	check("search")
}
