package memories

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/index"

	json "github.com/go-json-experiment/json"
)

// Facts about the environment and the tools that a failed call proves,
// with what worked instead. Such a lesson carries no words of the
// person's and often none of Claude's: the error says what is wrong, and
// the next call that worked says what to do. A survey of every failed
// call of both corpora (docs/extraction.md, "Session 41") found these
// classes lasting — the next session meets them again — and the rest
// one-offs (a stale edit string, a guessed path, a site's 404, the code's
// own test failures, which rules_discovery.go reads):
//
//   - a program that is not installed (`command not found`, exit 127),
//     with the other program that reached the same goal: the working
//     call shares an argument with the failed one, or Claude's words in
//     between name its program ("Let me use find instead"). A typo (the
//     working program is a near spelling of the missing one), an install
//     or a runner of the same program (rules_retry.go's lessons) and a
//     failure never worked around are not proposed;
//   - a file too large for the Read tool ("File content (806.5KB) exceeds
//     maximum allowed size (256KB)"), with how it was then read: a Read
//     with offset/limit, Grep on it, a shell command on it;
//   - the calls Claude Code cancelled because a call sent with them failed
//     ("Sibling tool call errored"), when one of them had to be sent
//     again;
//   - Edit's "File has not been read yet" satisfied by a partial Read
//     (offset/limit) of the file: the part is enough;
//   - a path `git add` refuses because .gitignore ignores it, once a later
//     `git add` got past it;
//   - a session's tools confined to its working directories ("For
//     security, Claude Code may only list files in the allowed working
//     directories for this session").
//
// Each is proposed once per session and kind of fact; the store's dedup
// merges the same fact from other sessions.

// envfact's regular expressions: the messages of Claude Code's tools and
// of git that state a fact, not an instance.
var (
	readTooLarge    = lazyRE(`File content \([^)\n]{1,40}\) exceeds maximum allowed (?:size|tokens) \([^)\n]{1,40}\)`)
	workDirBlocked  = lazyRE(`(\S+) in '([^'\n]+)' was blocked\. For security, Claude Code may only (\w+) files in the allowed working directories for this session: '([^'\n]+)'`)
	gitIgnoredPaths = lazyRE(`(?s)The following paths are ignored by one of your \.gitignore files:\n(.*?)(?:\nhint:|$)`)
)

const (
	siblingErrored = "Sibling tool call errored"
	notReadYet     = "File has not been read yet"
)

// envInput is what envfact reads of a call's input.
type envInput struct {
	Command string `json:"command"`
	Path    string `json:"file_path"`
	Dir     string `json:"path"`
	Offset  any    `json:"offset"`
	Limit   any    `json:"limit"`
}

func envInputOf(e index.MemEntry) envInput {
	var in envInput
	_ = json.Unmarshal(e.Input, &in)
	return in
}

// partial reports a Read of part of a file.
func (in envInput) partial() bool { return in.Offset != nil || in.Limit != nil }

// missingRun is a Bash call whose program was not found, waiting for the
// call that reached its goal another way.
type missingRun struct {
	prog, cmd, found string // the program, the command, the shell's words
	uuids            []string
	n                int    // its place among the thread's Bash calls
	said             string // Claude's words since, lower case
}

// cancelled is a call Claude Code cancelled because a sibling failed.
type cancelled struct {
	call index.MemEntry
	key  string
	by   *index.MemEntry // the failing call, once known
	uuid string          // the cancellation's result
}

// envThread is one thread's pending failures.
type envThread struct {
	ran       int
	missing   []missingRun
	large     map[string][]string // file path -> the failed Read's call and result
	largeHead map[string]string
	unread    map[string][]string // file path -> the refused edit's call and result
	partial   map[string][]string // file path -> those and the partial Read's
	cancelled []cancelled
	lastErr   *index.MemEntry
	ignored   []ignoredAdd
}

// ignoredAdd is a `git add` refused for ignored paths.
type ignoredAdd struct {
	paths []string
	uuids []string
}

// envFacts is the state of one pass over a session.
type envFacts struct {
	entries []index.MemEntry
	calls   map[string]index.MemEntry
	bashN   map[string]int
	threads [2]envThread
	said    map[string]bool // the kinds of fact proposed
	out     []candidate
	root    *string
}

