package memories

import (
	"path"
	"regexp"
	"strings"

	"github.com/cairn-dev/cairn/index"

	json "github.com/go-json-experiment/json"
)

// commandCandidates finds shell commands that worked after the same
// command failed for how it was called: the working form, said once for
// every branch, path and id (instance-specific words normalised), with the
// error it avoids. A retry that only changed a path or dropped an option
// teaches nothing.
func commandCandidates(entries []index.MemEntry) []candidate {
	calls := map[string]shellCall{}  // tool_use id -> call
	failed := map[string]shellCall{} // command key -> the first call that failed
	var out []candidate
	for _, e := range entries {
		if c, ok := bashCall(e); ok {
			calls[e.ToolUse] = c
			continue
		}
		c, ok := answeredCall(e, calls)
		if !ok {
			continue
		}
		if invocationFailed(e) {
			if _, seen := failed[c.key]; !seen {
				c.out = e.Text
				failed[c.key] = c
			}
			continue
		}
		f, ok := failed[c.key]
		if !ok || f.cmd == c.cmd || len(c.cmd) > 300 {
			continue
		}
		delete(failed, c.key)
		if content, ok := commandLesson(f, c); ok {
			out = append(out, candidate{typ: Pattern, importance: 2, rule: "command-after-failure",
				content: content, uuids: []string{f.uuid, c.uuid, e.UUID}, tags: []string{"command"}})
		}
	}
	return out
}

// commandLesson is the memory of worked after failed: "`git push
// --set-upstream origin <branch>` works where `git push` fails (fatal: …)".
// None when the working command adds no option (a changed path, a dropped
// flag: a retry, not a lesson).
func commandLesson(failed, worked shellCall) (string, bool) {
	inst := map[string]string{}
	fw, ww := normCommand(failed.cmd, inst), normCommand(worked.cmd, inst)
	setup := addedSetup(failed.cmd, worked.cmd)
	if fw == ww && setup == "" || !sameProgram(fw, ww) {
		return "", false
	}
	if setup == "" && (!addsOption(fw, ww) || sameButPaths(fw, ww)) {
		return "", false
	}
	if setup == "" && errorSaysFix(failed.out, fw, ww) {
		// git's "no upstream branch" prints the very command that
		// works: the tool teaches it every time, nothing to remember.
		return "", false
	}
	if setup != "" {
		ww = setup + ww
	}
	msg := "`" + ww + "` works where `" + cut(fw, 120) + "` fails"
	if line := errorLine(failed.out, inst); line != "" {
		msg += " (" + line + ")"
	}
	return msg, true
}

// setupCd and setupSource are a command's setup steps before what it
// runs: changing folder, sourcing an environment.
var (
	setupCd     = regexp.MustCompile(`^\(?\s*cd\s+("[^"]+"|'[^']+'|\S+)\s*(&&|;)\s*`)
	setupSource = regexp.MustCompile(`^\(?\s*(source|\.)\s+(\S+)\s*(&&|;)\s*`)
)

// addedSetup is the setup the working command has and the failed one
// lacks, written to go before the normalised working command ("cd assets
// && ", "source .venv/bin/activate && "): the part that made it work.
// A folder is named by its last element, as it would be from the
// project's root.
func addedSetup(failed, worked string) string {
	f, w := strings.TrimSpace(failed), strings.TrimSpace(worked)
	if m := setupSource.FindStringSubmatch(w); m != nil && !strings.Contains(f, m[2]) {
		return m[1] + " " + m[2] + " && "
	}
	if m := setupCd.FindStringSubmatch(w); m != nil && !setupCd.MatchString(f) {
		dir := path.Base(strings.Trim(m[1], `"'`))
		if dir != "." && dir != "/" && dir != "~" {
			return "cd " + dir + " && "
		}
	}
	return ""
}

// sameProgram reports whether a and b run the same thing: their first
// three words that are not options agree as far as both have them ("uv
// run pytest" is not "uv run python").
func sameProgram(a, b string) bool {
	wa, wb := plainWords(a, 3), plainWords(b, 3)
	n := min(len(wa), len(wb))
	if n == 0 {
		return false
	}
	for i := range n {
		if wa[i] != wb[i] && path.Base(wa[i]) != path.Base(wb[i]) {
			return false
		}
	}
	return true
}

// plainWords are the first n words of cmd that are not options.
func plainWords(cmd string, n int) []string {
	var out []string
	for _, w := range strings.Fields(cmd) {
		if len(out) == n {
			break
		}
		if !strings.HasPrefix(w, "-") {
			out = append(out, w)
		}
	}
	return out
}

