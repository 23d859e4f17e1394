package memories

import (
	"regexp"
	"strings"

	"github.com/cairn-dev/cairn/index"
)

// A problem the person keeps having, and the change that fixed it. "I
// keep getting mysterious build errors when MDX files have URLs wrapped
// in angle brackets…" says the problem recurs: it will come back in the
// next project or the next clone, so its fix is worth keeping. The fix
// is what Claude's last text of that turn reports doing ("I've created a
// `.markdownlintrc.json` file that disables the MD034 rule"); a turn that
// reports no change proposes nothing. The change counts as the fix only
// when something after it says so: the person's next prompt does not say
// the problem is still there, or a command ran without error after it.
// Otherwise (the session ends on Claude's report) the memory is the
// problem as the person said it, without a fix nobody saw work.

// recurringProblem is the person saying a problem recurs.
var recurringProblem = lazyRE(`(?i)\bI (keep|kept) (getting|seeing|hitting|running into)\b|\b(keeps|kept) (failing|breaking|crashing|timing out)\b`)

// askTail is the question that follows the problem ("– how can I disable
// that?"): the fix answers it.
var askTail = regexp.MustCompile(`(?i)\s*[-–—,;:]?\s*(so )?(how|what|why|is there|can|could)\b[^?]*\?\s*$`)

// doneReport is a sentence of Claude's that says what it changed: "I've
// created a … file that disables…".
var doneReport = regexp.MustCompile(`(?i)^(?:i'?ve|i have) ((?:created|added|updated|changed|set|disabled|enabled|fixed|configured|moved|replaced|removed)\b.{10,240})$`)

// mdLink is a Markdown link: said by its text, as code (Claude links the
// files it names).
var mdLink = regexp.MustCompile("\\[([^\\]`]{1,80})\\]\\([^)\\s]{1,200}\\)")

// recurring tracks a recurring problem the person reported until the
// turn ends.
type recurring struct {
	problem string
	uuids   []string
	fix     string
	ran     bool // a command ran without error after the fix
}

// prompt starts tracking when the person's prompt reports a recurring
// problem that names something.
func (r *recurring) prompt(e index.MemEntry) {
	*r = recurring{}
	words := personWords(e.Text)
	if len(words) > 1200 {
		return
	}
	for _, s := range sentences(stripMarkdown(oneLine(words))) {
		if !recurringProblem.MatchString(s) || !named(s) {
			continue
		}
		p := strings.TrimSpace(askTail.ReplaceAllString(s, ""))
		p = strings.TrimSpace(recurringProblem.ReplaceAllString(p, ""))
		if len(strings.Fields(p)) >= 5 {
			r.problem, r.uuids = p, []string{e.UUID}
		}
		return
	}
}

// claude reads Claude's text of the turn: its last report of a change is
// the fix.
func (r *recurring) claude(e index.MemEntry) {
	if r.problem == "" {
		return
	}
	text := mdLink.ReplaceAllString(oneLine(e.Text), "`$1`")
	for _, s := range sentences(stripMarkdown(text)) {
		if m := doneReport.FindStringSubmatch(strings.TrimSpace(s)); m != nil && specific(m[1]) {
			r.fix = strings.ToUpper(m[1][:1]) + strings.TrimRight(m[1][1:], ".")
			r.uuids = append(r.uuids[:1], e.UUID)
			r.ran = false
			return
		}
	}
}

// passed notes a command that ran without error.
func (r *recurring) passed() {
	r.ran = r.fix != ""
}

// done proposes the problem with its fix when the turn reported a change
// and verified says it worked; the problem alone when it did not.
func (r *recurring) done(add func(candidate), verified bool) {
	if r.problem != "" && r.fix != "" {
		p := strings.ToUpper(r.problem[:1]) + r.problem[1:]
		if verified {
			add(candidate{typ: Bugfix, content: p + ": " + r.fix, importance: 3, uuids: r.uuids, rule: "user:recurring-problem"})
		} else {
			add(candidate{typ: Gotcha, content: p, importance: 2, uuids: r.uuids[:1], rule: "user:recurring-problem"})
		}
	}
	*r = recurring{}
}
