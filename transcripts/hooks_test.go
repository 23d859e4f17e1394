package transcripts

import (
	"strings"
	"testing"
)

// The hook runs of 2.x lines (real shapes: 2.1.39's hook_progress and
// stop_hook_summary, 2.1.114's attachments, a hook_blocking_error as
// Claude Code writes it), and damaged ones: a field of another shape
// drops the run, never the line.
func TestHookRuns(t *testing.T) {
	cases := []struct {
		name, line string
		want       []HookRun
	}{
		{"progress", `{"type":"progress","data":{"type":"hook_progress","hookEvent":"PostToolUse","hookName":"PostToolUse:Edit","command":"${CLAUDE_PLUGIN_ROOT}/scripts/post-edit.sh"},"parentToolUseID":"toolu_01","toolUseID":"toolu_01","uuid":"a"}`,
			[]HookRun{{Event: "PostToolUse", Matcher: "Edit", Command: "${CLAUDE_PLUGIN_ROOT}/scripts/post-edit.sh"}}},
		{"stop summary", `{"type":"system","subtype":"stop_hook_summary","hookCount":2,"hookInfos":[{"command":"/home/USER/.claude/hooks/tmux-waiting.sh mark"},{"command":"mix test"}],"hookErrors":[],"preventedContinuation":false,"uuid":"b"}`,
			[]HookRun{{Event: "Stop", Command: "/home/USER/.claude/hooks/tmux-waiting.sh mark"}, {Event: "Stop", Command: "mix test"}}},
		{"success shown", `{"type":"attachment","attachment":{"type":"hook_success","hookName":"UserPromptSubmit","hookEvent":"UserPromptSubmit","content":"Status set to busy: -experiments/worktrees","stdout":"Status set to busy: -experiments/worktrees\n","stderr":"","exitCode":0,"command":"\"${CLAUDE_PLUGIN_ROOT}/scripts/clmail.cmd\" actor busy --from-prompt","durationMs":106},"uuid":"c"}`,
			[]HookRun{{Event: "UserPromptSubmit", Command: `"${CLAUDE_PLUGIN_ROOT}/scripts/clmail.cmd" actor busy --from-prompt`, Said: "Status set to busy: -experiments/worktrees"}}},
		{"success not shown", `{"type":"attachment","attachment":{"type":"hook_success","hookName":"PostToolUse:Bash","hookEvent":"PostToolUse","content":"Status set to busy","exitCode":0,"command":"notify"},"uuid":"d"}`,
			[]HookRun{{Event: "PostToolUse", Matcher: "Bash", Command: "notify"}}},
		{"additional context", `{"type":"attachment","attachment":{"type":"hook_additional_context","content":["clmail 6.0.10 session registered: -experiments/worktrees (kitty)"],"hookName":"SessionStart","toolUseID":"SessionStart","hookEvent":"SessionStart"},"uuid":"e"}`,
			[]HookRun{{Event: "SessionStart", Said: "clmail 6.0.10 session registered: -experiments/worktrees (kitty)"}}},
		{"blocking error", `{"type":"attachment","attachment":{"type":"hook_blocking_error","hookName":"PostToolUse:Edit","hookEvent":"PostToolUse","blockingError":{"blockingError":"Run mix format.","command":"./fmt.sh"}},"uuid":"f"}`,
			[]HookRun{{Event: "PostToolUse", Matcher: "Edit", Command: "./fmt.sh", Said: "Run mix format."}}},
		{"blocking error as text", `{"type":"attachment","attachment":{"type":"hook_blocking_error","hookName":"Stop","blockingError":"Tests fail."},"uuid":"g"}`,
			[]HookRun{{Event: "Stop", Said: "Tests fail."}}},
		{"no command, nothing said", `{"type":"attachment","attachment":{"type":"hook_system_message","hookName":"Stop","content":"x"},"uuid":"h"}`, nil},
		{"other attachment", `{"type":"attachment","attachment":{"type":"file","content":{"file":{"content":"x"}}},"uuid":"i"}`, nil},
		{"content of other kinds", `{"type":"attachment","attachment":{"type":"hook_additional_context","content":[1,{"a":"b"},"kept",null],"hookEvent":"PreCompact"},"uuid":"j"}`,
			[]HookRun{{Event: "PreCompact", Said: "kept"}}},
		{"command an object", `{"type":"progress","data":{"type":"hook_progress","hookEvent":"Stop","hookName":"Stop","command":{"x":1}},"uuid":"k"}`, nil},
		{"hookInfos not a list", `{"type":"system","subtype":"stop_hook_summary","hookInfos":{"command":"x"},"uuid":"l"}`, nil},
		{"hookInfos of other kinds", `{"type":"system","subtype":"stop_hook_summary","hookInfos":["x",{"command":7},{"command":"make check"}],"uuid":"m"}`,
			[]HookRun{{Event: "Stop", Command: "make check"}}},
		{"event not a word", `{"type":"progress","data":{"type":"hook_progress","hookEvent":"a b","command":"x"},"uuid":"n"}`, nil},
		{"bash progress", `{"type":"progress","data":{"type":"bash_progress","output":"x","command":"ls"},"uuid":"o"}`, nil},
	}
	for _, c := range cases {
		e, err := ParseLine([]byte(c.line))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if e.UUID == "" {
			t.Errorf("%s: the line was dropped", c.name)
		}
		if len(e.Hooks) != len(c.want) {
			t.Errorf("%s: got %+v, want %+v", c.name, e.Hooks, c.want)
			continue
		}
		for i := range c.want {
			if e.Hooks[i] != c.want[i] {
				t.Errorf("%s: got %+v, want %+v", c.name, e.Hooks[i], c.want[i])
			}
		}
	}
}

// FuzzHookLine: no hook line, however damaged, fails to parse when it is
// a JSON object, or makes a run without an event.
func FuzzHookLine(f *testing.F) {
	f.Add(`{"type":"progress","data":{"type":"hook_progress","hookEvent":"PostToolUse","hookName":"PostToolUse:Edit","command":"x"}}`)
	f.Add(`{"type":"attachment","attachment":{"type":"hook_additional_context","content":["a","b"],"hookEvent":"SessionStart"}}`)
	f.Add(`{"type":"attachment","attachment":{"type":"hook_blocking_error","hookName":"Stop","blockingError":{"blockingError":"t","command":"c"}}}`)
	f.Add(`{"type":"system","subtype":"stop_hook_summary","hookInfos":[{"command":"make"}]}`)
	f.Fuzz(func(t *testing.T, line string) {
		e, err := ParseLine([]byte(line))
		if err != nil {
			return
		}
		for _, h := range e.Hooks {
			if h.Event == "" || strings.ContainsAny(h.Event, " \n") || (h.Command == "" && h.Said == "") {
				t.Errorf("run %+v of %q", h, line)
			}
		}
	})
}
