package fts

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 2, 12, 14, 0, 0, 0, time.UTC)

// fixture is a small index where every filter value and every code form
// appears in a known set of documents.
func fixture(t *testing.T) *Index {
	t.Helper()
	ix := openTemp(t)
	mustIndex(t, ix,
		Doc{ID: "camel", Kind: "message", Text: "I wrote parseTranscript to read the files", Project: "/p/a", Session: "s1", Role: "assistant", Block: "text", Time: t0},
		Doc{ID: "prose", Kind: "message", Text: "first we need to parse the transcript line by line", Project: "/p/a", Session: "s1", Role: "user", Block: "text", Time: t0.Add(time.Hour)},
		Doc{ID: "path", Kind: "message", Text: "the reader lives in transcripts/parse.go now", Project: "/p/b", Session: "s2", Role: "tool", Block: "tool_result", Time: t0.Add(2 * time.Hour)},
		Doc{ID: "snake", Kind: "message", Text: "def parse_transcript(path): pass", Project: "/p/b", Session: "s2", Role: "assistant", Block: "thinking", Subagent: true, Time: t0.Add(3 * time.Hour)},
		Doc{ID: "memory", Kind: "memory", Text: "Prefer bufio.Reader over Scanner for huge JSONL lines", Title: "gotcha", Project: "/p/a", Block: "memory", Time: t0.Add(24 * time.Hour)},
		Doc{ID: "summary", Kind: "summary", Text: "Session fixed the bleve lock contention", Title: "Fix parser crash", Project: "/p/b", Session: "s2", Block: "summary"},
		Doc{ID: "cats", Kind: "message", Text: "unrelated chatter about cats and their habits", Project: "/p/c", Session: "s3", Role: "user", Block: "text", Time: t0.Add(48 * time.Hour)},
	)
	return ix
}

func TestCodeFormsFindEachOther(t *testing.T) {
	ix := fixture(t)
	all := []string{"camel", "prose", "path", "snake"}
	for _, tc := range []struct {
		q    string
		top  string   // expected best hit
		want []string // the documents it must find
	}{
		{"parseTranscript", "camel", all},
		{"parse_transcript", "snake", all},
		{"parse transcript", "", all},
		{"transcripts/parse.go", "path", all},
	} {
		got := searchIDs(t, ix, tc.q, Filter{})
		for _, id := range tc.want {
			if !slices.Contains(got, id) {
				t.Errorf("%q: %s missing from %v", tc.q, id, got)
			}
		}
		if tc.top != "" && (len(got) == 0 || got[0] != tc.top) {
			t.Errorf("%q: top hit %v, want %s", tc.q, got, tc.top)
		}
		if slices.Contains(got, "cats") {
			t.Errorf("%q matched unrelated doc: %v", tc.q, got)
		}
	}
}

// TestCompoundOfUnseenPart: a compound query word with a part the index
// has never seen names nothing it holds, so it matches nothing, not every
// text sharing its other parts (issue 15.4: "zzzzqqqq-nothing-matches"
// matched every text saying "nothing"); the same words typed apart still
// match alone, and a compound of known parts still matches by any of them.
func TestCompoundOfUnseenPart(t *testing.T) {
	ix := fixture(t)
	mustIndex(t, ix, Doc{ID: "nothing", Kind: "message", Text: "nothing matches the pattern you gave", Role: "tool", Block: "tool_result"})
	for _, q := range []string{"zzzzqqqq-nothing-matches", "zzzzqqqq_nothing_matches", "zzzzqqqqNothingMatches", "nothing/matches/zzzzqqqq.go", "zzzzqqqq-noth*"} {
		if got := searchIDs(t, ix, q, Filter{}); len(got) != 0 {
			t.Errorf("%q matched %v, want nothing", q, got)
		}
	}
	for q, want := range map[string][]string{
		"zzzzqqqq nothing": {"nothing"},
		"nothing-matches":  {"nothing"},
		"parse-cats":       {"camel", "cats", "path", "prose", "snake"},
	} {
		got := searchIDs(t, ix, q, Filter{})
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%q: got %v, want %v", q, got, want)
		}
	}
}

func TestStemmingAndTitles(t *testing.T) {
	ix := fixture(t)
	if got := searchIDs(t, ix, "parsing", Filter{}); !slices.Contains(got, "prose") {
		t.Errorf("parsing did not find 'parse': %v", got)
	}
	if got := searchIDs(t, ix, "crashes", Filter{}); !slices.Equal(got, []string{"summary"}) {
		t.Errorf("title search: %v", got)
	}
	if got := searchIDs(t, ix, "scanner", Filter{}); !slices.Equal(got, []string{"memory"}) {
		t.Errorf("case-insensitive: %v", got)
	}
	if got := searchIDs(t, ix, "bufio", Filter{}); !slices.Equal(got, []string{"memory"}) {
		t.Errorf("dotted identifier part: %v", got)
	}
}

