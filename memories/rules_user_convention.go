package memories

import (
	"strings"
)

// A convention stated inside a prompt. A long prompt is mostly a task
// ("please add…", "can you…"), a description of the bug at hand and pasted
// material (a log, a diff, docs); a sentence of it that states how things
// are done from now on has a shape of its own, whatever the words around
// it: a habit of the project ("we use Redis for all caching"), a rule with
// a quantifier ("cache keys should always be prefixed…"), a prohibition
// with what to do instead ("don't mock Redis in tests, use the
// testcontainers setup"), a scope ("`scripts/` is only for one-off
// tools"), a preference between two things, a default, a constraint on a
// file ("never edit `gen/`", "`schema.sql` is generated"). Each sentence of
// the lines the person typed (before anything pasted: typedLines) is
// judged alone and proposed as what holds, when it names something and is
// neither a task put to Claude, a question, a report of what happens now,
// a guess nor about the moment ("it", "this", "now").

// conventionShape is a sentence stating how things are done.
var conventionShape = lazyRE(`(?i)` +
	// a habit of the project
	`\bwe (?:use|prefer|keep|store|name|follow|deploy|ship|pin|vendor|avoid)\s+\S.{0,80}\b(?:for|in|as|to|with|on|from|instead|over|rather|not|before|after|when|via)\b` +
	`|\bwe (?:always|usually|generally|normally|typically|only|never|don'?t|do not) (?:use|prefer|keep|put|store|name|follow|deploy|ship|run|write|call|build|test|mock|prefix|format|commit|import|pin|vendor|avoid|print|log|return|send|check|validate|handle|wrap|squash|rebase|merge|release|tag)\b` +
	// a rule with a quantifier
	`|\b(?:should|must|needs? to|has to|have to) (?:always|never)\b|\b(?:always|never) (?:be|use|run|call|go|live|stay|point|return|include|start|end|import|commit|push|edit|touch|add|put|pass)\b` +
	// a prohibition with what to do instead
	`|\b(?:don'?t|do not|never)\s+\w+[^,;]{2,80}[,;:—–-]+\s*(?:instead\b|rather\b|use\b|prefer\b|always\b|we use\b)` +
	// a scope
	`|\b(?:is|are) (?:only|just|solely|strictly) (?:for|used for|meant for|intended for|allowed in)\b|\b(?:reserved|intended) (?:only )?for\b|\bonly (?:use|call|run|import|edit|touch)\s+\S` +
	// a preference, a default
	`|\bprefer\b.{1,60}\b(?:over|to|instead of|rather than)\b|\bby default\b.{0,60}\b(?:should|must|we|use)\b|\b(?:should|must)\b.{0,60}\bby default\b|\bshould default to\b|\bthe default (?:should|must|is|will be)\b` +
	// a constraint on a file or a tool
	`|\b(?:never|don'?t|do not)\s+(?:edit|modify|touch|commit|push|delete|rename|reformat|regenerate|hand-edit)\b|\b(?:is|are) (?:generated|auto-generated|vendored|read-only)\b`)

// conventionNot is a sentence of that shape that is no convention: a task
// put to Claude, a clarification of it ("To be clear: don't…, use…" says
// how to do what was just asked), what the person did or saw, a bug's
// expected behaviour against what happens.
var conventionNot = lazyRE(`(?i)^(?:please\s+)?(?:can|could|would|will) you\b|\b(?:i|we) (?:want|need|'d like|would like) you to\b|^(?:please\s+)?(?:implement|add|create|write|fix|build|refactor|help|look|have a look|read|review|investigate|find|figure|explain|tell|show|update|change)\b|\b(?:i|we) (?:tried|noticed|found|saw|changed|added|used|had|wanted|thought|realised|realized)\b|\b(?:but|however|for some reason|somehow|why)\b|\blet me\b|^(?:to be clear|to clarify|just to clarify)\b`)

// conventionLeadIn is a sentence's opening that only frames it ("Note
// that", "FYI,").
var conventionLeadIn = lazyRE(`(?i)^(?:for the record|fyi|btw|by the way|note that|just so you know|as a reminder|reminder|important)\b[\s,:;—–-]*`)

