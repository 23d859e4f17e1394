package memories

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
)

// TestVoiceSources: every source of the person's words reaches
// extraction — rejection feedback (with the call it rejected), answers to
// Claude's questions (with the question), queued prompts, and requests to
// remember in any position of a prompt — and what points nowhere stays
// out.
func TestVoiceSources(t *testing.T) {
	bash := index.MemEntry{UUID: "c1", Role: "assistant", Block: "tool_use", ToolName: "Bash", ToolUse: "toolu_1",
		Input: []byte(`{"command":"npm install"}`)}
	ask := index.MemEntry{UUID: "c2", Role: "assistant", Block: "tool_use", ToolName: "AskUserQuestion", ToolUse: "toolu_2",
		Input: []byte(`{"questions":[{"question":"How should corrupted archives be reported in the manifest?","options":[{"label":"Option C: Extra field","description":"Add CORRUPTED as a 4th tab-separated field on the archive line itself"}]}]}`)}
	cases := []struct {
		name  string
		es    []index.MemEntry
		typ   Type
		want  string // "" = nothing proposed
		rule  string
		extra string
	}{
		{"rejection feedback names the call", []index.MemEntry{bash, {UUID: "u1", Role: "user", Source: "rejection", ToolUse: "toolu_1", Text: "use pnpm"}},
			Decision, "Rejected `npm install`: use pnpm", "user:rejection", ""},
		{"a bare stop is not feedback", []index.MemEntry{bash, {UUID: "u1", Role: "user", Source: "rejection", ToolUse: "toolu_1", Text: "wait"}},
			"", "", "", ""},
		{"answer with its question (answers only)", []index.MemEntry{ask, {UUID: "u2", Role: "user", Source: "answer", ToolUse: "toolu_2", Text: "Option C: Extra field"}},
			Decision, "How should corrupted archives be reported in the manifest? — Option C: Extra field (Add CORRUPTED as a 4th tab-separated field on the archive line itself)", "user:answer", ""},
		{"answer in Claude Code's own words", []index.MemEntry{{UUID: "u3", Role: "user", Source: "answer", ToolUse: "toolu_9",
			Text: `User has answered your questions: "Which tar formats should be supported?"="Also .tgz". You can now continue with the user's answers in mind.`}},
			Decision, "Which tar formats should be supported? — Also .tgz", "user:answer", ""},
		{"queued prompt is read like a typed one", []index.MemEntry{{UUID: "u4", Role: "user", Source: "queued", Text: "ok, fine, let's switch to vite for the dev server"}},
			Decision, "let's switch to vite for the dev server", "user:decision", ""},
		{"short decision keeps what Claude offered", []index.MemEntry{claudeEntry("a1", "Option 1: **Vite** (modern, fast, great DX)\nOption 2: `python -m http.server`"), userEntry("u5", "ok, fine, let's do vite")},
			Decision, "let's do vite (after Claude: Option 1: Vite (modern, fast, great DX))", "user:decision", ""},
		{"remember anywhere in a prompt", []index.MemEntry{userEntry("u6", "Thanks, that works. Please remember that the staging deploy needs `make assets` first.")},
			Preference, "remember that the staging deploy needs `make assets` first", "user:remember", ""},
		{"remember this keeps what this is", []index.MemEntry{userEntry("u7", "The integration tests need Docker running. Remember this.")},
			Preference, "The integration tests need Docker running. Remember this.", "user:remember", ""},
		{"a CLAUDE.md request in a long paste", []index.MemEntry{userEntry("u8", strings.Repeat("Pasted log line with nothing in it.\n", 60)+"Add this to CLAUDE.md: tests run with `uv run pytest -m \"not browser\"`.")},
			Preference, "Add this to CLAUDE.md", "user:remember", ""},
		{"a task request is not a decision", []index.MemEntry{userEntry("u9", "Hey Claude, I'd like your help with refactoring the timeline filtering so that we hide the group instead of its items.")},
			"", "", "", ""},
		{"a question is not a decision", []index.MemEntry{userEntry("u10", "could we reuse @templates/components/session_nav.html for that?")},
			"", "", "", ""},
		{"nothing named", []index.MemEntry{userEntry("u11", "let's do it the other way then")},
			"", "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := extractCandidates(c.es)
			if c.want == "" {
				if len(got) != 0 {
					t.Fatalf("proposed %+v", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("want one proposal, got %+v", got)
			}
			g := got[0]
			if g.typ != c.typ || !strings.Contains(g.content, c.want) || g.rule != c.rule {
				t.Fatalf("got %s %q (%s), want %s containing %q (%s)", g.typ, g.content, g.rule, c.typ, c.want, c.rule)
			}
		})
	}
}

// TestCommandAfterSetup: a command that failed and worked once its setup
// changed (a folder, an environment) is stated once with the error it
// avoids; a retry that only changes a path is not.
func TestCommandAfterSetup(t *testing.T) {
	call := func(id, cmd string) index.MemEntry {
		return index.MemEntry{UUID: "c" + id, Role: "assistant", Block: "tool_use", ToolName: "Bash", ToolUse: id, Input: []byte(`{"command":` + jsonString(cmd) + `}`)}
	}
	result := func(id, out string, isErr bool) index.MemEntry {
		return index.MemEntry{UUID: "r" + id, Role: "tool", Block: "tool_result", ToolUse: id, Text: out, IsError: isErr}
	}
	got := commandCandidates([]index.MemEntry{
		call("1", "pytest"), result("1", "Exit code 127\n/bin/bash: line 1: pytest: command not found", true),
		call("2", "(source .venv/bin/activate && pytest)"), result("2", "===== 12 passed =====", false),
		call("3", "node assets/build.js 2>&1"), result("3", "Exit code 1\n✘ [ERROR] Could not resolve \"js/app.js\"", true),
		call("4", "cd /home/me/proj/assets && node build.js 2>&1"), result("4", "", false),
		call("5", "cargo test --manifest-path a/Cargo.toml"), result("5", "Exit code 101\nerror: could not find `Cargo.toml`: No such file or directory", true),
		call("6", "cargo test --manifest-path b/Cargo.toml"), result("6", "ok", false),
	})
	want := []string{
		"`source .venv/bin/activate && pytest` works where `pytest` fails (/bin/bash: line 1: pytest: command not found)",
		"`cd assets && node build.js` works where `node assets/build.js` fails (✘ [ERROR] Could not resolve \"js/app.js\")",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d proposals %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		if got[i].content != w {
			t.Errorf("proposal %d: %q, want %q", i, got[i].content, w)
		}
	}
}

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// TestCompactionSections: a compaction summary's Errors-and-fixes items
// are proposed with their sub-items, passing trouble is not, and a
// linter's limit is said one way.
func TestCompactionSections(t *testing.T) {
	text := "This session is being continued…\n\n4. Errors and fixes:\n" +
		"   - **Credo nesting depth (4 > max 2)** in `classify`: Fixed by extracting helpers.\n" +
		"   - **Compile errors for missing `Foo`**: Expected during incremental editing.\n" +
		"   - **LiveView test: sandbox isolation**:\n     - LiveView process can't access the test's `Sandbox` checkout\n     - Fixed with `Sandbox.mode(Repo, {:shared, self()})`\n" +
		"\n5. Problem Solving:\n   - Used a state machine for fenced `code` blocks\n   - Established that `mix ash.codegen` output must be reviewed for SQLite\n" +
		"\n6. All user messages:\n   - \"always use `pnpm`\"\n"
	got := extractCandidates([]index.MemEntry{{UUID: "s1", Role: "system", Compact: true, Text: text}})
	var contents []string
	for _, c := range got {
		contents = append(contents, c.content)
	}
	want := []string{
		"Credo limit: nesting depth at most 2",
		"LiveView test: sandbox isolation: LiveView process can't access the test's `Sandbox` checkout; Fixed with `Sandbox.mode(Repo, {:shared, self()})`",
		"Established that `mix ash.codegen` output must be reviewed for SQLite",
	}
	if strings.Join(contents, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(contents, "\n"), strings.Join(want, "\n"))
	}
}

