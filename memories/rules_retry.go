package memories

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/index"

	json "github.com/go-json-experiment/json"
)

// A command that worked after the same command failed for how or where
// it was run is a lesson the next session can use: the working form,
// said once for every branch, path and id (instance-specific words
// normalised), with the error it avoids — "`WORKING` works where
// `FAILED` fails (ERROR LINE)". Claude retries constantly, and most
// retries teach nothing (a typo, another file, a test that passes
// because the code changed), so a pair counts only when
//
//   - the failure is the invocation's, not the code's (invocationError:
//     a program not found, a file not found from the wrong folder, an
//     unknown option, the shell's own errors);
//   - the working call comes soon after it (retryWindow calls), in the
//     same thread, with no edit of a file between them: a call that
//     works after an edit is a fix of the code, not of the command;
//   - the working call reaches the same goal in one of these shapes
//     (retryShape): it adds options; it adds setup before the same
//     program (`cd assets &&`, `source .venv/bin/activate &&`, an
//     environment variable, a step such as an install); it wraps the
//     same first command in `bash -c '…'` (the Bash tool's shell may be
//     zsh); or, when the failed program was not found, it runs the same
//     arguments through another program or a runner (`uv run pytest`
//     after `pytest: command not found`, `python3` after `python`);
//   - the error does not itself say what to run: git's "has no upstream
//     branch" prints the `git push --set-upstream …` that works, mix
//     says "Run 'mix format'", Ubuntu's command-not-found names the
//     package. What the tool prints every time it fails needs no
//     memory (two readers judged the set-upstream lesson marginal), so
//     the rule drops every lesson whose added words the error already
//     holds, rather than knowing git's advice in particular.
//
// A retry that only changed a path or dropped an option teaches nothing.

// retryWindow is how many Bash calls after a failure its fix may come.
const retryWindow = 5

// retries is the state of one thread's pass: the failures still waiting
// for the call that fixes them, and how many Bash calls the thread made.
type retries struct {
	pending []shellCall
	ran     int
}

// commandCandidates finds the commands of entries that worked after the
// same command failed for how it was called.
func commandCandidates(entries []index.MemEntry) []candidate {
	calls := map[string]shellCall{} // tool_use id -> call
	threads := map[bool]*retries{false: {}, true: {}}
	said := map[string]bool{}
	var out []candidate
	for _, e := range entries {
		t := threads[e.Sidechain]
		if c, ok := bashCall(e); ok {
			t.ran++
			c.n = t.ran
			calls[e.ToolUse] = c
			continue
		}
		if editsFiles(e) {
			t.pending = nil // what works from now on may work because of the edit
			continue
		}
		c, ok := calls[e.ToolUse]
		if !ok || e.Role != "tool" {
			continue
		}
		failed := invocationFailed(e)
		if !failed && writes(c.cmd) {
			t.pending = nil // as an edit
			continue
		}
		if c.key = invocationKey(c.cmd); c.key == "" {
			continue // a command too common to be worth remembering
		}
		if failed {
			c.out = e.Text
			t.pending = append(t.pending, c)
			continue
		}
		content, f, ok := t.fixedBy(c)
		if ok && !said[content] {
			said[content] = true
			out = append(out, candidate{typ: Pattern, importance: 2, rule: "command-after-failure",
				content: content, uuids: []string{f.uuid, c.uuid, e.UUID}, tags: []string{"command"}})
		}
	}
	return out
}

// fixedBy reads call c, which worked: the lesson it teaches about the
// latest failure it fixes, if any. The failures it resolves — the same
// command run again, another run of the same program, a fix — stop
// waiting; so do those too old for it.
func (t *retries) fixedBy(c shellCall) (string, shellCall, bool) {
	var content string
	var fixed shellCall
	var keep []shellCall
	for i := len(t.pending) - 1; i >= 0; i-- {
		f := t.pending[i]
		if c.n-f.n > retryWindow {
			continue
		}
		if content == "" {
			if l, ok := commandLesson(f, c); ok {
				content, fixed = l, f
				continue
			}
		}
		if f.cmd == c.cmd || f.key != "" && f.key == c.key {
			continue
		}
		keep = append(keep, f)
	}
	slices.Reverse(keep)
	t.pending = keep
	return content, fixed, content != ""
}

// editsFiles reports a call of a tool that writes files.
func editsFiles(e index.MemEntry) bool {
	return e.Role == "assistant" && e.ToolUse != "" && slices.Contains(editTools, e.ToolName)
}

