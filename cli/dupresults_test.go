package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/testutil"
	"github.com/cairn-dev/cairn/transcripts"
	"github.com/cairn-dev/cairn/tui"
)

// TestDuplicatedToolResultsShownOnceEverywhere: a real session whose
// first Bash result, and a subagent's result, are written a second time
// (testdata/dupresults/README.md). `cairn show`, `cairn show --markdown`,
// the TUI's Markdown export and the sessions `cairn export --sessions`
// writes (read back) all pair each call with the first result written
// for it, print it once under the call, and print the copy nowhere.
func TestDuplicatedToolResultsShownOnceEverywhere(t *testing.T) {
	claude := filepath.Join(testutil.RepoRoot(), "testdata", "dupresults")
	data := t.TempDir()
	const id = "fa812bfe-b295-4cca-9c2f-fdf01028cb46"
	show := func(claude, data string, flags ...string) string {
		t.Helper()
		out, _, err := run(t, append([]string{"show", id[:8], "--claude-dir", claude, "--data", data, "--full"}, flags...)...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	text, md := show(claude, data), show(claude, data, "--markdown")
	const (
		bashResult  = "Owner: Marco Rotili · Type: epic"           // the first Bash call's
		agentResult = "defmodule SpotterWeb.SessionHookController" // the subagent's Read
	)
	for name, out := range map[string]string{"show": text, "show --markdown": md} {
		if strings.Contains(out, "DUPLICATE COPY") {
			t.Errorf("%s prints a duplicated result:\n%s", name, out)
		}
		if n := strings.Count(out, bashResult); n != 1 {
			t.Errorf("%s prints the Bash result %d times, want once:\n%s", name, n, out)
		}
		if n := strings.Count(out, agentResult); n != 1 {
			t.Errorf("%s prints the subagent's result %d times, want once:\n%s", name, n, out)
		}
	}
	// The first result is printed under its own call, before the next.
	call, res, next := strings.Index(text, "● Bash(bd show spotter-a0y)"), strings.Index(text, bashResult), strings.Index(text, "● Bash(bd ready)")
	if call < 0 || res < call || next < res {
		t.Errorf("the first Bash result is not under its call (call %d, result %d, next call %d):\n%s", call, res, next, text)
	}

	// The TUI's export writes what `show --markdown` prints.
	var c *transcripts.Conversation
	o := &Options{DataDir: data, ClaudeDir: claude, Stdout: io.Discard, Stderr: io.Discard}
	if err := withStore(context.Background(), o, func(st *index.Store) error {
		var err error
		c, err = st.Conversation(context.Background(), id)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if md := show(claude, data, "--markdown", "--full=false"); tui.ExportMarkdown(c, false) != md {
		t.Errorf("the TUI export differs from show --markdown:\n%s\n---\n%s", tui.ExportMarkdown(c, false), md)
	}

	// export --sessions keeps both copies (it writes the transcript back
	// as it was), and the sessions read back are shown the same.
	out := filepath.Join(t.TempDir(), "out")
	if _, _, err := run(t, "export", "--sessions", "-o", out, "--claude-dir", claude, "--data", data); err != nil {
		t.Fatal(err)
	}
	copies := 0
	_ = filepath.Walk(out, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			b, _ := os.ReadFile(p)
			copies += strings.Count(string(b), "DUPLICATE COPY")
		}
		return nil
	})
	if copies != 2 {
		t.Errorf("the exported transcripts hold %d duplicated results, want both (2)", copies)
	}
	back := show(out, t.TempDir())
	if strip := func(s string) string { return s[strings.Index(s, "Project"):] }; strip(back) != strip(text) {
		t.Errorf("the exported session reads back otherwise:\n%s\n---\n%s", back, text)
	}
}

// TestShowMarkdownOrJSON: --markdown and --json together are refused as a
// usage error, before anything is read or printed.
func TestShowMarkdownOrJSON(t *testing.T) {
	out, _, err := run(t, "show", "fa812bfe", "--markdown", "--json", "--claude-dir", filepath.Join(testutil.RepoRoot(), "testdata", "dupresults"))
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "pick one") || out != "" {
		t.Fatalf("show --markdown --json: %v (%T), printed %q", err, err, out)
	}
}
