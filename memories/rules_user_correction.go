package memories

import (
	"strings"
)

// The person's corrections and standing instructions, said in plain
// prose and often put as a task to Claude ("can you…", "please…", "I want
// you to…"), which user:convention leaves alone. Most requests are steps
// of the task at hand ("can you fix line 3", "now add a button", "make it
// blue instead of red"); the ones that outlive the task say how work is
// done in the project, and have a shape of their own whatever the words:
//
//   - a general rule inside the request: a contrast ("rather than",
//     "instead of", ", not …", "not X but Y", "don't X, Y"), a quantifier
//     over a class ("always", "never", "every time", "each new …"), or a
//     reason attached to an instruction ("…, because the hook doesn't
//     cover it");
//   - about how the work is done (workWords): commits, tests and what
//     they cover, checks and where they go, what is fixed rather than
//     suppressed, reuse rather than duplication, dependencies, docs,
//     logging, naming, errors — not about what one thing looks like;
//   - not about the moment ("for now", "this time", "on line 3"), not a
//     report of what happens, a guess or a question of fact.
//
// Two situations say the shape from around the words:
//
//   - a prompt typed right after rejecting a call corrects that call: it
//     names its subject (the wrapper in extraction.userWords says "After
//     rejecting …:"), so a decision-shaped sentence of it (voiceDecision)
//     is kept even when it names nothing itself ("I'd love that test to be
//     saved as a permanent unit test" after a rejected throwaway script);
//   - a request to fix what Claude's last reply says it let pass
//     (continue-on-error, a skipped test, `# type: ignore`, a disabled
//     rule) is the rule "fix, don't suppress", said with Claude's words.
//
// Each is said in the person's words without the request around them
// (rule user:instruction).

// requestLead is the request around an instruction: "can you please",
// "I want you to", "make sure to".
var requestLead = lazyRE(`(?i)^(?:(?:and|also|but|so|then|ok(?:ay)?|please|pls)\b[\s,]*)*(?:(?:can|could|will|would) you (?:please |also |just )*|(?:i|we) (?:want|need|'d like|would like|'d prefer|would prefer) you to (?:please |also )*|make sure (?:that )?(?:you )?(?:to )?|be sure to |remember to )`)

// instructionShape is a request stating a general rule: a contrast, a
// quantifier over a class of things, or a prohibition with what to do.
var instructionShape = lazyRE(`(?i)\S\s.{0,120}\b(?:rather than|instead of)\s+\S|\S\s.{2,80},\s*not\s+\S|\bnot\s+(?:\w+\s+){1,6}but\s+\S|\S\s.{4,80}\binstead[.!?]*$` +
	`|\b(?:always|never|every time|each time|whenever|every|each new|all new|any new)\b` +
	`|^(?:don'?t|do not|never|stop|no need to|avoid)\b.{3,80}[,;:—–-]+\s*(?:just\s+|always\s+)?(?:use|put|call|add|fix|write|run|reuse|keep|make|let|go|prefer|move)\b`)

// reasonedInstruction is an instruction that gives its reason: what is
// done, "because" why.
var reasonedInstruction = lazyRE(`(?i)^(?:always\s+|never\s+|don'?t\s+|do not\s+)?(?:use|run|add|put|keep|write|commit|push|test|check|fix|avoid|move|call|prefer|reuse|mock|log|handle|name|wrap|split|document|squash|rebase|pin)\b.{3,100}\b(?:because|since|so that|otherwise)\b`)

// workWords are what an instruction about how work is done talks about.
var workWords = lazyRE(`(?i)\b(?:commit(?:s|ted|ting)?|push(?:es|ed|ing)?|branch(?:es)?|rebas(?:e|ing)|squash|merg(?:e|ing)|pull requests?|PRs?|changelog|tests?|testing|tested|specs?|coverage|covers?|mock(?:s|ed|ing)?|fixtures?|asserts?|assertions?|lint(?:er|ing|s)?|type[- ]?check(?:s|ing|er)?|types?|typing|warnings?|errors?|exceptions?|checks?|validat(?:e|ion|ions|or|ors)|ci|hooks?|format(?:ter|ting)?|suppress(?:ed|ing)?|ignor(?:e|ed|ing)|skip(?:ped|ping|s)?|disabl(?:e|ed|ing)|silenc(?:e|ed|ing)|workarounds?|hacks?|duplicat(?:e|ed|es|ing|ion)|cop(?:y|ies|ying)|reus(?:e|ed|ing)|existing|helpers?|utils?|utilit(?:y|ies)|wrappers?|shared|dependenc(?:y|ies)|packages?|librar(?:y|ies)|imports?|docs|documentation|docstrings?|comments?|readme|logg(?:er|ing)|logs?|print(?:s|ing)?|nam(?:e|es|ed|ing)|conventions?|migrations?|schemas?|config(?:uration)?|env(?:ironment)?s?|secrets?|hard-?cod(?:e|ed|ing)|scripts?|builds?|deploy(?:s|ed|ing|ment)?|releases?|retr(?:y|ies)|handl(?:e|ed|ing|er|ers)|propagat(?:e|ed|ing)|refactor(?:s|ed|ing)?|abstractions?|interfaces?|endpoints?|modules?|folders?|directories|files?|fallbacks?)\b`)

