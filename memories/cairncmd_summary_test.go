package memories

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
)

// The reply to one of cairn's own commands ("The summary draft awaits your
// review") is not what the session completed: the last reply to the
// person's own prompt is.
func TestLastReplySkipsCairnCommands(t *testing.T) {
	sec := summarySections{}
	sec.addLastReply([]index.MemEntry{
		{Role: "user", Block: "text", Text: "fix the parser"},
		{Role: "assistant", Block: "text", Text: "Fixed the parser: the cursor is reset before each retry now."},
		{Role: "system", Block: "text", Text: "<command-message>summarize</command-message>\n<command-name>/summarize</command-name>"},
		{Role: "system", Block: "text", Meta: true, Text: "# cairn /summarize\n\nWrite a structured summary of this session so far."},
		{Role: "assistant", Block: "text", Text: "The summary draft awaits your review in cairn (run cairn drafts list)."},
	})
	got := strings.Join(sec["Completed"], "\n")
	if !strings.Contains(got, "cursor is reset") || strings.Contains(got, "awaits") {
		t.Fatalf("Completed: %q", got)
	}
	only := summarySections{}
	only.addLastReply([]index.MemEntry{
		{Role: "system", Block: "text", Text: "<command-name>/recall</command-name><command-args>x</command-args>"},
		{Role: "assistant", Block: "text", Text: "Nothing relevant was found in cairn's memory for that query."},
	})
	if len(only["Completed"]) != 0 {
		t.Fatalf("a session of /recall alone completed %q", only["Completed"])
	}
}
