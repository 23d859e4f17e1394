package memories

import (
	"bytes"
	"path"
	"regexp"
	"strings"

	"github.com/cairn-dev/cairn/index"
)

// Claude Code's Bash tool keeps one shell: a `cd` in one call changes the
// folder of every later call. A session that ran `cd test && …` and later
// failed on a relative path ("no such file or directory: test",
// "claude_code_log/renderer.py: No such file or directory") met that, and
// it will again: the lesson is to use absolute paths (or a subshell, `(cd
// dir && …)`). It is proposed once per session, with the `cd` and the
// failure that show it, and only when both are there: a `cd` that ran
// without error at the top level of a call, not in parentheses, and a
// later call of another shape failing on a path that is relative.

// leadingCd is a call that starts by changing folder: `cd DIR &&` or
// `cd DIR;`.
var leadingCd = regexp.MustCompile(`^cd\s+("[^"]+"|'[^']+'|[^\s;&|]+)\s*(&&|;)`)

// cdFailed is the shell's own word that a `cd` failed.
var cdFailed = regexp.MustCompile(`(?i)\bcd:.{0,12}(no such file|not a directory)`)

// missingPath is a shell's or a tool's "no such file or directory" naming
// the path it did not find.
// (zsh says the path after the message, most tools before it).
var missingPath = []*regexp.Regexp{
	regexp.MustCompile(`(?i)no such file or directory:\s*(\S+)`),
	regexp.MustCompile(`(?i)(\S+):\s*no such file or directory`),
	regexp.MustCompile(`(?i)(\S+):\d+:\d+:\s*E902 no such file`),
}

// cdPersistsCandidate proposes the persisting `cd` the session met.
func cdPersistsCandidate(entries []index.MemEntry) (candidate, bool) {
	calls := map[string]index.MemEntry{} // tool_use id -> a Bash call, parsed only when its result matters
	var cd cdState
	for _, e := range entries {
		if e.Role == "assistant" && e.ToolName == "Bash" && e.ToolUse != "" {
			calls[e.ToolUse] = e
			continue
		}
		c, ok := cdRelevant(e, calls)
		if !ok {
			continue
		}
		if cand, ok := cd.failure(c, e); ok {
			return cand, true
		}
		cd.after(c, e)
	}
	return candidate{}, false
}

// cdRelevant is the Bash call tool result e answers, when it matters
// here: a `cd` or a missing file (most calls are never parsed).
func cdRelevant(e index.MemEntry, calls map[string]index.MemEntry) (shellCall, bool) {
	if e.Role != "tool" || e.ToolUse == "" {
		return shellCall{}, false
	}
	ce, ok := calls[e.ToolUse]
	if !ok || !bytes.Contains(ce.Input, []byte(`"cd `)) && !(e.IsError && strings.Contains(strings.ToLower(e.Text), "no such file")) {
		return shellCall{}, false
	}
	return bashCall(ce)
}

// cdState is the folder a relative `cd` left the shell in, and the call
// that did it.
type cdState struct{ dir, uuid string }

// failure is the proposal when call c, run after a relative `cd`, failed
// (result e) on a relative path.
func (cd cdState) failure(c shellCall, e index.MemEntry) (candidate, bool) {
	cmd := strings.TrimSpace(c.cmd)
	missing := missedRelative(e.Text, cmd)
	if cd.dir == "" || !e.IsError || missing == "" {
		return candidate{}, false
	}
	shown := strings.TrimSpace(strings.SplitN(afterCd(cmd), "\n", 2)[0])
	if m := leadingCd.FindStringSubmatch(cmd); m != nil && cdFailed.MatchString(e.Text) {
		shown = "cd " + m[1] // the second `cd` is what failed
	}
	content := "In the Bash tool a `cd` persists into later calls: after `cd " + cd.dir + " && …`, `" +
		cut(shown, 80) + "` failed (" + missing + ": no such file or directory); use absolute paths, or `(cd " + cd.dir + " && …)` in a subshell"
	return candidate{typ: Gotcha, importance: 3, rule: "command:cd-persists", content: content,
		uuids: []string{cd.uuid, c.uuid, e.UUID}, tags: []string{"bash", "cd"}}, true
}

// after notes the folder call c moved to: the folder changes whether or
// not what ran after the `cd` failed, unless the `cd` did.
func (cd *cdState) after(c shellCall, e index.MemEntry) {
	m := leadingCd.FindStringSubmatch(strings.TrimSpace(c.cmd))
	if m == nil || cdFailed.MatchString(e.Text) {
		return
	}
	if dir := strings.Trim(m[1], `"'`); strings.HasPrefix(dir, "/") || strings.HasPrefix(dir, "~") || dir == "." {
		*cd = cdState{} // a folder named in full: relative paths hold from it
	} else {
		*cd = cdState{dir: dir, uuid: c.uuid}
	}
}

// missedRelative is the relative path a failed call's output says is
// missing, when the call names it.
func missedRelative(out, cmd string) string {
	head := out
	if len(head) > 400 {
		head = head[:400]
	}
	for _, re := range missingPath {
		m := re.FindStringSubmatch(head)
		if m == nil {
			continue
		}
		p := strings.Trim(m[1], "'\"`")
		if plainRelative(p) && strings.Contains(cmd, p) {
			return p
		}
	}
	return ""
}

// plainRelative reports whether p is a relative path written as is: not
// absolute, from home or the current folder, no "..", no colon, not a
// number.
func plainRelative(p string) bool {
	return p != "" && !strings.Contains(p, ":") && !isNumber(p) && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") &&
		!strings.HasPrefix(p, ".") && path.Clean(p) == p
}
