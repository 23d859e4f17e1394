package tui

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
)

// TestSearchEverydayQuestion (issue 24.1): in the Search pane an everyday
// question unrelated to the history finds nothing and says so; a real
// query keeps its hits; results holding only some of the words are hidden,
// counted, and shown marked when asked for with enter.
func TestSearchEverydayQuestion(t *testing.T) {
	st := testStore(t)
	m := newTestModel(t, 120, 30, st, nil)
	press(t, m, "F")
	clear := func() {
		for range len(m.search.input.Value()) {
			press(t, m, "backspace")
		}
	}
	for _, q := range []string{"how do I fix a flat bicycle tire", "what is my favourite pizza topping"} {
		typeQuery(t, m, q)
		if n := len(m.search.results); n != 0 {
			t.Errorf("%q: %d results, first %.80q", q, n, m.search.results[0].Snippet)
		}
		if s := screen(m); !strings.Contains(s, "No matches by words or meaning; try") {
			t.Fatalf("%q (input %q, err %v, notice %q):\n%s", q, m.search.input.Value(), m.search.err, "", s)
		}
		clear()
	}
	typeQuery(t, m, "dialyzer PLT")
	if len(m.search.results) == 0 || m.search.results[0].Match != index.MatchWords || m.search.results[0].Relevance != 1 {
		t.Fatalf("dialyzer PLT: %+v", m.search.results)
	}
	clear()
	// Each hit of "sobelow turbopack" holds one of the two words.
	typeQuery(t, m, "sobelow turbopack")
	p := m.search
	if len(p.results) != 0 || p.resp.Partial == 0 {
		t.Fatalf("sobelow turbopack: %d shown, %d partial", len(p.results), p.resp.Partial)
	}
	mustContain(t, screen(m), "No full matches;", "partial (only some of the words): enter shows them")
	press(t, m, "enter")
	if len(p.results) == 0 {
		t.Fatal("enter did not show the partial matches")
	}
	for _, r := range p.results {
		if r.Match != index.MatchPartial {
			t.Errorf("a %s result among the partial ones", r.Match)
		}
	}
	s := screen(m)
	mustContain(t, s, partialMark)
	if tag := resultTag(&p.results[0]); !strings.Contains(tag, "· partial 0.") {
		t.Errorf("tag %q does not say partial and its relevance", tag)
	}
	if !strings.Contains(s, "in part (½)") {
		t.Errorf("the status line does not count the partial results:\n%s", s)
	}
	// Typing again hides them again.
	typeText(t, m, " ")
	typeQuery(t, m, "x")
	if p.partial {
		t.Error("partial still asked for after the text changed")
	}
}

// TestListFilterLettersInOrder (issue 24.5): when no project or session
// holds a list filter's text, those holding its letters in order in one
// word are shown (fzf's subsequence match), and the pane says so; a
// filter that matches as typed is never widened.
func TestListFilterLettersInOrder(t *testing.T) {
	st := testStore(t)
	m := newTestModel(t, 100, 30, st, nil)
	press(t, m, "f")
	typeText(t, m, "sptr")
	if len(m.projects.shown) == 0 || len(m.projects.shown) == len(m.projects.all) {
		t.Fatalf("sptr kept %d of %d projects", len(m.projects.shown), len(m.projects.all))
	}
	for _, ps := range m.projects.shown {
		if !strings.Contains(ps.Name+ps.Path, "spotter") {
			t.Errorf("sptr kept %s", ps.Path)
		}
	}
	if !strings.Contains(m.status.flash, `nothing contains "sptr"`) {
		t.Errorf("flash %q", m.status.flash)
	}
	press(t, m, "esc")
	press(t, m, "f")
	typeText(t, m, "spot")
	if n := len(m.projects.shown); n == 0 || strings.Contains(m.status.flash, `nothing contains "spot"`) {
		t.Fatalf("spot kept %d projects, flash %q", n, m.status.flash)
	}
	press(t, m, "esc")
	press(t, m, "f")
	typeText(t, m, "xqzv")
	if n := len(m.projects.shown); n != 0 {
		t.Fatalf("xqzv kept %d projects", n)
	}
	if !subseqMatch("mrco", "marco-polo") || subseqMatch("mrco", "the mirror code") || subseqMatch("ab", "ab") {
		t.Error("subseqMatch: letters in order within one word, from three letters")
	}
}