// envFactCandidates proposes (to add) the environment and tool facts
// the failed calls of entries (one session) prove.
func envFactCandidates(entries []index.MemEntry, add func(candidate)) {
	x := envFacts{entries: entries, calls: map[string]index.MemEntry{}, bashN: map[string]int{}, said: map[string]bool{}}
	for _, e := range entries {
		t := &x.threads[b2i(e.Sidechain)]
		switch {
		case e.Role == "assistant" && e.ToolUse != "" && e.ToolName != "":
			x.calls[e.ToolUse] = e
			if e.ToolName == "Bash" {
				t.ran++
				x.bashN[e.ToolUse] = t.ran
			}
		case e.Role == "assistant" && e.Block == "text":
			for i := range t.missing {
				if len(t.missing[i].said) < 2000 {
					t.missing[i].said += " " + strings.ToLower(e.Text)
				}
			}
		case e.Role == "tool" && e.ToolUse != "":
			if c, ok := x.calls[e.ToolUse]; ok {
				x.result(t, c, e)
			}
		case typedPrompt(e) && !e.Sidechain:
			t.missing, t.cancelled = nil, nil // a new turn: what Claude runs now has another goal
		}
	}
	for _, c := range x.out {
		add(c)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// propose adds c, once per kind of fact.
func (x *envFacts) propose(kind string, c candidate) {
	if x.said[kind] {
		return
	}
	x.said[kind] = true
	class, _, _ := strings.Cut(kind, " ")
	c.typ, c.importance, c.rule = Gotcha, 3, "env:"+class
	x.out = append(x.out, c)
}

// result reads tool result e of call c.
func (x *envFacts) result(t *envThread, c, e index.MemEntry) {
	if e.IsError || c.ToolName == "Bash" && failedOutput(e.Text) {
		x.failed(t, c, e)
		return
	}
	if len(t.cancelled) > 0 {
		x.resent(t, c, e)
	}
	switch c.ToolName {
	case "Bash":
		if len(t.missing) > 0 || len(t.ignored) > 0 || len(t.large) > 0 {
			x.bashWorked(t, c, e)
		}
	case "Read", "Grep":
		if len(t.large) > 0 || len(t.unread) > 0 {
			x.readWorked(t, c, e)
		}
	case "Edit", "MultiEdit", "Write":
		if len(t.partial) > 0 {
			x.editWorked(t, c, e)
		}
	}
}

// failed reads a failed call.
func (x *envFacts) failed(t *envThread, c, e index.MemEntry) {
	if strings.Contains(e.Text, siblingErrored) {
		k := callKey(c)
		cc := cancelled{call: c, key: k, by: t.lastErr, uuid: e.UUID}
		t.cancelled = append(t.cancelled, cc)
		return
	}
	if strings.Contains(e.Text, rejectedCall) {
		return
	}
	t.lastErr = &c
	for i := range t.cancelled {
		if t.cancelled[i].by == nil {
			t.cancelled[i].by = &c // the failure's result came after the cancellations
		}
	}
	if m := blockedDir(e.Text); m != nil {
		x.propose("outside-workdir", candidate{uuids: []string{c.UUID, e.UUID}, tags: []string{"claude-code", "permissions"},
			content: "Claude Code's tools reach only this session's working directories (`" + homeRe.ReplaceAllString(m[4], "~/") +
				"`): `" + m[1] + "` in `" + m[2] + "` was blocked (\"For security, Claude Code may only " + m[3] +
				" files in the allowed working directories for this session\"); `claude --add-dir DIR` allows another"})
		return
	}
	switch c.ToolName {
	case "Bash":
		x.bashFailed(t, c, e)
	case "Read":
		if m := tooLarge(e.Text); m != "" {
			p := envInputOf(c).Path
			if t.large == nil {
				t.large, t.largeHead = map[string][]string{}, map[string]string{}
			}
			t.large[p], t.largeHead[p] = []string{c.UUID, e.UUID}, m
		}
	case "Edit", "MultiEdit", "Write":
		if strings.Contains(e.Text, notReadYet) {
			if t.unread == nil {
				t.unread = map[string][]string{}
			}
			t.unread[envInputOf(c).Path] = []string{c.UUID, e.UUID}
		}
	}
}

// bashFailed notes a program not found and a `git add` of ignored paths.
func (x *envFacts) bashFailed(t *envThread, c, e index.MemEntry) {
	sc, ok := bashCall(c)
	if !ok {
		return
	}
	if prog, found := notInstalled(e.Text, sc.cmd); prog != "" {
		t.missing = append(t.missing, missingRun{prog: prog, cmd: sc.cmd, found: found, uuids: []string{c.UUID, e.UUID}, n: x.bashN[c.ToolUse]})
	}
	if !strings.Contains(e.Text, "paths are ignored by one of your") || !strings.Contains(sc.cmd, "git add") {
		return
	}
	if m := gitIgnoredPaths.FindStringSubmatch(e.Text); m != nil {
		var paths []string
		for _, l := range strings.Split(m[1], "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "hint:") && len(paths) < 3 {
				paths = append(paths, l)
			}
		}
		if len(paths) > 0 {
			t.ignored = append(t.ignored, ignoredAdd{paths: paths, uuids: []string{c.UUID, e.UUID}})
		}
	}
}

// notInstalled is the program output says was not found, with the
// shell's words, when command cmd runs it by its bare name.
func notInstalled(out, cmd string) (prog, found string) {
	head := out
	if len(head) > 400 {
		head = head[:400]
	}
	for _, re := range notFound {
		m := re.FindStringSubmatch(head)
		if m == nil {
			continue
		}
		p := strings.Trim(m[1], "'\"`:")
		if p == "" || strings.ContainsAny(p, "/.$") || !commandWord(cmd, p) {
			return "", ""
		}
		return p, m[0]
	}
	return "", ""
}

// commandWord reports whether cmd runs p: p starts the command or one of
// its chain's or pipeline's commands.
func commandWord(cmd, p string) bool {
	for _, line := range strings.Split(cmd, "\n") {
		for _, seg := range strings.FieldsFunc(line, func(r rune) bool { return r == '|' || r == '&' || r == ';' || r == '(' }) {
			f := strings.Fields(seg)
			for len(f) > 0 && commandPrefix(f[0]) {
				f = f[1:]
			}
			if len(f) > 0 && f[0] == p {
				return true
			}
		}
	}
	return false
}

// bashWorked reads a Bash call that worked: the other program that did
// what a missing one could not, the `git add` without the ignored paths,
// a shell command reading a file too large for Read.
func (x *envFacts) bashWorked(t *envThread, c, e index.MemEntry) {
	sc, ok := bashCall(c)
	if !ok {
		return
	}
	n := x.bashN[c.ToolUse]
	keep := t.missing[:0]
	for _, m := range t.missing {
		if n-m.n > retryWindow {
			continue
		}
		switch done, content := insteadOf(m, sc.cmd); {
		case content != "":
			content = x.rel(content)
			x.propose("not-installed "+m.prog, candidate{content: content, uuids: append(m.uuids, c.UUID, e.UUID), tags: []string{"environment", m.prog}})
		case !done:
			keep = append(keep, m)
		}
	}
	t.missing = keep
	if len(t.ignored) > 0 && strings.Contains(sc.cmd, "git add") {
		x.ignoredWorked(t, c, e)
	}
	for p, uuids := range t.large {
		if p != "" && strings.Contains(sc.cmd, p) && readsText(sc.cmd) {
			x.proposeLarge(t, p, "`"+cut(oneLine(x.rel(withoutHeredoc(sc.cmd))), 80)+"` worked", append(uuids, c.UUID, e.UUID))
		}
	}
}

// textReaders are programs that print part of a file: what can read one
// too large for the Read tool.
var textReaders = map[string]bool{"head": true, "tail": true, "sed": true, "grep": true, "rg": true, "awk": true, "jq": true, "cut": true, "less": true}

// readsText reports whether cmd runs a program printing part of a file.
func readsText(cmd string) bool {
	p, _ := programOf(strings.TrimSpace(afterSetup(cmd)))
	return textReaders[path.Base(p)]
}

// insteadOf reads worked, a command that worked after m's program was
// not found: done when m needs no more waiting (the same program, run
// after all: an install or a runner, rules_retry.go's; a typo), content
// the lesson when worked reached m's goal with another program.
func insteadOf(m missingRun, worked string) (done bool, content string) {
	line, _, _ := strings.Cut(strings.TrimSpace(afterSetup(worked)), "\n")
	wf := strings.Fields(line)
	if len(wf) == 0 {
		return false, ""
	}
	if commandWord(worked, m.prog) || namesWord(worked, m.prog) && strings.Contains(worked, "install") {
		return true, ""
	}
	wprog := wf[0]
	if typo(m.prog, wprog) {
		return true, ""
	}
	if !sharesArgument(m.cmd, line) && !namesWord(m.said, strings.ToLower(path.Base(wprog))) {
		return false, ""
	}
	if _, ok := commandLesson(shellCall{cmd: m.cmd, out: m.found}, shellCall{cmd: worked}); ok {
		return true, "" // another runner of the same arguments: rules_retry.go's
	}
	failed, _, _ := strings.Cut(strings.TrimSpace(afterSetup(m.cmd)), "\n")
	state := "is not installed here"
	if namesWord(worked, m.prog) {
		state = "is not on the PATH here" // run through something else (`uv run pytest …`)
	}
	return true, "`" + m.prog + "` " + state + " (" + m.found + "): `" + cut(oneLine(withoutHeredoc(line)), 90) +
		"` worked instead of `" + cut(oneLine(withoutHeredoc(failed)), 60) + "`"
}

// typo reports whether b is a near spelling of a: one edit away (two
// for names longer than four letters), a swap of two letters counting
// as one. A longer name of it is another program (`python3`, `python`),
// and so is a short name two edits away (`fd`, `find`).
func typo(a, b string) bool {
	if a == b || strings.HasPrefix(a, b) || strings.HasPrefix(b, a) {
		return false
	}
	limit := 1
	if min(len(a), len(b)) > 4 {
		limit = 2
	}
	return editDistance(a, b) <= limit
}

// editDistance is the edit distance of two short words (insertions,
// deletions, substitutions and swaps of neighbours).
func editDistance(a, b string) int {
	if len(a) > 40 || len(b) > 40 {
		return 99
	}
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j-1]+cost, d[i-1][j]+1, d[i][j-1]+1)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// sharesArgument reports whether two commands name one path or pattern:
// a word of at least three characters that is no option.
func sharesArgument(a, b string) bool {
	af := strings.Fields(a)
	for i, w := range af {
		if i == 0 || len(w) < 3 || strings.HasPrefix(w, "-") || strings.ContainsAny(w, "<>&|") {
			continue
		}
		for _, v := range strings.Fields(b)[1:] {
			if strings.Trim(v, `"'`) == strings.Trim(w, `"'`) {
				return true
			}
		}
	}
	return false
}