// addsOption reports whether command b has an option (a word starting
// with "-") that a lacks.
func addsOption(a, b string) bool {
	have := map[string]bool{}
	for _, w := range strings.Fields(a) {
		have[optionName(w)] = true
	}
	for _, w := range strings.Fields(b) {
		if strings.HasPrefix(w, "-") && len(w) > 1 && !have[optionName(w)] {
			return true
		}
	}
	return false
}

// errorSaysFix reports whether the failed command's output names every
// option the working command added: the error itself says what to do.
func errorSaysFix(out, a, b string) bool {
	have := map[string]bool{}
	for _, w := range strings.Fields(a) {
		have[optionName(w)] = true
	}
	added := 0
	for _, w := range strings.Fields(b) {
		o := optionName(w)
		if !strings.HasPrefix(o, "-") || len(o) < 2 || have[o] {
			continue
		}
		if !namesOption(out, o) {
			return false
		}
		added++
	}
	return added > 0
}

// namesOption reports whether text holds option o as a word of its own
// ("-race" is not in "-racey").
func namesOption(text, o string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], o)
		if j < 0 {
			return false
		}
		end := i + j + len(o)
		if end == len(text) || !isWordByte(text[end]) {
			return true
		}
		i = end
	}
}

func isWordByte(b byte) bool {
	return b == '-' || b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// optionName is an option without its value ("--depth=1" -> "--depth").
func optionName(w string) string {
	if i := strings.IndexByte(w, '='); i > 0 {
		return w[:i]
	}
	return w
}

// sameButPaths reports whether a and b differ only in where their paths
// point (the same file names).
func sameButPaths(a, b string) bool {
	fa, fb := strings.Fields(a), strings.Fields(b)
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		if fa[i] != fb[i] && path.Base(fa[i]) != path.Base(fb[i]) {
			return false
		}
	}
	return true
}

// Instance-specific words of commands and their errors.
var (
	uuidRe   = lazyRE(`\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`)
	homeRe   = lazyRE(`(/Users|/home)/[^/\s'"]+/`)
	trailRe  = lazyRE(`\s*(2>&1|2>\s*/dev/null|>\s*/dev/null|\|\s*(head|tail|grep|less|cat|wc)\b.*)$`)
	gitRefOp = map[string]bool{"push": true, "pull": true, "fetch": true, "checkout": true, "switch": true, "branch": true,
		"merge": true, "rebase": true, "worktree": true}
)

// normCommand is cmd on one line without a leading "cd dir &&", trailing
// redirections and pagers, with a home directory as "~", uuids as
// "<uuid>" and the branch names of git commands as "<branch>"; inst
// collects what was replaced (word -> placeholder) for the error line.
func normCommand(cmd string, inst map[string]string) string {
	c := oneLine(afterSetup(strings.TrimSpace(cmd)))
	for {
		t := strings.TrimSpace(trailRe.ReplaceAllString(c, ""))
		if t == c {
			break
		}
		c = t
	}
	c = homeRe.ReplaceAllString(c, "~/")
	c = uuidRe.ReplaceAllString(c, "<uuid>")
	f := strings.Fields(c)
	if len(f) > 2 && f[0] == "git" && gitRefOp[f[1]] {
		args := 0
		for i := 2; i < len(f); i++ {
			w := f[i]
			if strings.HasPrefix(w, "-") || strings.ContainsAny(w, "<>&|;") {
				continue
			}
			args++
			// push/pull/fetch name the remote first; the rest are refs.
			if (f[1] == "push" || f[1] == "pull" || f[1] == "fetch") && args == 1 {
				continue
			}
			inst[w] = "<branch>"
			f[i] = "<branch>"
		}
	}
	return strings.Join(f, " ")
}

// errorLine is the first line of a failed command's output that says
// what was wrong, with the instance words replaced.
func errorLine(out string, inst map[string]string) string {
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || !invocationError.MatchString(l) {
			continue
		}
		l = homeRe.ReplaceAllString(uuidRe.ReplaceAllString(l, "<uuid>"), "~/")
		for w, p := range inst {
			l = strings.ReplaceAll(l, w, p)
		}
		return cut(oneLine(l), 160)
	}
	return ""
}

// answeredCall is the call (of calls: tool_use id -> call) tool result e
// answers, when it has a command key.
func answeredCall(e index.MemEntry, calls map[string]shellCall) (shellCall, bool) {
	if e.Role != "tool" || e.ToolUse == "" {
		return shellCall{}, false
	}
	c, ok := calls[e.ToolUse]
	return c, ok && c.key != ""
}

