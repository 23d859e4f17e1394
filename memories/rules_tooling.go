package memories

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/index"
)

// Conventions the project's tooling enforces. A gate that refuses a
// commit until its checks pass (a git pre-commit hook, the pre-commit
// framework, husky and lint-staged, a Claude Code hook on `git commit`),
// and a test run that fails below a coverage threshold, are rules of the
// project no one needs to say: the next session meets them at the worst
// time, after the work is done. Claude Code records both in a Bash call's
// result: "Pre-commit validation failed: [FORMAT] … [CREDO] …",
// "ruff.....Failed / - hook id: ruff", "✖ eslint --fix [FAILED]",
// "FAIL Required test coverage of 90% not reached", "Jest: "global"
// coverage threshold for lines (80%) not met". One memory per session and
// gate says what the gate runs or the coverage it requires, and, when a
// commit with --no-verify was refused too, that the flag does not bypass
// it. A commit that went through, a hook that only reports, and a
// coverage report with no threshold are not proposed; nor a threshold the
// command itself set (`pytest --cov-fail-under=99`): that is the
// session's choice, not the project's.

// gitCommit is a shell command that commits.
var gitCommit = regexp.MustCompile(`(?:^|[\s;&|(])git\s+(?:-[Cc]\s+\S+\s+)*commit\b`)

// commitCall reports a command that commits: one saying `git commit`,
// or a git command the store shortened (its middle left out: a long `git
// add <files> && git commit -m …` can lose the commit there).
func commitCall(cmd string) bool {
	return gitCommit.MatchString(cmd) || strings.Contains(cmd, " omitted] …\n") && strings.HasPrefix(afterSetup(cmd), "git ")
}

// gateMark is what a refused commit's output says when a hook or gate
// refused it (not git itself: nothing to commit, no identity).
var gateMark = regexp.MustCompile(`(?im)\bpre-commit\b|\bcommit-msg\b|\bhusky\b|\blint-staged\b|\blefthook\b|^- hook id:|hook error|blocked by (?:a )?hook`)

// The checks a gate's output names.
var (
	// the pre-commit framework: "ruff.....Failed", "- hook id: ruff"
	gateHookLine = regexp.MustCompile(`(?m)^(\S[^.\n]{1,60}?)\.{3,}(?:\([^)\n]*\))?(?:Passed|Failed|Skipped)\s*$`)
	gateHookID   = regexp.MustCompile(`(?m)^- hook id: (\S+)`)
	// a script's sections: "[FORMAT] Code is not formatted."
	gateSection = regexp.MustCompile(`(?m)^\s*\[([A-Z][A-Z0-9 _-]{1,24})\]`)
	// lint-staged: "✖ eslint --fix [FAILED]", "✖ eslint --fix:"
	gateTask = regexp.MustCompile(`(?m)^\s*(?:✖|\[FAILED\])\s+([^\s\[\]:…][^\n\[\]:…]{1,60}?)(?:\s+\[FAILED\]|:)\s*$`)
	// Claude Code: "PreToolUse:Bash hook error: [cmd]: …", "blocked by hook:\n- [cmd]: …"
	gateHookCmd = regexp.MustCompile(`(?:hook error:|blocked by hook:\s*-)\s*\[([^\]\n]{2,80})\]`)
	// the fix a section names: "Run 'mix format' to fix."
	gateFixHint = regexp.MustCompile("(?i)\\brun\\s+['\"`]([^'\"`\\n]{2,40})['\"`]")
)

// gateStatus are bracketed words that are a status, not a check.
var gateStatus = []string{"info", "warn", "warning", "error", "ok", "fail", "failed", "pass", "passed", "started",
	"completed", "success", "debug", "note", "skipped", "hint", "notice"}

// checkish marks a check checkWord does not: a formatter, a type or
// static checker, an audit.
var checkish = regexp.MustCompile(`(?i)\b(format|fmt|formatter|prettier|black|isort|gofmt|goimports|rustfmt|biome|stylelint|typecheck|type-check|types|dialyzer|golangci-lint|staticcheck|shellcheck|flake8|pylint|audit|coverage)\b`)

