package memories

import (
	"regexp"
	"strings"

	"github.com/cairn-dev/cairn/index"
)

// The person's constraints on how something stays: "while keeping it
// simple and dependency free (except for transformers.js)", "I'd like to
// keep it the same 3 simple files". A request around them ("do a code
// review and propose a plan") is that day's task; the constraint outlives
// it. Every such clause of a prompt is said together, with the files the
// prompt names (@path), so the proposal says what it holds for.

// keepClause is one "keep(ing) it …" clause, up to the end of its clause
// ("transformers.js" keeps its dot).
var keepClause = regexp.MustCompile(`(?i)\b(?:keep|keeping) (?:it|them|things|everything) ((?:[^,;?!.]|\.\S){3,120})`)

// atPath is a file the prompt names with "@".
var atPath = regexp.MustCompile(`(?:^|\s)@([\w./-]+\.\w+)`)

// constraintCandidate proposes the keep-clauses of a typed prompt, when
// together they name something.
func constraintCandidate(e index.MemEntry, add func(candidate)) {
	words := personWords(e.Text)
	if len(words) > 1200 {
		words = words[:1200]
	}
	var clauses []string
	for _, m := range keepClause.FindAllStringSubmatch(oneLine(words), -1) {
		c := strings.TrimSpace(m[1])
		if i := strings.Index(strings.ToLower(c), " but "); i > 0 {
			c = c[:i] // "…the same 3 simple files, but add…": the rest is the task
		}
		clauses = append(clauses, "keep it "+c)
	}
	if len(clauses) == 0 {
		return
	}
	content := strings.Join(clauses, "; ")
	if !named(content) || len(strings.Fields(content)) < 5 {
		return
	}
	var files []string
	for _, m := range atPath.FindAllStringSubmatch(words, 4) {
		files = append(files, "`"+m[1]+"`")
	}
	content = strings.ToUpper(content[:1]) + content[1:]
	if len(files) > 0 {
		content = strings.Join(files, ", ") + ": " + content
	}
	add(candidate{typ: Preference, content: content, importance: 3, uuids: []string{e.UUID}, rule: "user:constraint"})
}

// defaultChange is the person setting a default: "change the default
// command behaviour (without pr_input) to look up the PR for the current
// branch". A default is how things go from then on, whatever the request
// around it.
var defaultChange = regexp.MustCompile(`(?i)\b(?:change|make|set|switch) the default ((?:[^?!.]|\.\S){3,80}?) to ((?:[^?!.]|\.\S){3,120})`)

// defaultCandidate proposes the defaults a typed prompt sets: "Default
// command behaviour (without pr_input): look up the PR for the current
// branch".
func defaultCandidate(e index.MemEntry, add func(candidate)) {
	words := personWords(e.Text)
	if len(words) > 1200 {
		words = words[:1200]
	}
	for _, m := range defaultChange.FindAllStringSubmatch(oneLine(words), 2) {
		content := "Default " + strings.TrimSpace(m[1]) + ": " + strings.TrimSpace(m[2])
		if named(content) {
			add(candidate{typ: Decision, content: content, importance: 3, uuids: []string{e.UUID}, rule: "user:default"})
		}
	}
}
