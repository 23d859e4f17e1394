package memories

import (
	"regexp"
	"strings"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/english"
	"github.com/cairn-dev/cairn/transcripts"

	json "github.com/go-json-experiment/json"
)

// The person's voice: what the user said is where decisions, preferences
// and corrections are made, in any phrasing. Three kinds of sentence are
// proposed from it, each only when it names something (a tool, a file, an
// identifier: named) so that "let's do it" and "please fix these" stay
// out:
//
//   - a request to remember ("remember that…", "add this to CLAUDE.md",
//     "from now on…"): always, whatever else the sentence says;
//   - the feedback typed when rejecting a tool call, and the answers to
//     Claude's questions (AskUserQuestion): the person stopping Claude to
//     say how things are done is the clearest correction there is;
//   - a decision or correction in a typed or queued prompt: a choice
//     ("let's do vite", "let's migrate to AudioWorklet", "we should run it
//     on every push"), a preference ("I'd love that test to be a permanent
//     unit test") or an instruction on how ("you can set group.visible
//     using the vis library").
//
// The rules are deterministic and need no model: the same words give the
// same proposals, and a reviewer can see why each was made (rule names).

// rememberRe is an explicit request to keep something.
var rememberRe = lazyRE(`(?i)\b(remember (that|this|to|:)|please remember\b|don'?t forget (that|to)\b|(add|put|write|note|save|record) (this|that|it|these|those)?\s*(down )?(to|in|into) (the |your |our )?(claude\.md|memory|memories|notes)\b|from now on\b|going forward\b|in (the )?future,|make a note\b|keep in mind\b)`)

// voiceDecision marks a choice, a preference or an instruction on how
// something is done, in the person's words.
var voiceDecision = lazyRE(`(?i)\b(i changed my mind|on second thought)\b|\b(isn'?t|is not|aren'?t|are not) supported (by|in|on)\b|\blet'?s (also |just |rather |instead )?(do|use|go with|stick with|switch to|migrate to|move to|keep|stay with|standardi[sz]e on|reuse|try using)\b|\b(we|you) (should|must|need to|have to) (always |never |rather |instead )?(use|run|keep|reuse|switch|migrate|move|call|go with|stick with|support|add|test|check)\b|\b(i'?d|i would|we'?d|we would) (really |actually |much |rather )?(rather|prefer|like|love)\b.{3,80}\b(to be|as|instead|over|rather than|than)\b|\byou can (just |also )?(set|use|call|do|pass|run|reuse|test|check|build|install|start|find)\b.{2,80}\b(using|with|via|by|from|instead)\b|\b(use|prefer|keep)\s+\S.{0,60}\s+(instead of|over|rather than)\b|\binstead of\b.{2,60},\s*(use|let'?s|we)\b|\b(i|we) (don'?t|do not) (want|like|need|use)\b`)

// chatter is a prompt's opening that says nothing ("ok, fine,", "yes
// please, and", "great,"): dropped from the proposal.
var chatter = lazyRE(`(?i)^((hey( claude)?|ok(ay)?|fine|yes|yeah|yep|sure|great|good|cool|perfect|thanks|thank you|please|alright|right|hmm|oh|wait|well|so|and|also|but|actually|no|nope)\b[\s,.!:;—–-]*)+`)

// voiceCandidates proposes from one entry of the person's words.
// prevClaude is Claude's last text before e: what a short answer answers.
// rejected is the call the person rejected just before, if any.
func voiceCandidates(e index.MemEntry, calls map[string]index.MemEntry, prevClaude, rejected string, add func(candidate)) {
	switch e.Source {
	case "rejection":
		rejectionCandidate(e, calls, add)
		return
	case "answer":
		answerCandidates(e, calls, add)
		return
	}
	text := personWords(e.Text) // what the IDE notes is not what was typed
	if text == "" {
		return
	}
	p := &promptScan{text: text, uuid: e.UUID, prevClaude: prevClaude, rejected: rejected, add: add, typed: typedProse(text)}
	proseLines(text, nil, p.line)
}

// promptScan reads a typed prompt line by line.
type promptScan struct {
	text, uuid, prevClaude string
	rejected               string // the call rejected just before the prompt
	add                    func(candidate)
	// read counts the prose lines read; long is set past the first one
	// of a long prompt.
	read int
	long bool
	// typed marks the prose lines the person typed, not pasted
	// (typedProse): the lines a convention is read from.
	typed []bool
}

