package memories

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
)

// Words that ask for something found are answered by Claude's proposal,
// not agreed to: the template says so; words that state something keep
// "agreed".
func TestAgreedOnlyWhenThePersonStated(t *testing.T) {
	claude := "You're absolutely right! The docs show a much cleaner approach. Let me use `uv tool upgrade --reinstall` which will force a rebuild from the current source:"
	for said, want := range map[string]string{
		"We need to find a cleaner way to reinstall without manually going hunting for cached files. Does this doc page help?": " (proposed when the user asked: “We need to find a cleaner way to reinstall without manually going hunting for cached files.”)",
		"Can you find a way to reinstall without the cache?":                                                                   " (proposed when the user asked: “Can you find a way to reinstall without the cache?”)",
		"I think the cached wheel is stale, it never rebuilds.":                                                                " (agreed when the user said: “I think the cached wheel is stale, it never rebuilds.”)",
		"We need to use the upgrade command, not install.":                                                                     " (agreed when the user said: “We need to use the upgrade command, not install.”)",
	} {
		var got []candidate
		ackCandidate(index.MemEntry{Text: claude}, index.MemEntry{UUID: "p", Role: "user", Text: said}, func(c candidate) { got = append(got, c) })
		if len(got) != 1 || !strings.HasSuffix(got[0].content, want) {
			t.Errorf("%q: %+v, want suffix %q", said, got, want)
		}
	}
}