// momentWords tie an instruction to the task at hand: it is a step, not
// a rule.
var momentWords = lazyRE(`(?i)\b(?:for now|right now|this time|at the moment|temporarily|for the moment|quick(?:ly)?|line \d+|on line|lines? \d|in this (?:file|function|method|line|test|pr|commit|branch)|this one|that one|today|tonight|first|next)\b`)

// notInstruction is a sentence of that shape that reports, guesses or
// narrates: the bug at hand, what the person tried, why something is.
var notInstruction = lazyRE(`(?i)\b(?:i|we) (?:tried|noticed|found|saw|had|thought|realised|realized|wonder)\b|\blet me\b|\bwhy\b|\byour help\b|\bhelp (?:me|us|with)\b|^(?:to be clear|to clarify|just to clarify)\b|^(?:is|are|was|were|do|does|did|has|have|should|shall|could we|can we|would it|what|which|how|where|when|who)\b`)

// butClause is a "but"/"however" outside a "not X but Y" contrast: the
// bug's expected against actual ("should always return a list but…").
var butClause = lazyRE(`(?i)\b(?:but|however)\b`)

var notBut = lazyRE(`(?i)\bnot\s+(?:\w+\s+){1,6}but\b`)

// directive is how an instruction opens: an imperative, "we/you should…",
// "<things> should/must…", "<things> go in…". A statement of fact ("the
// issue is that `f` always returns :error") is no instruction.
var directive = lazyRE(`(?i)^(?:always\s+|never\s+|only\s+|just\s+)?(?:don'?t|do not|stop|no need to|avoid|use|run|put|keep|add|write|commit|push|test|check|fix|move|call|prefer|reuse|mock|log|handle|name|wrap|split|document|squash|rebase|pin|make|follow|stick|create|place|store|import|raise|return|throw|catch|validate|cover|include|leave|treat|default|separate|extract|replace|delete|remove|save|rely|let)\b` +
	`|^(?:we|you)\s+(?:(?:always|never|really|also)\s+)?(?:should|must|need to|have to|always|never|don'?t|do not|shouldn'?t|can'?t|cannot|want to|prefer)\b` +
	`|^(?:\S+\s+){1,6}?(?:should|must|needs? to|has to|have to)\s+(?:always\s+|never\s+|also\s+)?(?:be|go|live|cover|use|run|call|test|stay|come|happen|include|check)\b` +
	`|^(?:\S+\s+){1,6}?(?:go|goes|belong|belongs|live|lives)\s+(?:in|into|under|next to)\b`)

// reasonNext is a sentence that gives the reason for the one before.
var reasonNext = lazyRE(`(?i)^(?:because|since|otherwise|that way|so that)\b`)

// instructionIn is sentence i of ss said as the standing instruction it
// gives, when it gives one; afterRejection when the prompt corrects a
// call the person just rejected.
func instructionIn(ss []string, i int, afterRejection bool) (string, bool) {
	rest, asked, ok := instructionWords(ss[i])
	if !ok || !instructionShaped(rest, asked, afterRejection) {
		return "", false
	}
	out := strings.ToUpper(rest[:1]) + rest[1:] + "."
	if i+1 < len(ss) && reasonNext.MatchString(ss[i+1]) && len(strings.Fields(ss[i+1])) <= 30 {
		out += " " + ss[i+1]
	}
	return out, true
}

// instructionWords is sentence s without its request wrapper ("can
// you…"; asked: it had one), when it may be an instruction: not a
// convention user:convention says, 4–50 words, no question unless asked,
// not a hedge, a report of the state or about the moment.
func instructionWords(s string) (rest string, asked, ok bool) {
	if conventionSaid(s) {
		return "", false, false // user:convention says it
	}
	c := voiceContent(s)
	asked = requestLead.MatchString(c)
	rest = strings.TrimSpace(requestLead.ReplaceAllString(c, ""))
	if n := len(strings.Fields(rest)); n < 4 || n > 50 || strings.HasSuffix(rest, ":") {
		return "", false, false
	}
	if strings.HasSuffix(rest, "?") && !asked {
		return "", false, false // a question, even a suggestion ("could we reuse…?")
	}
	rest = strings.TrimRight(rest, "?!. ")
	if notInstruction.MatchString(rest) || hedge.MatchString(rest) || stateReport.MatchString(rest) || momentWords.MatchString(rest) {
		return "", false, false
	}
	return rest, asked, true
}