// TestDecisionInsideARequest: the person's decision said as what holds,
// about what the request names, not as the request; a colon or a change
// that is no request's stays as said.
func TestDecisionInsideARequest(t *testing.T) {
	diff := "\n\ndiff --git a/app/names.py b/app/names.py\n--- a/app/names.py\n+++ b/app/names.py\n@@ -38,6 +38,9 @@\n def display_name(\n     dirs: list[str],\n"
	cases := []struct{ prompt, want string }{
		{"have a look at this patch diff, I changed my mind and would like to combine the logic: take the least nested path first, but take the latest on equal depths." + diff,
			"`display_name`: Take the least nested path first, but take the latest on equal depths."},
		{"have a look at this, I changed my mind and would like to combine the logic: take the least nested `dir` first, the latest on equal depths.",
			"Take the least nested `dir` first, the latest on equal depths."},
		{"can you please add a Github Action to run tests and linting? You can test it with `act`.",
			"Github Action to run tests and linting: You can test it with `act`."},
		{"now we have cache so we should change TUI that it launches the session HTML page rather than regenerating it. also we don't need to check for the file, let's just launch it.",
			"Now we have cache so TUI launches the session HTML page rather than regenerating it. Also we don't need to check for the file, let's just launch it."},
		{"I changed my mind: we use `pnpm`, because npm rewrites the lockfile.", "We use `pnpm`, because npm rewrites the lockfile."},
		// No request before the colon: said as the person said it.
		{"Dev server: let's use vite, since it runs on every OS.", "Dev server: let's use vite, since it runs on every OS."},
	}
	for _, c := range cases {
		var got []string
		for _, cand := range extractCandidates([]index.MemEntry{userEntry("u1", c.prompt)}) {
			if cand.rule == "user:decision" {
				got = append(got, cand.content)
			}
		}
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%.50q: got %q, want %q", c.prompt, got, c.want)
		}
	}
}
