package memories

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
)

// envSession is a session built from steps: "$ cmd" a Bash call, "@Tool
// {json}" a call of another tool, "ok: out" / "err: out" the result of
// the oldest call not answered yet (so a batch of calls is answered in
// order), "claude: text" Claude's words, "user: text" a prompt.
func envSession(steps ...string) []index.MemEntry {
	var es []index.MemEntry
	var open []string
	for i, s := range steps {
		id := "e" + string(rune('a'+i))
		e := index.MemEntry{UUID: id}
		switch {
		case strings.HasPrefix(s, "$ "):
			e.Role, e.Block, e.ToolUse, e.ToolName = "assistant", "tool_use", "tu"+id, "Bash"
			e.Input = []byte(`{"command":` + envJSONString(s[2:]) + `}`)
			open = append(open, e.ToolUse)
		case strings.HasPrefix(s, "@"):
			name, in, _ := strings.Cut(s[1:], " ")
			e.Role, e.Block, e.ToolUse, e.ToolName, e.Input = "assistant", "tool_use", "tu"+id, name, []byte(in)
			open = append(open, e.ToolUse)
		case strings.HasPrefix(s, "ok: "), strings.HasPrefix(s, "err: "):
			k, out, _ := strings.Cut(s, ": ")
			e.Role, e.Block, e.ToolUse, e.Text, e.IsError = "tool", "tool_result", open[0], out, k == "err"
			open = open[1:]
		case strings.HasPrefix(s, "claude: "):
			e.Role, e.Block, e.Text = "assistant", "text", s[8:]
		case strings.HasPrefix(s, "user: "):
			e.Role, e.Block, e.Text = "user", "text", s[6:]
		}
		es = append(es, e)
	}
	return es
}

func envJSONString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

func collectEnvFacts(es []index.MemEntry) []candidate {
	var out []candidate
	envFactCandidates(es, func(c candidate) { out = append(out, c) })
	return out
}

const siblingWant = "Claude Code cancels the tool calls sent together with one that fails, a Bash command exiting non-zero included (\"Sibling tool call errored\"): the cancelled calls did not fail themselves and have to be sent again"

