package memories

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"

	json "github.com/go-json-experiment/json"
)

// retrySession is a session built from steps: "$ cmd" a Bash call, "ok:
// out" / "err: out" its result, "edit: path" an Edit of a file and its
// result, "user: text" a prompt.
func retrySession(steps ...string) []index.MemEntry {
	var es []index.MemEntry
	call := ""
	for i, s := range steps {
		id := "e" + string(rune('a'+i))
		e := index.MemEntry{UUID: id}
		switch {
		case strings.HasPrefix(s, "$ "), strings.HasPrefix(s, "edit: "):
			call = "tu" + id
			e.Role, e.Block, e.ToolUse, e.ToolName = "assistant", "tool_use", call, "Bash"
			in := map[string]string{"command": strings.TrimPrefix(s, "$ ")}
			if p, ok := strings.CutPrefix(s, "edit: "); ok {
				e.ToolName, in = "Edit", map[string]string{"file_path": p, "old_string": "a", "new_string": "b"}
			}
			b, err := json.Marshal(in)
			if err != nil {
				panic(err)
			}
			e.Input = b
			es = append(es, e)
			if e.ToolName == "Edit" {
				es = append(es, index.MemEntry{UUID: id + "r", Role: "tool", Block: "tool_result", ToolUse: call, Text: "The file has been updated."})
			}
			continue
		case strings.HasPrefix(s, "ok: "), strings.HasPrefix(s, "err: "):
			k, out, _ := strings.Cut(s, ": ")
			e.Role, e.Block, e.ToolUse, e.Text, e.IsError = "tool", "tool_result", call, out, k == "err"
		case strings.HasPrefix(s, "user: "):
			e.Role, e.Block, e.Text = "user", "text", s[6:]
		}
		es = append(es, e)
	}
	return es
}

// TestRetryShapes: each shape of a command that works where the same
// goal failed for how or where it ran is one lesson, with its error.
func TestRetryShapes(t *testing.T) {
	for name, c := range map[string]struct {
		steps []string
		want  string
	}{
		"wrapper": {[]string{
			"$ source scripts/lib/trace.sh && \\\ntrace_id 16 | grep -E '^[0-9a-f]{32}$'", "err: Exit code 1\n(eval):1: permission denied:",
			"$ bash -c '\nsource scripts/lib/trace.sh\nid=$(trace_id 16)\necho \"$id\"\n'", "ok: 5f1681cc2ece59196b8dae165cd732ff"},
			"The Bash tool's shell is zsh: `bash -c 'source scripts/lib/trace.sh; …'` works where `source scripts/lib/trace.sh && …` fails ((eval):1: permission denied:)"},
		"login shell": {[]string{
			"$ npm test", "err: Exit code 127\n/bin/bash: line 1: npm: command not found",
			"$ bash -lc 'npm test'", "ok: 3 passed"},
			"`bash -lc 'npm test'` works where `npm test` fails (/bin/bash: line 1: npm: command not found)"},
		"folder": {[]string{
			"$ node assets/build.js 2>&1", "err: Exit code 1\n✘ [ERROR] Could not resolve \"js/app.js\"",
			"$ cd /home/ana/proj/assets && node build.js 2>&1", "ok: built"},
			"`cd assets && node build.js` works where `node assets/build.js` fails (✘ [ERROR] Could not resolve \"js/app.js\")"},
		"venv": {[]string{
			"$ pytest", "err: Exit code 127\n/bin/bash: line 1: pytest: command not found",
			"$ (source .venv/bin/activate && pytest)", "ok: ===== 12 passed ====="},
			"`source .venv/bin/activate && pytest` works where `pytest` fails (/bin/bash: line 1: pytest: command not found)"},
		"compound": {[]string{
			"$ npm run build", "err: Exit code 1\nError: Cannot find module 'esbuild'",
			"$ npm ci && npm run build", "ok: done"},
			"`npm ci && npm run build` works where `npm run build` fails (Error: Cannot find module 'esbuild')"},
		"environment variable": {[]string{
			"$ python scripts/seed.py", "err: Exit code 1\nModuleNotFoundError: No module named 'app'",
			"$ export PYTHONPATH=. && python scripts/seed.py", "ok: seeded"},
			"`export PYTHONPATH=. && python scripts/seed.py` works where `python scripts/seed.py` fails (ModuleNotFoundError: No module named 'app')"},
		"runner": {[]string{
			"$ ruff check src/", "err: Exit code 127\n(eval):1: command not found: ruff",
			"$ ls", "ok: src",
			"$ uv run ruff check src/", "ok: All checks passed!"},
			"`uv run ruff check src/` works where `ruff check src/` fails ((eval):1: command not found: ruff)"},
		"the oldest of three failures": {[]string{
			"$ pytest", "err: Exit code 127\n/bin/bash: line 1: pytest: command not found",
			"$ mix compile", "err: ** (Mix) Could not find task \"compile\"",
			"$ cargo build", "err: error: could not find `Cargo.toml`",
			"$ (source .venv/bin/activate && pytest)", "ok: ===== 12 passed ====="},
			"`source .venv/bin/activate && pytest` works where `pytest` fails (/bin/bash: line 1: pytest: command not found)"},
		// What the near-misses "mix says" and "ubuntu says" print, without
		// the advice.
		"a step before": {[]string{
			"$ mix credo --strict", "err: Exit code 1\n** (Mix) The task \"credo\" could not be found",
			"$ mix deps.get && mix credo --strict", "ok: no issues"},
			"`mix deps.get && mix credo --strict` works where `mix credo --strict` fails (** (Mix) The task \"credo\" could not be found)"},
		"another program, Ubuntu": {[]string{
			"$ python x.py", "err: Command 'python' not found\n",
			"$ python3 x.py", "ok: done"},
			"`python3 x.py` works where `python x.py` fails (Command 'python' not found)"},
		"another program": {[]string{
			"$ python manage.py migrate", "err: Exit code 127\nzsh: command not found: python",
			"$ python3 manage.py migrate", "ok: No migrations to apply."},
			"`python3 manage.py migrate` works where `python manage.py migrate` fails (zsh: command not found: python)"},
		"added option": {[]string{
			"$ go test ./...", "err: Exit code 1\nflag provided but not defined: -v2\nusage: go test",
			"$ go test -count=1 ./...", "ok: ok"},
			"`go test -count=1 ./...` works where `go test ./...` fails (usage: go test)"},
	} {
		got := contents(commandCandidates(retrySession(c.steps...)))
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: got %q\nwant %q", name, got, c.want)
		}
	}
}