// line reads one prose line. A long prompt is mostly pasted text (a
// spec, docs, a diff, a log): past its first line, only requests to
// remember count, and the conventions of the lines typed, not pasted.
func (p *promptScan) line(line string) {
	p.long = p.read > 0 && len(p.text) > 1200
	typed := p.read < len(p.typed) && p.typed[p.read]
	p.read++
	ss := sentences(stripMarkdown(line))
	for i := range ss {
		if !p.sentence(ss, i) && typed {
			conventionCandidate(ss[i], p.uuid, p.add)
			p.instruction(ss, i)
		}
	}
}

// sentence proposes from sentence i of a line by the rules of the
// person's words; false when none applies.
func (p *promptScan) sentence(ss []string, i int) bool {
	s := ss[i]
	if r, ok := userRuleFor(s, p.long); ok {
		content := s
		if r.name == "correction" {
			content = correctionRest(s)
		}
		p.add(candidate{typ: r.typ, content: content, importance: r.imp, uuids: []string{p.uuid}, rule: "user:" + r.name})
		return true
	}
	switch {
	case rememberRe.MatchString(s):
		p.remember(ss, i)
	case !p.long && voiceDecisionHolds(s):
		p.decision(ss, i)
	default:
		return false
	}
	return true
}

// remember proposes a request to remember; "Remember this." keeps what
// "this" is.
func (p *promptScan) remember(ss []string, i int) {
	content := ss[i]
	if len(strings.Fields(content)) < 6 && i > 0 {
		content = ss[i-1] + " " + content
	}
	if len(strings.Fields(content)) >= 4 {
		p.add(candidate{typ: Preference, content: content, importance: 4, uuids: []string{p.uuid}, rule: "user:remember"})
	}
}

// decision proposes a decision said as what holds: without the request
// around it, about what the request names.
func (p *promptScan) decision(ss []string, i int) {
	content := voiceContent(ss[i])
	if rest, ok := afterRequestHead(content); ok {
		content = rest
		if t := diffTopic(p.text); t != "" {
			content = t + ": " + content
		}
	} else if c, ok := changeSoThat(content); ok {
		content = c
	}
	if len(strings.Fields(content)) < 8 {
		content = withSaid(content, ss[:i], p.prevClaude)
	}
	p.add(candidate{typ: Decision, content: content, importance: 3, uuids: []string{p.uuid}, rule: "user:decision"})
}

// withSaid gives a short decision what it is about: the sentence before
// it in the same prompt ("Can you add a GitHub Action? You can test it
// with `act`."), else the sentence of Claude's last reply that names the
// same thing ("let's do vite" after "Vite: a fast dev server that runs
// everywhere Node does").
func withSaid(content string, before []string, prevClaude string) string {
	if len(before) > 0 {
		if b := voiceContent(before[len(before)-1]); len(strings.Fields(b)) >= 3 {
			if t, ok := requestTopic(b); ok {
				// "Can you add a GitHub Action…? You can test it with
				// `act`.": the request names what the rule is about.
				return t + ": " + content
			}
			return b + " " + content
		}
	}
	for _, w := range wordRe.FindAllString(content, -1) {
		if len(w) < 3 || english.Common(w) {
			continue
		}
		if ctx := sentenceNaming(prevClaude, w); ctx != "" {
			return content + " (after Claude: " + cut(ctx, 200) + ")"
		}
	}
	return content
}

// A person's decision often comes inside a request: "have a look at this
// patch diff, I changed my mind… and would like to combine the logic:
// take the least nested path first…", "can you please add a GitHub
// Action…? You can test it with `act`", "we should change TUI that it
// launches the session HTML page rather than regenerating it" ("TUI
// launches…"). The
// request is that day's task; the memory states what holds, said about
// what the request names (the function a pasted diff changes, the thing
// to add).

// requestHead marks the part before a colon that asks for something or
// narrates the person's intention, not what holds.
var requestHead = lazyRE(`(?i)\b(have a look|take a look|look at|would like to|i'?d like to|i changed my mind|on second thought|can you|could you|please)\b`)

