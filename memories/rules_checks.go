package memories

import (
	"regexp"
	"strings"

	"github.com/cairn-dev/cairn/index"
)

// The checks the person runs themselves. A command typed in Claude Code's
// prompt box after "!" (recorded as <bash-input>) is the person's own
// way of checking the project — `uv run ty check`, `uv run pytest -m
// "not (tui or browser)"` — not Claude's guess at it: the project's test,
// lint, type-check or build command, worth knowing next time. A command
// naming one file is that day's check and is left alone.

var bashInput = regexp.MustCompile(`(?s)^\s*<bash-input>(.*?)</bash-input>\s*$`)

// checkWord marks a command that tests, lints, type-checks or builds.
var checkWord = regexp.MustCompile(`(?i)\b(pytest|tests?|ty check|mypy|pyright|ruff|eslint|tsc|vitest|jest|lint|check|build|credo|dialyzer|vet|clippy|rspec|phpunit)\b`)

// namesFile is a word of a command that is a file path.
var namesFile = regexp.MustCompile(`\S+\.(py|ts|tsx|js|jsx|go|rs|rb|ex|exs|java|kt|c|cc|cpp|h|php|swift)\b|\S+/\S+`)

// verboseFlag is an option that only makes the output longer.
var verboseFlag = regexp.MustCompile(`\s+(-v|-vv|--verbose)\b`)

// checkedByHand opens a user:bash-check proposal; the command follows, in
// backticks.
const checkedByHand = "The user checks the project with `"

// bashCheckCandidate proposes the check command a person ran by hand.
func bashCheckCandidate(e index.MemEntry, add func(candidate)) {
	m := bashInput.FindStringSubmatch(e.Text)
	if m == nil {
		return
	}
	cmd := strings.TrimSpace(verboseFlag.ReplaceAllString(oneLine(m[1]), ""))
	if len(cmd) > 120 || !checkWord.MatchString(cmd) || namesFile.MatchString(cmd) {
		return
	}
	add(candidate{typ: Pattern, content: checkedByHand + cmd + "` (run by hand)", importance: 2,
		uuids: []string{e.UUID}, rule: "user:bash-check", tags: []string{"command"}})
}
