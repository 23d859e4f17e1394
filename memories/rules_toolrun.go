package memories

import (
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/index"
)

// How a tool the person named was run. "You can test it with `act`" is
// half a lesson: the session then found how — `act
// --container-architecture linux/amd64 -j test`, after two failures. A
// proposal from the person's words that names a program in backticks
// gets the last call of that program that worked after it, when that
// call gives it arguments; the person's tip and the command that worked
// are one memory.

// withToolRuns adds to each proposal from the person's words the last
// working call of the program it names (see above).
func withToolRuns(cs []candidate, entries []index.MemEntry) {
	at := map[string]int{} // entry uuid -> position
	for i, e := range entries {
		at[e.UUID] = i
	}
	for i := range cs {
		c := &cs[i]
		if !strings.HasPrefix(c.rule, "user:") || c.rule == "user:bash-check" || len(c.uuids) == 0 {
			continue
		}
		from, ok := at[c.uuids[0]]
		if !ok {
			continue
		}
		for _, prog := range namedPrograms(c.content) {
			if cmd := lastWorkingRun(entries[from+1:], prog); cmd != "" && !strings.Contains(c.content, cmd) {
				c.content += " (run as `" + cmd + "`)"
				break
			}
		}
	}
}

// namedPrograms are the one-word code spans of s that can be a program:
// `act`, `pnpm` (not `a.b`, `x/y`, `--flag` or `foo()`).
func namedPrograms(s string) []string {
	var out []string
	parts := strings.Split(s, "`")
	for i := 1; i < len(parts); i += 2 {
		w := parts[i]
		if len(w) >= 2 && len(w) <= 24 && !strings.ContainsAny(w, " ./()=:-_[]{}<>$\"'") && strings.ToLower(w) == w && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// lastWorkingRun is the last Bash call among entries that runs prog with
// arguments and worked (its result is no error and no failure), said on
// one line; "" when there is none.
func lastWorkingRun(entries []index.MemEntry, prog string) string {
	calls := map[string]string{}
	last := ""
	for _, e := range entries {
		if sc, ok := bashCall(e); ok {
			line, _, _ := strings.Cut(afterSetup(sc.cmd), "\n")
			if p, _ := programOf(line); p == prog && len(strings.Fields(line)) >= 3 && !strings.ContainsAny(line, "|;&><") {
				calls[e.ToolUse] = strings.TrimSpace(line)
			}
			continue
		}
		if cmd, ok := calls[e.ToolUse]; ok && e.Role == "tool" && !e.IsError && !failedOutput(e.Text) && len(cmd) <= 100 {
			last = cmd
		}
	}
	return last
}
