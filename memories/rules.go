package memories

import (
	"regexp"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/english"

	json "github.com/go-json-experiment/json"
)

// The built-in extractor: deterministic rules over a session's new entries.
// Precision before recall: a rule fires on one sentence, the memory quotes
// that sentence (markdown stripped; a "Fixed by …" sentence keeps the one
// before it for context), and sentences without anything specific in them
// (code, a name, a path, a number) are left alone when Claude wrote them.

// candidate is a memory the extractor proposes.
type candidate struct {
	typ        Type
	content    string
	importance int
	tags       []string
	uuids      []string
	rule       string
}

type rule struct {
	name string
	typ  Type
	imp  int
	re   *lazyRegexp
}

// ruleTriggers are words one of which must appear (lower case) for a
// Claude rule's expression to be tried: most sentences have none.
var ruleTriggers = map[string][]string{
	"root-cause": {"cause", "issue", "problem", "bug", "culprit", "fix", "turned out", "resolved", "happen", "because"},
	"issue-is":   {"issue", "problem", "bug", "error"},
	"gotcha":     {"gotcha", "pitfall", "caveat", "watch out", "beware", "careful", "keep in mind", "must", "should", "need", "work", "important", "support", "has to"},
	"decision":   {"decid", "decision", "go with", "going with", "opted", "chose", "switched", "instead of", "rather than", "prefer"},
}

var userRules = []rule{
	{"remember", Preference, 4, lazyRE(`(?i)^(please\s+)?(also\s+)?(remember|note|keep in mind|make a note)\b`)},
	{"always-never", Preference, 4, lazyRE(`(?i)^(in this (repo|repository|project|codebase),?\s+)?(please\s+|and\s+|also\s+)?(always|never)\s+\w+`)},
	{"from-now-on", Preference, 4, lazyRE(`(?i)\b(from now on|going forward|in (the )?future|every time you|whenever you)\b`)},
	{"dont", Preference, 3, lazyRE(`(?i)^(please\s+)?(don'?t|do not|stop)\s+(ever\s+)?\w+`)},
	{"prefer", Preference, 3, lazyRE(`(?i)\b(i|we)\s+(really\s+|strongly\s+)?(prefer|'d rather|would rather|like it when|don'?t like|hate it when|dislike)\b|\bprefer\s+\S+.{0,60}\s+(over|to|instead of)\s+`)},
	{"we-dont", Preference, 3, lazyRE(`(?i)\b(we|i)\s+(don'?t|do not|never)\s+(use|want|like|allow|need)\b`)},
	// A correction of Claude: "No, we use X, not Y", "Actually, the API
	// returns seconds": what follows the interjection is the fact, said as
	// a statement about something named (userRuleHolds).
	{"correction", Decision, 3, lazyRE(`(?i)^(no|nope|actually|wrong|not quite|that'?s (wrong|not right|incorrect|not how)[^,.!:]*)\s*[,.!:—–-]+\s*\S+(\s+\S+){4,}`)},
	{"use-instead", Decision, 3, lazyRE(`(?i)^(no,?\s+|actually,?\s+|please\s+)?(use|switch to|go with)\s+\S.{0,50}\s+instead\b`)},
	{"decision", Decision, 3, lazyRE(`(?i)\blet'?s\s+(go with|use|stick with|switch to|keep using|standardi[sz]e on)\b|\bwe('ll| will| should)?\s+(go with|stick with|standardi[sz]e on)\b|\bwe\s+(decided|agreed|chose)\b|\b(decided|decision)\s+(to|is|:)|\buse\s+\S.{1,60}\s+instead of\b|\binstead of\s+\S.{1,60},\s+use\b|\bwe\s+use\s+\S.{1,60},\s+not\s+\S`)},
}

// typeRules type a line a person already reviewed (a summary draft, a
// memory file): the lenient classification. Extraction from Claude's own
// text uses findingRules and the stricter checks of claudeFinding.
var typeRules = []rule{
	{"root-cause", Bugfix, 3, lazyRE(`(?i)\b(root cause|the (real |actual |underlying )?(issue|problem|bug|cause|culprit) (was|turned out)|(was|is|were|are) caused by|fixed (it |this |that )?by|the fix (was|is)\b|turned out (to be|that)|resolved (it |this )?by|resolved\s.{3,80}\sby (using|adding|switching|changing|removing|moving|replacing|setting|calling|running)|\bkey fix\b|this (happens|happened) because|\b(fails?|failed|failing|breaks|broke|crash(es|ed)?|hangs?|hung) because\b)`)},
	{"issue-is", Bugfix, 2, lazyRE(`(?i)^the (real |actual |underlying )?(issue|problem|bug|error) (is|here is)\b`)},
	{"gotcha", Gotcha, 3, lazyRE(`(?i)\b(gotcha|pitfall|caveat|watch out|beware|be careful|keep in mind)\b|\b(must|should|needs? to) (always|never)\b|\b(doesn'?t|does not|won'?t|will not|cannot|can'?t) work (with|when|if|because|unless|on|in)\b|\b(must|need to) be (run|called|set|done|added|configured) before\b|^important:|\b(doesn'?t|does not|don'?t|do not|won'?t) support\b|\bnot supported\b|\b(must|needs? to|has to) be [a-z]+(-[a-z]+)?ed\b`)},
	{"decision", Decision, 3, lazyRE(`(?i)\b(decided to|decision:|we('ll| will) go with|going with\s+\S+\s+(instead|over|rather)|opted (for|to)|chose\s+\S.{1,60}\s+(over|instead of|because)|switched (from \S.{1,40} )?to\s+\S|(use|using|used|prefer)\s+\S.{1,80}\s+instead of|rather than)\b`)},
}

// findingRules are what extraction proposes from Claude's text: a bug's
// cause with its fix, and rules (gotchas). Decisions and preferences are
// the user's (userRules): Claude's "rather than" is advice, not a choice
// the project made.
var findingRules = []rule{
	{"fix", Bugfix, 3, lazyRE(`(?i)\b(fixed|resolved|solved|worked around|avoided)\b[^.;]{0,60}?\b(by|with|using)\b|\bthe (fix|solution|workaround) (was|is)\b|\bfix(ed)?:\s|\bfix was to\b`)},
	// A pitfall or rule; "X needs to be updated" is a plan unless it says
	// when ("needs to be rebuilt after…").
	{"gotcha", Gotcha, 3, lazyRE(`(?i)\b(gotcha|pitfall|caveat|watch out|beware|be careful|keep in mind)\b|\b(must|should|needs? to) (always|never)\b|\b(doesn'?t|does not|won'?t|will not|cannot|can'?t) work (with|when|if|because|unless|on|in)\b|\b(must|need to) be (run|called|set|done|added|configured) before\b|^important:|\b(doesn'?t|does not|don'?t|do not|won'?t) support\b|\bnot supported\b|\b(must|has to) be [a-z]+(-[a-z]+)?ed\b|\bneeds? to be [a-z]+(-[a-z]+)? (before|after|when|whenever|if|on every|for every|first)\b`)},
}

