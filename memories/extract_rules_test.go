package memories

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"

	json "github.com/go-json-experiment/json"
)

// The rules of session 34 (issue 23), each on the shape it reads and on
// the nearest shape it must leave alone.

func TestChoiceAmongOfferedOptions(t *testing.T) {
	offer := "Here are a few options:\n\n**Option 1: Vite** (modern, fast, great DX)\n```json\n{\"dev\": \"vite\"}\n```\n**Option 2: `serve`** (dead simple)\n\n**Option 3: `http-server`** (minimal, popular)\n\nWhich would you prefer?"
	got, _, ok := choiceContent("let's do vite", []string{"unrelated", offer}, nil)
	if want := "Chose Vite (modern, fast, great DX) over `serve` (dead simple) and `http-server` (minimal, popular)"; !ok || got != want {
		t.Errorf("choice = %q, %v; want %q", got, ok, want)
	}
	// Naming two options, none, or answering a text that asks nothing is
	// no choice.
	for _, said := range []string{"let's do vite with serve", "let's do it"} {
		if got, _, ok := choiceContent(said, []string{offer}, nil); ok {
			t.Errorf("%q: chose %q", said, got)
		}
	}
	if got, _, ok := choiceContent("let's do vite", []string{strings.ReplaceAll(offer, "?", ".")}, nil); ok {
		t.Errorf("no question asked, chose %q", got)
	}
	numbered := "Options:\n1. **Keep ScriptProcessor** (still works, just deprecated) - simpler\n2. **Migrate to AudioWorklet** - proper modern solution, better performance, but more work\n\nWhich would you prefer?"
	got, _, ok = choiceContent("Let's also Migrate to AudioWorklet", []string{numbered, "Done: the APIs are modern now."}, []string{"I want the recorder to work in Firefox and Safari too", ""})
	if !ok || !strings.HasPrefix(got, "Chose to migrate to AudioWorklet (proper modern solution") || !strings.Contains(got, "rather than keep ScriptProcessor (still works, just deprecated) (offered when the user said: “I want the recorder to work in Firefox and Safari too”)") {
		t.Errorf("numbered options: %q, %v", got, ok)
	}
}

func TestAgreedCorrection(t *testing.T) {
	prompt := index.MemEntry{UUID: "p1", Role: "user", Text: "The user opened the file /w/vercel.json in the IDE. This may or may not be related to the current task.\nThe redirection doesn't work :( we might need to move it to @vercel.json ?"}
	var got []candidate
	ackCandidate(index.MemEntry{UUID: "a1", Text: "You're right - Vercel has its own redirect configuration that takes precedence. Let me add the redirect to vercel.json:"}, prompt, func(c candidate) { got = append(got, c) })
	if len(got) != 1 || got[0].content != "Vercel has its own redirect configuration that takes precedence (agreed when the user said: “The redirection doesn't work :( we might need to move it to @vercel.json ?”)" {
		t.Fatalf("agreed: %+v", got)
	}
	// "Let me use X which Y" says X; a verdict without code and
	// narration are skipped; no agreement, no proposal.
	got = nil
	ackCandidate(index.MemEntry{Text: "You're absolutely right! The docs show a much cleaner approach. Let me use `uv tool upgrade --reinstall` which will force a rebuild from the current source:"}, prompt, func(c candidate) { got = append(got, c) })
	if len(got) != 1 || !strings.HasPrefix(got[0].content, "`uv tool upgrade --reinstall` will force a rebuild from the current source (agreed") {
		t.Errorf("let me use: %+v", got)
	}
	for _, text := range []string{"Vercel has its own redirect configuration that takes precedence.", "You're right! Let me fix both issues now.", "Good point! We don't need `helper` at all."} {
		got = nil
		ackCandidate(index.MemEntry{Text: text}, prompt, func(c candidate) { got = append(got, c) })
		if len(got) != 0 {
			t.Errorf("%q proposed %q", text, got[0].content)
		}
	}
}

