package tui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/cairn-dev/cairn/index"

	tea "charm.land/bubbletea/v2"
)

// hostileClasses: every class of control a transcript field may carry, as
// JSON string escapes (bidi overrides and isolates included).
var hostileClasses = []string{
	`\u001b[2J`, `\u001b]0;pwned\u0007`, `\u009b31m`, `\b`, `file\u202etxt.exe`, `\u202aa\u202c`,
	`\u2066x\u2069\u2067y\u2068`, `\u2028`, `ok\rEVIL`, `zw\u200bsp`, `tag\udb40\udc41\udb40\udc42`, `\u001b[201~`,
}

var sgrOnly = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// viewControls lists raw controls in a rendered view once the TUI's own
// SGR styling is taken out: C0 (but newline), DEL, C1, bidi, separators.
func viewControls(out string) []string {
	out = sgrOnly.ReplaceAllString(out, "")
	var found []string
	for i, r := range out {
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 || r >= 0x202a && r <= 0x202e ||
			r >= 0x2066 && r <= 0x2069 || r == 0x2028 || r == 0x2029 || r == 0x200e || r == 0x200f ||
			unicode.Is(unicode.Cf, r) && r != 0x200d || r >= 0xe0000 && r <= 0xe007f {
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
	// The status line after p names the hostile project.
	press(t, m, "2")
	m.status.flash = ""
	run(t, m, m.toggleScope(m.timeline.selected().ProjectPath))
	if m.status.flash == "" || len(viewControls(m.status.flash)) > 0 {
		t.Errorf("status after p: %q", m.status.flash)
	}
	check("status line after p")
	run(t, m, m.toggleScope(""))
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
	press(t, m, "F") // global search
	typeQuery(t, m, "bidi")
	check("search")
}

// planted are session folders a transcript can claim, each of which must
// never become a pasteable command: the end of bracketed paste followed by
// a command and a newline, C1 controls, a bidi override, a zero-width
// space, tag characters, and a folder cd would read as an option.
var planted = []string{
	"/tmp/x\x1b[201~; touch /tmp/pwned\n",
	"/tmp/c1\u009b31m\u0085",
	"/tmp/bidi\u202eexe.txt",
	"/tmp/zw\u200bspace",
	"/tmp/tag\U000E0041\U000E0042",
	"/tmp/del\x7f",
	"-P",
	"",
}

// The command r copies is safe to paste in bash and zsh: a folder with
// controls or invisible characters gets no command at all; an ordinary
// one is quoted so that the shell reads back exactly the folder.
func TestResumeLineIsSafeToPaste(t *testing.T) {
	const id = "0d6e0bad-aaaa-4bbb-8ccc-123456789abc"
	for _, dir := range planted {
		if line, ok := resumeLine(dir, id); ok {
			t.Errorf("resumeLine(%q) = %q: a command for a planted folder", dir, line)
		}
	}
	if line, ok := resumeLine("/tmp/ok", "id\x1b[201~\n"); ok {
		t.Errorf("a planted session id gave %q", line)
	}
	shells := []string{}
	for _, sh := range []string{"bash", "zsh"} {
		if _, err := exec.LookPath(sh); err == nil {
			shells = append(shells, sh)
		}
	}
	for _, dir := range []string{"/home/a b/it's here", "/tmp/~user", "/tmp/=x", "/tmp/$(touch pwned)`id`", "/tmp/日本 ✓", "/tmp/plain-dir_1.0", "/tmp/!!", "/tmp/a\\b"} {
		line, ok := resumeLine(dir, id)
		if !ok || !strings.HasSuffix(line, " && claude --resume "+id) {
			t.Fatalf("resumeLine(%q) = %q, %v", dir, line, ok)
		}
		quoted := strings.TrimSuffix(strings.TrimPrefix(line, "cd "), " && claude --resume "+id)
		for _, sh := range shells {
			out, err := exec.CommandContext(t.Context(), sh, "-c", "printf %s "+quoted).Output()
			if err != nil || string(out) != dir {
				t.Errorf("%s reads %s back as %q (%v), want %q", sh, quoted, out, err, dir)
			}
		}
	}
	if len(shells) == 0 {
		t.Log("no bash or zsh here: the quoting was not checked by a shell")
	}
}

// clipboard runs cmd and returns what it copies (tea.SetClipboard) and
// feeds every other message to m.
func clipboard(t *testing.T, m *Model, cmd tea.Cmd) []string {
	t.Helper()
	if cmd == nil {
		return nil
	}
	var out []string
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			out = append(out, clipboard(t, m, c)...)
		}
	case nil:
	default:
		if fmt.Sprintf("%T", msg) == "tea.setClipboardMsg" {
			return []string{fmt.Sprint(msg)}
		}
		send(t, m, msg)
	}
	return out
}

// r on a session whose folder was planted copies no command and shows the
// folder escaped; the status line after p shows the project inert.
func TestResumeAndScopeOnPlantedFolder(t *testing.T) {
	st := testStore(t)
	m := newTestModel(t, 160, 30, st, nil)
	press(t, m, "2")
	s := m.timeline.selected()
	if s == nil {
		t.Fatal("no session in the timeline")
	}
	for _, dir := range planted[:6] {
		s.CWD = dir
		m.status.flash = ""
		_, cmd := m.Update(keyMsg("r"))
		clip := clipboard(t, m, cmd)
		if len(clip) != 1 || clip[0] != s.ID {
			t.Errorf("cwd %q: copied %q, want the session id alone", dir, clip)
		}
		if bad := viewControls(m.status.flash); len(bad) > 0 || strings.Contains(m.status.flash, "cd ") {
			t.Errorf("cwd %q: flash %q (%v)", dir, m.status.flash, bad)
		}
		mustContain(t, m.status.flash, "control or invisible characters")
		if bad := viewControls(m.render()); len(bad) > 0 {
			t.Errorf("cwd %q: screen has %v", dir, bad)
		}
	}
	// An ordinary folder that is gone: the command, quoted, is copied.
	s.CWD = "/nonexistent/it's gone"
	_, cmd := m.Update(keyMsg("r"))
	if clip := clipboard(t, m, cmd); len(clip) != 1 || clip[0] != `cd '/nonexistent/it'\''s gone' && claude --resume `+s.ID {
		t.Errorf("copied %q", clip)
	}
}
