package memories

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
)

// toolingSession is a session of Bash calls, each with its result: cmd,
// output, and whether the result is an error, by threes.
func toolingSession(runs ...any) []index.MemEntry {
	var es []index.MemEntry
	for i := 0; i+2 < len(runs); i += 3 {
		id := "t" + strconv.Itoa(i/3)
		es = append(es,
			index.MemEntry{UUID: "c" + id, Role: "assistant", Block: "tool_use", ToolName: "Bash", ToolUse: id,
				Input: []byte(`{"command":` + jsonString(runs[i].(string)) + `}`)},
			index.MemEntry{UUID: "r" + id, Role: "tool", Block: "tool_result", ToolUse: id, Text: runs[i+1].(string), IsError: runs[i+2].(bool)})
	}
	return es
}

// toolingRules are the tool: rules' proposals of es, "rule: content".
func toolingRules(es []index.MemEntry) []string {
	var got []string
	for _, c := range extractCandidates(es) {
		if strings.HasPrefix(c.rule, "tool:") {
			got = append(got, c.rule+": "+c.content)
		}
	}
	return got
}

// A commit gate is proposed once per session, with every check its
// refusals named and, when a --no-verify commit was refused too, that the
// flag does not bypass it; each output shape names its checks.
func TestCommitGate(t *testing.T) {
	es := toolingSession(
		"git add -A && git commit -m \"feat: otel\"",
		`Pre-commit validation failed:\n\n[FORMAT] Code is not formatted.\nRun 'mix format' to fix.\n\nFix these issues before committing.`, true,
		"git commit -m \"feat: otel\"",
		"Pre-commit validation failed:\\n\\n[CREDO]\nChecking 88 source files ...\n┃ [F] → Function is too complex\n\\n\\n[DIALYZER]\nTotal errors: 2", true,
		"git commit --no-verify -m \"feat: otel\"",
		"Pre-commit validation failed:\\n\\n[DIALYZER]\nTotal errors: 2", true,
	)
	want := []string{"tool:commit-gate: `git commit` is gated by a pre-commit check running mix format, credo and dialyzer: " +
		"it refuses the commit when one fails, and `--no-verify` does not bypass it; run them before committing"}
	if got := toolingRules(es); !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}

	// A long command the store shortened can lose its `git commit`.
	cut := "git add lib/a.ex lib/b.ex\n… [435 B omitted] …\nCo-Authored-By: Claude\nEOF\n)\""
	if got := toolingRules(toolingSession(cut, `Pre-commit validation failed:\n\n[FORMAT] Code is not formatted.\nRun 'mix format' to fix.`, true)); len(got) != 1 {
		t.Errorf("a shortened commit: got %q", got)
	}

	for name, c := range map[string]struct{ out, want string }{
		"pre-commit framework": {
			"Exit code 1\n[INFO] Initializing environment for https://github.com/astral-sh/ruff-pre-commit.\n" +
				"trim trailing whitespace.................................................Passed\n" +
				"ruff.....................................................................Failed\n" +
				"- hook id: ruff\n- exit code: 1\n\nfoo.py:1:1: F401 `os` imported but unused\n" +
				"mypy.....................................................................Passed",
			"ruff and mypy"},
		"husky and lint-staged": {
			"Exit code 1\n✔ Preparing lint-staged...\n❯ Running tasks for staged files...\n  ❯ *.{js,ts} — 1 file\n    ✖ eslint --fix [FAILED]\n" +
				"↓ Skipped because of errors from tasks.\n\n✖ eslint --fix:\n/src/a.js\n  1:1  error  'x' is defined but never used\n" +
				"husky - pre-commit hook exited with code 1 (error)",
			"eslint --fix"},
		"Claude Code hook": {
			"PreToolUse:Bash hook error: [./scripts/pre-commit-check.sh]: go vet failed",
			"./scripts/pre-commit-check.sh"},
	} {
		got := toolingRules(toolingSession("git commit -m \"x\"", c.out, true))
		if len(got) != 1 || !strings.Contains(got[0], " running "+c.want+": it refuses") || strings.Contains(got[0], "no-verify") {
			t.Errorf("%s: got %q, want one gate running %s", name, got, c.want)
		}
	}
}