func TestAgreedWaitsForTheNextPrompt(t *testing.T) {
	es := []index.MemEntry{
		{UUID: "u1", Role: "user", Text: "The build still can't find the theme, maybe Vercel needs the submodule?"},
		{UUID: "a1", Role: "assistant", Block: "text", Text: "Good point! Vercel needs to know to check out the submodule during the build."},
		{UUID: "u2", Role: "user", Text: "Still doesn't work, this is annoying."},
	}
	for _, c := range extractCandidates(es) {
		if c.rule == "claude:agreed" {
			t.Errorf("proposed although the next prompt says it still fails: %q", c.content)
		}
	}
	es[2].Text = "Great, that deployed. Now the footer."
	n := 0
	for _, c := range extractCandidates(es) {
		if c.rule == "claude:agreed" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("confirmed agreement proposed %d times, want 1", n)
	}
}

func TestRecurringProblemWithItsFix(t *testing.T) {
	es := []index.MemEntry{
		{UUID: "u1", Role: "user", Text: "I keep getting build errors when MDX files have URLs that markdownlint wraps (MD034/no-bare-urls) – how can I disable that?"},
		{UUID: "a1", Role: "assistant", Block: "text", Text: "Let me check your configuration."},
		{UUID: "a2", Role: "assistant", Block: "text", Text: "I've created a [.markdownlintrc.json](.markdownlintrc.json) file that disables the MD034 rule. Reload the IDE."},
	}
	recurringOf := func(es []index.MemEntry) []string {
		var got []string
		for _, c := range extractCandidates(es) {
			if c.rule == "user:recurring-problem" {
				got = append(got, c.content)
			}
		}
		return got
	}
	problem := "Build errors when MDX files have URLs that markdownlint wraps (MD034/no-bare-urls)"
	want := problem + ": Created a `.markdownlintrc.json` file that disables the MD034 rule"
	// The change is the fix when the person goes on without saying it
	// still fails, or a command runs without error after it.
	next := index.MemEntry{UUID: "u2", Role: "user", Text: "Thanks. Now update the README table."}
	if got := recurringOf(append(slices.Clone(es), next)); len(got) != 1 || got[0] != want {
		t.Errorf("next prompt moves on: got %q, want %q", got, want)
	}
	call := index.MemEntry{UUID: "a3", Role: "assistant", ToolUse: "t1", ToolName: "Bash"}
	ran := index.MemEntry{UUID: "r1", Role: "tool", ToolUse: "t1", Text: "build ok"}
	if got := recurringOf(append(slices.Clone(es), call, ran)); len(got) != 1 || got[0] != want {
		t.Errorf("build ran after the change: got %q, want %q", got, want)
	}
	// Nothing after the report, a failing run or "still" in the next
	// prompt: nobody saw the change work, the memory is the problem.
	ran.IsError = true
	for name, tail := range map[string][]index.MemEntry{
		"session ends": nil,
		"run fails":    {call, ran},
		"still fails":  {{UUID: "u2", Role: "user", Text: "I still get the build errors."}},
	} {
		if got := recurringOf(append(slices.Clone(es), tail...)); len(got) != 1 || got[0] != problem {
			t.Errorf("%s: got %q, want %q", name, got, problem)
		}
	}
	// A turn that reports no change proposes nothing.
	es[2].Text = "You could disable MD034 in a config file."
	for _, c := range extractCandidates(es) {
		if c.rule == "user:recurring-problem" {
			t.Errorf("no fix reported, proposed %q", c.content)
		}
	}
}