func TestPhraseExclusionRequired(t *testing.T) {
	ix := fixture(t)
	reversed := []string{"prose"} // quoted words in the wrong order…
	if prosePositions {
		reversed = nil // …only fail as a real phrase
	}
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{`"parse the transcript"`, []string{"prose"}},
		{`"transcript parse"`, reversed},
		{`"parse_transcript"`, []string{"snake"}},
		{`transcript -parse.go`, []string{"camel", "prose", "snake"}},
		{`parse -"line by line"`, []string{"camel", "path", "snake"}},
		{`+bleve transcript`, []string{"summary"}},
		{`-cats`, nil}, // exclusion alone matches nothing
	} {
		if got := searchIDs(t, ix, tc.q, Filter{}); !sameSet(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.q, got, tc.want)
		}
	}
}

// checkTopHit indexes docs in a fresh index and checks that q finds every
// one of them, top first.
func checkTopHit(t *testing.T, q, top string, docs ...Doc) {
	t.Helper()
	ix := openTemp(t)
	mustIndex(t, ix, docs...)
	got := searchIDs(t, ix, q, Filter{})
	if len(got) != len(docs) || got[0] != top {
		t.Errorf("%q: got %v, want %q first of %d", q, got, top, len(docs))
	}
}

func TestMoreMatchingWordsRankHigher(t *testing.T) {
	checkTopHit(t, "bleve lock", "both",
		Doc{ID: "one", Text: "the bleve index is slow today"},
		Doc{ID: "both", Text: "the bleve lock is held by another process"},
		Doc{ID: "other", Text: "a lock on the door"},
	)
}

