package memories

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
)

// TestCommittedFromResult: a commit counts when git's output shows it was
// made; a rejected call or a failed commit (a hook, nothing to commit) is
// not work done.
func TestCommittedFromResult(t *testing.T) {
	call := func(id, cmd string) index.MemEntry {
		return index.MemEntry{Role: "assistant", Block: "tool_use", ToolName: "Bash", ToolUse: id, Input: []byte(`{"command":` + jsonString(cmd) + `}`)}
	}
	res := func(id, out string, isErr bool) index.MemEntry {
		return index.MemEntry{Role: "tool", Block: "tool_result", ToolUse: id, Text: out, IsError: isErr}
	}
	sec := summarySections{}
	sec.addCommits([]index.MemEntry{
		call("1", "git add . && git commit -m \"feat: tar archives\""), res("1", "[master 70f2781] feat: tar archives\n 3 files changed", false),
		call("2", "git commit -m \"fix: rejected one\""), res("2", "The user doesn't want to proceed with this tool use. The tool use was rejected", true),
		call("3", "git commit -m \"wip: blocked by hook\""), res("3", "Exit code 1\nmix format check failed", true),
		call("4", "git commit -m \"nothing\""), res("4", "On branch main\nnothing to commit, working tree clean", false),
		call("5", "git commit -F- <<'EOF'\nfeat: root\nEOF"), res("5", "[main (root-commit) 1a2b3c4] feat: root", false),
	})
	got := strings.Join(sec["Completed"], "\n")
	want := "Committed: feat: tar archives\nCommitted: feat: root"
	if got != want {
		t.Fatalf("Completed:\n%s\nwant:\n%s", got, want)
	}
}

// TestReported: Completed says what was done, never an intention, never
// a sentence whose list is lost.
func TestReported(t *testing.T) {
	for in, want := range map[string]string{
		"Let me check the tests first. All 66 tests pass with 100% branch coverage.":                                            "All 66 tests pass with 100% branch coverage.",
		"Here's what I changed:\n\n1. **Switched to Hatchling**\n2. Fixed the module reference\n3. Added file mapping\n4. More": "Here's what I changed: Switched to Hatchling; Fixed the module reference; Added file mapping",
		"The summary:\n\nno list here, just prose.":                                                                             "no list here, just prose.",
		"I'll update the README next.":                                                                                          "",
	} {
		if got := reported(in, 2); got != want {
			t.Errorf("reported(%q) = %q, want %q", in, got, want)
		}
	}
}
