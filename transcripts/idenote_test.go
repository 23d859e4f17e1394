package transcripts

import (
	"strings"
	"testing"
)

func TestWithoutIDENotes(t *testing.T) {
	for in, want := range map[string]string{
		"The user opened the file /Users/dain/workspace/JSSoundRecorder/index.html in the IDE. This may or may not be related to the current task.\nOK, so this was just so you know":                     "OK, so this was just so you know",
		"The user selected the lines 98 to 98 from /Users/dain/workspace/JSSoundRecorder/CLAUDE.md:\nAudioWor\n\nThis may or may not be related to the current task.\nLet's also Migrate to AudioWorklet": "Let's also Migrate to AudioWorklet",
		"The user opened the file Untitled-1 in the IDE. This may or may not be related to the current task.":                                                                                             "",
		"plain prompt, nothing to strip": "plain prompt, nothing to strip",
		// A long selection as the index keeps it: one line cut with "…".
		SearchableText("<ide_selection>The user selected the lines 1 to 400 from /src/app.go:\n" + strings.Repeat("func f() {}\n", 60) + "This may or may not be related to the current task.</ide_selection>\nwhy does f panic?"): "why does f panic?",
		"The user selected the lines 1 to 9 from /a.go: x := 1…": "",
		// A line of the person's own that ends in "…" stays.
		"The user selected the lines below, then…\nok": "The user selected the lines below, then…\nok",
		"I wonder…": "I wonder…",
	} {
		if got := WithoutIDENotes(in); got != want {
			t.Errorf("WithoutIDENotes(%q) = %q, want %q", in, got, want)
		}
	}
}
