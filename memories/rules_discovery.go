package memories

import (
	"regexp"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/index"

	json "github.com/go-json-experiment/json"
)

// Claude's discoveries that what happened next confirmed. When a tool
// call fails, Claude's next words often say why: how a tool, a library or
// an API behaves ("The LiveView runs in a separate process that can't
// access the test sandbox"), or what caused the bug. Said before anything
// was tried, that is a guess, and a wrong one proposed as a fact is the
// worst kind of memory. So a statement counts only when the transcript
// shows it held:
//
//   - it is the explanation of the last failure of a kind of call (the
//     same program, or the same file's edit): a later failure of that kind
//     means the explanation before it was not the answer;
//   - a later call of that kind succeeds (the failing command now works);
//   - the person's next prompt does not say it still fails.
//
// And it must read as a lasting fact: a present-tense statement about
// something named (code, a path, a tool or library name outside common
// English), not narration, a plan, a guess or a progress report. It is
// said with the failure it avoids. Sidechains (subagents) are read as
// threads of their own: some sessions survive only as those.
//
// (A `cd` that persists into later Bash calls, which needs no words from
// Claude, is rules_cd.go's.)

// failure is a failed call of one kind, and what Claude said after it.
type failure struct {
	call index.MemEntry
	head string // errorHead of its output
	said []discoverySaid
}

// confirmed is a discovery waiting for the person's next prompt, with
// the kind of call and the error it explained: if that error comes back
// first, it was not the answer.
type confirmed struct {
	c          candidate
	kind, head string
}

// discoverySaid is a finding Claude stated, and the fix it said next
// ("We need to tell Hatchling to rename the file during packaging"), if
// any, with the entries they were said in.
type discoverySaid struct{ text, uuid, fix, fixUUID string }

// callKind is what makes two calls of one kind: the program (and
// subcommand) a shell command runs last in its first line's `&&` chain,
// not counting a trivial one (`git add -A && git commit …` commits;
// `mix test && echo ok` tests), the tool and file of an edit.
func callKind(e index.MemEntry) string {
	if c, ok := bashCall(e); ok {
		return shellKind(c.cmd)
	}
	var in struct {
		Path string `json:"file_path"`
	}
	if json.Unmarshal(e.Input, &in) == nil && in.Path != "" {
		return e.ToolName + " " + in.Path
	}
	return e.ToolName
}

func shellKind(cmd string) string {
	line, _, _ := strings.Cut(afterSetup(cmd), "\n")
	chain := strings.Split(line, "&&")
	last := ""
	for i := len(chain) - 1; i >= 0; i-- {
		prog, sub := programOf(chain[i])
		if i == len(chain)-1 {
			last = strings.TrimSpace("Bash " + prog + " " + sub)
		}
		if prog != "" && !trivialCommands[prog] && !trivialCommands[strings.TrimSpace(prog+" "+sub)] {
			return strings.TrimSpace("Bash " + prog + " " + sub)
		}
	}
	if last == "Bash" {
		return ""
	}
	return last
}

// programOf is the program one command of a chain runs, after its
// environment assignments, and its subcommand if it has one.
func programOf(segment string) (prog, sub string) {
	f := strings.Fields(segment)
	for len(f) > 0 && commandPrefix(f[0]) {
		f = f[1:]
	}
	switch {
	case len(f) == 0:
		return "", ""
	case len(f) > 1 && !strings.HasPrefix(f[1], "-") && !strings.ContainsAny(f[1], "/.|>&\"'") && len(f[1]) < 20:
		return f[0], f[1]
	}
	return f[0], ""
}

// harnessError is Claude Code's own refusal of a call (a file not read
// first, an edit string not found, a sibling call's error): about the
// harness, not the tool Claude was using.
func harnessError(text string) bool {
	return strings.HasPrefix(strings.TrimSpace(text), "<tool_use_error>") || strings.Contains(text, rejectedCall)
}

func callFailed(e index.MemEntry) bool {
	return (e.IsError || failedOutput(e.Text)) && !harnessError(e.Text)
}