// afterRequestHead is what follows the colon of a sentence whose head is
// a request ("…would like to combine the logic: take the least nested
// path first…"), when it says enough alone.
func afterRequestHead(s string) (string, bool) {
	i := strings.Index(s, ": ")
	if i < 0 || !requestHead.MatchString(s[:i]) {
		return "", false
	}
	rest := strings.TrimSpace(s[i+2:])
	if len(strings.Fields(rest)) < 5 {
		return "", false
	}
	return strings.ToUpper(rest[:1]) + rest[1:], true
}

// diffFunc is a function a diff's line defines or a hunk header names.
var diffFunc = regexp.MustCompile(`(?m)^[ +-]?\s*(?:def|func|function|fn|async def)\s+(?:\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_]*)\s*\(|^@@[^@]*@@.*\b(?:def|func|function|fn)\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

// diffFile is the file a diff changes.
var diffFile = regexp.MustCompile(`(?m)^\+\+\+ (?:b/|\S*?Prefix/)?(\S+)`)

// diffTopic names what a diff pasted in a prompt changes: its first
// function, else its first file; "" without a diff.
func diffTopic(text string) string {
	if !strings.Contains(text, "\n@@ ") && !strings.Contains(text, "diff --git") {
		return ""
	}
	if m := diffFunc.FindStringSubmatch(text); m != nil {
		return "`" + m[1] + m[2] + "`"
	}
	if m := diffFile.FindStringSubmatch(text); m != nil {
		return "`" + m[1] + "`"
	}
	return ""
}

// requestOpen is a request's opening: "can you please add", "could you
// set up".
var requestOpen = lazyRE(`(?i)^(hey\s+\w+,?\s+)?(can|could|would|will) you\s+(please\s+)?(add|create|write|set up|make|build|implement)\s+(an?\s+|the\s+)?`)

// requestTopic is what a request asks to be added ("a Github Action to
// run tests and linting"), as the topic of the rule that follows it.
func requestTopic(s string) (string, bool) {
	loc := requestOpen.get().FindStringIndex(s)
	if loc == nil || !strings.HasSuffix(s, "?") {
		return "", false
	}
	t := strings.TrimSpace(strings.TrimRight(s[loc[1]:], "?"))
	if n := len(strings.Fields(t)); n < 2 || n > 12 {
		return "", false
	}
	return strings.ToUpper(t[:1]) + t[1:], true
}

// changeTo is "we should change TUI that it launches…": what is changed
// and how it is to be.
var changeTo = lazyRE(`(?i)\b(?:we should|we need to|let'?s|please)\s+(?:change|update|make)\s+(?:the\s+)?(\S+(?:\s+\S+)?)\s+(?:so\s+)?that\s+(?:it|they)\s+(\S.{10,})$`)

// changeSoThat says a change the person asks for as how the thing is,
// in the person's words: "now we have cache so TUI launches the session
// HTML page rather than regenerating it", with the reason given before
// it.
func changeSoThat(s string) (string, bool) {
	m := changeTo.get().FindStringSubmatchIndex(s)
	if m == nil {
		return "", false
	}
	what, how := s[m[2]:m[3]], s[m[4]:m[5]]
	out := what + " " + how
	if why := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s[:m[0]]), ",;")); len(strings.Fields(why)) >= 2 {
		out = strings.TrimSuffix(why, " so") + " so " + out
	}
	return out, true
}

// sentenceNaming is the first sentence of Markdown text that holds word
// (case folded), without its markup.
func sentenceNaming(text, word string) string {
	lw := strings.ToLower(word)
	found := ""
	proseLines(text, nil, func(line string) {
		if found != "" {
			return
		}
		for _, s := range sentences(stripMarkdown(line)) {
			if strings.Contains(strings.ToLower(s), lw) && len(strings.Fields(s)) >= 3 {
				found = s
				return
			}
		}
	})
	return found
}

// promptText is the typed text of a prompt: a slash command's arguments,
// nothing of other markup (IDE context, command output).
func promptText(text string) string {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "<") {
		m := commandArgs.FindStringSubmatch(t)
		if m == nil {
			return ""
		}
		return m[1]
	}
	return t
}

