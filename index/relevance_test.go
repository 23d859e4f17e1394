package index

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// everyday are questions a new user might type that share nothing with the
// bundled history (issue 24.1): each must find nothing.
var everyday = []string{
	"how do I fix a flat bicycle tire",
	"best time to plant tulip bulbs in the garden",
	"how many players are on a volleyball team",
	"what is my favourite pizza topping",
	"how do I bake sourdough bread",
	"what is the capital of France",
	"how long should I boil an egg",
	"recommend a good book about ancient history",
	"who won the football world cup last year",
	"how do I change the oil in my car",
	"what should I cook for dinner tonight",
	"how far is the moon from the earth",
}

// relevanceRow is how one kind of query fares in one mode.
type relevanceRow struct {
	queries, answered, found, relevant, results, nonEmpty int
	mrr                                                   float64
}

// relevanceEval runs the labelled queries and the everyday questions (type
// "everyday") in q's mode, top 10.
func relevanceEval(t testing.TB, sr *Searcher, qs []evalQuery, q SearchQuery) map[string]*relevanceRow {
	t.Helper()
	for _, e := range everyday {
		qs = append(qs, evalQuery{ID: e, Type: "everyday", Query: e})
	}
	out := map[string]*relevanceRow{}
	for _, e := range qs {
		q.Text, q.Limit = e.Query, 10
		resp := evalSearch(t, sr, q)
		r := out[e.Type]
		if r == nil {
			r = &relevanceRow{}
			out[e.Type] = r
		}
		r.queries++
		r.relevant += len(e.Relevant)
		r.results += len(resp.Results)
		if len(resp.Results) > 0 {
			r.nonEmpty++
		}
		first := 0
		seen := map[string]bool{}
		for i, res := range resp.Results {
			if slices.Contains(e.Relevant, res.UUID) && !seen[res.UUID] {
				seen[res.UUID] = true
				r.found++
				if first == 0 {
					first = i + 1
				}
			}
		}
		if first > 0 {
			r.answered++
			r.mrr += 1 / float64(first)
		}
	}
	for _, r := range out {
		r.mrr /= float64(r.queries)
	}
	return out
}

var relevanceTypes = []string{"keyword", "identifier", "phrase", "question", "paraphrase", "nonsense", "everyday"}