func TestFilters(t *testing.T) {
	ix := fixture(t)
	yes, no := true, false
	q := "parse transcript bufio bleve cats" // matches every fixture doc
	if got := searchIDs(t, ix, q, Filter{}); len(got) != 7 {
		t.Fatalf("fixture query matches %v, want all 7", got)
	}
	for _, tc := range []struct {
		name string
		f    Filter
		want []string
	}{
		{"kind", Filter{Kinds: []string{"memory", "summary"}}, []string{"memory", "summary"}},
		{"project", Filter{Projects: []string{"/p/a"}}, []string{"camel", "prose", "memory"}},
		{"session", Filter{Sessions: []string{"s2"}}, []string{"path", "snake", "summary"}},
		{"role", Filter{Roles: []string{"user"}}, []string{"prose", "cats"}},
		{"block", Filter{Blocks: []string{"thinking", "memory"}}, []string{"snake", "memory"}},
		{"exclude blocks", Filter{ExcludeBlocks: []string{"text", "tool_result"}}, []string{"snake", "memory", "summary"}},
		{"subagent", Filter{Subagents: &yes}, []string{"snake"}},
		{"not subagent", Filter{Subagents: &no}, []string{"camel", "prose", "path", "memory", "summary", "cats"}},
		{"since", Filter{Since: t0.Add(2 * time.Hour)}, []string{"path", "snake", "memory", "cats"}},
		{"until", Filter{Until: t0.Add(time.Hour)}, []string{"camel", "prose"}},
		{"since+until", Filter{Since: t0.Add(time.Hour), Until: t0.Add(3 * time.Hour)}, []string{"prose", "path", "snake"}},
		// Times are indexed by the hour: a bound inside an hour takes the
		// whole hour in (index.Searcher then filters exactly).
		{"since inside an hour", Filter{Since: t0.Add(time.Hour + time.Second)}, []string{"prose", "path", "snake", "memory", "cats"}},
		{"until inside an hour", Filter{Until: t0.Add(time.Hour - time.Second)}, []string{"camel"}},
		{"until before 1970", Filter{Until: time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC)}, nil},
		{"since after 2106", Filter{Since: time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)}, nil},
		{"since after until", Filter{Since: t0.Add(time.Hour), Until: t0}, nil},
		{"combined", Filter{Projects: []string{"/p/b"}, Roles: []string{"assistant"}, Subagents: &yes}, []string{"snake"}},
		{"no such project", Filter{Projects: []string{"/nope"}}, nil},
	} {
		if got := searchIDs(t, ix, q, tc.f); !sameSet(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestFiltersDoNotChangeScores(t *testing.T) {
	ix := fixture(t)
	plain, _, _ := ix.Search("parse transcript", Filter{}, 10)
	filtered, _, _ := ix.Search("parse transcript", Filter{Kinds: []string{"message"}, Since: t0.Add(-time.Hour)}, 10)
	if !slices.Equal(plain, filtered) {
		t.Errorf("filter changed ranking or scores:\n%v\n%v", plain, filtered)
	}
}

func TestDeleteCountReplace(t *testing.T) {
	ix := fixture(t)
	count := func() uint64 {
		n, err := ix.Count()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 7 {
		t.Fatalf("count %d, want 7", n)
	}
	if err := ix.Delete([]string{"cats", "no-such-id", ""}); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 6 {
		t.Errorf("after delete: count %d, want 6", n)
	}
	if got := searchIDs(t, ix, "cats", Filter{}); len(got) != 0 {
		t.Errorf("deleted doc still found: %v", got)
	}
	mustIndex(t, ix, Doc{ID: "prose", Text: "now about dogs"})
	if n := count(); n != 6 {
		t.Errorf("after replace: count %d, want 6", n)
	}
	if got := searchIDs(t, ix, "dogs", Filter{}); !slices.Equal(got, []string{"prose"}) {
		t.Errorf("replaced text not found: %v", got)
	}
	if got := searchIDs(t, ix, `"parse the transcript"`, Filter{}); len(got) != 0 {
		t.Errorf("old text still found: %v", got)
	}
}

func TestIndexManyAndDuplicateIDs(t *testing.T) {
	ix := openTemp(t)
	var docs []Doc
	for i := range 2*batchSize + 10 {
		docs = append(docs, Doc{ID: fmt.Sprint(i % (2*batchSize + 5)), Text: fmt.Sprintf("document number%d", i)})
	}
	mustIndex(t, ix, docs...)
	if n, _ := ix.Count(); n != 2*batchSize+5 {
		t.Errorf("count %d, want %d", n, 2*batchSize+5)
	}
	// ID "3" was written twice; the later text wins.
	if got := searchIDs(t, ix, fmt.Sprintf("number%d", 2*batchSize+8), Filter{}); !slices.Equal(got, []string{"3"}) {
		t.Errorf("last duplicate should win: %v", got)
	}
	if got := searchIDs(t, ix, "number3", Filter{}); len(got) != 0 {
		t.Errorf("overwritten text still found: %v", got)
	}
	if err := ix.Index([]Doc{{Text: "no id"}}); err == nil {
		t.Error("empty ID accepted")
	}
}

func TestHostileQueriesNeverFail(t *testing.T) {
	ix := fixture(t)
	for _, q := range []string{
		"", "   ", `foo:bar`, `"unterminated`, `+-*()`, `-`, `--`, `"`, `""`, `-"`, `+`, `+"`,
		`title:x^2~`, `*`, `?`, `\`, `{}[]`, `AND OR NOT`, "\x00", "\xff\xfe", `/`, `.`, `_`,
		`text:parse`, `parse~2`, `/regex.*/`, `a AND (b OR c)`, strings.Repeat("parse ", 500),
		strings.Repeat("x", 5000), strings.Repeat(`"`, 99), "日本語 テキスト", "emoji 🎉 parse",
	} {
		if _, _, err := ix.Search(q, Filter{}, 10); err != nil {
			t.Errorf("Search(%.40q): %v", q, err)
		}
		QueryTerms(q)
	}
	if got := searchIDs(t, ix, "foo:bar", Filter{}); len(got) != 0 {
		t.Errorf("foo:bar matched %v", got)
	}
	// Field syntax is not special: "text:parse" is a compound like
	// "os:path" or "text_parse".
	if got := searchIDs(t, ix, "text:parse", Filter{}); !sameSet(got, searchIDs(t, ix, "text_parse", Filter{})) {
		t.Errorf("text:parse matched %v", got)
	}
}

func TestLimitAndTotal(t *testing.T) {
	ix := fixture(t)
	hits, total, err := ix.Search("parse transcript", Filter{}, 2)
	if err != nil || len(hits) != 2 || total != 4 {
		t.Errorf("got %d hits, total %d, err %v; want 2, 4, nil", len(hits), total, err)
	}
	hits, _, _ = ix.Search("parse transcript", Filter{}, 0)
	if len(hits) != 4 {
		t.Errorf("limit 0 should mean the default: %d hits", len(hits))
	}
	if hits[0].Score < hits[1].Score {
		t.Errorf("hits not sorted by score: %v", hits)
	}
}

func TestClosedIndex(t *testing.T) {
	ix := openTemp(t)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, _, err := ix.Search("x", Filter{}, 1); !errors.Is(err, errClosed) {
		t.Errorf("Search after Close: %v", err)
	}
	if err := ix.Index([]Doc{{ID: "x"}}); !errors.Is(err, errClosed) {
		t.Errorf("Index after Close: %v", err)
	}
}

func TestSmallWritesDoNotPileUpSegments(t *testing.T) {
	dir := t.TempDir()
	for i := range 3 * maxSegments {
		ix, err := Open(dir, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		mustIndex(t, ix, Doc{ID: fmt.Sprint(i), Text: "a short hook-sized write"})
		ix.Close()
	}
	ix, err := Open(dir, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if n, _ := ix.segmentCount(); n > maxSegments {
		t.Errorf("%d segments after %d small writes, want <= %d", n, 3*maxSegments, maxSegments)
	}
	if n, _ := ix.Count(); n != 3*maxSegments {
		t.Errorf("count %d", n)
	}
	if err := ix.Compact(); err != nil {
		t.Fatal(err)
	}
	if n, _ := ix.segmentCount(); n != 1 {
		t.Errorf("%d segments after Compact, want 1", n)
	}
}

func TestPhraseBoostKeepsStopWordGaps(t *testing.T) {
	if !prosePositions {
		t.Skip("proximity boosts need positions (prosePositions)")
	}
	checkTopHit(t, "fix the bug", "near",
		Doc{ID: "apart", Text: "bug: fix bug, fix"},
		Doc{ID: "near", Text: "please fix the bug in the parser module today"},
	)
}

func TestConcurrentWritesAndSearches(t *testing.T) {
	ix := openTemp(t)
	done := make(chan error, 8)
	for w := range 4 {
		go func() {
			var err error
			for i := 0; i < 5 && err == nil; i++ {
				err = ix.Index([]Doc{{ID: fmt.Sprintf("%d-%d", w, i), Text: "concurrent words"}})
			}
			done <- err
		}()
		go func() {
			var err error
			for i := 0; i < 20 && err == nil; i++ {
				_, _, err = ix.Search("concurrent", Filter{}, 5)
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := ix.Count(); n != 20 {
		t.Errorf("count %d, want 20", n)
	}
}

// TestPrefixWords: "word*" also matches longer words, as typed (a half
// word's stem is no prefix: "dialy" must still find "dialyzer"), in prose
// and in a compound's last part; without the '*' it is the whole word.
func TestPrefixWords(t *testing.T) {
	ix := fixture(t)
	mustIndex(t, ix,
		Doc{ID: "ws", Kind: "message", Text: "the WebSocket reconnects after a timeout", Block: "text"},
		Doc{ID: "dia", Kind: "message", Text: "run mix dialyzer before pushing", Block: "text"},
		Doc{ID: "snakews", Kind: "message", Text: "call open_websocket_conn(url)", Block: "text"},
	)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"websock", nil},
		{"websock*", []string{"snakews", "ws"}},
		{"dialy", nil},
		{"dialy*", []string{"dia"}},
		{"open_websock*", []string{"snakews"}},
		{"parseTrans*", []string{"camel", "path", "prose", "snake"}},
	} {
		got := searchIDs(t, ix, tc.q, Filter{})
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q matched %v, want %v", tc.q, got, tc.want)
		}
	}
	if s := Snippet("the WebSocket reconnects", QueryTerms("websock*"), 100, bracket); s != "the [WebSocket] reconnects" {
		t.Errorf("snippet %q", s)
	}
}

func TestPrefixLast(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"websock", "websock*", true},
		{"sqlite lock websock", "sqlite lock websock*", true},
		{"websocket ", "websocket ", false}, // a space: the word is finished
		{"we", "we", false},                 // too short to be worth it
		{`"websock"`, `"websock"`, false},
		{"-websock", "-websock", false},
		{"websock*", "websock*", false},
		{"", "", false},
	} {
		got, ok := PrefixLast(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("PrefixLast(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestPrefixOnly(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"websock", "websock*", true},
		{"sqlite -lock -\"bad thing\" websock", "-lock -\"bad thing\" websock*", true},
		{"+sqlite websock", "+sqlite websock", false}, // every hit holds sqlite: it matches by words
		{"\"a phrase\" websock", "\"a phrase\" websock", false},
		{"websock ", "websock ", false},
	} {
		got, ok := PrefixOnly(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("PrefixOnly(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