// narration is Claude talking about what it is doing, not a finding.
var narration = lazyRE(`(?i)^((since|as|because) (we|i)('re|'m| are| am)?\b|let me|let's|now (let|i)|i('ll| will| need| should| can|'m going|'m| am| see)|first,? i|next,? i|okay|ok,|great|perfect|good|alright|i think|maybe|perhaps|hmm|wait)\b|\?\s*$`)

// firstPerson marks Claude's tentative reasoning ("my function might…").
var firstPerson = lazyRE(`(?i:\b(i'm|i am|i've|i'll|i'd|my|me)\b)|\bI\b`)

// specific reports whether s names something concrete: code, a path, an
// identifier, a quoted string, a version or a number.
var specificRe = lazyRE("`[^`]+`|\"[^\"]{3,}\"|\\b[A-Za-z]+[_.:/][A-Za-z0-9_./:-]+|\\b[a-z]+[A-Z][A-Za-z0-9]*\\b|\\b[A-Z][a-z]+[A-Z][A-Za-z0-9]*\\b|\\b[A-Z]{2,}[a-z]*\\b|\\d")

func specific(s string) bool { return specificRe.MatchString(s) }

var backtickRe = lazyRE("`([^`\\s]{2,40})`")

// sentenceEnd splits prose into sentences at ". ", "! " and "? " followed
// by an upper-case letter, a backtick or a quote.
func sentences(line string) []string {
	var out []string
	start := 0
	for i := 0; i+2 < len(line); i++ {
		if c := line[i]; (c == '.' || c == '!' || c == '?') && line[i+1] == ' ' && opensSentence(line[i+2]) && !abbreviation(line[max(start, i-4):i]) {
			out = append(out, strings.TrimSpace(line[start:i+1]))
			start = i + 2
		}
	}
	if rest := strings.TrimSpace(line[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// opensSentence reports whether a sentence may start with byte n: an
// upper-case letter, a backtick, a quote or emphasis.
func opensSentence(n byte) bool {
	return (n >= 'A' && n <= 'Z') || n == '`' || n == '"' || n == '*'
}

// abbreviation reports whether w, the text before a full stop, ends with
// an abbreviation ("e.g. Foo", "i.e. Bar"): not an end.
func abbreviation(w string) bool {
	return strings.HasSuffix(w, "e.g") || strings.HasSuffix(w, "i.e") || strings.HasSuffix(w, "vs") || strings.HasSuffix(w, "etc")
}

// stripMarkdown removes list markers, emphasis and heading marks.
func stripMarkdown(line string) string {
	line = strings.TrimSpace(line)
	line = strings.TrimLeft(line, "#")
	line = listItem(strings.TrimSpace(line))
	line = strings.ReplaceAll(line, "**", "")
	line = strings.ReplaceAll(line, "__", "")
	return strings.TrimSpace(line)
}

// proseLines yields the prose lines of Markdown text: not code fences,
// tables, quotes or headings (heading lines are passed to onHeading).
func proseLines(text string, onHeading func(h string), fn func(line string)) {
	if onHeading == nil {
		onHeading = func(string) {}
	}
	inFence := false
	for _, raw := range strings.Split(text, "\n") {
		t := strings.TrimSpace(raw)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence || notProse(t) {
			continue
		}
		if h, ok := proseHeading(t); ok {
			onHeading(h)
			continue
		}
		if !isListLine(t) {
			onHeading("")
		}
		fn(t)
	}
}

// notProse reports a trimmed line that is empty, a table row, a quote or
// markup.
func notProse(t string) bool {
	return t == "" || strings.HasPrefix(t, "|") || strings.HasPrefix(t, ">") || strings.HasPrefix(t, "<")
}

// proseHeading is the title of a heading line: a "#" heading or a short
// line ending in a colon ("**Next steps:**").
func proseHeading(t string) (string, bool) {
	if strings.HasPrefix(t, "#") {
		return strings.TrimSpace(strings.Trim(t, "#*: ")), true
	}
	if isHeadingLine(t) {
		return strings.TrimSpace(strings.Trim(strings.ReplaceAll(t, "**", ""), "*_: ")), true
	}
	return "", false
}

func isHeadingLine(t string) bool {
	b := strings.TrimSpace(strings.ReplaceAll(strings.Trim(t, "*_"), "**", ""))
	if !strings.HasSuffix(b, ":") || len(b) > 40 {
		return false
	}
	return strings.HasPrefix(t, "**") || strings.HasPrefix(t, "__") || len(strings.Fields(b)) <= 4
}

func isListLine(t string) bool {
	return listItem(t) != t
}

var progressHeading = lazyRE(`(?i)^(optional )?(next steps?|remaining( tasks| work)?|todo|to do|open (questions|items|tasks)|follow[- ]ups?|pending( tasks)?)(\s|:|$)`)

var todoLine = lazyRE(`(?i)^(todo|fixme|next step)\s*:\s*\S`)

// extractCandidates runs the rules over entries (in order): each entry
// in turn (extraction.entry), then what waited for a next prompt, the
// commands that worked after failing, and the open to-do items.
func extractCandidates(entries []index.MemEntry) []candidate {
	x := extraction{calls: map[string]index.MemEntry{}}
	for _, e := range entries {
		x.entry(e)
	}
	x.rec.done(x.cs.add, x.rec.ran)
	x.settle()
	for _, c := range commandCandidates(entries) {
		x.cs.add(c)
	}
	if c, ok := cdPersistsCandidate(entries); ok {
		x.cs.add(c)
	}
	for _, c := range permissionCandidates(entries) {
		x.cs.add(c)
	}
	for _, c := range hookCandidates(entries) {
		x.cs.add(c)
	}
	for _, c := range toolingCandidates(entries) {
		x.cs.add(c)
	}
	for _, c := range discoveryCandidates(entries, x.cs.out) {
		x.cs.add(c)
	}
	x.cs.dropProjectCode(entries)
	todos, _ := todoCandidates(entries)
	for _, c := range todos {
		x.cs.add(c)
	}
	withToolRuns(x.cs.out, entries)
	return withoutChecksHooksRun(x.cs.out)
}

// extraction is the state of one pass of the rules over a session.
type extraction struct {
	cs         candidateSet
	calls      map[string]index.MemEntry // tool_use id -> the call
	prevClaude string                    // Claude's last text
	rejected   string                    // the call the person just rejected, until Claude speaks
	// Claude's last few texts (options offered), the prompts before them
	// and their ids.
	recent, asked, askedIDs []string
	lastPrompt, lastUUID    string
	prompt                  index.MemEntry // the person's prompt since Claude last spoke
	// What Claude found or agreed to waits for the person's next prompt:
	// when it says the thing still fails, it was not the answer.
	agreed, found []candidate
	rec           recurring // a problem the person keeps having, until the turn ends
}

// entry runs the rules over one entry: first what it tells about the
// context (a call, Claude's words, a rejection), then the rules of its
// kind, then the end of a turn.
func (x *extraction) entry(e index.MemEntry) {
	x.track(e)
	switch {
	case personEntry(e):
		x.userWords(e)
	case e.Role == "system" && e.Compact:
		compactCandidates(e, x.cs.add)
	case e.Role == "assistant" && e.Block == "text":
		x.claudeText(e)
	}
	if mainClaudeText(e) {
		x.prompt = index.MemEntry{}
	} else if personEntry(e) && e.Source != "answer" && !ideNoteOnly(e.Text) {
		x.nextPrompt(e)
	}
}

// personEntry reports whether e is the person's own words in the main
// thread (a prompt, a rejection's reason or an answer), not a meta note.
func personEntry(e index.MemEntry) bool {
	return e.Role == "user" && !e.Meta && !e.Sidechain
}

// mainClaudeText reports whether e is Claude's text in the main thread.
func mainClaudeText(e index.MemEntry) bool {
	return e.Role == "assistant" && e.Block == "text" && !e.Sidechain
}

// track records the calls, Claude's last texts and a rejected call.
func (x *extraction) track(e index.MemEntry) {
	if e.Role == "assistant" && e.ToolUse != "" {
		x.calls[e.ToolUse] = e
	}
	if mainClaudeText(e) {
		x.claudeSaid(e.Text)
	}
	if e.Role == "tool" {
		x.toolResult(e)
	}
}

// claudeSaid keeps Claude's last few texts with the prompts before them;
// Claude speaking ends a pending rejection.
func (x *extraction) claudeSaid(text string) {
	x.prevClaude, x.rejected = text, ""
	x.recent, x.asked, x.askedIDs = append(x.recent, text), append(x.asked, x.lastPrompt), append(x.askedIDs, x.lastUUID)
	if len(x.recent) > 4 {
		x.recent, x.asked, x.askedIDs = x.recent[1:], x.asked[1:], x.askedIDs[1:]
	}
}

// toolResult notes a rejected call (the prompt after it says why) or a
// Bash call that passed.
func (x *extraction) toolResult(e index.MemEntry) {
	c, ok := x.calls[e.ToolUse]
	switch {
	case !ok:
	case e.IsError && strings.Contains(e.Text, rejectedCall):
		x.rejected = callLabel(c)
	case !e.IsError && c.ToolName == "Bash":
		x.rec.passed()
	}
}

// userWords runs the rules over what the person said: a prompt, a
// rejection's reason or an answer.
func (x *extraction) userWords(e index.MemEntry) {
	add := choiceAdder(x.cs.add, x.recent, x.asked, x.askedIDs)
	bashCheckCandidate(e, x.cs.add)
	if e.Source != "rejection" && e.Source != "answer" && !ideNoteOnly(e.Text) {
		x.lastPrompt, x.lastUUID = personWords(e.Text), e.UUID
	}
	rejected := ""
	if x.rejected != "" && e.Source == "" {
		// Feedback typed after rejecting a call is about that call: say
		// which.
		what, next := x.rejected, add
		rejected = what
		add = func(c candidate) {
			if c.rule == "user:decision" || c.rule == "user:correction" || c.rule == "user:use-instead" || c.rule == "user:instruction" {
				c.content = "After rejecting " + what + ": " + c.content
			}
			next(c)
		}
		x.rejected = ""
	}
	voiceCandidates(e, x.calls, x.prevClaude, rejected, add)
}

// claudeText runs the rules over Claude's text; in the main thread what
// it finds or agrees to waits for the next prompt.
func (x *extraction) claudeText(e index.MemEntry) {
	if x.prompt.UUID != "" && !e.Sidechain {
		ackCandidate(e, x.prompt, func(c candidate) { x.agreed = append(x.agreed, c) })
	}
	if e.Sidechain {
		claudeCandidates(e, x.cs.add)
		return
	}
	x.rec.claude(e)
	claudeCandidates(e, func(c candidate) { x.found = append(x.found, c) })
}

// nextPrompt ends the turn before a prompt: what Claude agreed to or
// found holds unless the person's next words say it still fails.
func (x *extraction) nextPrompt(e index.MemEntry) {
	x.rec.done(x.cs.add, !stillFailing(personWords(e.Text)))
	if e.Source != "rejection" {
		x.rec.prompt(e)
		constraintCandidate(e, x.cs.add)
		defaultCandidate(e, x.cs.add)
	}
	if !stillFailing(personWords(e.Text)) {
		x.settle()
	}
	x.prompt, x.agreed, x.found = e, nil, nil
}

// settle proposes what waited for the person's next words: what Claude
// agreed to and what it found.
func (x *extraction) settle() {
	x.cs.addAgreed(x.agreed)
	for _, c := range x.found {
		x.cs.add(c)
	}
}

// dropProjectCode drops Claude's "code cannot" limits of code the session
// edited or read (the code at hand, about to be fixed).
func (cs *candidateSet) dropProjectCode(entries []index.MemEntry) {
	if !slices.ContainsFunc(cs.out, func(c candidate) bool { return c.rule == "claude:code-cannot" }) {
		return
	}
	edited := editedCode(entries)
	out := cs.out[:0:0]
	var toks [][]uint32
	for i, c := range cs.out {
		if c.rule == "claude:code-cannot" && projectCode(c, edited) {
			continue
		}
		out, toks = append(out, c), append(toks, cs.toks[i])
	}
	cs.out, cs.toks = out, toks
}

// ideNoteOnly reports a prompt entry holding nothing the person typed:
// empty, or only the IDE's note on an open file or a selection.
func ideNoteOnly(text string) bool {
	return personWords(text) == ""
}

// rejectedCall is how Claude Code's result of a rejected call begins.
const rejectedCall = "doesn't want to proceed with this tool use"

// candidateSet collects proposals: trimmed, shortened, tagged with the
// code they quote, and each content once (with the sources of all).
type candidateSet struct {
	out  []candidate
	toks [][]uint32 // each proposal's content words (dedup.go tokens)
}

// sentenceStart is where a sentence begins: the text's start, or after
// a full stop; group 1 is its first word, lower case.
var sentenceStart = regexp.MustCompile(`(?:^|[.!?]\s+)([a-z][a-z']*)\b`)

// sentenceCase starts each sentence of s with a capital when it starts
// with an everyday English word ("now we have cache… also we don't
// need…", as people type): a memory reads as written, not as typed. A
// sentence that starts with a name (`query_one`, npm) keeps its case.
func sentenceCase(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range sentenceStart.FindAllStringSubmatchIndex(s, -1) {
		w := s[m[2]:m[3]]
		if !english.Common(w) || strings.Contains(w, "_") || strings.Count(s[:m[2]], "`")%2 == 1 ||
			m[0] > 0 && strings.HasPrefix(s[m[0]-1:], "..") {
			continue // a name, code, or after an ellipsis ("do ... end")
		}
		b.WriteString(s[last:m[2]])
		b.WriteString(strings.ToUpper(w[:1]))
		last = m[2] + 1
	}
	b.WriteString(s[last:])
	return b.String()
}

// sameFinding reports whether two proposals of one session say the same
// thing: most of the shorter one's words are in the other (a compaction
// summary restating what Claude said, a second compaction repeating the
// first). Across sessions the store's dedup applies.
func sameFinding(a, b []uint32) bool {
	n := min(len(a), len(b))
	return n >= 4 && intersect(a, b)*10 >= n*6
}

// sameSummaryTopic reports whether two items of one compaction summary
// are about one thing: an "Errors and fixes" item and a "Problem Solving"
// item that share a third of the shorter one's words (the summary says
// the rule it settled on in other words than the error it fixed).
func sameSummaryTopic(a, b candidate, at, bt []uint32) bool {
	if len(a.uuids) == 0 || len(b.uuids) == 0 || a.uuids[0] != b.uuids[0] {
		return false
	}
	if a.rule == "compact:errors-and-fixes" && b.rule == "compact:errors-and-fixes" {
		return sameErrorNamed(a.content, b.content)
	}
	if !fixAndSolution(a.rule, b.rule) && !fixAndSolution(b.rule, a.rule) {
		return false
	}
	n := min(len(at), len(bt))
	return n >= 6 && intersect(at, bt)*10 >= n*3
}

// fixAndSolution reports whether rules a and b are a compaction summary's
// "Errors and fixes" and "Problem Solving" items, in that order.
func fixAndSolution(a, b string) bool {
	return a == "compact:errors-and-fixes" && b == "compact:problem-solving"
}

// quotedName is an error's name in quotes: `"unused alias"`.
var quotedName = regexp.MustCompile(`["“]([^"”]{3,60})["”]`)

// sameErrorNamed reports whether two "Errors and fixes" items of one
// summary name one error in their heads (before the first ":"): the
// summary lists an error again when a second explanation came later
// (`Compiler "unused alias" for aliases in rescue blocks: …`, then
// `Multiple "unused alias" compile errors: caused by adding alias in one
// edit and usage in a subsequent edit…`). The summary lists what
// happened in order, so the later account is what the session found;
// it is the one memory of that error.
func sameErrorNamed(a, b string) bool {
	ha, _, _ := strings.Cut(a, ": ")
	hb, _, _ := strings.Cut(b, ": ")
	for _, m := range quotedName.FindAllStringSubmatch(ha, -1) {
		for _, n := range quotedName.FindAllStringSubmatch(hb, -1) {
			if strings.EqualFold(m[1], n[1]) {
				return true
			}
		}
	}
	return false
}

func (cs *candidateSet) add(c candidate) {
	c.content = strings.TrimSpace(strings.TrimRight(c.content, ":;,"))
	if len(c.content) < 20 {
		return
	}
	if c.rule == "user:choice" {
		cs.dropDecisionsOf(c.uuids)
	}
	c.content = sentenceCase(cut(c.content, 400))
	c.tags = backtickTags(c.content, c.tags)
	toks, _ := tokens(c.content)
	for i := range cs.out {
		if sameSummaryTopic(cs.out[i], c, cs.toks[i], toks) {
			cs.mergeSummaryTopic(i, c, toks)
			return
		}
		if cs.out[i].content == c.content || sameFinding(cs.toks[i], toks) {
			// One finding said twice (Claude's sentence, then the
			// compaction summary's item stating its cause and fix):
			// keep the fuller statement, the one with more words,
			// which holds most of the other's.
			uuids := uniq(append(cs.out[i].uuids, c.uuids...))
			if len(toks) > len(cs.toks[i]) {
				cs.out[i], cs.toks[i] = c, toks
			}
			cs.out[i].uuids = uuids
			return
		}
	}
	cs.toks = append(cs.toks, toks)
	cs.out = append(cs.out, c)
}

// mergeSummaryTopic makes candidate i and c (words toks), two items of
// one compaction summary about one thing, one memory.
func (cs *candidateSet) mergeSummaryTopic(i int, c candidate, toks []uint32) {
	a, b := cs.out[i], c
	if a.rule == b.rule {
		// The summary's second account of one error, written when more
		// was known, replaces the first: the two contradict each other,
		// and a memory holding both is half wrong.
		b.uuids = uniq(append(b.uuids, a.uuids...))
		cs.out[i], cs.toks[i] = b, toks
		return
	}
	// The error with its fix, then the rule the session settled on: one
	// memory, said in that order.
	if a.rule != "compact:errors-and-fixes" {
		a, b = b, a
	}
	a.content = cut(a.content+" — "+b.content, 600)
	a.uuids = uniq(append(a.uuids, b.uuids...))
	cs.out[i] = a
	cs.toks[i], _ = tokens(a.content)
}

// backtickTags adds to tags (up to three) the short code spans of content,
// lower case.
func backtickTags(content string, tags []string) []string {
	for _, m := range backtickRe.FindAllStringSubmatch(content, -1) {
		if len(tags) >= 3 {
			break
		}
		t := strings.ToLower(strings.Trim(m[1], ".,:;()"))
		if len(t) >= 3 && !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	return tags
}

var commandArgs = lazyRE(`(?s)<command-args>(.*?)</command-args>`)

// userRuleFor is the first of userRules a sentence of the user's matches
// (with long, only "remember" applies): sentences of 4-80 words, not
// questions.
func userRuleFor(s string, long bool) (rule, bool) {
	if !ruleSentence(s) || !mayMatch(s, userTriggers) {
		return rule{}, false
	}
	for _, r := range userRules {
		if long && (r.name != "remember" || docNote.MatchString(s)) {
			// A long prompt is mostly pasted text (a spec, docs): only
			// a request to remember addressed to Claude counts, not the
			// docs' own "Note that…".
			continue
		}
		if r.re.MatchString(s) && userRuleHolds(r.name, s) {
			return r, true
		}
	}
	return rule{}, false
}

// ruleSentence reports whether the user's sentence s may state a rule:
// 4-80 words, not a question. A sentence ending in a colon goes on in the
// lines below it: alone, it is a fragment.
func ruleSentence(s string) bool {
	words := len(strings.Fields(s))
	return words >= 4 && words <= 80 && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, ":")
}

// docNote is documentation's "Note that…"/"Note:", not a request to
// remember.
var docNote = lazyRE(`(?i)^note\b`)

// userRuleHolds applies a matching rule's extra condition: an
// "always"/"never" followed by an instruction; a "don't", a preference or
// a decision that is not about the moment ("don't run that yet", "now we
// should change the TUI…", "I don't want to make it…"): those point at
// the conversation and are requests, not rules.
func userRuleHolds(name, s string) bool {
	switch name {
	case "always-never":
		return imperativeAfter(s)
	case "remember", "from-now-on":
		return true
	case "correction":
		rest := correctionRest(s)
		return specific(rest) && !isTransient(rest) && !strings.HasSuffix(rest, "?") && !firstPerson.MatchString(rest) &&
			!request.MatchString(rest) && ruleShape.MatchString(rest) && !stateReport.MatchString(rest)
	}
	return !isTransient(s)
}

// correctionRest is a correction without its interjection ("No, …").
func correctionRest(s string) string {
	if i := strings.IndexAny(s, ",.!:—–-"); i >= 0 {
		return strings.TrimSpace(strings.TrimLeft(s[i:], ",.!:—–- "))
	}
	return s
}

// ruleShape marks a correction that states how things are done or are
// (a contrast, a habit, an obligation), not what is happening.
var ruleShape = lazyRE(`(?i), not\b|\b(always|never|should|must|instead|rather|prefer|not with|we (use|deploy|run|build|keep|store|ship|want|need|call|write)|use)\b`)

// stateReport marks a report of the current state ("still fails", "not
// working yet").
var stateReport = lazyRE(`(?i)\b(still|again|yet|anymore|any more|keeps? failing|is failing|fails)\b`)

// request marks a sentence that asks Claude to do something now ("can
// you…", "please fix…", "let me…"): a request, not a fact.
var request = lazyRE(`(?i)^(can|could|would|will) you\b|^(please|pls|let me|let'?s|go ahead|try|just|wait|stop|ok|okay)\b`)

// isTransient reports whether s points at the moment or the conversation
// ("this", "it", "now"…), other than to scope a rule to "this repo".
func isTransient(s string) bool {
	for _, m := range transient.get().FindAllStringSubmatch(s, -1) {
		if m[2] == "" {
			return true
		}
	}
	return false
}

// imperativeAfter reports whether the word after "always"/"never" can
// start an instruction ("always use…"), not a remark ("never mind", "always
// the same error").
func imperativeAfter(s string) bool {
	f := strings.Fields(strings.ToLower(s))
	for i, w := range f {
		if (w == "always" || w == "never") && i+1 < len(f) {
			switch strings.Trim(f[i+1], ",.!") {
			case "mind", "the", "a", "an", "this", "that", "same", "been", "had", "was", "is", "seems", "happens", "again", "ever":
				return false
			}
			return true
		}
	}
	return false
}

// transient words make a "don't …" a one-off request, not a rule.
var transient = lazyRE(`(?i)\b(this|that|it|yet|now|here|these|those|again|today|for now)\b(\s+(repo|repository|project|codebase|team|company|org|organi[sz]ation|package|module|monorepo|service)\b)?`)

func claudeCandidates(e index.MemEntry, add func(candidate)) {
	sc := &claudeScan{e: e, add: add}
	proseLines(e.Text, sc.heading, sc.line)
}

// claudeScan proposes memories from the prose lines of one of Claude's
// entries: next steps listed under a heading, to-do lines, and findings.
type claudeScan struct {
	e      index.MemEntry
	add    func(candidate)
	under  string // the heading the lines are under
	listed int    // next steps proposed under it
}

func (sc *claudeScan) heading(h string) {
	sc.under = h
	sc.listed = 0
}

func (sc *claudeScan) line(line string) {
	plain := stripMarkdown(line)
	if progressHeading.MatchString(sc.under) && isListLine(line) {
		sc.nextStep(plain)
		return
	}
	if todoLine.MatchString(plain) {
		sc.found(candidate{typ: Progress, content: plain, importance: 2, rule: "todo"})
		return
	}
	if !mayMatch(plain, claudeTriggers) && !mayMatch(plain, limitTriggers) {
		return
	}
	// A list item is one unit first ("**What**: why. Fixed by how."), as
	// summaries and reports write a problem with its fix.
	if isListLine(line) && sc.listFinding(plain) {
		return
	}
	ss := sentences(plain)
	for i := range ss {
		if c, ok := claudeFinding(ss, i); ok {
			sc.found(withFixSaid(c, ss, i))
		}
	}
}

// found proposes c as found in the scanned entry.
func (sc *claudeScan) found(c candidate) {
	c.uuids = []string{sc.e.UUID}
	sc.add(c)
}

// nextStep proposes list item plain under a next-steps heading: the
// first three, none saying there are none.
func (sc *claudeScan) nextStep(plain string) {
	if sc.listed < 3 && !strings.HasPrefix(strings.ToLower(plain), "none") {
		sc.listed++
		sc.found(candidate{typ: Progress, content: plain, importance: 2, rule: "next-steps"})
	}
}

// listFinding proposes list item plain as one finding, or as a problem
// with its fix; false when it is neither.
func (sc *claudeScan) listFinding(plain string) bool {
	c, ok := claudeFinding([]string{plain}, 0)
	if !ok {
		c, ok = fixedItem(plain)
	}
	if ok {
		sc.found(c)
	}
	return ok
}

// withFixSaid is a tool's limit c, found in sentence i of ss, said with
// the fix Claude states next ("Vercel doesn't have SSH keys set up, so it
// can't clone via the `git@…` URL: change the submodule to use HTTPS"),
// the way a discovery is: a limit without what to do instead is half a
// memory.
func withFixSaid(c candidate, ss []string, i int) candidate {
	if c.typ != Gotcha || i+1 >= len(ss) || strings.HasSuffix(c.content, ":") {
		return c
	}
	if how, ok := fixOf(ss[i+1]); ok {
		c.content = strings.TrimRight(c.content, ". ") + ": " + how
	}
	return c
}

// claudeFinding classifies unit i of ss (a sentence, or a whole list
// item) by findingRules: a finding that stands alone (it names what it is
// about and starts with no reference to what came before), is specific,
// not a guess, and is a bug's cause with its fix or a rule. A "Fixed by
// …" sentence keeps the one before it for context.
func claudeFinding(ss []string, i int) (candidate, bool) {
	rules := mayMatch(ss[i], claudeTriggers)
	if !rules && !mayMatch(ss[i], limitTriggers) {
		return candidate{}, false
	}
	content, ok := withContext(ss, i)
	if !ok {
		return candidate{}, false
	}
	content = strings.TrimSpace(leadIn.ReplaceAllString(content, ""))
	if c, ok := limitFinding(content); ok || !rules {
		return c, ok
	}
	return ruleFinding(content)
}

// tentative marks Claude's guesses and first-person reasoning.
func tentative(s string) bool { return hedge.MatchString(s) || firstPerson.MatchString(s) }

// limitFinding is a named thing's limit, said as the cause of a problem
// ("The issue is that X doesn't…"), with what follows from it ("X
// doesn't…, so…") or on its own ("X can't…").
func limitFinding(content string) (candidate, bool) {
	if c, ok := namedLimit(content); ok {
		return c, true
	}
	if limitSo.MatchString(content) && !pronounStart.MatchString(content) && !tentative(content) {
		return candidate{typ: Gotcha, importance: 3, rule: "claude:limit-so", content: content}, true
	}
	return namedCannot(content)
}

// ruleFinding is a bug's cause with its fix or a rule (findingRules),
// said specifically, not as narration, a guess or a fragment.
func ruleFinding(content string) (candidate, bool) {
	if narration.MatchString(content) || dangling.MatchString(content) || len(strings.Fields(content)) < 6 {
		return candidate{}, false
	}
	c, ok := classifyFinding(content)
	if !ok || !specific(content) || noise.MatchString(content) || tentative(content) {
		return candidate{}, false
	}
	c.content = content
	return c, true
}

// fixedHead is a report's list item "Fixed <problem>: <how>"; problemWord
// marks a problem that is an error (not "Fixed the test: …"); howWord a
// how that says what differs ("instead of", "because", a tool's wrong
// reading).
var (
	fixedHead   = lazyRE(`(?i)^(fixed|resolved|solved|worked around)\s+([^:]{4,90}):\s*(.{10,})$`)
	problemWord = lazyRE(`(?i)\b(error|warning|issue|bug|failure|crash|shadowing|mismatch|unbound|conflict|leak|race|deadlock|timeout|incompatib\w*|regression)\b`)
	howWord     = lazyRE(`(?i)\b(instead of|rather than|because|since|incorrect|wrong|doesn'?t|does not|isn'?t|not supported|unsupported|so that|to suppress|to silence|to avoid)\b`)
)

// fixedItem is the finding of a "Fixed <error>: <how>" list item, as
// Claude's end-of-task reports write one: the error named, and a how that
// says what was wrong or what was done instead.
func fixedItem(plain string) (candidate, bool) {
	m := fixedHead.FindStringSubmatch(plain)
	if m == nil || !problemWord.MatchString(m[2]) || !howWord.MatchString(m[3]) || !specific(plain) ||
		hedge.MatchString(plain) || len(strings.Fields(plain)) < 8 {
		return candidate{}, false
	}
	return candidate{typ: Bugfix, importance: 3, rule: "claude:fixed-item", content: fixedAsRule(m[2], m[3])}, true
}

// pastHow is the past-tense verb a report's how starts with; atPlace is
// where in the code it was done ("in `test/test_cache.py:429`").
var (
	pastHow = lazyRE(`^(?i)(used|added|replaced|changed|switched|moved|removed|wrapped|passed|called|set|marked)\b`)
	atPlace = lazyRE("\\s+(in|at) `[^`]*(/|\\.[a-z]{1,4}(:\\d+)?)[^`]*`\\s*\\.?$")
)

// fixedAsRule says a "Fixed <problem>: <how>" report item as the rule it
// implies, for next time: "<Problem>: use …" (the how in the present, not
// what was done), without the one place in the code it was done at.
func fixedAsRule(problem, how string) string {
	how = strings.TrimSpace(atPlace.ReplaceAllString(how, ""))
	if m := pastHow.FindStringSubmatch(how); m != nil {
		verb := strings.ToLower(m[1])
		switch verb {
		case "set":
		case "used", "changed", "moved", "removed", "replaced":
			verb = strings.TrimSuffix(verb, "d")
		default:
			verb = strings.TrimSuffix(verb, "ed")
		}
		if verb == "wrapp" {
			verb = "wrap"
		}
		how = verb + how[len(m[1]):]
	}
	problem = strings.TrimSpace(problem)
	if f := strings.Fields(problem); !strings.ContainsAny(f[0], "_`.") {
		problem = strings.ToUpper(problem[:1]) + problem[1:] // not an identifier's case
	}
	return problem + ": " + how
}

// withoutAsides is s without its parenthesised asides: "Graceful
// degradation (OTEL failures must never crash)" is a label, and the rule
// in brackets is not what the sentence says.
func withoutAsides(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// pronounStart marks a sentence about the conversation's own actors.
var pronounStart = lazyRE(`^(I|We|You|It|This|That|They|The|There|Here)\b`)

// issueThat is "The issue is that <clause>"; namedSubject is a clause that
// starts with a name (code, or a capitalised word that is not a pronoun
// or an article) and says in the present tense what it does not do.
var (
	issueThat    = lazyRE(`(?i)^the (real |actual |underlying )?(issue|problem|catch|gotcha) (is|here is) that\s+`)
	namedSubject = lazyRE("^(`[^`]+`|[A-Z][A-Za-z0-9]*[.][A-Za-z]+|[A-Z][a-z]+[A-Z][A-Za-z]*|[A-Z]{2,}[a-z]*)[^,;]{0,80}?\\b(don'?t|doesn'?t|do not|does not|can'?t|cannot|won'?t|will not|never)\\b")
)

// relative marks a relative clause: "X returns a type that Dialyzer thinks
// can never be…" says nothing X never does.
var relative = lazyRE(`(?i)\b(that|which|who|whose|where|when|if)\b`)

// namedLimit is a gotcha stated as the cause of a problem: "The issue is
// that `index.html` files under `public/` don't get served by Next.js…"
// stands alone once the lead-in is dropped, because it names its subject
// and says what that never does. A clause about "the test" or "the HTML"
// is about this session's state, not a rule.
func namedLimit(content string) (candidate, bool) {
	loc := issueThat.get().FindStringIndex(content)
	if loc == nil {
		return candidate{}, false
	}
	rest := content[loc[1]:]
	m := namedSubject.get().FindStringIndex(rest)
	if m == nil || relative.MatchString(rest[:m[1]]) || hedge.MatchString(rest) || firstPerson.MatchString(rest) || len(strings.Fields(rest)) < 6 {
		return candidate{}, false
	}
	if r := []rune(rest); len(r) > 0 && r[0] >= 'a' && r[0] <= 'z' {
		rest = strings.ToUpper(string(r[0])) + string(r[1:])
	}
	return candidate{typ: Gotcha, importance: 3, rule: "claude:named-limit", content: rest}, true
}

// limitSo is a named thing's limit and what follows from it: "Vercel
// doesn't have SSH keys set up, so it can't clone via the `git@…` URL".
var limitSo = lazyRE("^(`[^`]+`|[A-Z][A-Za-z0-9.]+(\\s[A-Z][A-Za-z0-9.]+)?)\\s+(doesn'?t|does not|can'?t|cannot|won'?t|isn'?t able to|is not able to|never)\\b[^,;]{3,80},\\s*so\\b")

// cannotVerb is a named subject's present-tense limit, within a few words
// of it: "Python can't import a module with hyphens", "`SendMessage`
// doesn't resurrect a terminated agent".
func cannotVerb(content string) bool {
	f := strings.Fields(content)
	for i := 1; i < min(len(f)-1, 10); i++ {
		// Past the first few words, only as the second half of a
		// contrast: "`SendMessage` queues into an inbox but doesn't
		// resurrect a terminated process".
		if i >= 5 && !strings.EqualFold(f[i-1], "but") {
			continue
		}
		switch strings.ToLower(f[i]) {
		case "can't", "cant", "cannot", "doesn't", "doesnt", "won't", "never":
			return true
		case "does", "will":
			if n := strings.ToLower(f[i+1]); n == "not" {
				return true
			}
		}
	}
	return false
}

// codeSubject is a sentence's first word when it is a code span of one
// identifier.
var codeSubject = lazyRE("^`[A-Za-z_][A-Za-z0-9_.]*(\\(\\))?`$")

// readTools read or search the project's files (editTools write them).
var readTools = []string{"Read", "Grep"}

// editedCode is the project's code the session saw: what its edits wrote
// or replaced and what it read or searched (file paths and text). A name
// in it is the project's own.
func editedCode(entries []index.MemEntry) string {
	var b strings.Builder
	reads := map[string]bool{} // tool_use ids of Read and Grep calls
	for _, e := range entries {
		switch {
		case e.Role == "assistant" && slices.Contains(readTools, e.ToolName):
			reads[e.ToolUse] = true
		case e.Role == "assistant" && slices.Contains(editTools, e.ToolName):
			b.Write(e.Input)
			b.WriteByte('\n')
		case e.Role == "tool" && reads[e.ToolUse]:
			b.WriteString(e.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// projectCode reports whether a code-subject limit names the project's
// own code: the session's edits hold its name.
func projectCode(c candidate, edited string) bool {
	name := strings.Trim(strings.Fields(c.content)[0], "`()")
	return strings.Contains(edited, name)
}

// properly marks a bug in the code at hand ("doesn't properly append").
var properly = lazyRE(`(?i)\b(properly|correctly|yet)\b`)

// namedCannot is a gotcha stated as what a named thing cannot do, said
// in general: a name first (code, a capitalised name, a tool), a limit in
// the present tense, at least 7 words, nothing pointing at the moment
// ("this", "yet", "still"), no guess and no first person. "The test
// doesn't pass" is a state, not a limit: it names nothing.
func namedCannot(content string) (candidate, bool) {
	if !limitShape(content) || ofTheMoment(content) {
		return candidate{}, false
	}
	// A tool, platform or language (Vercel, Python, Chrome) has limits
	// that last; code of the project "doesn't" do what it will do after
	// the fix, so code names are left to the fix rules.
	subject := strings.Fields(content)[0]
	if codeSubject.MatchString(subject) {
		// Code may be a tool's (`SendMessage`) or the project's own:
		// extractCandidates drops it when the session edited code that
		// holds the name.
		return candidate{typ: Gotcha, importance: 3, rule: "claude:code-cannot", content: content}, true
	}
	if !(subject[0] >= 'A' && subject[0] <= 'Z' && named(subject)) {
		return candidate{}, false
	}
	return candidate{typ: Gotcha, importance: 3, rule: "claude:named-cannot", content: content}, true
}

// limitShape is a statement of at least 7 words with a present-tense
// limit near its start (cannotVerb), not opening with a pronoun and not
// a question.
func limitShape(content string) bool {
	return cannotVerb(content) && !pronounStart.MatchString(content) && len(strings.Fields(content)) >= 7 && !strings.HasSuffix(content, "?")
}

// ofTheMoment marks a limit said about the moment or as a guess: a
// state ("still"), a pointer at the conversation ("this", "yet"),
// narration, a dangling start, or a bug in the code at hand ("doesn't
// properly…").
func ofTheMoment(content string) bool {
	return tentative(content) || stateReport.MatchString(content) || isTransient(content) ||
		dangling.MatchString(content) || narration.MatchString(content) || properly.MatchString(content)
}

// classifyFinding is the finding content states: a fix with the problem
// it fixes, or a rule.
func classifyFinding(content string) (candidate, bool) {
	lower := strings.ToLower(content)
	for _, r := range findingRules {
		if r.name != "fix" && !containsAny(lower, ruleTriggers[r.name]) {
			continue
		}
		text := content
		if r.name != "fix" {
			// A rule is what the sentence says, not an aside in brackets.
			text = withoutAsides(content)
		}
		loc := r.re.get().FindStringIndex(text)
		if loc == nil {
			continue
		}
		if r.name == "fix" && !causeAndFix(text[:loc[1]], text[loc[1]:]) {
			continue
		}
		return candidate{typ: r.typ, importance: r.imp, rule: "claude:" + r.name}, true
	}
	return candidate{}, false
}

// causeAndFix reports whether the text before a fix marker states a
// problem (what went wrong, in a few words, not a lint or compiler
// complaint about one's own edit) and the text after it says how,
// specifically.
func causeAndFix(problem, fix string) bool {
	if len(strings.Fields(problem)) < 3 || !causeWord.MatchString(problem) || editNoise.MatchString(problem) {
		return false
	}
	return len(strings.Fields(fix)) >= 2 && specific(fix)
}

// causeWord marks text that says why something went wrong, not only
// what was seen ("X weren't getting the CSS class" is a symptom; "X
// can't access the sandbox", "Y doesn't exist", "failed because…" are
// causes).
var causeWord = lazyRE(`(?i)\b(because|since|due to|caused by|as a result|so (each|every|the|it|they)|doesn'?t exist|does not exist|(was|were|is|are) wrong|can'?t|cannot|couldn'?t|could not|didn'?t|did not|doesn'?t|does not|don'?t|do not|won'?t|will not|not supported|unsupported|instead of|missing|requires?|expects?|only|never|no longer|false positive|race)\b`)

// editNoise marks problems that are a linter's or compiler's complaint
// about an edit in progress (an unused import, nesting too deep, a format
// check): fixed in passing, nothing to remember.
var editNoise = lazyRE(`(?i)\bunused (import|alias|variable|function|parameter|argument)s?\b|\b(nesting|cyclomatic|complexity|line too long|line length|format(ting)? check|formatter|missing import|lint(er|ing)?|credo|eslint|pylint|flake8|ruff|rubocop|clippy|golangci-lint|staticcheck)\b`)

// leadIn is a phrase a finding may start with that says nothing itself.
var leadIn = lazyRE(`(?i)^((key (fix|finding|insight|lesson)( in this session)?|root cause|important|note|lesson learned|learned)\s*[:—–-]\s*|(i see the (issue|problem)|i found the (issue|problem)|found it|exactly|got it|right)\s*[-:—–!.,]+\s*)`)

// dangling marks a unit that starts by pointing at what came before ("So
// the gitignore…", "This means…", "The issue is clear —"): it does not
// stand alone.
var dangling = lazyRE(`(?i)^(so|and|but|or|also|this|that|these|those|it|its|it's|they|them|their|here|there|which|then|thus|hence|otherwise|instead|still|however|anyway|again|both|same|the (issue|problem|error|bug|fix|reason|cause|answer) (is|was) (clear|simple|obvious|now|here|this|that)\b)\b`)

// withContext is sentence i of ss, after the one before it when it starts
// "Fixed by …"; such a sentence first says nothing about what.
func withContext(ss []string, i int) (string, bool) {
	if !startsWithFix(ss[i]) {
		return ss[i], true
	}
	if i == 0 {
		return "", false
	}
	return ss[i-1] + " " + ss[i], true
}

// noise marks sentences about the moment, not something lasting.
var noise = lazyRE(`(?i)\b(expected (during|while|since|because)|as expected|for now|temporarily)\b`)

// hedge marks a guess, not a finding.
var hedge = lazyRE(`(?i)\b(might|maybe|probably|perhaps|possibly|could be|may be|i think|i suspect|seems? to|likely)\b`)

// claudeTriggers are words one of claudeRules needs: sentences without any
// skip the regular expressions (most of a transcript).
var claudeTriggers = []string{"because", "support", "has to", "cause", "issue", "problem", "bug", "culprit", "error", "fix", "turned out", "resolved",
	"happen", "gotcha", "pitfall", "caveat", "watch out", "beware", "careful", "keep in mind", "must", "should",
	"need", "work", "important", "decid", "decision", "go with", "going with", "opted", "chose", "switched",
	"instead of", "rather than", "prefer"}

// limitTriggers are the words of a named thing's limit (namedCannot,
// limitSo): a sentence with only these is tried for a limit alone.
var limitTriggers = []string{"can't", "cannot", "doesn't", "does not", "won't", "never"}

// userTriggers are the same for userRules.
var userTriggers = []string{"remember", "no", "actually", "wrong", "note", "keep in mind", "always", "never", "from now on", "going forward",
	"future", "every time", "whenever", "don", "do not", "stop", "prefer", "rather", "like it", "hate", "dislike",
	"let", "we", "decid", "decision", "instead of", "use"}

func containsAny(lower string, words []string) bool {
	for _, w := range words {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// mayMatch reports whether s contains one of the words (ASCII case-folded).
func mayMatch(s string, words []string) bool {
	l := strings.ToLower(s)
	for _, w := range words {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

var fixStart = lazyRE(`(?i)^(fixed|resolved|solved) (it |this |that )?by\b`)

func startsWithFix(s string) bool { return fixStart.MatchString(s) }

func classifyClaude(s string) (candidate, bool) {
	lower := strings.ToLower(s)
	for _, r := range typeRules {
		if !containsAny(lower, ruleTriggers[r.name]) {
			continue
		}
		if r.re.MatchString(s) {
			return candidate{typ: r.typ, importance: r.imp, rule: "claude:" + r.name}, true
		}
	}
	return candidate{}, false
}

// classifyLine types a line of a reviewed summary by the same rules.
func classifyLine(s string) (Type, bool) {
	if c, ok := classifyClaude(s); ok {
		return c.typ, true
	}
	return "", false
}

// todoPrefix starts the content of memories made from to-do lists.
const todoPrefix = "Open to-do: "

type todoItem struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

// lastTodos returns the items of the last to-do list written in entries
// (the main conversation's) and the entry that wrote it.
func lastTodos(entries []index.MemEntry) ([]todoItem, string, bool) {
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.ToolName != "TodoWrite" || e.Sidechain {
			continue
		}
		var in struct {
			Todos []todoItem `json:"todos"`
		}
		if json.Unmarshal(e.Input, &in) != nil {
			return nil, "", false
		}
		return in.Todos, e.UUID, true
	}
	return nil, "", false
}

// doneTodos returns the to-do items the last list marks completed, as the
// memories of their open state read.
func doneTodos(entries []index.MemEntry) []string {
	todos, _, _ := lastTodos(entries)
	var out []string
	for _, t := range todos {
		if t.Status == "completed" {
			out = append(out, todoPrefix+oneLine(t.Content))
		}
	}
	return out
}

// checkStep is a to-do that checks the work just done ("Test the
// recorder", "Run the linters"): part of finishing the session, not work
// a later session picks up.
var checkStep = lazyRE(`(?i)^\s*(test|tests|verify|check|run|re-?run|confirm|validate|ensure|review|build|lint|commit|push)\b`)

// todoCandidates proposes the open items of the last to-do list written.
func todoCandidates(entries []index.MemEntry) ([]candidate, bool) {
	todos, uuid, ok := lastTodos(entries)
	var out []candidate
	for _, t := range todos {
		if t.Status == "completed" || strings.TrimSpace(t.Content) == "" || checkStep.MatchString(t.Content) {
			continue
		}
		out = append(out, candidate{typ: Progress, importance: 2, rule: "todo-list",
			content: todoPrefix + oneLine(t.Content), uuids: []string{uuid}, tags: []string{"todo"}})
		if len(out) == 5 {
			break
		}
	}
	return out, ok
}
