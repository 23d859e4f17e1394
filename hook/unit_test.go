package hook

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/hookspec"
	"github.com/cairn-dev/cairn/memories"
)

func TestTokensIsConservative(t *testing.T) {
	for s, want := range map[string]int{"": 0, "abc": 1, "abcdefg": 2, strings.Repeat("x", 35): 10, "日本語": 3, "é": 1} {
		if got := Tokens(s); got != want {
			t.Errorf("Tokens(%q) = %d, want %d", s, got, want)
		}
	}
	// Never below chars/4 for English text (real tokenizers average ~4).
	text := strings.Repeat("The websocket reconnect test is flaky. ", 50)
	if Tokens(text) < len(text)/4 {
		t.Fatalf("estimate %d below len/4", Tokens(text))
	}
}

func TestBudgetNeverExceeded(t *testing.T) {
	b := &budget{max: 50}
	added := 0
	for i := 0; i < 100; i++ {
		if b.add(strings.Repeat("word ", i%13)) {
			added++
		}
	}
	if Tokens(b.String()) > 50 || added == 0 {
		t.Fatalf("budget: %d tokens, %d lines", Tokens(b.String()), added)
	}
}

func TestOneLineStripsControls(t *testing.T) {
	// termtext's one form: controls and bidi overrides as visible escapes.
	got := oneLine("a\x1b[31m red\n\tline\x07 end \u202egnp.exe\u2028x", 100)
	if strings.ContainsAny(got, "\x1b\x07\n\t\u202e\u2028") || got != `a\x1b[31m red line\x07 end \u202egnp.exe x` {
		t.Fatalf("%q", got)
	}
	if got := oneLine(strings.Repeat("é", 50), 10); len([]rune(got)) != 10 || !strings.HasSuffix(got, "…") {
		t.Fatalf("cut: %q", got)
	}
}

func TestParseInputLenient(t *testing.T) {
	in, err := ParseInput([]byte(`{"hook_event_name":" Stop ","session_id":"abcdefgh-1","stop_hook_active":"yes","extra":{"x":1}}`))
	if err != nil || in.Event != "Stop" || in.SessionID != "abcdefgh-1" {
		t.Fatalf("%+v %v", in, err)
	}
	for _, bad := range []string{"", "  ", "null", "[]", "{", `"x"`} {
		if _, err := ParseInput([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// fakeMem panics on use: a panic inside a hook must fail open.
type fakeMem struct{ Memories }

func (fakeMem) Brief(context.Context, string, int, int) (memories.Brief, error) { panic("boom") }

func TestPanicFailsOpen(t *testing.T) {
	data := t.TempDir()
	var out bytes.Buffer
	cfg := config.Default()
	res := Run(context.Background(), Env{
		Stdin:  strings.NewReader(`{"hook_event_name":"SessionStart","session_id":"abcdefgh-1234","cwd":"/p"}`),
		Stdout: &out, DataDir: data, ClaudeDir: t.TempDir(), Config: &cfg,
		Memories: func(*index.Store, config.Config) Memories { return fakeMem{} },
		Now:      func() time.Time { return time.Unix(0, 0) },
	})
	if out.Len() != 0 || res.Err == nil {
		t.Fatalf("stdout %q err %v", out.String(), res.Err)
	}
	if lines := hookspec.LastLines(data, 5); len(lines) != 1 || !strings.Contains(lines[0], "SessionStart: internal error (ignored): boom") {
		t.Fatalf("log: %v", lines)
	}
}

// A runner that keeps stdin open after the JSON must not stall the hook.
func TestInputWithoutEOF(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	go pw.Write([]byte(`{"hook_event_name":"Bogus","session_id":"abcdefgh-1"}` + "\n"))
	done := make(chan Result, 1)
	go func() {
		done <- Run(context.Background(), Env{Stdin: pr, Stdout: io.Discard, DataDir: t.TempDir(), ClaudeDir: t.TempDir()})
	}()
	select {
	case r := <-done:
		if !strings.Contains(r.Ignored, "unknown event") {
			t.Fatalf("%+v", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the hook waited for the end of stdin")
	}
}

func TestProjectFromCwd(t *testing.T) {
	h := &handler{env: &Env{}, in: Input{CWD: "/home/me/proj/sub/dir"}, folder: "-home-me-proj"}
	if got := h.project(); got != "/home/me/proj" {
		t.Fatalf("project %q", got)
	}
	h.folder = "-elsewhere"
	if got := h.project(); got != "/home/me/proj/sub/dir" {
		t.Fatalf("fallback %q", got)
	}
	h.env.ProjectDir = "/launch/root/"
	if got := h.project(); got != "/launch/root" {
		t.Fatalf("CLAUDE_PROJECT_DIR %q", got)
	}
}
