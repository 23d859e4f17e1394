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
func WithoutIDENotes(text string) string {
	if !strings.Contains(text, "may or may not be related") {
		return text
	}
	return strings.TrimSpace(ideNoteRe.ReplaceAllString(text, ""))
}