// namesWord reports whether text holds w as a word of its own.
func namesWord(text, w string) bool {
	if len(w) < 2 {
		return false
	}
	for i := 0; ; {
		j := strings.Index(text[i:], w)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(w)
		if (start == 0 || !isWordByte(text[start-1])) && (end == len(text) || !isWordByte(text[end])) {
			return true
		}
		i = end
	}
}

// ignoredWorked proposes the ignored paths of a `git add` Claude got
// past (leaving them out, or forcing them as git's hint says): the
// project keeps them out of git, and a file under them is committed only
// when forced. Which the project wants is not the rule's to say — one
// session left a hand-written file there out and lost its change,
// another found such files force-added — so the memory states the fact
// and the way past it, not a choice.
func (x *envFacts) ignoredWorked(t *envThread, c, e index.MemEntry) {
	for _, ig := range t.ignored {
		shown := "`" + strings.Join(ig.paths, "`, `") + "`"
		x.propose("gitignored "+ig.paths[0], candidate{uuids: append(ig.uuids, c.UUID, e.UUID), tags: []string{"git", "gitignore"},
			content: shown + " is gitignored: `git add` of a file under it fails (\"The following paths are ignored by one of your .gitignore files\") unless forced with `git add -f`"})
	}
	t.ignored = nil
}

