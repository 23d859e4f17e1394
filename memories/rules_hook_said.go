package memories

import (
	"regexp"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/index"
)

// What the project's hooks tell Claude. A hook's output that Claude Code
// puts into the conversation — a SessionStart, UserPromptSubmit or
// PreCompact hook's additionalContext or stdout, a PostToolUse hook's
// blocking error — is the project's own instruction, written by whoever
// set the hook up. A sentence of it that states a convention (the shapes
// user:convention accepts: conventionHolds) is proposed as what holds,
// saying which hook said it (rule hook:convention). The rest of what
// hooks say (a linter's findings, a status line, a compiler's output) is
// about the moment, and conventionHolds leaves it.
//
// Claude Code 2.x records it as a hook attachment (a hook row of the
// store: index.MemEntry.Hook, Said); 2.1.3x wrote some of it as an
// injected user line instead ("<system-reminder>PostToolUse:Edit hook
// additional context: …"), read too.

// hookReminder is an injected line of what a hook said: the hook's name,
// then its words.
var hookReminder = regexp.MustCompile(`(?s)^\s*(?:<system-reminder>\s*)?([A-Z][A-Za-z]+)(?::\S+)? hook (?:additional context|success|blocking error from command: "[^"\n]*"|feedback)\s*:\s*(.*?)\s*(?:</system-reminder>\s*)?$`)

// memoryRef is a line that cites a stored memory ("… (m-3f2a9c)"): a
// memory tool's hook (cairn's own) handing back what was remembered,
// never proposed again.
var memoryRef = regexp.MustCompile(`\(m-[0-9a-z]{4,}\)`)

// maxHookSaid is how much of one hook's words is read: a long
// injection is a document (a project's whole workflow), of which the
// first part is read.
const maxHookSaid = 6000

// hookSaidCandidates proposes the conventions the project's hooks stated
// to Claude in the session, each once.
func hookSaidCandidates(entries []index.MemEntry) []candidate {
	var out []candidate
	seen := map[string]bool{}
	for _, e := range entries {
		event, said, ok := hookSaid(e)
		if !ok {
			continue
		}
		if len(said) > maxHookSaid {
			said = said[:maxHookSaid]
		}
		proseLines(said, nil, func(line string) {
			if memoryRef.MatchString(line) {
				return
			}
			for _, s := range sentences(stripMarkdown(line)) {
				c, ok := conventionHolds(s)
				if !ok || seen[strings.ToLower(c)] {
					continue
				}
				seen[strings.ToLower(c)] = true
				out = append(out, candidate{typ: Preference, importance: 3, uuids: []string{e.UUID}, rule: "hook:convention",
					content: strings.TrimRight(c, ".") + " (the project's " + event + " hook tells Claude)"})
			}
		})
	}
	return out
}

// hookSaid is what a hook told Claude in entry e, and the hook's event.
func hookSaid(e index.MemEntry) (event, said string, ok bool) {
	if h := e.Hook; h != nil {
		if h.Said == "" || strings.Contains(h.Command, "cairn") {
			return "", "", false
		}
		return h.Event, h.Said, true
	}
	if !e.Meta || e.Sidechain || !strings.Contains(e.Text, " hook ") {
		return "", "", false
	}
	m := hookReminder.FindStringSubmatch(e.Text)
	if m == nil || !slices.Contains(hookEvents, m[1]) {
		return "", "", false
	}
	// A blocking error's message is written with its newlines escaped.
	return m[1], strings.ReplaceAll(m[2], `\n`, "\n"), true
}
