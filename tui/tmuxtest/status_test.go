//go:build linux

package tmuxtest

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// Issue 18 item 13, as a person sees it in the demo: the count of proposed
// memories matches the inbox's, the index lag goes to 0 by itself, and the
// resume command (claude not on PATH) is shown whole at 80 columns.
func TestStatusTrueAndReadable(t *testing.T) {
	s := newServer(t)
	p := s.start("status", 80, 24, []string{"TMPDIR=" + t.TempDir(), "PATH=/usr/bin:/bin"}, "--demo")
	defer p.kill()
	sc := p.waitFor(60*time.Second, "proposed from")
	msg := regexp.MustCompile(`(\d+) memor(y|ies) proposed`).FindStringSubmatch(sc)
	if msg == nil {
		t.Fatalf("no count in the demo's message:\n%s", sc)
	}
	tab := strings.Split(p.waitFor(5*time.Second, "Mem"), "\n")[0]
	if !strings.Contains(tab, "("+msg[1]+")") {
		t.Fatalf("the message says %s proposed, the tab bar %q", msg[1], tab)
	}
	p.waitFor(90*time.Second, "lag 0")

	// r in the timeline: the command to run, whole.
	p.text("2")
	p.waitFor(5*time.Second, "Timeline ·")
	p.text("r")
	sc = p.waitFor(5*time.Second, "claude --resume")
	id := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	joined := strings.ReplaceAll(sc, "\n", "")
	if !id.MatchString(strings.ReplaceAll(joined, " ", "")) {
		t.Fatalf("the resume command is cut:\n%s", sc)
	}
}