func TestCodeLimitOnlyForCodeNotOurs(t *testing.T) {
	say := index.MemEntry{UUID: "a1", Role: "assistant", Block: "text", Text: "`SendMessage` queues into an inbox but doesn't resurrect a terminated process, so a returned agent stays asleep."}
	has := func(es []index.MemEntry) bool {
		for _, c := range extractCandidates(es) {
			if c.rule == "claude:code-cannot" {
				return true
			}
		}
		return false
	}
	if !has([]index.MemEntry{say}) {
		t.Error("a tool's limit not proposed")
	}
	edit := index.MemEntry{UUID: "e1", Role: "assistant", ToolName: "Edit", ToolUse: "t1", Input: []byte(`{"file_path":"/p/agents.py","new_string":"def SendMessage(x):"}`)}
	if has([]index.MemEntry{edit, say}) {
		t.Error("the project's own code (edited in the session) proposed as a limit")
	}
}

func TestAnswersPairedByOrder(t *testing.T) {
	call := index.MemEntry{UUID: "c1", Role: "assistant", ToolName: "AskUserQuestion", ToolUse: "q1",
		Input: []byte(`{"questions":[{"question":"Should tar archives be processed like ZIP files?","options":[{"label":"Yes","description":"on disk and embedded"}]},{"question":"Which tar formats should be supported?","options":[]},{"question":"Which of these beads belong here?","options":[]}]}`)}
	ans := index.MemEntry{UUID: "r1", Role: "user", Source: "answer", ToolUse: "q1", Text: "Yes\nAlso .tgz\nall"}
	var got []string
	for _, c := range extractCandidates([]index.MemEntry{call, ans}) {
		got = append(got, c.content)
	}
	want := "Should tar archives be processed like ZIP files? — Yes (on disk and embedded); Which tar formats should be supported? — Also .tgz"
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestConstraintsAndDefaults(t *testing.T) {
	e := index.MemEntry{UUID: "u1", Role: "user", Text: "Can you please read @public/tok.js and review it while keeping it simple and dependency free (except for transformers.js)? So I'd like to keep it the same 3 simple files, but add the features. Also change the default command behaviour (without pr_input) to look up the PR for the current branch."}
	var got []string
	for _, c := range extractCandidates([]index.MemEntry{e}) {
		if c.rule == "user:constraint" || c.rule == "user:default" {
			got = append(got, c.content)
		}
	}
	want := []string{
		"`public/tok.js`: Keep it simple and dependency free (except for transformers.js); keep it the same 3 simple files",
		"Default command behaviour (without pr_input): look up the PR for the current branch",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// Naming nothing ("keep it short") is no constraint.
	for _, c := range extractCandidates([]index.MemEntry{{UUID: "u2", Role: "user", Text: "Write a summary and keep it about the same length as the other one."}}) {
		t.Errorf("proposed %q (%s)", c.content, c.rule)
	}
}

func TestCheckRunByHand(t *testing.T) {
	for text, want := range map[string]string{
		`<bash-input> uv run pytest -m "not (tui or browser)" -v</bash-input>`: "The user checks the project with `uv run pytest -m \"not (tui or browser)\"` (run by hand)",
		"<bash-input>uv run pytest test/test_cache.py</bash-input>":            "", // one file: that day's check
		"<bash-input>git status</bash-input>":                                  "", // not a check
	} {
		var got []string
		for _, c := range extractCandidates([]index.MemEntry{{UUID: "u1", Role: "user", Text: text}}) {
			got = append(got, c.content)
		}
		if want == "" && len(got) != 0 || want != "" && (len(got) != 1 || got[0] != want) {
			t.Errorf("%s: got %q, want %q", text, got, want)
		}
	}
}

func TestFixedItemAsRule(t *testing.T) {
	for in, want := range map[string]string{
		"Fixed call-non-callable error: Added `# type: ignore[misc]` comment to suppress the `ty` type checker's incorrect analysis of `pytest.skip()` in `test/test_cache.py:429`": "Call-non-callable error: add `# type: ignore[misc]` comment to suppress the `ty` type checker's incorrect analysis of `pytest.skip()`",
		"Fixed query_one shadowing: Used `patch.object()` instead of assigning to `browser.query_one`, which avoids the warning":                                                    "query_one shadowing: use `patch.object()` instead of assigning to `browser.query_one`, which avoids the warning",
	} {
		c, ok := fixedItem(in)
		if !ok || c.content != want {
			t.Errorf("%q:\n got %q, %v\nwant %q", in, c.content, ok, want)
		}
	}
}

func TestSummaryErrorAndRuleJoined(t *testing.T) {
	var cs candidateSet
	cs.add(candidate{rule: "compact:errors-and-fixes", uuids: []string{"s1"}, content: "Auto-generated migration uses ALTER TABLE MODIFY (unsupported in SQLite): rewrote the migration with the table rewrite pattern"})
	cs.add(candidate{rule: "compact:problem-solving", uuids: []string{"s1"}, content: "SQLite migration patterns: this project uses table-rewrite migrations for any column change SQLite doesn't support"})
	// Items of two summaries are not joined this way.
	if sameSummaryTopic(candidate{rule: "compact:errors-and-fixes", uuids: []string{"s1"}}, candidate{rule: "compact:problem-solving", uuids: []string{"s2"}}, cs.toks[0], cs.toks[0]) {
		t.Error("items of two summaries joined")
	}
	if len(cs.out) != 1 || !strings.HasPrefix(cs.out[0].content, "Auto-generated migration") || !strings.Contains(cs.out[0].content, " — SQLite migration patterns:") {
		for _, c := range cs.out {
			t.Logf("%s: %s", c.rule, c.content)
		}
		t.Fatalf("want the error and its rule as one: %d", len(cs.out))
	}
}

func TestCdPersistsIntoLaterCalls(t *testing.T) {
	call := func(id, cmd string) index.MemEntry {
		return index.MemEntry{UUID: "c" + id, Role: "assistant", ToolUse: id, ToolName: "Bash", Input: []byte(`{"command":` + strconv.Quote(cmd) + `}`)}
	}
	res := func(id, out string, isErr bool) index.MemEntry {
		return index.MemEntry{UUID: "r" + id, Role: "tool", ToolUse: id, Text: out, IsError: isErr}
	}
	cdFirst := []index.MemEntry{call("1", "cd test && uv run python -c 'print(1)'"), res("1", "1", false)}
	fail := []index.MemEntry{call("2", "grep -n generate_html claude_code_log/renderer.py"), res("2", "grep: claude_code_log/renderer.py: No such file or directory", true)}
	got := func(es []index.MemEntry) string {
		for _, c := range extractCandidates(es) {
			if c.rule == "command:cd-persists" {
				return c.content
			}
		}
		return ""
	}
	want := "In the Bash tool a `cd` persists into later calls: after `cd test && …`, `grep -n generate_html claude_code_log/renderer.py` failed (claude_code_log/renderer.py: no such file or directory); use absolute paths, or `(cd test && …)` in a subshell"
	if g := got(append(slices.Clone(cdFirst), fail...)); g != want {
		t.Errorf("got %q, want %q", g, want)
	}
	// No `cd` before, a `cd` to a folder named in full, a `cd` in a
	// subshell, or a missing absolute path: nothing shows a persisting
	// folder.
	for name, es := range map[string][]index.MemEntry{
		"no cd":         fail,
		"absolute cd":   append([]index.MemEntry{call("1", "cd /repo && make"), res("1", "ok", false)}, fail...),
		"subshell cd":   append([]index.MemEntry{call("1", "(cd test && make)"), res("1", "ok", false)}, fail...),
		"absolute path": append(slices.Clone(cdFirst), call("2", "cat /etc/x.conf"), res("2", "cat: /etc/x.conf: No such file or directory", true)),
	} {
		if g := got(es); g != "" {
			t.Errorf("%s: proposed %q", name, g)
		}
	}
}

func TestPermissionDeniedTool(t *testing.T) {
	call := func(id, tool string) index.MemEntry {
		return index.MemEntry{UUID: "c" + id, Role: "assistant", ToolUse: id, ToolName: tool, Input: []byte(`{}`)}
	}
	res := func(id, out string, isErr bool) index.MemEntry {
		return index.MemEntry{UUID: "r" + id, Role: "tool", ToolUse: id, Text: out, IsError: isErr}
	}
	deny := "Claude requested permissions to use WebSearch, but you haven't granted it yet."
	got := func(es []index.MemEntry) []string {
		var out []string
		for _, c := range extractCandidates(es) {
			if c.rule == "tool:permission-denied" {
				out = append(out, c.content)
			}
		}
		return out
	}
	twice := []index.MemEntry{call("1", "WebSearch"), res("1", deny, true), call("2", "WebSearch"), res("2", deny, true)}
	if g := got(twice); len(g) != 1 || !strings.Contains(g[0], "`--allowedTools WebSearch`") {
		t.Errorf("denied twice: got %q, want one proposal naming --allowedTools WebSearch", g)
	}
	// Granted later (a call of the tool ran), or another error: nothing.
	if g := got(append(slices.Clone(twice), call("3", "WebSearch"), res("3", "results…", false))); len(g) != 0 {
		t.Errorf("granted later: proposed %q", g)
	}
	if g := got([]index.MemEntry{call("1", "WebSearch"), res("1", "rate limited", true)}); len(g) != 0 {
		t.Errorf("other error: proposed %q", g)
	}
}

// A tool's limit is said with the fix Claude states next, and only with
// a fix that names what to do.
func TestLimitWithTheFixSaidNext(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"Vercel doesn't have SSH keys set up, so it can't clone via the `git@github.com:` URL. We need to change the submodule to use HTTPS instead:",
			"Vercel doesn't have SSH keys set up, so it can't clone via the `git@github.com:` URL: change the submodule to use HTTPS instead"},
		{"Vercel doesn't have SSH keys set up, so it can't clone via the `git@github.com:` URL. We need to check this.",
			"Vercel doesn't have SSH keys set up, so it can't clone via the `git@github.com:` URL."},
	} {
		var got []string
		for _, c := range extractCandidates([]index.MemEntry{{UUID: "a1", Role: "assistant", Block: "text", Text: tc.text}}) {
			got = append(got, c.content)
		}
		if !slices.Contains(got, tc.want) {
			t.Errorf("%q:\n got %q\nwant %q", tc.text, got, tc.want)
		}
	}
}