// TestRetryNearMisses: retries that teach nothing about the command.
func TestRetryNearMisses(t *testing.T) {
	for name, steps := range map[string][]string{
		// The code changed between them: a fix of the code.
		"after an edit": {"$ pytest", "err: /bin/bash: line 1: pytest: command not found",
			"edit: pyproject.toml", "$ uv run pytest", "ok: 3 passed"},
		"after a shell edit": {"$ npm run build", "err: Error: Cannot find module './config'",
			"$ cat > config.js <<'EOF'\nmodule.exports = {}\nEOF", "ok: ",
			"$ npm ci && npm run build", "ok: done"},
		// Another file, or the same file by another path.
		"another file": {"$ python a.py", "err: python: can't open file 'a.py': [Errno 2] No such file or directory",
			"$ python b.py", "ok: done"},
		"another path": {"$ ruff check claude_code_log/renderer.py", "err: claude_code_log/renderer.py:1:1: E902 No such file or directory",
			"$ ruff check /Users/ana/proj/claude_code_log/renderer.py", "ok: All checks passed!"},
		// A cd back to the project's root before the same command is
		// the recovery from a persisting cd (rules_cd.go's lesson).
		"cd back": {"$ uv run pytest test/test_x.py", "err: ERROR: no such file or directory: test/test_x.py",
			"$ cd /Users/ana/proj && uv run pytest test/test_x.py", "ok: 3 passed"},
		// The error prints what to run.
		"git says": {"$ git push", "err: fatal: The current branch f has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream origin f\n",
			"$ git push --set-upstream origin f", "ok: branch 'f' set up to track 'origin/f'."},
		"ubuntu says": {"$ python x.py", "err: Command 'python' not found, did you mean:\n  command 'python3' from deb python3\n",
			"$ python3 x.py", "ok: done"},
		"mix says": {"$ mix credo --strict", "err: Exit code 1\n** (Mix) The task \"credo\" could not be found. Run mix deps.get",
			"$ mix deps.get && mix credo --strict", "ok: no issues"},
		// The same command passing: flaky, or fixed elsewhere.
		"flaky pass": {"$ npm test", "err: Error: Cannot find module 'x'", "$ npm test", "ok: 3 passed"},
		// A failure of the tests, not of the invocation.
		"test failure": {"$ npm test", "err: Exit code 1\nExpected 3, received 4", "$ npm test -- --verbose", "ok: 3 passed"},
		// Another tool for another job, after a program not found.
		"fallback": {"$ tree src -L 3", "err: Exit code 127\n(eval):1: command not found: tree", "$ find src -type d", "ok: src"},
		// An idle step is not setup.
		"sleep": {"$ node server.js", "err: Error: Cannot find module 'express'", "$ sleep 2 && node server.js", "ok: listening"},
		// Too late to be its fix.
		"far": {"$ pytest", "err: pytest: command not found",
			"$ make a", "ok: ", "$ make b", "ok: ", "$ make c", "ok: ", "$ make d", "ok: ", "$ make e", "ok: ",
			"$ (source .venv/bin/activate && pytest)", "ok: 3 passed"},
	} {
		if got := contents(commandCandidates(retrySession(steps...))); len(got) > 0 {
			t.Errorf("%s: proposed %q", name, got)
		}
	}
}

// TestRetryOnce: a lesson learned twice in a session is said once, from
// its first pair.
func TestRetryOnce(t *testing.T) {
	got := commandCandidates(retrySession(
		"$ pytest", "err: pytest: command not found", "$ (source .venv/bin/activate && pytest)", "ok: 3 passed",
		"user: and the other tests",
		"$ pytest", "err: pytest: command not found", "$ (source .venv/bin/activate && pytest)", "ok: 5 passed"))
	if len(got) != 1 || strings.Join(got[0].uuids, " ") != "ea ec ed" {
		t.Fatalf("got %+v", got)
	}
}