// Not a commit gate: a commit that went through (whatever its hook
// printed), a hook that only reports, a refusal naming no check, git's
// own refusal, a user's rejection, and a check failing outside a commit.
func TestCommitGateNearMisses(t *testing.T) {
	for name, es := range map[string][]index.MemEntry{
		"commit succeeded": toolingSession("git commit -m \"feat: x\"",
			"Pre-commit validation passed:\n\n[FORMAT] ok\n[CREDO] ok\n"+
				"ruff.....................................................................Passed\n[main 1a2b3c4] feat: x\n 1 file changed", false),
		"hook only notifies": toolingSession("git commit -m \"feat: x\"",
			"Exit code 1\npre-commit hook: notifying #dev channel\ncurl: (6) Could not resolve host: hooks.slack.com", true),
		"protected branch": toolingSession("git commit -m \"feat: x\"",
			"Exit code 1\npre-commit hook: direct commits to main are not allowed", true),
		"nothing to commit": toolingSession("git commit -m \"feat: x\"",
			"Exit code 1\nOn branch main\nnothing to commit, working tree clean", true),
		"rejected": toolingSession("git commit -m \"feat: x\"",
			"The user doesn't want to proceed with this tool use. The tool use was rejected", true),
		"not a commit": toolingSession("uv run pre-commit run --all-files",
			"Exit code 1\nruff.....................................................................Failed\n- hook id: ruff", true),
	} {
		if got := toolingRules(es); len(got) > 0 {
			t.Errorf("%s: got %q", name, got)
		}
	}
}

// A coverage threshold a test run enforces is proposed once per session
// (the latest threshold of each kind), from the shapes of pytest-cov,
// coverage.py, jest, vitest/nyc, tarpaulin and simplecov.
func TestCoverageGate(t *testing.T) {
	pytest := "================================ tests coverage ================================\n" +
		"Name                             Stmts   Miss Branch BrPart  Cover   Missing\n" +
		"----------------------------------------------------------------------------\n" +
		"TOTAL                              190      1     64      2    99%\n" +
		"FAIL Required test coverage of 100% not reached. Total coverage: 98.82%\n" +
		"============================== 66 passed in 3.84s =============================="
	es := toolingSession(
		"(source .venv/bin/activate && pytest)", pytest, false,
		"(source .venv/bin/activate && pytest)", strings.Replace(pytest, "FAIL Required test coverage of 100% not reached. Total coverage: 98.82%", "Required test coverage of 100% reached. Total coverage: 100.00%", 1), false,
	)
	want := []string{"tool:coverage-gate: The project requires test coverage of 100% (total, branches counted): `pytest` fails below it"}
	if got := toolingRules(es); !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}

	for out, want := range map[string]string{
		"Exit code 2\nCoverage failure: total of 87 is less than fail-under=90":                                                                                "90% (total): `npm test` fails",
		"Exit code 1\nJest: \"global\" coverage threshold for lines (80%) not met: 75.5%\nJest: \"global\" coverage threshold for branches (70%) not met: 60%": "80% lines and 70% branches",
		"Exit code 1\nERROR: Coverage for lines (75.5%) does not meet global threshold (80%)":                                                                  "80% lines",
		"Exit code 1\nERROR cargo_tarpaulin: Coverage is below the failure threshold 75.00% < 80.00%":                                                          "80.00% (total)",
		"Exit code 2\nLine coverage (85.00%) is below the expected minimum coverage (90.00%).":                                                                 "90.00% line",
	} {
		got := toolingRules(toolingSession("npm test", out, true))
		if len(got) != 1 || !strings.Contains(got[0], want) {
			t.Errorf("%q: got %q, want it to say %q", out, got, want)
		}
	}
}

// Not a coverage gate: a report with no threshold, a threshold the
// command set itself (the session's choice, not the project's), a log
// read with grep.
func TestCoverageGateNearMisses(t *testing.T) {
	report := "Name    Stmts   Miss  Cover\n-------------------------\nTOTAL     190     53    70%\n============ 40 passed in 3.03s ============"
	for name, es := range map[string][]index.MemEntry{
		"no threshold": toolingSession("pytest --cov=pkg --cov-report=term-missing", report, false),
		"own threshold": toolingSession("(source .venv/bin/activate && pytest --cov-fail-under=99)",
			report+"\nFAIL Required test coverage of 99% not reached. Total coverage: 98.82%", false),
		"a log read": toolingSession("grep -n Required ci.log", "12:FAIL Required test coverage of 90% not reached. Total coverage: 88.00%", false),
		"own jest threshold": toolingSession(`npx jest --coverage --coverageThreshold='{"global":{"lines":90}}'`,
			"Jest: \"global\" coverage threshold for lines (90%) not met: 75.5%", true),
	} {
		if got := toolingRules(es); len(got) > 0 {
			t.Errorf("%s: got %q", name, got)
		}
	}
}