// Of two "Errors and fixes" items of one summary naming one error, the
// later account is the memory; items naming different errors stay apart,
// and so do the same error's items in two summaries.
func TestSummaryErrorTwiceJoined(t *testing.T) {
	first := `Compiler "unused alias" for aliases in rescue blocks: Elixir compiler doesn't track alias usage inside rescue. Fixed with the full module path.`
	second := `Multiple "unused alias" compile errors: Caused by adding alias in one edit and usage in a subsequent edit.`
	other := `"BadMapError" in the OTEL processor config: the nested exporter format was wrong. Fixed by using the flat config format.`
	var cs candidateSet
	for _, c := range []string{first, other, second} {
		cs.add(candidate{rule: "compact:errors-and-fixes", uuids: []string{"s1"}, content: c})
	}
	cs.add(candidate{rule: "compact:errors-and-fixes", uuids: []string{"s2"}, content: `Repeated "unused alias" warnings from the compile hook: add the alias and its use in one edit, every time.`})
	if len(cs.out) != 3 || cs.out[0].content != second || !slices.Equal(cs.out[0].uuids, []string{"s1"}) {
		for _, c := range cs.out {
			t.Logf("%v: %s", c.uuids, c.content)
		}
		t.Fatalf("want the summary's later account of one error as its memory, the other error and the other summary's item apart: %d", len(cs.out))
	}
}

