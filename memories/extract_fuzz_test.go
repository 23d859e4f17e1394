package memories

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/index"
)

// FuzzExtractCandidates: whatever text arrives from any source (a typed
// or queued prompt, a rejection's reason, an answer, Claude's reply, a
// compaction summary, a command and its output), the rules do not panic,
// and every proposal is valid UTF-8, at most 400 bytes (plus an ellipsis)
// and names its source entries.
func FuzzExtractCandidates(f *testing.F) {
	f.Add("ok, fine, let's do vite", "Option 1: **Vite** (modern)", "4. Errors and fixes:\n   - **Credo nesting depth (4 > max 2)**: Fixed by extracting helpers.\n5. Problem Solving:\n   - Established that X must be Y", "pytest", "Exit code 127\npytest: command not found")
	f.Add("remember this", "", "", "(source .venv/bin/activate && pytest)", "ok")
	f.Add("User has answered your questions: \"Q one two?\"=\"A\"", "Vercel doesn't have SSH keys set up, so it can't clone via `git@x`.", "1. Errors and fixes:\n-\n  -\n", "cd \"a b\" && node build.js", "")
	f.Add("\xff\xfe let's use \x00`x`", "- Fixed race error: used `sync.Once` instead of a flag", "## 4. Errors and Fixes\n- **a**:\n  - b", "bash -c 'x", "could not resolve")
	f.Fuzz(func(t *testing.T, prompt, reply, compact, cmd, out string) {
		call := index.MemEntry{UUID: "c1", Role: "assistant", Block: "tool_use", ToolName: "Bash", ToolUse: "t1", Input: []byte(`{"command":` + jsonString(cmd) + `}`)}
		ask := index.MemEntry{UUID: "c2", Role: "assistant", Block: "tool_use", ToolName: "AskUserQuestion", ToolUse: "t2", Input: []byte(`{"questions":[{"question":` + jsonString(reply) + `}]}`)}
		entries := []index.MemEntry{
			{UUID: "a1", Role: "assistant", Block: "text", Text: reply},
			{UUID: "u1", Role: "user", Block: "text", Text: prompt},
			{UUID: "q1", Role: "user", Source: "queued", Text: prompt},
			call, {UUID: "r1", Role: "tool", ToolUse: "t1", Text: out, IsError: true},
			{UUID: "u2", Role: "user", Source: "rejection", ToolUse: "t1", Text: prompt},
			ask, {UUID: "u3", Role: "user", Source: "answer", ToolUse: "t2", Text: prompt},
			{UUID: "s1", Role: "system", Compact: true, Text: compact},
			{UUID: "c3", Role: "assistant", Block: "tool_use", ToolName: "Bash", ToolUse: "t3", Input: []byte(`{"command":` + jsonString("cd x && "+cmd) + `}`)},
			{UUID: "r3", Role: "tool", ToolUse: "t3", Text: "done"},
		}
		for _, c := range extractCandidates(entries) {
			if !utf8.ValidString(c.content) && utf8.ValidString(prompt+reply+compact+cmd+out) {
				t.Fatalf("invalid UTF-8 from valid input: %q", c.content)
			}
			if len(strings.TrimSuffix(c.content, "…")) > 400 {
				t.Fatalf("%d bytes: %q", len(c.content), c.content)
			}
			if len(c.uuids) == 0 || c.rule == "" {
				t.Fatalf("no source or rule: %+v", c)
			}
		}
	})
}
