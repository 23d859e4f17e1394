package memories

import (
	"regexp"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/index"
)

// The checks the project's Claude Code hooks run. A hook configured in
// the project's settings (a formatter after every edit, the tests and the
// type checker when Claude stops) is a convention the tooling enforces:
// edited files come back reformatted, a turn ends with the checks' output.
// Claude Code records each run in the transcript ("PostToolUse:Edit [uv
// run ruff format] completed successfully: 1 file reformatted"), and a
// careful reader of the session learns from it how the project is
// checked. Only hooks running a check (a test, lint, format, type-check
// or build command: checkWord) are proposed; a hook that reports a status
// or notifies someone is the user's own plumbing, not the project's.
// Claude Code 2.x records a run as a hook_progress line per tool call, a
// hook attachment or a stop_hook_summary; the store keeps one hook row
// per distinct run of a session (index.MemEntry.Hook), read alike.

// hookRun is Claude Code's line for one hook run: the event, the tool it
// matched, the command. (The bold markup around the event is stripped
// first.)
var hookRun = regexp.MustCompile(`^(?:Running )?(PreToolUse|PostToolUse|Stop|SubagentStop|SessionStart|UserPromptSubmit|PreCompact)(?::(\w+))? \[(.{3,200}?)\] (?:completed successfully|failed with non-blocking status code|failed)`)

// ansiMark is a terminal escape sequence (Claude Code writes the hook's
// event in bold).
var ansiMark = regexp.MustCompile("\x1b\\[[0-9;]*m")

// shellNoise is what a hook's command adds only for its output.
var shellNoise = regexp.MustCompile(`\s+2>&1\s*$|\s*\|\|\s*true\s*$`)

// hookCandidates proposes, per hook event, the checks the project's
// hooks ran in the session: "Claude Code's PostToolUse hook runs `uv run
// ruff format` after each file edit".
func hookCandidates(entries []index.MemEntry) []candidate {
	var hooks []*hookChecks
	for _, e := range entries {
		event, tool, cmd, ok := hookRunOf(e)
		if !ok {
			continue
		}
		cmd, ok = hookCheck(cmd)
		if !ok {
			continue
		}
		i := slices.IndexFunc(hooks, func(h *hookChecks) bool { return h.event == event })
		if i < 0 {
			hooks, i = append(hooks, &hookChecks{event: event}), len(hooks)
		}
		hooks[i].ran(cmd, tool, e.UUID)
	}
	var out []candidate
	for _, h := range hooks {
		quoted := make([]string, len(h.cmds))
		for i, c := range h.cmds {
			quoted[i] = "`" + c + "`"
		}
		out = append(out, candidate{typ: Pattern, importance: 2, uuids: h.uuids, rule: "hook:check", tags: []string{"command"},
			content: "Claude Code's " + h.event + " hook runs " + joinList(quoted) + " " + hookWhen(h.event, h.tools)})
	}
	return append(out, hookSaidCandidates(entries)...)
}

// hookChecks is what the hooks of one event ran: the distinct commands
// (with the entry that first shows each) and the tools they matched.
type hookChecks struct {
	event string
	cmds  []string
	tools []string
	uuids []string
}

// ran records a run of cmd (for tool, "" for none) shown by entry uuid.
func (h *hookChecks) ran(cmd, tool, uuid string) {
	if !slices.Contains(h.cmds, cmd) {
		h.cmds = append(h.cmds, cmd)
		h.uuids = append(h.uuids, uuid)
	}
	if tool != "" && !slices.Contains(h.tools, tool) {
		h.tools = append(h.tools, tool)
	}
}

// hookCheck is a hook's command without shell noise, false unless it is
// a short check (a check word, no quoting, not naming a file).
func hookCheck(cmd string) (string, bool) {
	cmd = strings.TrimSpace(shellNoise.ReplaceAllString(cmd, ""))
	if len(cmd) > 80 || strings.ContainsAny(cmd, "'\"\n") || !checkWord.MatchString(cmd) || namesFile.MatchString(cmd) {
		return "", false
	}
	return cmd, true
}

// hookRunOf is the hook run entry e records: a 1.0.x system line of text
// ("PostToolUse:Edit [cmd] completed successfully"), or a 2.x hook row
// (index.MemEntry.Hook: one per distinct run of the session); tool is
// what a tool event's hook matched.
func hookRunOf(e index.MemEntry) (event, tool, cmd string, ok bool) {
	if e.Role != "system" || e.Compact {
		return "", "", "", false
	}
	if h := e.Hook; h != nil {
		if h.Command == "" || !slices.Contains(hookEvents, h.Event) {
			return "", "", "", false
		}
		if strings.HasSuffix(h.Event, "ToolUse") {
			tool = h.Matcher
		}
		return h.Event, tool, h.Command, true
	}
	m := hookRun.FindStringSubmatch(ansiMark.ReplaceAllString(strings.TrimSpace(e.Text), ""))
	if m == nil {
		return "", "", "", false
	}
	return m[1], m[2], m[3], true
}

// hookEvents are the events hookWhen says.
var hookEvents = []string{"PreToolUse", "PostToolUse", "Stop", "SubagentStop", "SessionStart", "UserPromptSubmit", "PreCompact"}

// hookWhen says when a hook of event runs, for the tools it matched.
func hookWhen(event string, tools []string) string {
	switch event {
	case "Stop":
		return "when Claude finishes a turn"
	case "SubagentStop":
		return "when a subagent finishes"
	case "SessionStart":
		return "when a session starts"
	case "UserPromptSubmit":
		return "on every prompt"
	case "PreCompact":
		return "before a compaction"
	}
	when := "after"
	if event == "PreToolUse" {
		when = "before"
	}
	switch {
	case len(tools) > 0 && !slices.ContainsFunc(tools, func(t string) bool { return !slices.Contains(editTools, t) }):
		return when + " each file edit"
	case len(tools) == 1:
		return when + " each " + tools[0] + " call"
	}
	return when + " tool calls"
}

// joinList is "a", "a and b", "a, b and c".
func joinList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// withoutChecksHooksRun drops a check the person ran by hand that one of
// the project's hooks already runs: the hook's proposal says it.
func withoutChecksHooksRun(cs []candidate) []candidate {
	var hooked []string
	for _, c := range cs {
		if c.rule == "hook:check" {
			hooked = append(hooked, c.content)
		}
	}
	if len(hooked) == 0 {
		return cs
	}
	return slices.DeleteFunc(cs, func(c candidate) bool {
		if c.rule != "user:bash-check" {
			return false
		}
		cmd, _, _ := strings.Cut(strings.TrimPrefix(c.content, checkedByHand), "`")
		return slices.ContainsFunc(hooked, func(h string) bool { return strings.Contains(h, "`"+cmd+"`") })
	})
}