func relevanceTable(modes []string, rows []map[string]*relevanceRow) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "| type | n |")
	for _, m := range modes {
		fmt.Fprintf(&sb, " %s answered | %s found | %s MRR | %s non-empty |", m, m, m, m)
	}
	sb.WriteString("\n")
	for _, k := range relevanceTypes {
		fmt.Fprintf(&sb, "| %s | %d |", k, rows[0][k].queries)
		for _, by := range rows {
			r := by[k]
			fmt.Fprintf(&sb, " %d | %d/%d | %.3f | %d |", r.answered, r.found, r.relevant, r.mrr, r.nonEmpty)
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// TestRelevanceRule (issue 24.1) holds search to the minimum-should-match
// rule on the labelled queries: nonsense and everyday questions find
// nothing; word queries keep their relevant hits; hybrid is never below
// text.
func TestRelevanceRule(t *testing.T) {
	if ranWithoutRace(t) {
		return
	}
	qs := loadEval(t)
	_, sr := evalStore(t)
	text := relevanceEval(t, sr, qs, SearchQuery{Mode: ModeText})
	hyb := relevanceEval(t, sr, qs, SearchQuery{Mode: ModeHybrid})
	textP := relevanceEval(t, sr, qs, SearchQuery{Mode: ModeText, Partial: true})
	hybP := relevanceEval(t, sr, qs, SearchQuery{Mode: ModeHybrid, Partial: true})
	t.Logf("\n%s", relevanceTable([]string{"text", "hybrid", "text+partial", "hybrid+partial"}, []map[string]*relevanceRow{text, hyb, textP, hybP}))
	for _, k := range []string{"nonsense", "everyday"} {
		if n := hyb[k].nonEmpty + text[k].nonEmpty + hybP[k].nonEmpty; n != 0 {
			t.Errorf("%s queries: %d answered with results, want none", k, n)
		}
	}
	for _, k := range relevanceTypes {
		if hyb[k].found < text[k].found || hyb[k].mrr < text[k].mrr-0.005 {
			t.Errorf("%s: hybrid %d found, MRR %.3f is below text %d, %.3f", k, hyb[k].found, hyb[k].mrr, text[k].found, text[k].mrr)
		}
	}
}

// TestRelevanceScale: relevance is not normalised to the page — a query
// whose words a hit holds only in part gives that hit a lower relevance
// than a query it answers fully, and nonsense has no first result at 1.
func TestRelevanceScale(t *testing.T) {
	if ranWithoutRace(t) {
		return
	}
	_, sr := evalStore(t)
	ctx := context.Background()
	full, err := sr.Search(ctx, SearchQuery{Text: "dialyzer PLT", Mode: ModeText})
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Results) == 0 || full.Results[0].Relevance != 1 || full.Results[0].Match != MatchWords {
		t.Fatalf("dialyzer PLT: %+v", full.Results)
	}
	const q = "pnpm add lucide-react icons" // some hits hold two of the words
	part, err := sr.Search(ctx, SearchQuery{Text: q, Mode: ModeText, Partial: true, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	partial := 0
	for _, r := range part.Results {
		if r.Match == MatchPartial {
			partial++
			if r.Relevance >= FullCoverage || r.Relevance < PartialFloor {
				t.Errorf("partial result at relevance %.3f", r.Relevance)
			}
		} else if partial > 0 {
			t.Errorf("a full match after a partial one")
		}
	}
	hidden, err := sr.Search(ctx, SearchQuery{Text: q, Mode: ModeText, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if partial == 0 || len(hidden.Results) != len(part.Results)-partial || hidden.Partial != partial {
		t.Errorf("%d partial of %d; without Partial %d shown, %d counted", partial, len(part.Results), len(hidden.Results), hidden.Partial)
	}
	// A stop word being typed ("how" as a prefix) is no query: it used to
	// panic inside bleve, and the index then refused every search.
	if _, err := sr.Search(ctx, SearchQuery{Text: "how", Prefix: true}); err != nil {
		t.Fatal(err)
	}
	// "topping" is not "top" through the stemmer, typed or whole.
	typed, err := sr.Search(ctx, SearchQuery{Text: "topping", Prefix: true, Partial: true})
	if err != nil || len(typed.Results) != 0 {
		t.Errorf("topping while typing: %v, %+v", err, typed.Results)
	}
	top, err := sr.Search(ctx, SearchQuery{Text: "topping", Mode: ModeText, Partial: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(top.Results) != 0 {
		t.Errorf("topping found %q", top.Results[0].Snippet)
	}
}

func TestMinShouldMatch(t *testing.T) {
	for n, want := range map[int]int{1: 1, 2: 2, 3: 2, 4: 3, 5: 3, 6: 4, 8: 6} {
		if got := MinShouldMatch(n); got != want {
			t.Errorf("MinShouldMatch(%d) = %d, want %d", n, got, want)
		}
	}
	for _, c := range []struct {
		m, n int
		cov  float64
		want string
	}{{1, 1, 1, MatchWords}, {1, 2, 0.5, MatchPartial}, {1, 2, 0.9, MatchWords}, {1, 4, 0.1, ""}, {0, 3, 0, ""}, {3, 4, 0.5, MatchWords}} {
		if got := Grade(c.m, c.n, c.cov); got != c.want {
			t.Errorf("Grade(%d, %d, %.2f) = %q, want %q", c.m, c.n, c.cov, got, c.want)
		}
	}
}

// TestTypoFallback (issue 24.5): when the words as typed find nothing, an
// unseen word within a small edit distance of an indexed one is tried,
// and the results are marked; nonsense finds nothing still, and a query
// that finds something is never corrected.
func TestTypoFallback(t *testing.T) {
	if ranWithoutRace(t) {
		return
	}
	_, sr := evalStore(t)
	ctx := context.Background()
	for _, q := range []string{"dialyzr", "sobelw", "phoneix servr"} {
		resp, err := sr.Search(ctx, SearchQuery{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Results) == 0 || resp.Results[0].Match != MatchTypo || len(resp.Corrected) == 0 || !strings.Contains(resp.Notice, "near spellings") {
			t.Errorf("%q: %d results, corrected %v, notice %q", q, len(resp.Results), resp.Corrected, resp.Notice)
		}
	}
	resp, err := sr.Search(ctx, SearchQuery{Text: "dialyzer"})
	if err != nil || len(resp.Corrected) != 0 || resp.Results[0].Match != MatchWords {
		t.Errorf("dialyzer corrected: %v %v", resp.Corrected, err)
	}
}