// readWorked reads a Read or Grep that worked: of part of a file too
// large to read whole, or a partial Read of a file an edit was refused.
func (x *envFacts) readWorked(t *envThread, c, e index.MemEntry) {
	in := envInputOf(c)
	p := in.Path
	if c.ToolName == "Grep" {
		p = in.Dir
	}
	if uuids, ok := t.large[p]; ok && p != "" {
		switch {
		case c.ToolName == "Grep":
			x.proposeLarge(t, p, "`Grep` on it worked", append(uuids, c.UUID, e.UUID))
		case in.partial():
			x.proposeLarge(t, p, "a Read with `"+readWindow(in)+"` worked", append(uuids, c.UUID, e.UUID))
		}
	}
	if uuids, ok := t.unread[p]; ok && c.ToolName == "Read" {
		delete(t.unread, p)
		if in.partial() {
			if t.partial == nil {
				t.partial = map[string][]string{}
			}
			t.partial[p] = append(uuids, c.UUID, e.UUID)
		}
	}
}

// readWindow is how a Read chose its part: "limit: 50", "offset: 3850".
func readWindow(in envInput) string {
	var parts []string
	for _, f := range []struct {
		name string
		v    any
	}{{"offset", in.Offset}, {"limit", in.Limit}} {
		switch v := f.v.(type) {
		case nil:
		case float64:
			parts = append(parts, f.name+": "+strconv.Itoa(int(v)))
		default:
			parts = append(parts, f.name)
		}
	}
	return strings.Join(parts, ", ")
}

