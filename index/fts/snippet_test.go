package fts

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func bracket(s string) string { return "[" + s + "]" }

func TestSnippetMarks(t *testing.T) {
	for _, tc := range []struct{ text, query, want string }{
		{"We parse the transcript here", "parsing transcripts", "We [parse] the [transcript] here"},
		{"call parseTranscript now", "transcript", "call parse[Transcript] now"},
		{"call parseTranscript now", "parseTranscript", "call [parseTranscript] now"},
		{"open transcripts/parse.go please", "transcripts/parse.go", "open [transcripts/parse.go] please"},
		{"see parse_transcript()", "parseTranscript", "see [parse_transcript]()"},
		{"Nothing matches here", "zebra", "Nothing matches here"},
		{"line one\n\n\tline   two", "two", "line one line [two]"},
		{"\x1b[31mred\x1b[0m error", "error", "[31mred [0m [error]"},
		{"naïve café — déjà vu", "cafe café", "naïve [café] — déjà vu"},
	} {
		if got := Snippet(tc.text, QueryTerms(tc.query), 200, bracket); got != tc.want {
			t.Errorf("Snippet(%q, %q)\n got %q\nwant %q", tc.text, tc.query, got, tc.want)
		}
	}
}

func TestSnippetWindow(t *testing.T) {
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 20)
	text := "bleve at the start. " + filler + "then bleve lock contention and the bleve lock again. " + filler
	got := Snippet(text, QueryTerms("bleve lock"), 60, bracket)
	plain := Snippet(text, QueryTerms("bleve lock"), 60, nil)
	if n := utf8.RuneCountInString(plain); n > 60 {
		t.Errorf("%d runes > width 60: %q", n, plain)
	}
	if strings.Count(got, "[") < 4 {
		t.Errorf("window should hold the dense cluster of matches: %q", got)
	}
	if !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") {
		t.Errorf("cut text needs ellipses: %q", got)
	}
	if strings.Contains(plain, "…lorem") && strings.Contains(plain, " lore…") {
		t.Errorf("window should not cut words: %q", plain)
	}
}

func TestSnippetUnicodeAndWidth(t *testing.T) {
	text := strings.Repeat("日本語のテキスト🎉 ", 30) + "ここで bleve を使う " + strings.Repeat("ñandú ", 40)
	for _, width := range []int{1, 2, 3, 10, 25, 80} {
		got := Snippet(text, QueryTerms("bleve"), width, nil)
		if !utf8.ValidString(got) {
			t.Errorf("width %d: invalid UTF-8 %q", width, got)
		}
		if n := utf8.RuneCountInString(got); n > width || n == 0 {
			t.Errorf("width %d: %d runes: %q", width, n, got)
		}
		if width >= 10 && !strings.Contains(got, "bleve") {
			t.Errorf("width %d: match not shown: %q", width, got)
		}
	}
	if got := Snippet("short", nil, 0, nil); got != "short" {
		t.Errorf("width 0 means unlimited: %q", got)
	}
	if got := Snippet("", []string{"x"}, 10, bracket); got != "" {
		t.Errorf("empty text: %q", got)
	}
	if got := Snippet("bad \xff\xfe bytes bleve", QueryTerms("bleve"), 100, bracket); !utf8.ValidString(got) || !strings.Contains(got, "[bleve]") {
		t.Errorf("invalid input: %q", got)
	}
}

func TestQueryTermsSkipsExclusions(t *testing.T) {
	terms := QueryTerms(`parseTranscript -cats "the lock"`)
	has := map[string]bool{}
	for _, term := range terms {
		has[term] = true
	}
	for _, want := range []string{"parsetranscript", "parse", "transcript", "pars", "lock"} {
		if !has[want] {
			t.Errorf("missing %q in %q", want, terms)
		}
	}
	if has["cat"] || has["cats"] || has["the"] {
		t.Errorf("excluded or stop words in %q", terms)
	}
}