// A rejected plan is named by its title, and the approval that ends the
// feedback is not part of it.
func TestRejectedPlanSaysWhichPlan(t *testing.T) {
	plan := index.MemEntry{UUID: "p1", Role: "assistant", ToolName: "ExitPlanMode", ToolUse: "t1",
		Input: []byte(`{"plan":"## Plan: Make Project Installable as UV Tool\n\n### Changes\n1. Rename the script"}`)}
	reason := index.MemEntry{UUID: "r1", Role: "user", Source: "rejection", ToolUse: "t1",
		Text: "Let's keep the name of the py file but change the pyproject script to reference it, otherwise gtg"}
	want := "Rejected Claude's plan “Make Project Installable as UV Tool”: Let's keep the name of the py file but change the pyproject script to reference it"
	var got []string
	for _, c := range extractCandidates([]index.MemEntry{plan, reason}) {
		got = append(got, c.content)
	}
	if !slices.Contains(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if planTitle([]byte(`{"plan":"Just do it"}`)) != "" {
		t.Error("a plan without a heading has a title")
	}
}

// A proposal's sentences start with a capital when they start with an
// everyday word; names, code and what follows an ellipsis keep their case.
func TestSentenceCase(t *testing.T) {
	for in, want := range map[string]string{
		"now we have cache. also we don't need to check": "Now we have cache. Also we don't need to check",
		"query_one shadowing: use patch.object()":        "query_one shadowing: use patch.object()",
		"npm is slow here. pnpm is not":                  "npm is slow here. pnpm is not",
		"passed `do ... end` as a list. so it failed":    "Passed `do ... end` as a list. So it failed",
		"wait... then it works":                          "Wait... then it works",
	} {
		if got := sentenceCase(in); got != want {
			t.Errorf("sentenceCase(%q) = %q, want %q", in, got, want)
		}
	}
}

// The person's tip naming a program gets the call of it that worked
// after it; a call that failed, or that only lists, is not it.
func TestToolTipWithTheRunThatWorked(t *testing.T) {
	tip := index.MemEntry{UUID: "u1", Role: "user", Text: "We should add a GitHub Action to run tests and linting. You can test it with `act`."}
	call := func(id, cmd string) index.MemEntry {
		return index.MemEntry{UUID: "c" + id, Role: "assistant", ToolName: "Bash", ToolUse: "t" + id, Input: []byte(`{"command":"` + cmd + `"}`)}
	}
	result := func(id string, failed bool, text string) index.MemEntry {
		return index.MemEntry{UUID: "r" + id, Role: "tool", ToolUse: "t" + id, IsError: failed, Text: text}
	}
	es := []index.MemEntry{tip,
		call("1", "act -l"), result("1", false, "Stage  Job ID"),
		call("2", "act -j test"), result("2", true, "Error: Job 'test' failed"),
		call("3", "act --container-architecture linux/amd64 -j test"), result("3", false, "Job succeeded"),
		call("4", "act --container-architecture linux/amd64 -j lint"), result("4", true, "Error: Job 'lint' failed"),
	}
	for _, c := range extractCandidates(es) {
		if strings.Contains(c.content, "`act`") {
			if !strings.HasSuffix(c.content, "(run as `act --container-architecture linux/amd64 -j test`)") {
				t.Errorf("got %q", c.content)
			}
			return
		}
	}
	t.Errorf("the tip was not proposed: %v", extractCandidates(es))
}

// A command is named without its here-document.
func TestCallLabelWithoutHeredoc(t *testing.T) {
	for cmd, want := range map[string]string{
		"git commit -m \"$(cat <<'EOF'\nfeat: a long message\n\nCo-Authored-By: x\nEOF\n)\"": "`git commit -m …`",
		"cat > types/README.md << 'EOF'\n# Types\nEOF":                                       "`cat > types/README.md …`",
		"go test ./... 2>&1 | tail -5":                                                       "`go test ./... 2>&1 | tail -5`",
	} {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		if got := callLabel(index.MemEntry{ToolName: "Bash", Input: in}); got != want {
			t.Errorf("callLabel(%q) = %q, want %q", cmd, got, want)
		}
	}
}