// voiceDecisionHolds reports whether a sentence of the person's is a
// decision worth keeping: decision-shaped, 3 to 60 words, naming
// something, and not a question or a report of what is happening.
func voiceDecisionHolds(s string) bool {
	n := len(strings.Fields(s))
	if n < 3 || n > 60 || askForHelp.MatchString(s) {
		return false
	}
	// A question, even a suggestion ("could we reuse X?"), is a step of
	// the task, not a rule.
	if strings.HasSuffix(s, "?") || !voiceDecision.MatchString(s) {
		return false
	}
	return named(s) && !stateReport.MatchString(s)
}

// askForHelp is a task put to Claude ("I'd like your help with…", "can
// you…"): what to do now, not how things are done.
var askForHelp = lazyRE(`(?i)\b(i'?d|i would) like (you|your help)\b|\b(can|could|would) you\b`)

// voiceContent is sentence s without its chatty opening ("ok, fine,"),
// in the person's own words.
func voiceContent(s string) string {
	return strings.TrimSpace(strings.TrimRight(chatter.ReplaceAllString(s, ""), "\\ "))
}

var wordRe = regexp.MustCompile(`[A-Za-z][A-Za-z0-9_.+-]*[A-Za-z0-9]`)

// named reports whether s names something: code, a path, an identifier,
// a number, or a word outside common English (a tool or library name).
func named(s string) bool {
	if specific(s) {
		return true
	}
	for _, w := range wordRe.FindAllString(withoutAsides(s), -1) {
		if len(w) >= 3 && !english.Common(w) && !english.Common(strings.TrimRight(w, "s")) {
			return true
		}
	}
	return false
}

// rejectionCandidate proposes the feedback typed when rejecting a call:
// "Rejected `npm install`: use pnpm".
func rejectionCandidate(e index.MemEntry, calls map[string]index.MemEntry, add func(candidate)) {
	reason := strings.TrimSpace(e.Text)
	words := len(strings.Fields(reason))
	if words < 2 || words > 120 || request.MatchString(reason) && words < 4 {
		return
	}
	what := "a tool call"
	if c, ok := calls[e.ToolUse]; ok {
		what = callLabel(c)
	}
	reason = strings.TrimSpace(approvalTail.ReplaceAllString(oneLine(reason), ""))
	add(candidate{typ: Decision, content: "Rejected " + what + ": " + reason, importance: 4, uuids: []string{e.UUID}, rule: "user:rejection"})
}

// approvalTail is the approval that ends a rejection's feedback
// ("…, otherwise gtg"): it says the rest of the plan was fine, which is
// no part of what to remember.
var approvalTail = regexp.MustCompile(`(?i)[,;.]?\s*(?:but\s+)?otherwise\s+(?:gtg|lgtm|good to go|looks good|all good|fine|ok|okay)(?:\s+to me)?[.!]*\s*$`)

// planHeading is a plan's first Markdown heading, without "Plan:".
var planHeading = regexp.MustCompile(`(?m)^#{1,3}\s+(?:Plan:\s*)?(.+?)\s*#*\s*$`)

// planTitle is the title of the plan an ExitPlanMode call presents (its
// first heading: "Make Project Installable as UV Tool"), so a rejection
// of it says which plan; "" when the plan has no heading.
func planTitle(input []byte) string {
	var in struct {
		Plan string `json:"plan"`
	}
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	m := planHeading.FindStringSubmatch(in.Plan)
	if m == nil {
		return ""
	}
	return cut(strings.Trim(stripMarkdown(m[1]), " *_"), 80)
}

// callLabel names a tool call for a person, by transcripts.CallName (the
// name show and summaries give it): the command it ran, the file it wrote
// (by its last two elements), or the plan it proposed.
func callLabel(c index.MemEntry) string {
	name := transcripts.CallName(&transcripts.Block{Type: transcripts.BlockToolUse, ToolName: c.ToolName, ToolInput: c.Input})
	switch {
	case c.ToolName == "ExitPlanMode":
		if title := planTitle(c.Input); title != "" {
			return "Claude's plan “" + title + "”"
		}
		return "Claude's plan"
	case name == c.ToolName:
		return name
	case c.ToolName == "Bash":
		return "`" + cut(oneLine(withoutHeredoc(name)), 80) + "`"
	}
	return c.ToolName + " of `" + shortPath(name) + "`"
}

