package memories

import (
	"regexp"
	"strings"

	"github.com/cairn-dev/cairn/index"
)

// Claude Code's compaction summary is written in numbered sections
// ("4. Errors and fixes:", "5. Problem Solving:"…). Its "Errors and
// fixes" list is what went wrong and what fixed it, one item each, already
// said once; "Problem Solving" holds the approaches the session settled
// on. Each item of the first is a proposal unless it is an edit's own
// passing trouble; an item of the second only when it states a rule or a
// convention (most describe one-off work).

// compactSection is a numbered section heading of a compaction summary.
var compactSection = regexp.MustCompile(`^\s*(?:#+\s*)?(?:\*\*)?\d+\.\s+(?:\*\*)?([A-Za-z][A-Za-z '&/-]{2,40}?)(?:\*\*)?:?(?:\*\*)?\s*$`)

// errorsSection and solvingSection name the sections read.
var (
	errorsSection  = regexp.MustCompile(`(?i)^errors?( encountered)? (and|&) (fixes|solutions)`)
	solvingSection = regexp.MustCompile(`(?i)^problem solving`)
)

// passingTrouble is an error an edit in progress causes and the next edit
// removes (a rename not yet carried through, an unused import), or a
// missing piece added once (a dependency, a setting): the repository has
// it now, nothing to remember.
var passingTrouble = lazyRE(`(?i)\bexpected during\b|\bunused imports?\b|\bundefined\b.{0,120}\brenam(e|ed|ing)\b|\brenam(e|ed|ing)\b.{0,120}\bundefined\b|\bmissing\b[^:]{0,80}:\s*added\b|\bunused (variable|function|parameter|argument)s?\b|\btypo\b|\bundefined (function|variable|module)\b|\bcompile errors? (for|from) (missing|intermediate)\b|\bintermediate (edit|state)s?\b|\bforgot to\b|\bsyntax error\b|\bmissing (closing|bracket|paren|comma)\b|\b(require|import|alias)\s+\S[^;:]{0,80}?\bneeded\b|\bbefore (defining|declaring|adding|creating) (the|its|a|an)\b`)

// rerunFixRe is a fix that ran a command: "Fixed by running `mix format`".
var rerunFixRe = lazyRE("(?i)\\b(fixed|resolved) by (re-?)?running `([^`]+)`")

// rerunFix reports whether an item's fix only ran the command its problem
// already names ("blocked by `mix format` check. Fixed by running `mix
// format`"): the check says what to run, every time.
func rerunFix(content string) bool {
	m := rerunFixRe.get().FindStringSubmatchIndex(content)
	if m == nil {
		return false
	}
	return strings.Contains(content[:m[0]], "`"+content[m[6]:m[7]]+"`")
}

// settledRule marks a Problem Solving item that states how things are
// done from now on, not what was built ("used X instead of a regex" is a
// choice of one task).
var settledRule = lazyRE(`(?i)\b(established|convention|always|never|must|should|project uses|the pattern|requires?|only works|doesn'?t|does not|cannot|can'?t|won'?t|not supported|unsupported)\b`)

// compactCandidates proposes the items of a compaction summary's
// "Errors and fixes" section, and the rule-stating items of its "Problem
// Solving" section.
func compactCandidates(e index.MemEntry, add func(candidate)) {
	for _, it := range compactItems(e.Text) {
		content := strings.TrimSpace(leadIn.ReplaceAllString(stripMarkdown(it.text), ""))
		if notLesson(content) {
			continue
		}
		linter, content := itemLinter(content, e.Text)
		switch {
		case it.errors && linter != "":
			// A linter's complaint, fixed in passing, teaches its limit:
			// said the same way every time, so sessions agree on it.
			if limit, ok := lintLimit(content, linter); ok {
				add(candidate{typ: Pattern, content: limit, importance: 3, uuids: []string{e.UUID},
					rule: "compact:lint-limit", tags: []string{strings.ToLower(linter)}})
			}
		case it.errors:
			add(candidate{typ: Bugfix, content: content, importance: 3, uuids: []string{e.UUID}, rule: "compact:errors-and-fixes"})
		case settledRule.MatchString(content):
			add(candidate{typ: Pattern, content: content, importance: 3, uuids: []string{e.UUID}, rule: "compact:problem-solving"})
		}
	}
}

// notLesson reports whether an item teaches nothing to keep: too short or
// too general, an edit's passing trouble, hedged, not resolved when the
// summary was written, or a fix that only reran the check's own command.
func notLesson(content string) bool {
	return len(strings.Fields(content)) < 5 || !specific(content) || passingTrouble.MatchString(content) ||
		hedge.MatchString(content) || unsettled.MatchString(content) || rerunFix(content)
}

// itemLinter is the linter whose complaint an item is ("" when none), and
// the item as read: an item that opens on a linter's name is its
// complaint; "Cyclomatic complexity (13 > 9) in `f/2`: …" in a summary
// that names one linter is that linter's complaint, and gets its name in
// front.
func itemLinter(content, summary string) (linter, item string) {
	if m := lintHead.FindStringSubmatch(content); m != nil {
		return m[1], content
	}
	if l := summaryLinter(summary); l != "" && bareLimit.MatchString(content) {
		return l, l + " " + content
	}
	return "", content
}