// invocationFailed reports a tool result saying the command itself was
// wrong.
func invocationFailed(e index.MemEntry) bool {
	return (e.IsError || failedOutput(e.Text)) && invocationError.MatchString(e.Text)
}

// shellCall is a Bash tool call: its command, the command's key and the
// entry that made it.
type shellCall struct {
	cmd, key, uuid string
	out            string // the output, of a failed call
}

// bashCall is e's Bash tool call, if e is one with a command.
func bashCall(e index.MemEntry) (shellCall, bool) {
	if e.Role != "assistant" || e.ToolName != "Bash" || e.ToolUse == "" {
		return shellCall{}, false
	}
	var in struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(e.Input, &in) != nil || in.Command == "" {
		return shellCall{}, false
	}
	return shellCall{cmd: in.Command, key: commandKey(in.Command), uuid: e.UUID}, true
}

// invocationError is output saying the command itself was wrong (not that
// the tests it ran failed): worth remembering what worked instead.
var invocationError = lazyRE(`(?i)command not found|could not resolve|unknown (option|flag|command|shorthand flag)|unrecognized (option|argument|arguments)|invalid (option|argument)|usage:|no such file or directory|not a git repository|has no upstream branch|permission denied|could not find (task|command|module)|is not a (task|command)|missing required|no module named|cannot find module|not installed|requires? (an )?argument`)

func failedOutput(s string) bool {
	head := s
	if len(head) > 300 {
		head = head[:300]
	}
	return strings.Contains(head, "command not found") || strings.HasPrefix(head, "Exit code ") && !strings.HasPrefix(head, "Exit code 0")
}

// Commands too generic to be worth remembering when they work.
var trivialCommands = map[string]bool{"ls": true, "cat": true, "cd": true, "grep": true, "rg": true, "find": true, "head": true,
	"tail": true, "echo": true, "pwd": true, "which": true, "sed": true, "awk": true, "wc": true, "test": true, "mkdir": true,
	"rm": true, "cp": true, "mv": true, "sleep": true, "ps": true, "kill": true, "pkill": true, "touch": true, "chmod": true,
	"true": true, "false": true, "stat": true, "file": true, "du": true, "df": true, "env": true, "export": true, "source": true,
	"git status": true, "git log": true, "git diff": true, "git show": true, "git add": true, "lsof": true, "curl": true, "type": true}

// commandKey is the program (and subcommand) a shell command runs, after
// cd, env assignments and sudo; "" for trivial commands.
func commandKey(cmd string) string {
	f := strings.Fields(afterSetup(strings.TrimSpace(cmd)))
	if len(f) > 1 && strings.ContainsAny(f[1], "/.") {
		f = f[:1] // "node assets/build.js" and "node build.js" run one program
	}
	for len(f) > 0 && commandPrefix(f[0]) {
		f = f[1:]
	}
	if len(f) == 0 {
		return ""
	}
	key := f[0]
	if len(f) > 1 && !strings.HasPrefix(f[1], "-") && len(f[1]) < 20 {
		key += " " + f[1]
	}
	if trivialCommands[f[0]] || trivialCommands[key] {
		return ""
	}
	return key
}

// afterSetup is cmd without its outer parentheses and its setup steps
// (leading "cd dir &&", "source env &&").
func afterSetup(cmd string) string {
	c := strings.TrimSpace(cmd)
	if strings.HasPrefix(c, "(") && strings.HasSuffix(c, ")") {
		c = strings.TrimSpace(c[1 : len(c)-1])
	}
	for {
		if m := setupSource.FindStringIndex(c); m != nil {
			c = strings.TrimSpace(c[m[1]:])
			continue
		}
		if m := setupCd.FindStringIndex(c); m != nil {
			c = strings.TrimSpace(c[m[1]:])
			continue
		}
		return afterCd(c)
	}
}

// afterCd drops a leading "cd dir &&" (or ";", "|") from cmd.
func afterCd(cmd string) string {
	for _, sep := range []string{"&&", ";", "|"} {
		parts := strings.Split(cmd, sep)
		if len(parts) > 1 && strings.HasPrefix(strings.TrimSpace(parts[0]), "cd ") {
			cmd = strings.TrimSpace(strings.Join(parts[1:], sep))
		}
	}
	return cmd
}

// commandPrefix reports a word that runs the command after it: an
// environment assignment, sudo, timeout or timeout's duration.
func commandPrefix(w string) bool {
	return strings.Contains(w, "=") || w == "sudo" || w == "timeout" || isNumber(w)
}

func isNumber(s string) bool {
	for _, c := range s {
		if (c < '0' || c > '9') && c != 's' && c != 'm' {
			return false
		}
	}
	return s != ""
}
