package memories

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
)

// Without a model, ask answered from the sessions' first prompts and left
// out the pending memory that held the answer. The evidence now comes best
// first: approved memories, then pending ones (labelled, for a person and
// a model), then summaries, then excerpts.
func TestAskShowsPendingMemoriesBeforeSessions(t *testing.T) {
	ctx := context.Background()
	s, approved := askService(t, config.Default())
	pending := mustAdd(t, s, NewMemory{Type: Decision, Project: "/work/proj", Status: Pending, Importance: 3,
		Content: "websocket reconnects behind nginx: keep the 20 second ping even after raising proxy_read_timeout"}).Memory.ID
	// A rejected one is not evidence.
	rejected := mustAdd(t, s, NewMemory{Type: Fact, Project: "/work/proj", Status: Rejected, Importance: 3,
		Content: "websocket reconnect nginx was a DNS problem"}).Memory.ID
	if err := s.st.Mem().SaveSummary(ctx, &index.SummaryRow{Session: "61111111-2222-4333-8444-555555555555", Source: "heuristic",
		Markdown: "## Websocket reconnects\nnginx proxy_read_timeout closed idle sockets; raised and a ping added.", Created: time.Now()}); err != nil {
		t.Fatal(err)
	}
	ans, err := s.Recall.Ask(ctx, "websocket reconnect nginx", AskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, e := range ans.Evidence {
		order = append(order, e.Ref+" "+e.Label())
		if e.Ref == rejected {
			t.Errorf("a rejected memory is evidence: %+v", e)
		}
	}
	want := []string{approved + " memory", pending + " memory (pending review)", "s:61111111-2222-4333-8444-555555555555 summary",
		"s:61111111-2222-4333-8444-555555555555 excerpt"}
	if strings.Join(order, "\n") != strings.Join(want, "\n") {
		t.Fatalf("evidence order:\n%s\nwant:\n%s", strings.Join(order, "\n"), strings.Join(want, "\n"))
	}
	if ans.Evidence[0].Status != "approved" || ans.Evidence[1].Status != "pending" {
		t.Errorf("statuses %q %q", ans.Evidence[0].Status, ans.Evidence[1].Status)
	}
	// A model is told which memory is unreviewed.
	if p := askPrompt(ans.Question, ans.Evidence); !strings.Contains(p, "["+pending+"] memory (pending review)") {
		t.Errorf("the prompt does not label the pending memory:\n%s", p)
	}
}