// behaves is a present-tense statement of how something behaves.
var behaves = lazyRE(`(?i)\b(by default|in place|alias(ed)?( to)?|instead of|not\s+\S+|isn'?t|aren'?t|doesn'?t|don'?t|does not|do not|can'?t|cannot|won'?t|needs?|requires?|expects?|returns?|treats?|ignores?|only|must|persists?|defaults? to|lacks?|changes|modifies|mutates|overrides?|takes precedence|runs? (in|as|before|after)|is (called|named|spelled)|are (called|named)|uses|reads|writes|resolves?|strips?|wraps?|escapes?|rejects?|accepts?)\b`)

// notLasting marks a sentence about the moment: a state, a count of
// passing tests, an attempt that did not help, the fix being applied.
var notLasting = lazyRE(`(?i)\b(still|again|now|progress|pass(es|ed|ing)?|didn'?t (help|work)|the (issue|problem|error|fix) is (clear|simple|obvious)|for now|this (file|function|test)|both|all)\b|\d+ (of|out of) \d+`)

// discoverySubject is a sentence opening that is about the conversation
// (Claude, the person, "this") rather than a thing.
var discoverySubject = lazyRE(`(?i)^(i|we|you|it|this|that|these|those|they|there|here|so|and|but|also|then|now|let|let's|two|three|first|next|finally|looks|looking|seems|(the|our) (only|current|existing|new|same)|our|the (code|implementation|function|method|test|tests|fixture|helper|change|changes|output|result|html|page)\b|the \S+ (test|tests|fixture|helper)\b)\b`)

// findingLeadIn is how Claude announces a finding ("I see the issue -", "The
// issue is clear —", "Ah,", "Turns out", "The problem was that"): the
// finding is what follows.
var findingLeadIn = lazyRE(`(?i)^(so,?\s+|(ah|aha|oh|ok|okay|got it|found it|i see( the (issue|problem|bug|cause))?|the (issue|problem|cause) is (now )?(clear|obvious)|that'?s (it|the (issue|problem|cause)))\s*[-—–:,.!]\s*|the (real |actual )?(issue|problem|cause) (is|was)( that)?\s+|(it )?turns out( that)?,?\s+|apparently,?\s+)`)

