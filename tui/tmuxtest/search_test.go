//go:build linux

package tmuxtest

import (
	"strings"
	"testing"
	"time"
)

// Issue 18 item 2, as a person sees it: search, open a hit, esc back, and
// type a new query with a q and an e in it. The letters land in the query
// box (cairn neither quits at the q nor exports at the e).
func TestSearchKeepsFocusAfterReader(t *testing.T) {
	s := newServer(t)
	p := s.start("search", 100, 30, []string{"TMPDIR=" + t.TempDir()}, "--demo")
	defer p.kill()
	p.waitFor(20*time.Second, "cairn demo", "Projects")
	p.text("F")
	p.text("dialyzer")
	p.waitFor(10*time.Second, "1. ")
	p.keys("Enter")
	p.waitFor(5*time.Second, "[3 Reader]")
	p.keys("Escape")
	p.waitFor(5*time.Second, "[4 Search]", "› dialyzer")
	for range len("dialyzer") {
		p.keys("BSpace")
	}
	p.text("sqlite eq")
	sc := p.waitFor(5*time.Second, "› sqlite eq")
	if !strings.Contains(sc, "[4 Search]") {
		t.Fatalf("typing left search:\n%s", sc)
	}
	time.Sleep(300 * time.Millisecond)
	if st := p.exitStatus(); st != "" {
		t.Fatalf("typing a query after esc ended cairn (status %s)", st)
	}
}
