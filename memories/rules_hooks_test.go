package memories

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// hooks2x is a Claude dir of real Claude Code 2.x lines (copied from the
// shared corpora, cut to a few): fa812bfe… (2.1.39) records its hooks as
// hook_progress lines, one per hook per tool call, and a
// stop_hook_summary; ef958aa1… (2.1.114) as hook_success and
// hook_additional_context attachments.
const hooks2x = "testdata/hooks2x"

// hookStore syncs a Claude dir into a new store and returns the service
// and the hook rows of session sid, as extraction reads them.
func hookStore(t *testing.T, dir, sid string) (*Service, []index.MemEntry, []index.MemEntry) {
	t.Helper()
	s := newService(t)
	if _, err := s.st.Sync(context.Background(), dir, index.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	es, err := s.st.Mem().Entries(context.Background(), sid, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var hooks []index.MemEntry
	for _, e := range es {
		if e.Hook != nil {
			hooks = append(hooks, e)
		}
	}
	return s, es, hooks
}

// Claude Code 2.x's hook lines become one hook row per distinct run of
// the session, read by extraction and by nothing shown: the
// conversation (show, export) has the lines it had before.
func TestHookRows2x(t *testing.T) {
	const sid = "fa812bfe-b295-4cca-9c2f-fdf01028cb46"
	s, _, hooks := hookStore(t, hooks2x, sid)
	var names []string
	for _, h := range hooks {
		names = append(names, h.Hook.Name()+" "+h.Hook.Command)
	}
	// 18 hook_progress lines and a stop summary of 3 Stop hooks: 7 hooks
	// after each of two edits, 3 Stop hooks (the summary's are the same).
	if len(hooks) != 10 {
		t.Errorf("want 10 hook rows, got %d: %q", len(hooks), names)
	}
	for _, want := range []string{"PostToolUse:Edit ${CLAUDE_PLUGIN_ROOT}/scripts/post-edit.sh", "Stop /home/USER/.claude/hooks/tmux-waiting.sh mark"} {
		if !slices.Contains(names, want) {
			t.Errorf("no hook row %q in %q", want, names)
		}
	}
	conv, err := s.st.Conversation(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range conv.Entries {
		if e.Type == "progress" || e.Subtype == "stop_hook_summary" || len(e.Hooks) > 0 {
			t.Errorf("a hook line in the conversation: %+v", e)
		}
	}
	if len(conv.Entries) != 2 {
		t.Errorf("the conversation has the prompt and Claude's call, got %d entries", len(conv.Entries))
	}
	// Plugin scripts and a tmux status script are no check of the project.
	for _, c := range extractCandidates(hooks) {
		t.Errorf("proposed from plugin plumbing: %s: %s", c.rule, c.content)
	}

	// Synced again (a second read of the same lines): no row more.
	if _, err := s.st.Sync(context.Background(), hooks2x, index.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	if es, _ := s.st.Mem().Entries(context.Background(), sid, 0, 0); len(es) != 2+10 {
		t.Errorf("after a second sync: %d entries, want 12", len(es))
	}
}

// A 2.1.114 session's hook attachments: what Claude was shown (a
// UserPromptSubmit hook's stdout, a SessionStart hook's
// additionalContext) is kept, a PostToolUse hook's stdout (shown to
// nobody) is not; none of it is a convention.
func TestHookAttachments2x(t *testing.T) {
	const sid = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
	_, es, hooks := hookStore(t, hooks2x, sid)
	said := map[string]string{}
	for _, h := range hooks {
		said[h.Hook.Name()] = h.Hook.Said
	}
	if said["UserPromptSubmit"] != "Status set to busy: -experiments/worktrees" {
		t.Errorf("UserPromptSubmit said %q", said["UserPromptSubmit"])
	}
	if said["SessionStart"] != "clmail 6.0.10 session registered: -experiments/worktrees (kitty)" {
		t.Errorf("SessionStart said %q", said["SessionStart"])
	}
	if s, ok := said["PostToolUse:Bash"]; !ok || s != "" {
		t.Errorf("PostToolUse:Bash: %q (kept: %v)", s, ok)
	}
	for _, c := range extractCandidates(es) {
		if strings.HasPrefix(c.rule, "hook:") {
			t.Errorf("proposed from a status hook: %s: %s", c.rule, c.content)
		}
	}
}

// The same real lines with the project's checks as commands, and hooks
// that tell Claude a convention (a SessionStart additionalContext, a
// PostToolUse blocking error: shapes Claude Code writes, with words of
// our own): the checks are proposed as 1.0.x sessions' are, the
// conventions as the hook's.
func TestHookChecksAndConventions2x(t *testing.T) {
	const sid = "fa812bfe-b295-4cca-9c2f-fdf01028cb46"
	dir := filepath.Join(t.TempDir(), "claude")
	src, err := os.ReadFile(filepath.Join(hooks2x, "projects", "-p", sid+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer(
		"cd ${CLAUDE_PLUGIN_ROOT}/hooks && bun run ./dist/post-edit-check.js", "mix credo --strict",
		"cd ${CLAUDE_PLUGIN_ROOT}/hooks && bun run ./dist/on-stop-test.js", "mix test --cover",
	).Replace(string(src))
	text += `{"parentUuid":null,"isSidechain":false,"attachment":{"type":"hook_additional_context","content":["Project conventions: we use ` + "`pnpm`" + ` for installs, never npm.","Session registered."],"hookName":"SessionStart","toolUseID":"SessionStart","hookEvent":"SessionStart"},"type":"attachment","uuid":"5e55a000-0000-4000-8000-000000000001","timestamp":"2026-02-12T15:56:13.149Z","sessionId":"` + sid + `","version":"2.1.114"}` + "\n"
	text += `{"parentUuid":null,"isSidechain":false,"attachment":{"type":"hook_blocking_error","hookName":"PostToolUse:Edit","toolUseID":"toolu_01","hookEvent":"PostToolUse","blockingError":{"blockingError":"Files under ` + "`priv/repo/migrations`" + ` must never be edited by hand; add a new migration instead.","command":"./check-migrations"}},"type":"attachment","uuid":"5e55a000-0000-4000-8000-000000000002","timestamp":"2026-02-12T15:56:14.149Z","sessionId":"` + sid + `","version":"2.1.114"}` + "\n"
	if err := os.MkdirAll(filepath.Join(dir, "projects", "-p"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "projects", "-p", sid+".jsonl"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	_, es, _ := hookStore(t, dir, sid)
	var got []string
	for _, c := range extractCandidates(es) {
		got = append(got, c.rule+": "+c.content)
	}
	want := []string{
		"hook:check: Claude Code's PostToolUse hook runs `mix credo --strict` after each file edit",
		"hook:check: Claude Code's Stop hook runs `mix test --cover` when Claude finishes a turn",
		"hook:convention: Project conventions: we use `pnpm` for installs, never npm (the project's SessionStart hook tells Claude)",
		"hook:convention: Files under `priv/repo/migrations` must never be edited by hand; add a new migration instead (the project's PostToolUse hook tells Claude)",
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing %q", w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %q", got)
	}
}

// 2.1.3x wrote what a hook told Claude as an injected line: read alike.
func TestHookReminderLine(t *testing.T) {
	es := []index.MemEntry{
		{UUID: "m1", Role: "system", Meta: true, Text: "<system-reminder>\nPreToolUse:Bash hook blocking error from command: \"${CLAUDE_PLUGIN_ROOT}/scripts/pre-commit.sh\": Pre-commit validation failed:\\n\\n[FORMAT] Code is not formatted.\\nRun 'mix format' to fix.\\n\\nFix these issues before committing.\n</system-reminder>"},
		{UUID: "m2", Role: "system", Meta: true, Text: "<system-reminder>\nSessionStart:startup hook success: Files under `gen/` are generated and never edited by hand.\n</system-reminder>"},
		{UUID: "m3", Role: "system", Meta: true, Text: "<system-reminder>\nUserPromptSubmit hook additional context: Relevant memories:\n- [preference] We always run `make lint` before pushing (m-3f2a9c)\n</system-reminder>"},
	}
	var got []string
	for _, c := range hookSaidCandidates(es) {
		got = append(got, c.content)
	}
	want := []string{"Files under `gen/` are generated and never edited by hand (the project's SessionStart hook tells Claude)"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