func withoutLeadIn(s string) string {
	if m := findingLeadIn.get().FindStringIndex(s); m != nil && m[1] < len(s) {
		s = s[m[1]:]
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

// read takes from Claude's text after f the findings that explain it
// and, after the first, the fix it says to make.
func (f *failure) read(e index.MemEntry) {
	for _, s := range sentences(stripMarkdown(oneLine(e.Text))) {
		s = withoutLeadIn(s)
		switch {
		case discoveryFinding(s):
			f.said = append(f.said, discoverySaid{text: strings.TrimRight(s, "."), uuid: e.UUID})
		case len(f.said) > 0 && f.said[0].fix == "":
			if how, ok := fixOf(s); ok {
				f.said[0].fix, f.said[0].fixUUID = how, e.UUID
			}
		}
	}
}

// fixSaid is how Claude says the fix it will make: "We need to tell
// Hatchling to rename…", "I need to use `:auto` mode", "The fix is to…".
var fixSaid = lazyRE(`(?i)^((so |then )?(i|we|you) (also )?(need|have) to|(also )?(need|have) to|the (fix|solution|workaround) is( to)?|(we|you) (should|must))\s+`)

// notFix is a plan to look, to fix something unnamed or to change the
// test to fit, not the fix itself.
var notFix = lazyRE(`(?i)^(check|look|see|find|investigate|understand|debug|verify|figure|confirm|test|try|run (it|the tests?|them)|fix (it|this|that|the|these|those|two|both|all)|update (it|this|the test|these|those|the tests))\b|\b(test|tests|assertion)\b`)

// fixOf is the fix sentence s says to make, as an instruction (without
// "We need to"), when it names what to do.
func fixOf(s string) (string, bool) {
	m := fixSaid.get().FindStringIndex(s)
	if m == nil {
		return "", false
	}
	how := strings.TrimRight(strings.TrimSpace(s[m[1]:]), ".:")
	if len(strings.Fields(how)) < 3 || notFix.MatchString(how) || hedge.MatchString(how) || !named(how) || strings.HasSuffix(how, "?") {
		return "", false
	}
	return how, true
}

// discoveryFinding is the sentence of Claude's text after a failure that
// states what holds, if any.
func discoveryFinding(s string) bool {
	s = strings.TrimSpace(s)
	n := len(strings.Fields(s))
	return n >= 6 && n <= 45 && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, ":") &&
		behaves.MatchString(s) && named(s) && !notAFinding(s)
}

// notAFinding marks a sentence about the conversation or the moment:
// its subject is Claude, the person or "this", or it narrates, guesses,
// dangles or reports a state.
func notAFinding(s string) bool {
	return discoverySubject.MatchString(s) || narration.MatchString(s) || tentative(s) ||
		notLasting.MatchString(s) || dangling.MatchString(s) || stateReport.MatchString(s)
}

// errorHead is a failed call's output said in one line: its first line
// that names an error, without the exit code.
var errorWord = regexp.MustCompile(`(?i)error|\bfail|not found|no such|cannot|can't|undefined|denied|\binvalid\b|unknown|missing|refused`)

// exceptionLine is a line naming the exception or error raised: said
// before a test runner's list of what failed.
var exceptionLine = regexp.MustCompile(`\b[A-Z]\w*(Error|Exception)\b:|^error(\[\w+\])?:|\*\* \(\w`)

// runnerNoise is what a test runner prints after a test's name and
// verdict about the run, not the error: pytest's progress ("FAILED
// [ 50%]"), a duration ("--- FAIL: TestX (0.00s)").
var runnerNoise = regexp.MustCompile(`(\s+\[\s*\d{1,3}%\]|\s+\(\d+(\.\d+)?\s?(ms|s)\))+$`)

func errorHead(out string) string {
	// Some tools print their output JSON-quoted: "failed:\\n\\n[DIALYZER]".
	lines := strings.Split(strings.ReplaceAll(out, `\n`, "\n"), "\n")
	for _, re := range []*regexp.Regexp{exceptionLine, errorWord} {
		for i, l := range lines {
			l = strings.TrimSpace(strings.TrimPrefix(l, "E "))
			if l == "" || strings.HasPrefix(l, "Exit code ") || !re.MatchString(l) {
				continue
			}
			if strings.HasSuffix(l, ":") {
				l += " " + nextLine(lines[i+1:]) // "Pre-commit validation failed: [DIALYZER]"
			}
			l = runnerNoise.ReplaceAllString(strings.TrimSpace(l), "")
			return cut(homeRe.ReplaceAllString(uuidRe.ReplaceAllString(l, "<uuid>"), "~/"), 140)
		}
	}
	return ""
}

// nextLine is the first non-empty line of lines, trimmed.
func nextLine(lines []string) string {
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// discoveryCandidates proposes Claude's confirmed discoveries of entries
// (one session), the main thread's and the sidechains', except those
// another proposal of the session (have) already states.
func discoveryCandidates(entries []index.MemEntry, have []candidate) []candidate {
	var out []candidate
	for _, side := range []bool{false, true} {
		d := discovery{calls: map[string]index.MemEntry{}, failed: map[string]*failure{}}
		for _, e := range entries {
			if e.Sidechain == side {
				d.entry(e)
			}
		}
		d.settle()
		for _, c := range d.out {
			if !statedBy(c, have) && !statedBy(c, out) {
				out = append(out, c)
			}
		}
	}
	return out
}

// statedBy reports whether one of have says what c found: it holds two
// of the names c's finding holds (all of them when it has fewer), as a
// compaction summary's "LiveView test: sandbox isolation…" states
// Claude's "The LiveView runs in a separate process that can't access
// the test sandbox".
func statedBy(c candidate, have []candidate) bool {
	finding, _, _ := strings.Cut(c.content, " (found when ")
	names := uniq(distinctive(finding))
	need := min(2, len(names))
	if need == 0 {
		return false
	}
	for _, h := range have {
		low, n := strings.ToLower(h.content), 0
		for _, w := range names {
			if strings.Contains(low, w) {
				n++
			}
		}
		if n >= need {
			return true
		}
	}
	return false
}

// discovery is the state of one thread's pass.
type discovery struct {
	calls   map[string]index.MemEntry
	failed  map[string]*failure // kind -> its last failure, until a call of that kind works
	last    *failure            // the failure Claude's next words explain
	pending []confirmed         // waiting for the person's next prompt
	out     []candidate
}

func (d *discovery) entry(e index.MemEntry) {
	switch {
	case e.Role == "assistant" && e.ToolUse != "" && e.ToolName != "":
		d.call(e)
	case e.Role == "tool" && e.ToolUse != "":
		d.result(e)
	case e.Role == "assistant" && e.Block == "text" && d.last != nil:
		d.last.read(e)
	case typedPrompt(e):
		d.prompt(e)
	}
}

// typedPrompt reports what the person typed: not injected text, an
// answer to Claude's question or an IDE note alone.
func typedPrompt(e index.MemEntry) bool {
	return e.Role == "user" && !e.Meta && e.Source != "answer" && !ideNoteOnly(e.Text)
}

func (d *discovery) call(e index.MemEntry) {
	d.calls[e.ToolUse] = e
	if d.last != nil && callKind(e) == callKind(d.last.call) {
		d.last = nil // the retry: what Claude says next is after it
	}
}

// prompt ends the turn: what was confirmed holds unless the person says
// it still fails.
func (d *discovery) prompt(e index.MemEntry) {
	if !stillFailing(personWords(e.Text)) {
		d.settle()
	}
	d.pending, d.last = nil, nil
	d.failed = map[string]*failure{}
}

// result reads a tool result: a failure starts waiting for its
// explanation; a call of the same kind that works confirms the last
// failure of its kind; the same error again, before the next prompt,
// drops what explained it.
func (d *discovery) result(e index.MemEntry) {
	c, ok := d.calls[e.ToolUse]
	if !ok {
		return
	}
	kind := callKind(c)
	if kind == "" {
		return
	}
	if callFailed(e) {
		f := &failure{call: c, head: errorHead(e.Text)}
		d.dropRecurring(kind, f.head)
		d.failed[kind], d.last = f, f
		return
	}
	if f, ok := d.failed[kind]; ok {
		delete(d.failed, kind)
		d.confirm(kind, f, c)
	}
}

// confirm proposes what Claude said after failure f, now that call c of
// its kind no longer fails with f's error.
func (d *discovery) confirm(kind string, f *failure, c index.MemEntry) {
	if len(f.said) == 0 || f.head == "" {
		return
	}
	s := f.said[0]
	content, uuids := s.text, []string{s.uuid, f.call.UUID, c.UUID}
	if s.fix != "" {
		content += ": " + s.fix
		if s.fixUUID != s.uuid {
			uuids = append(uuids, s.fixUUID)
		}
	}
	d.pending = append(d.pending, confirmed{kind: kind, head: f.head, c: candidate{typ: Gotcha, importance: 3, rule: "claude:discovery",
		content: content + " (found when " + callLabel(f.call) + " failed: " + f.head + ")", uuids: uuids}})
}

// dropRecurring drops the waiting discoveries that explained the error a
// call of kind just failed with again.
func (d *discovery) dropRecurring(kind, head string) {
	if head == "" {
		return
	}
	d.pending = slices.DeleteFunc(d.pending, func(p confirmed) bool { return p.kind == kind && p.head == head })
}

func (d *discovery) settle() {
	for _, p := range d.pending {
		d.out = append(d.out, p.c)
	}
	d.pending = nil
}
