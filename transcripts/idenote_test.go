package transcripts

import "testing"

func TestWithoutIDENotes(t *testing.T) {
	for in, want := range map[string]string{
		"The user opened the file /Users/dain/workspace/JSSoundRecorder/index.html in the IDE. This may or may not be related to the current task.\nOK, so this was just so you know":                     "OK, so this was just so you know",
		"The user selected the lines 98 to 98 from /Users/dain/workspace/JSSoundRecorder/CLAUDE.md:\nAudioWor\n\nThis may or may not be related to the current task.\nLet's also Migrate to AudioWorklet": "Let's also Migrate to AudioWorklet",
		"The user opened the file Untitled-1 in the IDE. This may or may not be related to the current task.":                                                                                             "",
		"plain prompt, nothing to strip": "plain prompt, nothing to strip",
	} {
		if got := WithoutIDENotes(in); got != want {
			t.Errorf("WithoutIDENotes(%q) = %q, want %q", in, got, want)
		}
	}
}
