package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// controlClasses are the kinds of bytes that must never reach a terminal
// raw from a transcript, each written as a JSON string escape.
var controlClasses = []struct{ name, json string }{
	{"CSI clear screen", `\u001b[2J`},
	{"OSC window title + BEL", `\u001b]0;pwned\u0007`},
	{"OSC 52 clipboard", `\u001b]52;c;ZXZpbA==\u001b\\`},
	{"C1 CSI", `\u009b31m`},
	{"backspace", `\b\b`},
	{"bidi RLO", `file\u202etxt.exe`},
	{"bidi LRE/PDF", `\u202aa\u202c`},
	{"bidi isolates", `\u2066x\u2069\u2067y\u2068`},
	{"line separator", `\u2028\u2029`},
	{"carriage return overwrite", `ok\rEVIL`},
	{"bracketed paste end", `\u001b[201~touch pwned`},
	{"C1 NEL", `a\u0085b`},
	{"zero width space", `zw\u200bsp`},
	{"tag characters", `tag\udb40\udc41\udb40\udc42`},
	{"word joiner and BOM", `\u2060x\ufeff`},
}

// hostileTranscript is one session whose every field that cairn stores or
// shows carries every control class: cwd, git branch, model, prompt,
// reply, thinking, tool name and input, tool output, summary.
func hostileTranscript(t *testing.T) (claude, sid string) {
	t.Helper()
	all := ""
	for _, c := range controlClasses {
		all += " " + c.json
	}
	sid = "abcdef12-0000-4000-8000-000000000001"
	claude = t.TempDir()
	proj := filepath.Join(claude, "projects", "-w-evil")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`{"type":"summary","summary":"summary` + all + `","leafUuid":"a1"}`,
		`{"type":"user","uuid":"u1","sessionId":"` + sid + `","timestamp":"2026-01-01T00:00:00Z","cwd":"/w/evil` + all + `","gitBranch":"main` + all + `","version":"2.0.0","message":{"role":"user","content":"hostile prompt findme` + all + `"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"` + sid + `","timestamp":"2026-01-01T00:00:01Z","cwd":"/w/evil` + all + `","message":{"id":"m1","role":"assistant","model":"claude-x` + all + `","content":[{"type":"thinking","thinking":"thinking findme` + all + `"},{"type":"text","text":"reply findme` + all + `"},{"type":"tool_use","id":"t1","name":"Bash` + all + `","input":{"command":"ls findme` + all + `","file_path":"/w/file` + all + `"}}]}}`,
		`{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"` + sid + `","timestamp":"2026-01-01T00:00:02Z","cwd":"/w/evil` + all + `","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"output findme` + all + `"}]}}`,
	}
	if err := os.WriteFile(filepath.Join(proj, sid+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return claude, sid
}

// rawControls lists the raw control characters in out: C0 (but newline
// and tab), DEL, C1, bidi controls and line separators. allowSGR lets the
// CLI's own colour (ESC [ … m from its colour helper) through; no test here
// runs on a terminal, so none is expected anyway.
func rawControls(out string, bidi bool) []string {
	var found []string
	for i, r := range out {
		bad := r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 ||
			bidi && (r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x2028 || r == 0x2029 || r == 0x200e || r == 0x200f || r == 0x061c ||
				unicode.Is(unicode.Cf, r) && r != 0x200d || r >= 0xe0000 && r <= 0xe007f)
		if r == utf8.RuneError {
			bad = true
		}
		if bad {
			found = append(found, fmt.Sprintf("U+%04X at %d: %q", r, i, out[max(0, i-30):min(len(out), i+10)]))
		}
	}
	return found
}

func decodeJSONString(t *testing.T, s string) string {
	t.Helper()
	var out string
	if err := json.Unmarshal([]byte(`"`+s+`"`), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every command that prints transcript text, on a session whose every
// field carries every control class: 0 raw controls in the bytes written.
func TestNoRawControlsOnAnyOutput(t *testing.T) {
	claude, sid := hostileTranscript(t)
	data := t.TempDir()
	if _, _, err := run(t, "index", "--claude-dir", claude, "--data", data); err != nil {
		t.Fatal(err)
	}
	evilMem := "remember findme"
	for _, c := range controlClasses {
		evilMem += " " + decodeJSONString(t, c.json)
	}
	for _, args := range [][]string{
		{"memories", "add", "--project", "/w/evil", evilMem},
		{"extract"},
		{"memories", "approve", "--all"},
	} {
		if _, _, err := run(t, append(args, "--claude-dir", claude, "--data", data)...); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	claudeMD := filepath.Join(t.TempDir(), "CLAUDE.md")
	md := filepath.Join(t.TempDir(), "export.md")
	cmds := [][]string{
		{"sessions"}, {"projects"},
		{"show", sid[:8]}, {"show", sid[:8], "--thinking", "--full"},
		{"search", "findme"}, {"search", "--mode", "text", "findme"},
		{"recall", "findme"},
		{"memories", "list"}, {"memories", "search", "findme"},
		{"export", "--format", "markdown", "-o", md},
		{"stats"}, {"drafts", "list"},
		{"sync", "--project", "/w/evil", "--target", claudeMD, "--dry-run"},
		{"sync", "--project", "/w/evil", "--target", claudeMD},
	}
	for _, args := range cmds {
		out, stderr, err := run(t, append(args, "--claude-dir", claude, "--data", data)...)
		if err != nil {
			t.Logf("%v: %v", args, err)
		}
		if len(out) == 0 && args[0] != "export" {
			t.Logf("%v printed nothing (stderr %q)", args, stderr)
		}
		for _, s := range []string{out, stderr} {
			if bad := rawControls(s, true); len(bad) > 0 {
				t.Errorf("%v: %d raw control(s), first: %s", args, len(bad), bad[0])
			}
		}
	}
	for _, f := range []string{md, claudeMD} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "findme") {
			t.Errorf("%s lacks the hostile memory:\n%s", f, b)
		}
		if bad := rawControls(string(b), true); len(bad) > 0 {
			t.Errorf("%s: %d raw control(s), first: %s", filepath.Base(f), len(bad), bad[0])
		}
	}
	// JSON escapes C0/C1 itself; bidi characters are data there.
	for _, args := range [][]string{{"sessions", "--json"}, {"show", sid[:8], "--json"}, {"search", "--json", "findme"}} {
		out, _, _ := run(t, append(args, "--claude-dir", claude, "--data", data)...)
		if bad := rawControls(out, false); len(bad) > 0 {
			t.Errorf("%v: %d raw control(s), first: %s", args, len(bad), bad[0])
		}
	}
}
