package memories

import (
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/index"
)

// The checks the project's hooks run are proposed once per hook event,
// each command once; a hook running no check (a status report) is not.
func TestHookChecks(t *testing.T) {
	sys := func(uuid, text string) index.MemEntry {
		return index.MemEntry{UUID: uuid, Role: "system", Block: "text", Text: text}
	}
	es := []index.MemEntry{
		sys("h0", "Running \x1b[1mPostToolUse:Edit\x1b[22m..."),
		sys("h1", "\x1b[1mPostToolUse:Edit\x1b[22m [uv run ruff format] completed successfully: 1 file reformatted, 30 files left unchanged"),
		sys("h2", "\x1b[1mPostToolUse:MultiEdit\x1b[22m [uv run ruff format] completed successfully: 31 files left unchanged"),
		sys("h3", "\x1b[1mStop\x1b[22m [uv run pytest 2>&1] completed successfully: ===== 205 passed ====="),
		sys("h4", "\x1b[1mStop\x1b[22m [uv run ty check 2>&1] completed successfully: All checks passed"),
		sys("h5", "\x1b[1mPostToolUse:Bash\x1b[22m [notify-send done] completed successfully"),
		sys("h6", "\x1b[1mStop\x1b[22m [bash -c 'echo \"=== DEBUG ===\" >&2; uv run pyright'] completed successfully"),
	}
	var got []string
	for _, c := range extractCandidates(es) {
		got = append(got, c.content)
	}
	want := []string{
		"Claude Code's PostToolUse hook runs `uv run ruff format` after each file edit",
		"Claude Code's Stop hook runs `uv run pytest` and `uv run ty check` when Claude finishes a turn",
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing %q", w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("want only the two hooks' checks, got %q", got)
	}
	if got := hookWhen("PostToolUse", []string{"Bash"}); got != "after each Bash call" {
		t.Errorf("a hook on Bash: %q", got)
	}
}

// A check the person ran by hand that a hook of the same session runs is
// said once, by the hook's proposal.
func TestCheckRunByHandAndByHook(t *testing.T) {
	es := []index.MemEntry{
		{UUID: "u1", Role: "user", Text: "<bash-input>uv run ty check</bash-input>"},
		{UUID: "h1", Role: "system", Block: "text", Text: "\x1b[1mStop\x1b[22m [uv run ty check 2>&1] completed successfully: All checks passed"},
		{UUID: "u2", Role: "user", Text: "<bash-input>uv run pytest -m \"not tui\"</bash-input>"},
	}
	var rules []string
	for _, c := range extractCandidates(es) {
		rules = append(rules, c.rule+": "+c.content)
	}
	want := []string{
		"user:bash-check: The user checks the project with `uv run pytest -m \"not tui\"` (run by hand)",
		"hook:check: Claude Code's Stop hook runs `uv run ty check` when Claude finishes a turn",
	}
	if !slices.Equal(rules, want) {
		t.Errorf("got %q\nwant %q", rules, want)
	}
}