// proposeLarge proposes file p too large for Read, and how it was read.
func (x *envFacts) proposeLarge(t *envThread, p, how string, uuids []string) {
	x.propose("read-too-large "+p, candidate{uuids: uuids, tags: []string{"read-tool"},
		content: "`" + x.rel(p) + "` is too large for the Read tool (" + t.largeHead[p] + "): " + how})
	delete(t.large, p)
}

// editWorked proposes the partial Read that let an edit through.
func (x *envFacts) editWorked(t *envThread, c, e index.MemEntry) {
	p := envInputOf(c).Path
	uuids, ok := t.partial[p]
	if !ok {
		return
	}
	delete(t.partial, p)
	x.propose("partial-read", candidate{uuids: append(uuids, c.UUID, e.UUID), tags: []string{"claude-code", "read-tool"},
		content: "Claude Code's Edit and Write refuse a file the session has not read (\"" + notReadYet + "\"), and a partial Read (`offset`/`limit`) of it is enough for the edit to go through"})
}

// callKey is what makes a call the same call sent again: its tool and
// command, file or pattern (not its description).
func callKey(c index.MemEntry) string {
	in := envInputOf(c)
	return c.ToolName + "\x00" + in.Command + "\x00" + in.Path + "\x00" + in.Dir
}

// resent proposes the cancellation when a cancelled call, sent again,
// worked. The memory says the behaviour, not the instance: it is Claude
// Code's, the same in every session, and said alike it is one memory
// however many sessions meet it.
func (x *envFacts) resent(t *envThread, c, e index.MemEntry) {
	if !slices.ContainsFunc(t.cancelled, func(cc cancelled) bool { return cc.call.ToolName == c.ToolName }) {
		return
	}
	k := callKey(c)
	for _, cc := range t.cancelled {
		if cc.key != k || cc.by == nil {
			continue
		}
		x.propose("sibling-cancelled", candidate{uuids: []string{cc.by.UUID, cc.uuid, c.UUID, e.UUID}, tags: []string{"claude-code", "parallel-calls"},
			content: "Claude Code cancels the tool calls sent together with one that fails, a Bash command exiting non-zero included (\"" + siblingErrored +
				"\"): the cancelled calls did not fail themselves and have to be sent again"})
		t.cancelled = nil
		return
	}
}

// rel is s with the session's project folder left out of its paths and
// a home folder as "~/".
func (x *envFacts) rel(s string) string {
	if x.root == nil {
		r := sessionRoot(x.entries)
		x.root = &r
	}
	if *x.root != "" {
		s = strings.ReplaceAll(s, *x.root+"/", "")
	}
	return homeRe.ReplaceAllString(s, "~/")
}

// sessionRoot is the project folder of a session: the deepest folder
// holding at least four in five of the files its calls named (at least
// three files), "" when there is none.
func sessionRoot(entries []index.MemEntry) string {
	seen := map[string]bool{}
	count := map[string]int{}
	for _, e := range entries {
		if e.Role != "assistant" || e.ToolUse == "" {
			continue
		}
		switch e.ToolName {
		case "Read", "Edit", "MultiEdit", "Write", "Glob", "Grep", "NotebookEdit":
		default:
			continue
		}
		in := envInputOf(e)
		p := in.Path
		if p == "" {
			p = in.Dir
		}
		if !strings.HasPrefix(p, "/") || seen[p] {
			continue
		}
		seen[p] = true
		for d := path.Dir(p); d != "/" && d != "."; d = path.Dir(d) {
			count[d]++
		}
	}
	n := len(seen)
	if n < 3 {
		return ""
	}
	best := ""
	for d, c := range count {
		if c*5 >= n*4 && strings.Count(d, "/") > strings.Count(best, "/") && strings.Count(d, "/") >= 2 {
			best = d
		}
	}
	return best
}

// blockedDir is the working-directory refusal out states, if any.
func blockedDir(out string) []string {
	if !strings.Contains(out, "was blocked. For security") {
		return nil
	}
	return workDirBlocked.FindStringSubmatch(out)
}

// tooLarge is the Read tool's size refusal out states, if any.
func tooLarge(out string) string {
	if !strings.Contains(out, "exceeds maximum allowed") {
		return ""
	}
	return readTooLarge.get().FindString(out)
}
