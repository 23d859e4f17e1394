package tui

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/memories"
)

// Issue 26 item 6: a memory the built-in extractor proposed from a
// compaction summary opens (from search, or enter in Memories) with the
// summary expanded at the sentence it came from, not on the collapsed
// "▸ compaction summary" line.
func TestMemoryOpensAtItsSentence(t *testing.T) {
	st := testStore(t)
	svc := testService(t, st)
	ctx := context.Background()
	if _, err := svc.Curator.Extract(ctx, memories.ExtractOptions{}); err != nil {
		t.Fatal(err)
	}
	l, err := svc.List(ctx, memories.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, 100, 30, st, svc)
	tried := 0
	for _, mm := range l {
		if mm.SourceSession == "" || len(mm.SourceUUIDs) == 0 {
			continue
		}
		conv, err := st.Conversation(ctx, mm.SourceSession)
		if err != nil {
			t.Fatal(err)
		}
		fromSummary := false
		for _, e := range conv.Entries {
			if e.UUID == mm.SourceUUIDs[0] && e.IsCompactSummary {
				fromSummary = true
			}
		}
		if !fromSummary {
			continue
		}
		tried++
		send(t, m, openSessionMsg{id: mm.SourceSession, uuid: mm.SourceUUIDs[0], sentence: mm.Content})
		sc := screen(m)
		it := m.reader.items[m.reader.cur]
		if it.kind != kSummary || !m.reader.expanded[it.key] {
			t.Fatalf("%s: the reader is on a %v item (expanded %v), want the compaction summary expanded:\n%s", mm.ID, it.kind, m.reader.expanded[it.key], sc)
		}
		// The screen shows most of the memory's words; a linter's limit
		// is said the extractor's way ("Credo limit: cyclomatic
		// complexity at most 9"), so the check it names is what shows.
		words := sentenceWords(mm.Content)
		if lim := lintLimitRe.FindStringSubmatch(mm.Content); lim != nil {
			words = sentenceWords(lim[1])
		}
		shown := 0
		for _, w := range words {
			if strings.Contains(strings.ToLower(sc), w) {
				shown++
			}
		}
		if shown*3 < len(words)*2 {
			t.Fatalf("%s: %d of %d words of %q on screen:\n%s", mm.ID, shown, len(words), mm.Content, sc)
		}
		if tried == 5 {
			break
		}
	}
	if tried == 0 {
		t.Fatal("the sample proposes no memory from a compaction summary")
	}
	t.Logf("%d memories from compaction summaries opened at their sentence", tried)
}

// lintLimitRe is a memory the extractor says as a linter's limit.
var lintLimitRe = regexp.MustCompile(`^\S+ limit: (.+) at most \d+$`)
