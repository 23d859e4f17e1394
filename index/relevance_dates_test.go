package index

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestQueryDates: the dates a query names, and the words that say them.
func TestQueryDates(t *testing.T) {
	for q, want := range map[string]string{
		"What painting did Melanie show to Caroline on October 13, 2023?":       "2023-10-13 [october 13 2023]",
		"What did Gina find for her clothing store on 1 February, 2023?":        "2023-2-1 [1 february 2023]",
		"When did Melanie go camping in June?":                                  "0-6-0 [june]",
		"What did Mel and her kids paint in their latest project in July 2023?": "2023-7-0 [july 2023]",
		"How many times has Melanie gone to the beach in 2023?":                 "2023-0-0 [2023]",
		"may I fix issue 24 from 2023":                                          "",
		"the March of time":                                                     "",
	} {
		var got []string
		for _, d := range queryDates(q) {
			got = append(got, fmt.Sprintf("%d-%d-%d %v", d.year, d.month, d.day, slices.DeleteFunc(d.words, func(s string) bool { return s == "" })))
		}
		if g := strings.Join(got, "; "); g != want {
			t.Errorf("%q: %q, want %q", q, g, want)
		}
	}
}

// A session is one of its dates as much as its words: asked with the day
// of a session that ranks lower for the words alone, that session comes
// first (the sample's real sessions, hybrid, as `cairn search --group`).
func TestQueryDateRanksItsSession(t *testing.T) {
	if ranWithoutRace(t) {
		return
	}
	_, sr := evalStore(t)
	ctx := context.Background()
	words := "CLAUDE.md"
	resp, err := sr.Search(ctx, SearchQuery{Text: words, GroupBySession: true, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	days := map[string]int{}
	for _, r := range resp.Results {
		days[r.Timestamp.Local().Format("2006-01-02")]++
	}
	var pick *SearchResult
	for i := range resp.Results {
		r := &resp.Results[i]
		if i > 0 && days[r.Timestamp.Local().Format("2006-01-02")] == 1 {
			pick = r
			break
		}
	}
	if pick == nil {
		t.Fatalf("no session below the first with a day of its own among %d", len(resp.Results))
	}
	q := words + " on " + pick.Timestamp.Local().Format("January 2, 2006")
	dated, err := sr.Search(ctx, SearchQuery{Text: q, GroupBySession: true, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(dated.Results) == 0 || dated.Results[0].SessionID != pick.SessionID || dated.Results[0].Relevance != 1 {
		t.Fatalf("%q: first %+v, want session %s with relevance 1", q, dated.Results[:min(1, len(dated.Results))], pick.SessionID)
	}
	// A date is one thing asked, not three words: a question about
	// something the history does not hold gets nothing from the day alone.
	day := pick.Timestamp.Local().Format("January 2, 2006")
	for _, q := range []string{"flat bicycle tire on " + day, "what did I eat on " + day} {
		none, err := sr.Search(ctx, SearchQuery{Text: q, GroupBySession: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(none.Results) > 0 {
			t.Errorf("%q: %d sessions, first %s relevance %.3f, want none", q, len(none.Results), none.Results[0].SessionID, none.Results[0].Relevance)
		}
	}
	// Another day's sessions still hold the words, not the date.
	if len(dated.Results) > 1 && dated.Results[1].Relevance >= 1 {
		t.Errorf("%q: second session %s relevance %.3f, want below 1", q, dated.Results[1].SessionID, dated.Results[1].Relevance)
	}
}