// heredocStart is where a command's here-document begins (`git commit
// -m "$(cat <<'EOF'`, `cat > f << 'EOF'`).
var heredocStart = regexp.MustCompile(`\s*(?:"?\$\(\s*cat\s*)?<<-?\s*['"]?\w+['"]?`)

// withoutHeredoc is a command without its here-document: what a label
// needs is the command (`git commit -m …`), not the commit message.
func withoutHeredoc(cmd string) string {
	if m := heredocStart.FindStringIndex(cmd); m != nil {
		return cmd[:m[0]] + " …"
	}
	return cmd
}

// shortPath is a file path by its last two elements: enough to name the
// file, without this machine's folders.
func shortPath(p string) string {
	parts := strings.Split(strings.TrimRight(p, "/"), "/")
	if len(parts) <= 2 {
		return p
	}
	return strings.Join(parts[len(parts)-2:], "/")
}

// answerRe is one question and its answer in Claude Code's AskUserQuestion
// result: "Question?"="Answer".
var answerRe = regexp.MustCompile(`"((?:[^"\\]|\\.)+)"="((?:[^"\\]|\\.)*)"`)

// answerCandidates proposes each answer to Claude's questions with its
// question: "How should corrupted archives be reported in the manifest? —
// Option C: Extra field". Questions Claude asked in the calls' input are
// used when the entry holds only the answers.
func answerCandidates(e index.MemEntry, calls map[string]index.MemEntry, add func(candidate)) {
	asked := askedQuestions(calls[e.ToolUse])
	pairs := answerPairs(e.Text, asked)
	// The answers to one call are one decision ("process tar archives
	// like zip ones?" — yes; "which tar formats?" — also .tgz): said
	// together, each needs the others.
	var said []string
	for _, p := range pairs {
		q, a := strings.TrimSpace(p[1]), strings.TrimSpace(p[2])
		if a == "" || len(strings.Fields(q)) < 3 || momentQuestion(q) {
			continue
		}
		content := q + " — " + a
		// The option's description says what a label like "Option C"
		// means.
		if d := optionDescription(asked, q, a); d != "" {
			content += " (" + d + ")"
		}
		said = append(said, content)
	}
	if len(said) > 0 {
		add(candidate{typ: Decision, content: strings.Join(said, "; "), importance: 3, uuids: []string{e.UUID}, rule: "user:answer"})
	}
}

// answerPairs is the question-answer pairs of answer text ("", question,
// answer), or when it holds the answers alone, one a line, the questions
// asked in their order with them; none when the lines do not match.
func answerPairs(text string, asked []askedQuestion) [][]string {
	pairs := answerRe.FindAllStringSubmatch(text, -1)
	if len(pairs) > 0 {
		return pairs
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(asked) == 0 || len(lines) != len(asked) || lines[0] == "" {
		return nil
	}
	for i, a := range lines {
		pairs = append(pairs, []string{"", asked[i].Question, a})
	}
	return pairs
}

// momentQuestion is a question about the work at hand, answered once:
// which of "these" things, what to set up or install now. Its answer is
// done at once and is in the repository after, not a rule.
func momentQuestion(q string) bool {
	return isTransient(q) || setupQuestion.MatchString(q)
}

var setupQuestion = lazyRE(`(?i)\b(set ?up|install|scaffold|initiali[sz]e)\b`)

// optionDescription is the description Claude gave the option labelled
// a of question q, if it did.
func optionDescription(asked []askedQuestion, q, a string) string {
	for _, x := range asked {
		if x.Question != q {
			continue
		}
		for _, o := range x.Options {
			if o.Label == a {
				return strings.TrimSpace(o.Description)
			}
		}
	}
	return ""
}

// askedQuestion is one question of an AskUserQuestion call, with its
// options.
type askedQuestion struct {
	Question string `json:"question"`
	Options  []struct {
		Label       string `json:"label"`
		Description string `json:"description"`
	} `json:"options"`
}

// askedQuestions are the questions of an AskUserQuestion call.
func askedQuestions(c index.MemEntry) []askedQuestion {
	var in struct {
		Questions []askedQuestion `json:"questions"`
	}
	if c.ToolName != "AskUserQuestion" || json.Unmarshal(c.Input, &in) != nil {
		return nil
	}
	return in.Questions
}
