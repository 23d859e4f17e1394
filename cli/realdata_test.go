package cli

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"

	"github.com/charmbracelet/x/ansi"
)

// reduced holds lines of the claude-code-log corpus (MIT): see
// testdata/reduced/README.md.
func reduced() string { return filepath.Join(testutil.RepoRoot(), "testdata", "reduced") }

// TestShowPairsEachResultWithItsCall: Claude read three files in parallel
// (three calls, then three results); each result is printed under its own
// call, not all of them under the last.
func TestShowPairsEachResultWithItsCall(t *testing.T) {
	out, _, err := run(t, "show", "9e953218", "--claude-dir", reduced(), "--tool-lines", "1")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out, "\n")
	var order []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "● Read("):
			order = append(order, "call "+filepath.Base(strings.TrimSuffix(strings.TrimPrefix(l, "● Read("), ")")))
		case strings.HasPrefix(l, "⎿"):
			order = append(order, "result "+l)
		}
	}
	want := []string{"tokenizer.html", "<!doctype html>", "tokenizer.css", "body {", "tokenizer.js", "// from 'https://cdn.jsdelivr.net"}
	var got []string
	for i, o := range order {
		if strings.HasPrefix(o, "call ") && i+1 < len(order) {
			got = append(got, strings.TrimPrefix(o, "call "), order[i+1])
		}
	}
	if len(got) < 6 {
		t.Fatalf("calls and results: %q", order)
	}
	for i := 0; i < 6; i += 2 {
		if got[i] != want[i] || !strings.HasPrefix(got[i+1], "result ") || !strings.Contains(got[i+1], want[i+1]) {
			t.Errorf("call %s is followed by %q, want its own result (%q)", got[i], got[i+1], want[i+1])
		}
	}
}

// TestShowPrintsImageOnlyPromptsAndIDEContext: a pasted image alone is the
// person's turn (not merged into Claude's), and a VS Code prompt shows
// what was typed with the IDE context as a detail.
func TestShowPrintsImageOnlyPromptsAndIDEContext(t *testing.T) {
	out, _, err := run(t, "show", "4379d1bf", "--claude-dir", reduced())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "▶ You · ") || !regexp.MustCompile(`(?m)^  \[image: image/png, [0-9.]+ KB\]$`).MatchString(out) {
		t.Errorf("the image-only prompt is not shown as a turn:\n%s", out)
	}
	if strings.Count(out, "▶ You") != 2 {
		t.Errorf("%d turns of the person, want 2 (/clear, the image):\n%s", strings.Count(out, "▶ You"), out)
	}
	out, _, err = run(t, "show", "9e953218", "--claude-dir", reduced())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "▶ You · ") || !strings.Contains(out, "\n  I have @public/tokenizer.css") ||
		!strings.Contains(out, "\n  ⌁ IDE: The user opened the file /Users/dain/workspace/danieldemmel.me-next/public/tokenizer.html in the IDE.") {
		t.Errorf("VS Code prompt:\n%s", out)
	}
	if strings.Contains(out, "<ide_opened_file>") {
		t.Error("the IDE block is printed as prompt text")
	}
}

// TestSessionsColumns: the model column is the main thread's model, the
// project column keeps the end of the path (what tells worktrees apart),
// and a title in Japanese is cut by display width, so every column after
// it starts at the same place on every line.
func TestSessionsColumns(t *testing.T) {
	out, _, err := run(t, "sessions", "--claude-dir", sample())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	header := lines[0]
	modelCol := ansi.StringWidth(header[:strings.Index(header, "MODEL")])
	titleCol := ansi.StringWidth(header[:strings.Index(header, "TITLE")])
	var japanese bool
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		id := f[0]
		// The display width before the model column is the same on every
		// line, and the title cell is at most 50 cells.
		model := map[string]string{"ae4a77f8": "haiku-4-5-20251001", "d6e0bada": "opus-4-6", "5c0375b4": "sonnet-4-20250514"}[id]
		if model == "" {
			continue
		}
		i := strings.Index(l, " "+model+" ")
		if i < 0 {
			t.Errorf("%s: model %s not in %q", id, model, l)
			continue
		}
		if w := ansi.StringWidth(l[:i+1]); w != modelCol {
			t.Errorf("%s: model column at cell %d, header at %d:\n%s\n%s", id, w, modelCol, header, l)
		}
		if w := ansi.StringWidth(strings.TrimRight(ansi.Cut(l, titleCol, modelCol), " ")); w > 50 {
			t.Errorf("%s: title %d cells wide", id, w)
		}
		japanese = japanese || strings.Contains(l, "を最新")
	}
	if !japanese {
		t.Error("the Japanese title is not in the table")
	}
	// The project is the repository; the worktree a session ran in
	// follows it in brackets.
	if !strings.Contains(out, "/spotter (spotter-4te) ") || !strings.Contains(out, "/spotter (spotter-0rt) ") {
		t.Errorf("the project column lost the worktree names:\n%s", out)
	}
	// --json: the main model, and every model in a stable order.
	out, _, err = run(t, "sessions", "--claude-dir", sample(), "--json")
	if err != nil {
		t.Fatal(err)
	}
	var ss []SessionJSON
	if err := json.Unmarshal([]byte(out), &ss); err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if !slices.IsSorted(s.Models) || (s.Model != "" && !slices.Contains(s.Models, s.Model)) {
			t.Errorf("%s: model %q, models %q", s.ID, s.Model, s.Models)
		}
		if s.ID[:8] == "ae4a77f8" && s.Model != "claude-haiku-4-5-20251001" {
			t.Errorf("ae4a77f8: model %q, want the main thread's most used, claude-haiku-4-5-20251001", s.Model)
		}
	}
}