// writesFile is a shell command writing a file of the project: an
// in-place edit or output redirected to a file (not to /dev/null or a
// stream).
var (
	writesFile = lazyRE(`\bsed\s+(-\S+\s+)*-i|\bperl\s+-\S*i|\btee\s+[^-|]|(^|[^0-9&>=-])>>?\s*[^\s&>]`)
	devNull    = lazyRE(`[0-9&]?>>?\s*(/dev/null|&[0-9])`)
	quoted     = lazyRE(`'[^']*'|"(\\.|[^"\\])*"`)
)

// writes reports whether shell command cmd writes a file (quoted text,
// a script's comparisons, left out).
func writes(cmd string) bool {
	return writesFile.MatchString(devNull.ReplaceAllString(quoted.ReplaceAllString(cmd, `""`), ""))
}

// commandLesson is the memory of worked after failed: "`git push
// --set-upstream origin <branch>` works where `git push` fails (fatal: …)",
// or none when worked does not fix failed in one of retryShape's shapes.
func commandLesson(failed, worked shellCall) (string, bool) {
	inst := map[string]string{}
	f, w := parseInvocation(failed.cmd, inst), parseInvocation(worked.cmd, inst)
	ww, fw, ok := retryShape(f, w, failed.out)
	if !ok {
		return "", false
	}
	msg := "`" + ww + "` works where `" + cut(fw, 120) + "` fails"
	line := errorLine(failed.out, inst)
	if line != "" {
		msg += " (" + line + ")"
	}
	if w.wrapper != "" && zshError.MatchString(line) {
		msg = "The Bash tool's shell is zsh: " + msg
	}
	return msg, true
}

// zshError is an error line in zsh's words: Claude Code evaluates a
// command in the user's shell, and zsh names the place "(eval):1:"
// where bash says "/bin/bash: line 1:".
var zshError = lazyRE(`^(\(eval\):|zsh:)`)

// retryShape is how invocation w reaches what f failed to (its error in
// out), said as the two commands to write in the lesson, if it does in
// one of the shapes a command lesson has: the same first command in a
// shell of its own, another program for the one not found, setup
// before the same program or added options.
func retryShape(f, w invocation, out string) (worked, failed string, ok bool) {
	if len(f.segs) == 0 || len(w.segs) == 0 {
		return "", "", false
	}
	if worked, failed, ok := wrapped(f, w, out); ok {
		return worked, failed, true
	}
	fj := f.core()
	if fj < 0 || trivialCommand(f.segs[fj]) {
		return "", "", false
	}
	if worked, ok := replacedProgram(f.segs[fj], w, out); ok {
		return worked, f.segs[fj], true
	}
	worked, ok = setupOrOptions(f, fj, w, out)
	return worked, f.segs[fj], ok
}

// wrapped is the lesson of w running f's first command in a shell of its
// own (`bash -c '…'`) where f, run in the Bash tool's shell, failed.
func wrapped(f, w invocation, out string) (worked, failed string, ok bool) {
	if w.wrapper == "" || f.wrapper != "" || f.segs[0] != w.segs[0] || isCd(f.segs[0]) || strings.Contains(out, w.wrapper) {
		return "", "", false
	}
	more := ""
	if len(w.segs) > 1 {
		more = "; …"
	}
	failed = cut(f.segs[0], 100)
	if len(f.segs) > 1 {
		failed += " && …"
	}
	return w.wrapper + " '" + cut(w.segs[0], 100) + more + "'", failed, true
}

// notFound is a shell's word that the program it was asked to run does
// not exist: zsh's "command not found: tree", Ubuntu's "Command 'python'
// not found", bash's "pytest: command not found", sh's "pytest: not
// found".
var notFound = []*lazyRegexp{lazyRE(`command not found:\s*(\S+)`), lazyRE(`(?i)command '([^']+)' not found`), lazyRE(`(\S+):\s+(?:command )?not found`)}

// missingProgram is the program out says was not found, if any.
func missingProgram(out string) string {
	for _, re := range notFound {
		if m := re.FindStringSubmatch(out); m != nil {
			return m[1]
		}
	}
	return ""
}

// replacedProgram is the lesson of w running, where f's program (of its
// command fcmd) was not found, the same arguments through another
// program or a runner: "uv run pytest -x" for "pytest -x", "python3
// x.py" for "python x.py", ".venv/bin/pytest" for "pytest".
func replacedProgram(fcmd string, w invocation, out string) (string, bool) {
	fw := strings.Fields(fcmd)
	missing, wj := missingProgram(out), w.core()
	if missing == "" || missing != fw[0] && path.Base(missing) != path.Base(fw[0]) || wj < 0 {
		return "", false
	}
	ww := strings.Fields(w.segs[wj])
	n := len(ww) - (len(fw) - 1) // the words before f's arguments
	if n < 1 || n > 3 || !slices.Equal(ww[n:], fw[1:]) || n == 1 && ww[0] == fw[0] || trivialCommands[ww[0]] {
		return "", false
	}
	if len(fw) == 1 && path.Base(ww[n-1]) != path.Base(fw[0]) {
		return "", false // no argument in common: what runs the same program ("uv run pytest") is all there is to go on
	}
	with := strings.Join(ww[:n], " ")
	if strings.Contains(out, with) {
		return "", false // the error names the program to run instead
	}
	return w.segs[wj], true
}

