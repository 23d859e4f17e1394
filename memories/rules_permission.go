package memories

import (
	"regexp"

	"github.com/cairn-dev/cairn/index"
)

// A tool Claude Code would not run because the session had no permission
// for it: "Claude requested permissions to use WebSearch, but you haven't
// granted it yet." Where nobody can answer the prompt (`claude -p`, a
// background agent) it stays denied, and the next run meets it again
// until the tool is allowed up front. Proposed once per tool and session,
// when no later call of that tool ran (the person did not grant it then).

// permissionDenied is Claude Code's result of a call of a tool the
// session may not use.
var permissionDenied = regexp.MustCompile(`Claude requested permissions to use ([A-Za-z][A-Za-z0-9_]*), but you haven't granted it yet`)

// permissionGotcha is the gotcha of result e denying call c's tool
// permission, false when e does not say so.
func permissionGotcha(c, e index.MemEntry) (candidate, bool) {
	m := permissionDenied.FindStringSubmatch(e.Text)
	if m == nil || m[1] != c.ToolName {
		return candidate{}, false
	}
	return candidate{typ: Gotcha, importance: 3, rule: "tool:permission-denied", uuids: []string{c.UUID, e.UUID}, tags: []string{"permissions"},
		content: "Claude Code does not run `" + m[1] + "` until it is allowed (\"" + m[0] + "\"): allow it up front with `--allowedTools " + m[1] +
			"` (`claude -p`, where nobody can answer the prompt) or in the settings' `permissions.allow`"}, true
}

// permissionCandidates proposes the tools the session could not use.
func permissionCandidates(entries []index.MemEntry) []candidate {
	calls := map[string]index.MemEntry{}
	denied := map[string]candidate{}
	var order []string
	for _, e := range entries {
		if e.Role == "assistant" && e.ToolUse != "" {
			calls[e.ToolUse] = e
			continue
		}
		c, ok := calls[e.ToolUse]
		if e.Role != "tool" || !ok {
			continue
		}
		if !e.IsError {
			delete(denied, c.ToolName) // granted after all
			continue
		}
		d, ok := permissionGotcha(c, e)
		if !ok {
			continue
		}
		if _, seen := denied[c.ToolName]; !seen {
			order = append(order, c.ToolName)
		}
		denied[c.ToolName] = d
	}
	var out []candidate
	for _, name := range order {
		if c, ok := denied[name]; ok {
			out = append(out, c)
			delete(denied, name)
		}
	}
	return out
}