// TestEnvFactClasses: each class of environment fact a failed call
// proves fires on a minimal real-shaped transcript, saying what failed,
// why and what worked instead.
func TestEnvFactClasses(t *testing.T) {
	const root = "/home/USER/projects/app"
	reads := []string{ // calls that name the project's files: its folder is known
		`@Read {"file_path":"` + root + `/lib/app.ex"}`, "ok: defmodule App do",
		`@Read {"file_path":"` + root + `/config/config.exs"}`, "ok: import Config",
		`@Read {"file_path":"` + root + `/mix.exs"}`, "ok: defmodule App.MixProject do",
	}
	for name, c := range map[string]struct {
		steps      []string
		rule, want string
	}{
		"not installed, same path": {[]string{
			"$ tree " + root + "/lib -L 3", "err: Exit code 127\n(eval):1: command not found: tree",
			"claude: Let me look at the folders another way:",
			"$ find " + root + "/lib -type d | sort", "ok: " + root + "/lib\n" + root + "/lib/app"},
			"env:not-installed tree", "`tree` is not installed here (command not found: tree): `find lib -type d | sort` worked instead of `tree lib -L 3`"},
		"not installed, named by Claude": {[]string{
			"$ tree", "err: Exit code 127\n/bin/bash: line 1: tree: command not found",
			"claude: `tree` isn't available; I'll use find instead.",
			"$ find . -maxdepth 2 -type d", "ok: .\n./lib"},
			"env:not-installed tree", "`tree` is not installed here (tree: command not found): `find . -maxdepth 2 -type d` worked instead of `tree`"},
		"too large for Read": {[]string{
			`@Read {"file_path":"` + root + `/priv/static/assets/app.js"}`,
			"err: <tool_use_error>File content (806.5KB) exceeds maximum allowed size (256KB). Please use offset and limit parameters to read specific portions of the file, or use the GrepTool to search for specific content.</tool_use_error>",
			`@Read {"file_path":"` + root + `/priv/static/assets/app.js","limit":50}`, "ok:      1→(() => {"},
			"env:read-too-large " + root + "/priv/static/assets/app.js",
			"`priv/static/assets/app.js` is too large for the Read tool (File content (806.5KB) exceeds maximum allowed size (256KB)): a Read with `limit: 50` worked"},
		"too large, then Grep": {[]string{
			`@Read {"file_path":"` + root + `/test/fixtures/big.jsonl"}`,
			"err: File content (85812 tokens) exceeds maximum allowed tokens (25000). Please use offset and limit parameters to read specific portions of the file, or use the GrepTool to search for specific content.",
			`@Grep {"pattern":"agentId","path":"` + root + `/test/fixtures/big.jsonl","output_mode":"count"}`, "ok: 20"},
			"env:read-too-large " + root + "/test/fixtures/big.jsonl",
			"`test/fixtures/big.jsonl` is too large for the Read tool (File content (85812 tokens) exceeds maximum allowed tokens (25000)): `Grep` on it worked"},
		"too large, then head": {[]string{
			`@Read {"file_path":"` + root + `/data/dump.sql"}`,
			"err: File content (2.1MB) exceeds maximum allowed size (256KB). Please use offset and limit parameters to read specific portions of the file, or use the GrepTool to search for specific content.",
			"$ wc -l " + root + "/data/dump.sql", "ok: 48000",
			"$ head -n 40 " + root + "/data/dump.sql", "ok: CREATE TABLE users"},
			"env:read-too-large " + root + "/data/dump.sql",
			"`data/dump.sql` is too large for the Read tool (File content (2.1MB) exceeds maximum allowed size (256KB)): `head -n 40 data/dump.sql` worked"},
		"sibling cancelled": {[]string{
			"$ mix test 2>&1", `@Bash {"command":"npx vitest run 2>&1","description":"Run JS tests"}`,
			"err: Exit code 2\n  1) test renders (AppTest)\n     Assertion with == failed",
			"err: <tool_use_error>Sibling tool call errored</tool_use_error>",
			"claude: The test failed; let me run vitest again.",
			`@Bash {"command":"npx vitest run 2>&1","description":"Run vitest again"}`, "ok:  ✓ 12 tests passed"},
			"env:sibling-cancelled",
			siblingWant},
		"sibling cancelled, error after": {[]string{
			`@Read {"file_path":"` + root + `/lib/a.ex"}`, `@Read {"file_path":"` + root + `/lib/b.ex"}`, `@Read {"file_path":"` + root + `/lib/c.ex"}`,
			"err: <tool_use_error>Sibling tool call errored</tool_use_error>",
			"err: <tool_use_error>File does not exist.</tool_use_error>",
			"err: <tool_use_error>Sibling tool call errored</tool_use_error>",
			`@Read {"file_path":"` + root + `/lib/a.ex"}`, "ok: defmodule A do"},
			"env:sibling-cancelled",
			siblingWant},
		"partial read unlocks edit": {[]string{
			`@Edit {"file_path":"` + root + `/README.md","old_string":"a","new_string":"b"}`,
			"err: <tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>",
			`@Read {"file_path":"` + root + `/README.md","offset":1,"limit":50}`, "ok:      1→# App",
			`@Edit {"file_path":"` + root + `/README.md","old_string":"a","new_string":"b"}`, "ok: The file has been updated."},
			"env:partial-read",
			"Claude Code's Edit and Write refuse a file the session has not read (\"File has not been read yet\"), and a partial Read (`offset`/`limit`) of it is enough for the edit to go through"},
		"gitignored": {[]string{
			"$ git add lib/app.ex priv/static/assets/app.css && git commit -m 'feat: x'",
			"err: Exit code 1\nThe following paths are ignored by one of your .gitignore files:\npriv/static/assets\nhint: Use -f if you really want to add them.\nhint: Turn this message off by running\nhint: \"git config advice.addIgnoredFile false\"",
			"$ git add lib/app.ex && git commit -m 'feat: x'", "ok: [main 22450e1] feat: x"},
			"env:gitignored",
			"`priv/static/assets` is gitignored: `git add` of a file under it fails (\"The following paths are ignored by one of your .gitignore files\") unless forced with `git add -f`"},
		"outside the working directories": {[]string{
			"$ ls -la ~/.claude/ 2>/dev/null", "err: ls in '~/.claude' was blocked. For security, Claude Code may only list files in the allowed working directories for this session: '/src/experiments/claude_p'."},
			"env:outside-workdir",
			"Claude Code's tools reach only this session's working directories (`/src/experiments/claude_p`): `ls` in `~/.claude` was blocked (\"For security, Claude Code may only list files in the allowed working directories for this session\"); `claude --add-dir DIR` allows another"},
	} {
		t.Run(name, func(t *testing.T) {
			got := collectEnvFacts(envSession(append(append([]string{}, reads...), c.steps...)...))
			if len(got) != 1 {
				t.Fatalf("got %d proposals, want 1: %+v", len(got), got)
			}
			if got[0].rule != "env:"+strings.SplitN(strings.TrimPrefix(c.rule, "env:"), " ", 2)[0] || got[0].content != c.want || got[0].typ != Gotcha {
				t.Errorf("got %s %s %q\nwant %s %q", got[0].typ, got[0].rule, got[0].content, c.rule, c.want)
			}
			if len(got[0].uuids) < 2 {
				t.Errorf("sources %v: want the failed call and what showed the fact", got[0].uuids)
			}
		})
	}
}

