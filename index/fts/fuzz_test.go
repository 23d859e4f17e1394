package fts

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Seeds live in testdata/fuzz/<FuzzName>/ (checked in); `go test` runs
// them as regular cases, `go test -fuzz=FuzzSnippet` explores further.

func FuzzSnippet(f *testing.F) {
	f.Fuzz(func(t *testing.T, text, query string, width int) {
		width %= 500
		terms := QueryTerms(query)
		plain := Snippet(text, terms, width, nil)
		if !utf8.ValidString(plain) {
			t.Fatalf("invalid UTF-8: %q", plain)
		}
		if n := utf8.RuneCountInString(plain); width > 0 && n > width {
			t.Fatalf("%d runes > width %d: %q", n, width, plain)
		}
		// Control characters never survive Snippet, so they are safe
		// sentinels: marking must only add them around non-empty matches.
		marked := Snippet(text, terms, width, func(s string) string {
			if s == "" {
				t.Fatalf("empty match marked")
			}
			return "\x01" + s + "\x02"
		})
		if strings.NewReplacer("\x01", "", "\x02", "").Replace(marked) != plain {
			t.Fatalf("marks changed the text:\n%q\n%q", marked, plain)
		}
	})
}

func FuzzQuery(f *testing.F) {
	ix := openTemp(f)
	mustIndex(f, ix,
		Doc{ID: "a", Kind: "message", Text: "parseTranscript reads transcripts/parse.go line by line", Project: "/p", Time: t0},
		Doc{ID: "b", Kind: "memory", Text: "the bleve lock is held; use bufio.Reader", Title: "gotcha", Subagent: true},
	)
	f.Fuzz(func(t *testing.T, query string) {
		QueryTerms(query)
		if _, _, err := ix.Search(query, Filter{}, 10); err != nil {
			t.Fatalf("Search(%q): %v", query, err)
		}
		if _, _, err := ix.Search(query, Filter{Kinds: []string{"memory"}, Since: t0}, 10); err != nil {
			t.Fatalf("Search(%q) with filter: %v", query, err)
		}
	})
}