// conventionSaid reports whether user:convention holds for s or for one
// of its "; " parts.
func conventionSaid(s string) bool {
	for _, part := range append([]string{s}, strings.Split(s, "; ")...) {
		if _, ok := conventionHolds(part); ok {
			return true
		}
	}
	return false
}

// instructionShaped reports whether rest states a general rule about how
// work is done, or (afterRejection) says what to do instead of the call
// the person just rejected.
func instructionShaped(rest string, asked, afterRejection bool) bool {
	shaped := (asked || directive.MatchString(rest)) && (instructionShape.MatchString(rest) || reasonedInstruction.MatchString(rest)) && workWords.MatchString(rest) &&
		(!butClause.MatchString(rest) || notBut.MatchString(rest))
	// After a rejection the call names the subject; what the person
	// says instead is the correction ("I'd love that test to be…").
	corrected := afterRejection && voiceDecision.MatchString(rest) && !askForHelp.MatchString(rest)
	return shaped || corrected
}

// instructionCandidate proposes sentence i of a typed prompt line when it
// gives a standing instruction (rule user:instruction).
func (p *promptScan) instruction(ss []string, i int) {
	if content, ok := instructionIn(ss, i, p.rejected != ""); ok {
		p.add(candidate{typ: Preference, content: content, importance: 3, uuids: []string{p.uuid}, rule: "user:instruction"})
		return
	}
	if content, ok := fixNotSuppress(ss[i], p.prevClaude); ok {
		p.add(candidate{typ: Preference, content: content, importance: 3, uuids: []string{p.uuid}, rule: "user:instruction"})
	}
}

// fixRequest is a request to fix a class of problems: "would you mind
// fixing the type issues?", "please fix the lint errors instead".
var fixRequest = lazyRE(`(?i)\bfix(?:ing)?\s+(?:the\s+|these\s+|those\s+|all\s+(?:the\s+)?)?((?:[\w.-]+\s+){0,3}(?:issues?|errors?|warnings?|failures?|problems?|complaints?|tests?|types?|diagnostics))\b`)

// letPass is Claude saying it let a check pass instead of fixing what it
// reports.
var letPass = lazyRE(`(?i)continue[sd]?[- ]on[- ]error|\ballow(?:ed|s|ing)?\s+(?:\w+\s+){0,3}(?:to\s+)?fail|\bskip(?:ped|ping)?\b|\bxfail\b|type:\s*ignore|\bnoqa\b|eslint-disable|@ts-(?:ignore|expect-error)|\bnolint\b|--no-verify|\bdisabl(?:e|ed|ing)\s+(?:the\s+)?(?:\w+\s+)?(?:rule|check|lint|linter|test|hook)s?\b|\bsuppress(?:ed|ing)?\b|\bsilenc(?:ed|ing)\b|\bignor(?:e|ed|ing)\s+(?:the\s+)?(?:\w+\s+)?(?:errors?|warnings?|failures?|issues?)\b|\bcomment(?:ed)?\s+out\b`)

// fixNotSuppress is the rule a request to fix says when Claude's last
// reply let the check pass that reports those problems: fix them, do not
// suppress them, with Claude's sentence saying what was let pass.
func fixNotSuppress(s, prevClaude string) (string, bool) {
	m := fixRequest.get().FindStringSubmatch(s)
	if m == nil || prevClaude == "" || strings.HasPrefix(strings.ToLower(strings.TrimSpace(s)), "how") {
		return "", false
	}
	what := strings.TrimSpace(m[1])
	said := ""
	proseLines(prevClaude, nil, func(line string) {
		for _, cs := range sentences(stripMarkdown(line)) {
			if said == "" && letPass.MatchString(cs) && shareWord(cs, what) {
				said = cs
			}
		}
	})
	if said == "" {
		return "", false
	}
	asked := voiceContent(s)
	return "Fix the " + strings.TrimPrefix(what, "the ") + " rather than letting the check pass: asked “" + cut(strings.ToUpper(asked[:1])+asked[1:], 160) +
		"” after Claude said “" + cut(strings.TrimSpace(said), 200) + "”", true
}

// shareWord reports whether a and b share a word of four letters or more
// that says what kind of problem it is (not "issues", "errors").
func shareWord(a, b string) bool {
	la := strings.ToLower(a)
	for _, w := range wordRe.FindAllString(strings.ToLower(b), -1) {
		if len(w) < 4 {
			continue
		}
		switch strings.TrimSuffix(w, "s") {
		case "issue", "error", "problem", "failure", "warning", "these", "those", "them", "that", "this", "with", "from", "complaint":
			continue
		}
		if strings.Contains(la, strings.TrimSuffix(w, "s")) {
			return true
		}
	}
	return false
}