// setupOrOptions is the lesson of w running f's command (f.segs[fj]), or
// the same program, after setup f lacks ("cd assets && node build.js"
// for "node assets/build.js", "source .venv/bin/activate && pytest" for
// "pytest", "npm install && npm test"), or with options it lacks.
func setupOrOptions(f invocation, fj int, w invocation, out string) (string, bool) {
	fw := f.segs[fj]
	wj := -1
	for i, s := range w.segs {
		if !isSetup(s) && sameProgram(fw, s) {
			wj = i
			break
		}
	}
	if wj < 0 || w.wrapper != f.wrapper {
		return "", false
	}
	ww := w.segs[wj]
	var added []string
	for _, s := range w.segs[:wj] {
		if slices.Contains(f.segs, s) {
			continue
		}
		shown, ok := setupShown(s, fw, ww)
		if !ok || strings.Contains(out, s) {
			return "", false // an idle step, or one the error says to run
		}
		added = append(added, shown)
	}
	if len(added) > 0 {
		return strings.Join(added, " && ") + " && " + ww, true
	}
	if fw == ww || !addsOption(fw, ww) || sameButPaths(fw, ww) || errorSaysFix(out, fw, ww) {
		// git's "no upstream branch" prints the very command that
		// works: the tool teaches it every time, nothing to remember.
		return "", false
	}
	return ww, true
}

// setupShown is setup step s as the lesson says it, if it is one that
// makes command fw work as ww: a folder named by its last element, as it
// would be from the project's root — and only when ww names its paths
// from there (`cd assets && node build.js` for `node assets/build.js`)
// or the folder is relative. A `cd` to a full path before the very
// command that failed is how Claude recovers when an earlier `cd`
// persisted (rules_cd.go's lesson), not where the command runs. A
// step of a command too common to teach (`sleep 2`, `mkdir -p out`) is
// not setup.
func setupShown(s, fw, ww string) (string, bool) {
	if m := setupCdWord.FindStringSubmatch(s); m != nil {
		dir := strings.Trim(m[1], `"'`)
		base := path.Base(dir)
		if base == "." || base == "/" || base == "~" {
			return "", false
		}
		full := strings.HasPrefix(dir, "/") || strings.HasPrefix(dir, "~")
		if full && (fw == ww || !strings.Contains(fw, base+"/")) {
			return "", false
		}
		return "cd " + base, true
	}
	if isSetup(s) || !trivialCommand(s) {
		return s, true
	}
	return "", false
}

// invocation is a shell command read for what it runs: the shell it is
// given to as a script ("bash -c"), if any, and the commands of its
// top-level chain, each normalised (normCommand).
type invocation struct {
	wrapper string
	segs    []string
	setup   []string
}

// core is the index of the command inv runs after its setup, or -1.
func (inv invocation) core() int {
	if len(inv.setup) < len(inv.segs) {
		return len(inv.setup)
	}
	return -1
}

// shellScript is a command handing a script to a shell: `bash -c '…'`.
var shellScript = regexp.MustCompile(`(?s)^((?:/usr)?(?:/bin/)?(?:bash|sh))\s+(-[a-z]*c)\s+(['"])(.*)$`)

func parseInvocation(cmd string, inst map[string]string) invocation {
	var inv invocation
	c := strings.TrimSpace(strings.ReplaceAll(cmd, "\\\n", " "))
	if m := shellScript.FindStringSubmatch(c); m != nil {
		if end := strings.LastIndex(m[4], m[3]); end >= 0 && strings.TrimSpace(trailRe.ReplaceAllString(m[4][end+1:], "")) == "" {
			inv.wrapper = path.Base(m[1]) + " " + m[2] // "bash -lc" runs a login shell: its flags are part of the lesson
			c = strings.TrimSpace(m[4][:end])
		}
	}
	if strings.HasPrefix(c, "(") && strings.HasSuffix(c, ")") {
		c = strings.TrimSpace(c[1 : len(c)-1])
	}
	for _, s := range chain(c) {
		if n := normCommand(s, inst); n != "" {
			inv.segs = append(inv.segs, n)
		}
	}
	for _, s := range inv.segs {
		if !isSetup(s) {
			break
		}
		inv.setup = append(inv.setup, s)
	}
	return inv
}