// TestEnvFactNearMisses: the failures that teach nothing lasting, or
// that another rule says, propose nothing.
func TestEnvFactNearMisses(t *testing.T) {
	for name, steps := range map[string][]string{
		"typo": {"$ gti status", "err: Exit code 127\n(eval):1: command not found: gti",
			"$ git status", "ok: On branch main"},
		"short typo": {"$ sl -la", "err: Exit code 127\nzsh: command not found: sl", "$ ls -la", "ok: total 0"},
		"never worked around": {"$ tree src", "err: Exit code 127\n(eval):1: command not found: tree",
			"$ git log --oneline -3", "ok: abc123 fix"},
		"installed, then run": {"$ tree src", "err: Exit code 127\n(eval):1: command not found: tree",
			"$ brew install tree", "ok: 🍺  tree was successfully installed!", "$ tree src", "ok: src"},
		"another runner, same arguments (rules_retry.go's)": {"$ pytest -x tests", "err: Exit code 127\n/bin/bash: line 1: pytest: command not found",
			"$ uv run pytest -x tests", "ok: 3 passed"},
		"a new turn": {"$ tree src", "err: Exit code 127\n(eval):1: command not found: tree",
			"user: never mind, show me the log", "$ find src -name '*.go'", "ok: src/a.go"},
		"a missing script, not a program": {"$ ./scripts/build.sh", "err: Exit code 127\n(eval):1: no such file or directory: ./scripts/build.sh",
			"$ make build", "ok: built"},
		"transient network error": {"$ curl -sSf https://example.com/api", "err: Exit code 6\ncurl: (6) Could not resolve host: example.com",
			"$ curl -sSf https://example.com/api", "ok: {}"},
		"a site's error": {`@WebFetch {"url":"https://example.com/docs","prompt":"x"}`, "err: Request failed with status code 504",
			`@WebFetch {"url":"https://example.com/docs","prompt":"x"}`, "ok: docs"},
		"too large, never read": {`@Read {"file_path":"/p/app.js"}`, "err: File content (806.5KB) exceeds maximum allowed size (256KB).",
			`@Read {"file_path":"/p/other.js","limit":20}`, "ok: x"},
		"sibling cancelled, never sent again": {"$ mix test", "$ npx vitest run", "err: Exit code 2\n1) test x", "err: <tool_use_error>Sibling tool call errored</tool_use_error>",
			"$ ls", "ok: a b"},
		"full read before the edit": {`@Edit {"file_path":"/p/README.md","old_string":"a","new_string":"b"}`,
			"err: <tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>",
			`@Read {"file_path":"/p/README.md"}`, "ok: # App",
			`@Edit {"file_path":"/p/README.md","old_string":"a","new_string":"b"}`, "ok: The file has been updated."},
		"gitignored, never got past": {"$ git add dist/app.js",
			"err: Exit code 1\nThe following paths are ignored by one of your .gitignore files:\ndist\nhint: Use -f if you really want to add them.",
			"$ git status --short", "ok:  M dist/app.js"},
		"a stale edit string": {`@Edit {"file_path":"/p/a.py","old_string":"x","new_string":"y"}`, "err: <tool_use_error>String to replace not found in file.</tool_use_error>",
			`@Read {"file_path":"/p/a.py","limit":10}`, "ok: z", `@Edit {"file_path":"/p/a.py","old_string":"z","new_string":"y"}`, "ok: The file has been updated."},
	} {
		t.Run(name, func(t *testing.T) {
			if got := collectEnvFacts(envSession(steps...)); len(got) != 0 {
				t.Errorf("got %+v, want nothing", got)
			}
		})
	}
}

// TestEnvFactOncePerSession: the same fact met twice in a session is one
// memory.
func TestEnvFactOncePerSession(t *testing.T) {
	es := envSession("$ tree src", "err: Exit code 127\n(eval):1: command not found: tree", "$ find src -type d", "ok: src",
		"$ tree lib", "err: Exit code 127\n(eval):1: command not found: tree", "$ find lib -type d", "ok: lib",
		"$ git add x dist/y", "err: Exit code 1\nThe following paths are ignored by one of your .gitignore files:\ndist\nhint: Use -f if you really want to add them.",
		"$ git add x", "ok: ",
		"$ git add z dist/w", "err: Exit code 1\nThe following paths are ignored by one of your .gitignore files:\ndist\nhint: Use -f if you really want to add them.",
		"$ git add z", "ok: ")
	got := collectEnvFacts(es)
	if len(got) != 2 {
		t.Fatalf("got %d proposals, want 2 (tree, dist): %+v", len(got), got)
	}
}
