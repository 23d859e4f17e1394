package memories

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
)

// Issue 23 item 6, on every session of both real corpora: a built-in
// summary's Request is what the person asked (never the IDE's note about
// an open file or a selection), no line ends in a colon whose list was
// lost, and Completed never reports an intention ("Let me check…") as done.
func TestSummariesOfTheCorporaAreHonest(t *testing.T) {
	if withoutRace.RanAlone(t) {
		return
	}
	if testing.Short() {
		t.Skip("indexes both corpora")
	}
	ctx := context.Background()
	intention := regexp.MustCompile(`(?i)^(now )?(let me|let's|i'll|i will|i'm going to|i need to|next,? i)\b`)
	for _, corpus := range []string{"claude", "claude-code-log"} {
		dir := untarCorpus(t, filepath.Join(keeprateDir, corpus+".tar.gz"))
		s := newService(t)
		if _, err := s.st.Update(ctx, dir, index.UpdateOptions{Sync: index.SyncOptions{Workers: 1}, DeferFTS: true}); err != nil {
			t.Fatal(err)
		}
		sessions, err := s.st.Sessions(ctx, index.SessionFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var built, lines int
		for _, ss := range sessions {
			sm, err := s.buildSummary(ctx, ss.ID)
			if err != nil {
				t.Fatalf("%s %s: %v", corpus, ss.ID, err)
			}
			built++
			for name, ls := range sm.Sections {
				for _, l := range ls {
					lines++
					switch {
					case name == "Request" && (strings.Contains(l, "may or may not be related") ||
						strings.HasPrefix(l, "The user opened the file ") || strings.HasPrefix(l, "The user selected the lines ") ||
						strings.Contains(l, "<ide_")):
						t.Errorf("%s %s: Request is the IDE's note: %q", corpus, ss.ID, l)
					case name != "Investigated" && name != "Files read" && name != "Files edited" && strings.HasSuffix(strings.TrimSpace(l), ":"):
						// (Investigated lists tool calls: "Grep port|http:" is a pattern.)
						t.Errorf("%s %s: %s line ends in a colon (its list lost): %q", corpus, ss.ID, name, l)
					case name == "Completed" && intention.MatchString(strings.TrimSpace(l)):
						t.Errorf("%s %s: Completed reports an intention: %q", corpus, ss.ID, l)
					}
				}
			}
		}
		if built < 10 {
			t.Fatalf("%s: %d summaries built", corpus, built)
		}
		t.Logf("%s: %d sessions, %d summary lines checked", corpus, built, lines)
	}
}