// chain splits a shell command into the commands of its top-level chain
// (joined by "&&", "||", ";" or a new line), outside quotes and
// parentheses.
func chain(cmd string) []string {
	var c chainSplit
	for i := 0; i < len(cmd); i++ {
		if c.quote != 0 {
			i = c.inQuote(cmd, i)
			continue
		}
		if n := c.separator(cmd, i); n > 0 {
			c.flush()
			i += n - 1
			continue
		}
		c.open(cmd[i])
		c.b.WriteByte(cmd[i])
	}
	c.flush()
	return c.out
}

// chainSplit is chain's state: the commands so far, the one being read,
// the quote it is inside and how deep in parentheses.
type chainSplit struct {
	out   []string
	b     strings.Builder
	quote byte
	depth int
}

func (c *chainSplit) flush() {
	if s := strings.TrimSpace(c.b.String()); s != "" {
		c.out = append(c.out, s)
	}
	c.b.Reset()
}

// inQuote reads cmd[i] inside a quote (a backslash escapes the next byte
// in double quotes) and returns the last index read.
func (c *chainSplit) inQuote(cmd string, i int) int {
	ch := cmd[i]
	if ch == c.quote {
		c.quote = 0
	} else if ch == '\\' && c.quote == '"' && i+1 < len(cmd) {
		c.b.WriteByte(ch)
		i++
		ch = cmd[i]
	}
	c.b.WriteByte(ch)
	return i
}

// separator is the length of the chain separator at cmd[i] outside
// parentheses (a new line, ";", "&&", "||"), 0 when there is none.
func (c *chainSplit) separator(cmd string, i int) int {
	switch ch := cmd[i]; {
	case c.depth > 0:
		return 0
	case ch == '\n' || ch == ';':
		return 1
	case (ch == '&' || ch == '|') && i+1 < len(cmd) && cmd[i+1] == ch:
		return 2
	}
	return 0
}

// open notes a quote or parenthesis ch opens or closes.
func (c *chainSplit) open(ch byte) {
	switch ch {
	case '\'', '"':
		c.quote = ch
	case '(':
		c.depth++
	case ')':
		c.depth--
	}
}

// setupCd and setupSource are a command's setup steps before what it
// runs: changing folder, sourcing an environment.
var (
	setupCd     = regexp.MustCompile(`^\(?\s*cd\s+("[^"]+"|'[^']+'|\S+)\s*(&&|;)\s*`)
	setupSource = regexp.MustCompile(`^\(?\s*(source|\.)\s+(\S+)\s*(&&|;)\s*`)
)

// setupCdWord is a command changing folder; setupStep one preparing the
// environment for what follows: sourcing a file, setting or exporting a
// variable, activating an environment or a tool version.
var (
	setupCdWord = regexp.MustCompile(`^(?:cd|pushd)\s+("[^"]+"|'[^']+'|\S+)$`)
	setupStep   = regexp.MustCompile(`^(source|\.|export|set|eval|conda activate|mamba activate|nvm use|pyenv (shell|local)|rbenv (shell|local)|direnv allow|[A-Za-z_][A-Za-z0-9_]*=\S*$)(\s|$)`)
)

func isSetup(s string) bool { return setupCdWord.MatchString(s) || setupStep.MatchString(s) }

func isCd(s string) bool { return setupCdWord.MatchString(s) }

// invocationKey is the key (commandKey) of the command cmd runs after
// its setup, in the script it hands a shell if it does.
func invocationKey(cmd string) string {
	inv := parseInvocation(cmd, map[string]string{})
	if j := inv.core(); j >= 0 {
		return commandKey(inv.segs[j])
	}
	if len(inv.segs) > 0 {
		return commandKey(inv.segs[0])
	}
	return ""
}

// trivialCommand reports a command too common to be worth remembering.
func trivialCommand(s string) bool { return commandKey(s) == "" }

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
	n              int    // its place among its thread's Bash calls
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
var invocationError = lazyRE(`(?i)command not found|could not resolve|unknown (option|flag|command|shorthand flag)|unrecognized (option|argument|arguments)|invalid (option|argument)|usage:|no such file or directory|not a git repository|has no upstream branch|permission denied|could not find (task|command|module)|is not a (task|command)|missing required|no module named|cannot find module|not installed|requires? (an )?argument|no matches found|bad substitution|parse error near|: not found\b|command '[^']+' not found|could not be found`)

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
