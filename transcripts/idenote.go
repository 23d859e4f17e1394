package transcripts

import (
	"regexp"
	"strings"
)

// ideNoteRe is the note the IDE extension writes about the file a person
// has open or the lines selected, once its tags are gone (SearchableText):
// "The user opened the file X in the IDE. This may or may not be related
// to the current task." and "The user selected the lines 3 to 9 from X:
// <the lines> This may or may not be related to the current task."
var ideNoteRe = regexp.MustCompile(`(?s)The user (?:opened the file \S.*? in the IDE\.|selected the lines \d+ to \d+ from \S+?:.*?)\s*This may or may not be related to the current task\.?`)

// WithoutIDENotes is prompt text without the IDE's notes about open
// files and selections: context Claude Code adds, not what the person
// asked.
//
// A note longer than SearchableText keeps (a long selection) was cut to one
// line ending in "…" before its closing sentence; such a line is a note
// too.
func WithoutIDENotes(text string) string {
	if !strings.Contains(text, "may or may not be related") && !strings.Contains(text, "…") {
		return text
	}
	text = ideNoteRe.ReplaceAllString(text, "")
	return strings.TrimSpace(cutIDENoteRe.ReplaceAllString(text, ""))
}

// cutIDENoteRe is a line of an IDE note that SearchableText cut short
// (OneLine: it ends in "…").
var cutIDENoteRe = regexp.MustCompile(`(?m)^The user (?:opened the file \S|selected the lines \d+ to \d+ from \S)[^\n]*…[ \t]*(?:\n|$)`)