// coverageLines is a test run's line saying the coverage it requires:
// pct is the threshold, kind what it counts (lines, branches) when said.
var coverageLines = []*regexp.Regexp{
	// pytest-cov (reached or not: either way the run fails below it)
	regexp.MustCompile(`Required test coverage of (?P<pct>\d+(?:\.\d+)?)% (?:not )?reached`),
	// coverage.py's report --fail-under
	regexp.MustCompile(`Coverage failure: total of [\d.]+ is less than fail-under=(?P<pct>\d+(?:\.\d+)?)`),
	// jest
	regexp.MustCompile(`coverage threshold for (?P<kind>\w+) \((?P<pct>\d+(?:\.\d+)?)%\) not met`),
	// vitest, nyc and istanbul
	regexp.MustCompile(`Coverage for (?P<kind>\w+) \([\d.]+%\) does not meet (?:global )?threshold \((?P<pct>\d+(?:\.\d+)?)%\)`),
	// cargo tarpaulin
	regexp.MustCompile(`Coverage is below the failure threshold [\d.]+% < (?P<pct>\d+(?:\.\d+)?)%`),
	// simplecov
	regexp.MustCompile(`(?:(?P<kind>Line|Branch) )?[Cc]overage \([\d.]+%\) is below the expected minimum coverage \((?P<pct>\d+(?:\.\d+)?)%\)`),
	// go-test-coverage
	regexp.MustCompile(`[Tt]otal (?:test )?coverage threshold \((?P<pct>\d+(?:\.\d+)?)%\) satisfied:\s*FAIL`),
}

// ownThreshold is a command that sets a coverage threshold itself.
var ownThreshold = regexp.MustCompile(`(?i)fail[-_]under|threshold|min(?:imum)?[-_]coverage|--cov-min`)

// branchColumn is coverage.py's report header when it counts branches.
var branchColumn = regexp.MustCompile(`(?m)^Name\s+Stmts\s+Miss\s+Branch\s+BrPart\s+Cover`)

// toolingCandidates proposes the session's commit gate and coverage
// gate (see above), one memory each.
func toolingCandidates(entries []index.MemEntry) []candidate {
	var (
		calls = map[string]index.MemEntry{}
		cg    commitGate
		cov   coverageGate
	)
	for _, e := range entries {
		if e.Sidechain {
			continue
		}
		if _, ok := bashCall(e); ok {
			calls[e.ToolUse] = e
			continue
		}
		call, ok := calls[e.ToolUse]
		if e.Role != "tool" || !ok || harnessError(e.Text) {
			continue
		}
		sc, _ := bashCall(call)
		out := strings.ReplaceAll(ansiMark.ReplaceAllString(e.Text, ""), `\n`, "\n")
		if commitCall(sc.cmd) && (e.IsError || failedOutput(out)) && gateMark.MatchString(out) {
			cg.add(sc.cmd, out, call.UUID, e.UUID)
			continue
		}
		if ownThreshold.MatchString(sc.cmd) || commandKey(sc.cmd) == "" {
			continue // the command's own threshold, or a file or log read (cat, grep)
		}
		cov.add(sc.cmd, out, call.UUID, e.UUID)
	}
	var cs []candidate
	for _, c := range []func() (candidate, bool){cg.candidate, cov.candidate} {
		if c, ok := c(); ok {
			cs = append(cs, c)
		}
	}
	return cs
}

// commitGate is what the session's refused commits said of their gate.
type commitGate struct {
	checks   []string
	gate     string
	noVerify bool
	uuids    []string
}

// add reads one refused commit: the checks it names (a refusal naming
// none, a protected branch or a message format, is not a gate of checks)
// and whether it was tried with --no-verify.
func (g *commitGate) add(cmd, out, callUUID, resultUUID string) {
	named := gateChecks(out)
	if len(named) == 0 {
		return
	}
	added := false
	for _, n := range named {
		if !slices.ContainsFunc(g.checks, func(c string) bool { return strings.EqualFold(c, n) }) && len(g.checks) < 6 {
			g.checks, added = append(g.checks, n), true
		}
	}
	line, _, _ := strings.Cut(cmd, "\n")
	if strings.Contains(line, "--no-verify") && !g.noVerify {
		g.noVerify, added = true, true
	}
	if g.gate == "" {
		g.gate = gateName(out)
	}
	if added && len(g.uuids) < 4 {
		g.uuids = append(g.uuids, callUUID, resultUUID)
	}
}

func (g *commitGate) candidate() (candidate, bool) {
	if len(g.checks) == 0 {
		return candidate{}, false
	}
	one, them := "one fails", "them"
	if len(g.checks) == 1 {
		one, them = "it fails", "it"
	}
	content := "`git commit` is gated by a " + g.gate + " running " + joinList(g.checks) + ": it refuses the commit when " + one
	if g.noVerify {
		content += ", and `--no-verify` does not bypass it"
	}
	content += "; run " + them + " before committing"
	return candidate{typ: Pattern, importance: 3, uuids: g.uuids, rule: "tool:commit-gate", tags: []string{"command"}, content: content}, true
}

