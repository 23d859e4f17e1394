package index

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// sessionFixture is a conversation of sessions of one-line turns, written
// as the LoCoMo harness writes one and indexed for text search, with
// filler sessions so the fixture's words are rare. Each session opens
// with a greeting: a session's title (its first prompt) is searched with
// each of its entries.
func sessionFixture(t *testing.T, sessions ...[]string) *Searcher {
	t.Helper()
	conv := map[string]any{}
	filler := []string{"we walked the dog in the park and had coffee", "the weather was cold so we stayed in and read",
		"my sister called about the weekend plans", "work was busy, lots of meetings today", "dinner was pasta with friends"}
	for i := range 5 {
		sessions = append(sessions, []string{filler[i], filler[(i+1)%5], filler[(i+2)%5]})
	}
	for i, turns := range sessions {
		list := []any{map[string]any{"speaker": "Bob", "text": "hello, how are you", "dia_id": fmt.Sprintf("D%d:0", i+1)}}
		for j, text := range turns {
			list = append(list, map[string]any{"speaker": []string{"Ann", "Bob"}[j%2], "text": text, "dia_id": fmt.Sprintf("D%d:%d", i+1, j+1)})
		}
		conv[fmt.Sprintf("session_%d", i+1)] = list
		conv[fmt.Sprintf("session_%d_date_time", i+1)] = fmt.Sprintf("1:56 pm on %d May, 2023", i+1)
	}
	claude := filepath.Join(t.TempDir(), "claude")
	writeLoCoMo(t, claude, locomoSample{SampleID: "fixture", Conversation: conv})
	st, err := Open(filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()
	if _, err := st.Sync(ctx, claude, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	sr, err := st.OpenSearcher(ctx, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sr.Close() })
	return sr
}

func recallIDs(t *testing.T, sr *Searcher, q string) (ids, match []string) {
	t.Helper()
	found, _, err := sr.RecallSessions(context.Background(), []string{q}, nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		ids, match = append(ids, f.SessionID), append(match, f.Match)
	}
	return ids, match
}

// A session whose turns hold half of a question's information between
// them, none of them enough alone, is a partial match for memory_recall;
// under half, nothing is returned (the rule before returned nothing for
// either).
func TestSessionUnionPartial(t *testing.T) {
	sr := sessionFixture(t, []string{"I saw a quetzal on the trail", "was it a figment of your imagination", "no, bartleby saw it too"})
	spread := "quetzal figment bartleby wombat cufflink"
	ids, match := recallIDs(t, sr, spread)
	if len(ids) != 1 || ids[0] != locomoSessionID("1") || match[0] != MatchPartial {
		t.Errorf("%q: %v %v, want session 1 alone, partial", spread, ids, match)
	}
	for _, q := range []string{"quetzal figment wombat cufflink snorkel", "how do I fix a flat bicycle tire"} {
		if ids, _ := recallIDs(t, sr, q); len(ids) > 0 {
			t.Errorf("%q: %v, want nothing (under half the information)", q, ids)
		}
	}
	defer useSessionRule("decay0.3/rel2+loose~upf=0")()
	if ids, _ := recallIDs(t, sr, spread); len(ids) > 0 {
		t.Errorf("the rule before: %q: %v, want nothing", spread, ids)
	}
}

// A session holding most of a question in one turn ranks above one
// holding all of it spread over several turns, whose best turn holds
// little (the soft order); the lexicographic order before put the spread
// one first for its complete union.
func TestSessionSoftOrder(t *testing.T) {
	sr := sessionFixture(t,
		[]string{"the quetzal and the figment met bartleby by the wombat"},
		[]string{"quetzal figment", "bartleby", "wombat", "cufflink"})
	q := "quetzal figment bartleby wombat cufflink"
	one, two := locomoSessionID("1"), locomoSessionID("2")
	if ids, _ := recallIDs(t, sr, q); len(ids) < 2 || ids[0] != one || ids[1] != two {
		t.Errorf("%q: %v, want %s (one turn) before %s (spread)", q, ids, one, two)
	}
	defer useSessionRule("decay0.3/rel2+loose~upf=0")()
	if ids, _ := recallIDs(t, sr, q); len(ids) < 2 || ids[0] != two {
		t.Errorf("the rule before: %q: %v, want %s first", q, ids, two)
	}
}