// unsettled marks an item not resolved when the summary was written.
var unsettled = lazyRE(`(?i)^(current|unsolved|unresolved|blocking|blocked|pending|todo|open)\b`)

// lintHead is an item about a style linter's complaint; group 1 names it.
var lintHead = lazyRE(`(?i)^(?:[a-z ]{0,20}\b)?(` + linters + `|prettier|black)\b[^:]{0,120}?(:|→|->|—)`)

// linters are the style linters named in compaction summaries (with
// prettier and black, which lintHead also knows at an item's head but
// which are everyday words anywhere else).
const linters = `credo|eslint|ruff|pylint|flake8|rubocop|clippy|golangci-lint|staticcheck|markdownlint|biome|stylelint|ktlint|swiftlint`

// bareLimit is an item that opens on a check's name and its limit, with
// no linter named: "Cyclomatic complexity (13 > 9) in `tool_call/2`: …".
var bareLimit = lazyRE(`^[A-Za-z][A-Za-z -]{3,40}\(\s*\d+\s*>\s*(max\s*)?\d+\s*\)[^:]{0,80}:`)

// linterName finds the linters anywhere in a text.
var linterName = lazyRE(`(?i)\b(` + linters + `)\b`)

// summaryLinter is the one linter a compaction summary names (as first
// written), or "" when it names none or several.
func summaryLinter(text string) string {
	name := ""
	for _, m := range linterName.FindAllStringSubmatch(text, -1) {
		switch {
		case name == "":
			name = m[1]
		case !strings.EqualFold(name, m[1]):
			return ""
		}
	}
	return name
}

// limitNum is the limit in a linter's complaint: "(4 > max 2)", "max 2",
// "(10 > 9)".
var limitNum = regexp.MustCompile(`(?i)\bmax(?:imum)?\s*(?:is\s*|of\s*)?(\d+)|>\s*(\d+)\)`)

// lintLimit is a linter complaint's limit, said one way: "Credo limit:
// nesting depth at most 2". None when the item states no limit.
func lintLimit(content, linter string) (string, bool) {
	head := content
	if i := strings.IndexAny(head, ":→—"); i > 0 {
		head = head[:i]
	}
	m := limitNum.FindStringSubmatch(head)
	if m == nil {
		return "", false
	}
	n := m[1] + m[2]
	check := head[len(linter):]
	if i := strings.IndexAny(check, "(0123456789"); i >= 0 {
		check = check[:i]
	}
	if i := strings.Index(check, " in "); i >= 0 {
		check = check[:i]
	}
	check = strings.ToLower(strings.Trim(strings.TrimSpace(check), ":-–`"))
	for _, w := range []string{" warnings", " warning", " errors", " error"} {
		check = strings.TrimSuffix(check, w)
	}
	if len(check) < 4 {
		return "", false
	}
	return linter + " limit: " + check + " at most " + n, true
}

// compactItem is one top-level list item of a section read, with its
// indented lines joined to it.
type compactItem struct {
	text   string
	errors bool // from "Errors and fixes" (else "Problem Solving")
}

// compactItems splits the sections read into their top-level items.
func compactItems(text string) []compactItem {
	var out []compactItem
	for _, sec := range readSections(text) {
		out = append(out, sectionItems(sec)...)
	}
	return out
}

// readSection is one section read: its lines outside code fences, blank
// ones left out.
type readSection struct {
	lines  []string
	errors bool // "Errors and fixes" (else "Problem Solving")
}

// readSections are a summary's "Errors and fixes" and "Problem Solving"
// sections, in order; a heading inside a code fence is no heading.
func readSections(text string) []readSection {
	var out []readSection
	in, inFence := false, false
	for _, raw := range strings.Split(text, "\n") {
		t := strings.TrimSpace(raw)
		if strings.HasPrefix(t, "```") {
			inFence = !inFence
			continue
		}
		if inFence || t == "" {
			continue
		}
		if m := compactSection.FindStringSubmatch(raw); m != nil {
			title := strings.TrimSpace(m[1])
			errs := errorsSection.MatchString(title)
			if in = errs || solvingSection.MatchString(title); in {
				out = append(out, readSection{errors: errs})
			}
			continue
		}
		if in {
			out[len(out)-1].lines = append(out[len(out)-1].lines, raw)
		}
	}
	return out
}

// sectionItems splits a section into its top-level items: an item is a
// list line at the section's shallowest list indent; deeper lines
// (sub-items, wrapped text) belong to the item above.
func sectionItems(sec readSection) []compactItem {
	var items []compactItem
	top := -1
	for _, raw := range sec.lines {
		t := strings.TrimSpace(raw)
		indent := len(raw) - len(strings.TrimLeft(raw, " \t"))
		if isListLine(t) && (top < 0 || indent <= top) {
			top = indent
			items = append(items, compactItem{text: t, errors: sec.errors})
			continue
		}
		if len(items) > 0 {
			items[len(items)-1].join(t)
		}
	}
	return items
}

// join adds a deeper line to an item, a sub-item joined with "; " so
// that "**Error**:" followed by "- Fix: …" reads as one; an item stops
// growing at 600 bytes.
func (it *compactItem) join(t string) {
	sep := " "
	if isListLine(t) {
		t = listItem(t)
		if !strings.HasSuffix(strings.TrimRight(it.text, "*"), ":") {
			sep = "; "
		}
	}
	if len(it.text) < 600 {
		it.text += sep + t
	}
}
