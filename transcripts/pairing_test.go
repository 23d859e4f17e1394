package transcripts

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// TestToolResultsPairTheFirstCopy: real lines whose first Bash result and
// a subagent's Read result are written a second time, with other text
// (testdata/dupresults). Each call is paired with the first result
// written for it; the copies are duplicates, shown nowhere; no result of
// the session is an orphan.
func TestToolResultsPairTheFirstCopy(t *testing.T) {
	dir := filepath.Join(testutil.RepoRoot(), "testdata", "dupresults", "projects", "-home-marco-projects-spotter-worktrees-spotter-a0y")
	thread := func(t *testing.T, path string) []Entry { es, _, _ := readAll(t, path, Cursor{}); return es }
	c := &Conversation{
		Entries: thread(t, filepath.Join(dir, "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl")),
		Agents:  map[string][]Entry{"a93ccab": thread(t, filepath.Join(dir, "fa812bfe-b295-4cca-9c2f-fdf01028cb46", "subagents", "agent-a93ccab.jsonl"))},
	}
	p := c.PairToolResults()
	calls, dups := 0, 0
	for _, es := range c.threads() {
		for i := range es {
			for bi := range es[i].Blocks {
				b := &es[i].Blocks[bi]
				switch b.Type {
				case BlockToolUse:
					calls++
					res := p.Of(b)
					if res == nil {
						t.Errorf("call %s (%s) has no result", b.ToolID, b.ToolName)
					} else if strings.Contains(res.Text, "DUPLICATE COPY") {
						t.Errorf("call %s is paired with the copy of its result", b.ToolID)
					}
				case BlockToolResult:
					if p.Orphan(b) {
						t.Errorf("result of %s is an orphan", b.ToolUseID)
					}
					if got, want := p.Duplicate(b), strings.Contains(b.Text, "DUPLICATE COPY"); got != want {
						t.Errorf("result %q of %s: Duplicate %v, want %v", OneLine(b.Text, 40), b.ToolUseID, got, want)
					}
					if p.Duplicate(b) {
						dups++
					}
				}
			}
		}
	}
	if calls != 4 || dups != 2 {
		t.Errorf("%d calls and %d duplicates, want 4 and 2", calls, dups)
	}
	// A result whose call is not in the conversation is an orphan, its
	// copy is not.
	c.Entries = c.Entries[4:] // from the first result on: both Bash calls are gone
	p = c.PairToolResults()
	orphans := 0
	for i := range c.Entries {
		for bi := range c.Entries[i].Blocks {
			if b := &c.Entries[i].Blocks[bi]; b.Type == BlockToolResult && p.Orphan(b) {
				orphans++
				if strings.Contains(b.Text, "DUPLICATE COPY") {
					t.Error("the copy of an orphan result is an orphan too")
				}
			}
		}
	}
	if orphans != 2 {
		t.Errorf("%d orphan results, want 2 (the Bash results, not the copy)", orphans)
	}
}