// conventionCandidate proposes sentence s of a prompt's typed lines when
// it states a convention (rule user:convention).
// A sentence that is a task as a whole may state a convention in a clause
// of its own ("Add a `--json` flag; we always print data to stdout").
func conventionCandidate(s, uuid string, add func(candidate)) {
	parts := []string{s}
	if strings.Contains(s, "; ") {
		parts = append(parts, strings.Split(s, "; ")...)
	}
	for _, p := range parts {
		if content, ok := conventionHolds(p); ok {
			add(candidate{typ: Preference, content: content, importance: 3, uuids: []string{uuid}, rule: "user:convention"})
			return
		}
	}
}

// conventionHolds is sentence s said as the convention it states, when it
// states one.
func conventionHolds(s string) (string, bool) {
	c := strings.TrimSpace(conventionLeadIn.ReplaceAllString(voiceContent(s), ""))
	n := len(strings.Fields(c))
	if n < 5 || n > 50 || strings.HasSuffix(c, "?") || strings.HasSuffix(c, ":") || !conventionShape.MatchString(c) {
		return "", false
	}
	if notConvention(c) || !named(c) {
		return "", false
	}
	return strings.ToUpper(c[:1]) + c[1:], true
}

// notConvention reports a convention-shaped sentence that is a task, a
// report, a guess or about the moment.
func notConvention(c string) bool {
	return conventionNot.MatchString(c) || hedge.MatchString(c) || stateReport.MatchString(c) || isTransient(c)
}

// typedProse marks each of a prompt's prose lines (as proseLines gives
// them) the person typed: not pasted material. Pasted is what a fence
// holds, and from the first unfenced paste on (markup, an indented or
// code-like line, what a line ending in ":" introduces unless a list, in
// a long prompt a title-like line amid the text: pasted docs) all the
// rest, which has no end to tell. After a fence closes the person types
// again.
func typedProse(text string) []bool {
	var out []bool
	st := typing{long: len(text) > 1200}
	for _, raw := range strings.Split(text, "\n") {
		if typed, prose := st.next(raw); prose {
			out = append(out, typed)
		}
	}
	return out
}

// typing is how far typedProse has read.
type typing struct {
	long, inFence, pasted bool
	prev                  string // the last line read outside a fence
	lines                 int    // prose lines read
}

// next reads one raw line: whether it is a prose line, and typed.
func (st *typing) next(raw string) (typed, prose bool) {
	t := strings.TrimSpace(raw)
	switch {
	case t == "":
		return false, false
	case isFence(t):
		st.inFence, st.prev = !st.inFence, ""
		return false, false
	case st.inFence:
		return false, false
	}
	st.pasted = st.pasted || pasteStarts(raw, t, st.prev) || st.long && st.lines > 0 && pastedTitle(t)
	st.prev = strings.TrimSpace(strings.TrimSuffix(t, "\\"))
	if !proseLine(t) {
		return false, false
	}
	st.lines++
	return !st.pasted, true
}

func isFence(t string) bool { return strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") }

// proseLine reports a trimmed line outside a fence that proseLines gives.
func proseLine(t string) bool {
	_, h := proseHeading(t)
	return !h && !notProse(t)
}

// codeLike is a line of code, a log or a diff.
var codeLike = lazyRE(`^(?:[\[{}\]]|diff --git|@@ |\+\+\+ |--- |index [0-9a-f]{7}|\d{1,2}:\d{2}[:.]|[$➜]\s)|[{};]$|=>|^\w+\([^)]*\)$`)

// pasteStarts reports whether line t (raw as typed) is where pasted
// material begins; prev is the line before it.
func pasteStarts(raw, t, prev string) bool {
	switch {
	case strings.HasPrefix(t, "<"):
		return true
	case strings.HasPrefix(raw, "    ") || strings.HasPrefix(raw, "\t") || codeLike.MatchString(t):
		return true
	}
	return strings.HasSuffix(prev, ":") && !isListLine(t)
}

// pastedTitle is a short line without a sentence's end: amid a long
// prompt, a pasted page's title ("Note", "Tool environments").
func pastedTitle(t string) bool {
	b := strings.TrimSpace(strings.TrimSuffix(t, "\\"))
	if b == "" || len(strings.Fields(b)) > 5 || isListLine(b) {
		return false
	}
	return !strings.ContainsAny(b[len(b)-1:], ".!?:;,)`")
}