// coverageGate is the coverage thresholds the session's test runs said,
// the latest per kind, with the first run that said one.
type coverageGate struct {
	thresholds []threshold
	cmd        string
	branches   bool
	uuids      []string
}

// threshold is a required coverage: pct, and what it counts (lines,
// branches) when said.
type threshold struct{ kind, pct string }

func (g *coverageGate) add(cmd, out, callUUID, resultUUID string) {
	for _, re := range coverageLines {
		for _, m := range re.FindAllStringSubmatch(out, -1) {
			t := threshold{pct: m[re.SubexpIndex("pct")]}
			if k := re.SubexpIndex("kind"); k >= 0 {
				t.kind = strings.ToLower(m[k])
			}
			if i := slices.IndexFunc(g.thresholds, func(o threshold) bool { return o.kind == t.kind }); i >= 0 {
				g.thresholds[i] = t // the latest said
			} else {
				g.thresholds = append(g.thresholds, t)
			}
			if g.uuids == nil {
				g.uuids = []string{callUUID, resultUUID}
				g.cmd = shortCommand(cmd)
			}
			g.branches = g.branches || branchColumn.MatchString(out)
		}
	}
}

func (g *coverageGate) candidate() (candidate, bool) {
	if g.uuids == nil {
		return candidate{}, false
	}
	req := make([]string, len(g.thresholds))
	for i, t := range g.thresholds {
		req[i] = t.pct + "% " + cmp.Or(t.kind, g.totalKind())
	}
	run := "the test run"
	if g.cmd != "" {
		run = "`" + g.cmd + "`"
	}
	return candidate{typ: Pattern, importance: 3, uuids: g.uuids, rule: "tool:coverage-gate", tags: []string{"command"},
		content: "The project requires test coverage of " + joinList(req) + ": " + run + " fails below it"}, true
}

// totalKind is what a threshold that names no kind counts.
func (g *coverageGate) totalKind() string {
	if g.branches {
		return "(total, branches counted)"
	}
	return "(total)"
}

// gateChecks are the checks a refused commit's output names (see the
// shapes above), each once, as the output says them.
func gateChecks(out string) []string {
	var names []string
	add := func(n string) {
		n = strings.TrimSpace(n)
		if n == "" || len(n) > 60 || !checkWord.MatchString(n) && !checkish.MatchString(n) ||
			slices.ContainsFunc(names, func(o string) bool { return strings.EqualFold(o, n) }) {
			return
		}
		names = append(names, n)
	}
	for _, m := range gateHookCmd.FindAllStringSubmatch(out, -1) {
		add(m[1])
	}
	for _, re := range []*regexp.Regexp{gateHookID, gateHookLine, gateTask} {
		for _, m := range re.FindAllStringSubmatch(out, -1) {
			add(m[1])
		}
	}
	var hints []string
	for _, m := range gateFixHint.FindAllStringSubmatch(out, -1) {
		hints = append(hints, m[1])
	}
	for _, m := range gateSection.FindAllStringSubmatch(out, -1) {
		w := strings.ToLower(strings.TrimSpace(m[1]))
		if slices.Contains(gateStatus, w) {
			continue
		}
		// "[FORMAT] … Run 'mix format' to fix": the command says it best
		if i := slices.IndexFunc(hints, func(h string) bool { return strings.Contains(strings.ToLower(h), w) }); i >= 0 {
			w = hints[i]
		}
		add(w)
	}
	return names
}

// gateName is what refused the commit, as its output calls it.
func gateName(out string) string {
	switch l := strings.ToLower(out); {
	case strings.Contains(l, "commit-msg"):
		return "commit-msg hook"
	case strings.Contains(l, "pre-commit"), strings.Contains(l, "husky"), strings.Contains(l, "lint-staged"), strings.Contains(l, "lefthook"):
		return "pre-commit check"
	}
	return "commit hook"
}

// shortCommand is cmd's first line after its setup (cd, source), when
// it is short and plain enough to quote; "" otherwise.
func shortCommand(cmd string) string {
	c := strings.TrimSpace(afterSetup(cmd))
	if strings.HasSuffix(c, ")") && !strings.Contains(c, "(") {
		c = strings.TrimSpace(strings.TrimSuffix(c, ")"))
	}
	if c == "" || len(c) > 60 || strings.ContainsAny(c, "\n'\"`|;<>") {
		return ""
	}
	return c
}
