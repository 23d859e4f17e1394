package index

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// sessionEvalRow is session-level retrieval of one kind of labelled query: the
// gold session is the one its relevant entries are in.
type sessionEvalRow struct {
	queries, withGold, r1, r5, nonEmpty int
	mrr                                 float64
}

// sessionEval asks the labelled queries and the everyday questions for
// sessions through a front end ("search": Search with GroupBySession, as
// `cairn search --group`; "recall": RecallSessions, as MCP memory_recall).
func sessionEval(t testing.TB, sr *Searcher, qs []evalQuery, fe, mode string) map[string]*sessionEvalRow {
	t.Helper()
	for _, e := range everyday {
		qs = append(qs, evalQuery{ID: e, Type: "everyday", Query: e})
	}
	ctx := context.Background()
	out := map[string]*sessionEvalRow{}
	for _, e := range qs {
		var sessions []string
		if fe == "search" {
			resp, err := sr.Search(ctx, SearchQuery{Text: e.Query, Limit: 10, Mode: mode, GroupBySession: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range resp.Results {
				sessions = append(sessions, r.SessionID)
			}
		} else {
			found, _, err := sr.RecallSessions(ctx, []string{e.Query}, nil, 5)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range found {
				sessions = append(sessions, r.SessionID)
			}
		}
		r := out[e.Type]
		if r == nil {
			r = &sessionEvalRow{}
			out[e.Type] = r
		}
		r.queries++
		if len(sessions) > 0 {
			r.nonEmpty++
		}
		if e.Session == "" {
			continue
		}
		r.withGold++
		if rank := locomoRank(sessions, map[string]bool{e.Session: true}); rank > 0 {
			r.mrr += 1 / float64(rank)
			if rank == 1 {
				r.r1++
			}
			if rank <= 5 {
				r.r5++
			}
		}
	}
	return out
}

func sessionTable(names []string, rows []map[string]*sessionEvalRow) string {
	var sb strings.Builder
	sb.WriteString("| type | n (with session) |")
	for _, n := range names {
		fmt.Fprintf(&sb, " %s R@1 | R@5 | MRR | non-empty |", n)
	}
	sb.WriteString("\n")
	for _, k := range relevanceTypes {
		fmt.Fprintf(&sb, "| %s | %d (%d) |", k, rows[0][k].queries, rows[0][k].withGold)
		for _, by := range rows {
			r := by[k]
			fmt.Fprintf(&sb, " %d | %d | %.3f | %d |", r.r1, r.r5, r.mrr/float64(max(r.withGold, 1)), r.nonEmpty)
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// TestSessionRanking (issue 24 item 2) measures session results on the
// labelled set before (each session's first appearance in the entry
// ranking) and after (the session rule of sessionrank.go), for `search
// --group` in text and hybrid and for memory_recall: the rule must not
// rank any kind of query's session lower on average, nor answer a nonsense
// or everyday question, and hybrid stays at or above text.
func TestSessionRanking(t *testing.T) {
	if ranWithoutRace(t) {
		return
	}
	qs := loadEval(t)
	_, sr := evalStore(t)
	run := func(rule string) []map[string]*sessionEvalRow {
		defer useSessionRule(rule)()
		return []map[string]*sessionEvalRow{
			sessionEval(t, sr, qs, "search", ModeText),
			sessionEval(t, sr, qs, "search", ModeHybrid),
			sessionEval(t, sr, qs, "recall", ""),
		}
	}
	names := []string{"search text", "search hybrid", "memory_recall"}
	before := run("first")
	t.Logf("before (first appearance):\n%s", sessionTable(names, before))
	var after []map[string]*sessionEvalRow
	for _, rule := range sessionRules() {
		after = run(rule)
		t.Logf("after (%s):\n%s", rule, sessionTable(names, after))
	}
	for i, n := range names {
		for _, k := range relevanceTypes {
			b, a := before[i][k], after[i][k]
			if a.mrr < b.mrr-1e-9 {
				t.Errorf("%s %s: session MRR %.3f below the first-appearance rule's %.3f", n, k, a.mrr/float64(a.withGold), b.mrr/float64(b.withGold))
			}
			if (k == "nonsense" || k == "everyday") && a.nonEmpty > b.nonEmpty {
				t.Errorf("%s %s: %d answered, %d before", n, k, a.nonEmpty, b.nonEmpty)
			}
		}
	}
	for _, k := range relevanceTypes {
		if text, hyb := after[0][k], after[1][k]; hyb.mrr < text.mrr-1e-9 || hyb.r5 < text.r5 {
			t.Errorf("%s: hybrid session MRR %.3f, R@5 %d below text %.3f, %d", k, hyb.mrr, hyb.r5, text.mrr, text.r5)
		}
	}
}

// BenchmarkSessionSearch times `search --group` (hybrid, top 10) over the
// labelled queries with the first-appearance rule and the session rule.
func BenchmarkSessionSearch(b *testing.B) {
	qs := loadEval(b)
	_, sr := evalStore(b)
	ctx := context.Background()
	for _, rule := range []string{"first", "default"} {
		b.Run(rule, func(b *testing.B) {
			defer useSessionRule(rule)()
			for i := range b.N {
				if _, err := sr.Search(ctx, SearchQuery{Text: qs[i%len(qs)].Query, Limit: 10, GroupBySession: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
