package memories

import (
	"context"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/config"
	_ "github.com/cairn-dev/cairn/index/fts" // Ask searches past sessions
	"github.com/cairn-dev/cairn/internal/testutil/teststore"
	"github.com/cairn-dev/cairn/ollama"
)

// askService is a store with one session about a websocket fix and an
// approved memory about pnpm.
func askService(t *testing.T, cfg config.Config) (*Service, string) {
	t.Helper()
	s := New(teststore.Open(t), cfg)
	tr := newTranscript("61111111-2222-4333-8444-555555555555", "/work/proj")
	tr.user("the websocket keeps reconnecting every 30 seconds behind nginx")
	tr.assistant("The root cause was nginx closing idle websocket connections after proxy_read_timeout (60s default, 30s here); fixed by setting proxy_read_timeout 3600s and sending a ping every 20 seconds.")
	tr.write(t, s, t.TempDir())
	r := mustAdd(t, s, NewMemory{Type: Gotcha, Project: "/work/proj", Status: Approved, Importance: 4,
		Content: "nginx drops idle websocket connections after proxy_read_timeout: raise it and ping every 20 seconds"})
	return s, r.Memory.ID
}

func TestAskWithOllama(t *testing.T) {
	ctx := context.Background()
	var memID string
	f := &fakeChat{answer: func(req ollama.ChatRequest) string {
		return `{"answer":"nginx closed idle websockets after proxy_read_timeout; it was raised and a 20 s ping added [` + memID + `] [m-deadbeef].","cited":["` + memID + `","m-deadbeef"]}`
	}}
	s, _ := ollamaService(t, f)
	s2, id := askService(t, s.cfg)
	memID = id
	ans, err := s2.Recall.Ask(ctx, "how did I fix the websocket reconnect loop?", AskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Model != "ollama:qwen3:4b" || !strings.Contains(ans.Answer, "proxy_read_timeout") {
		t.Fatalf("answer %+v", ans)
	}
	if len(ans.Cited) != 1 || ans.Cited[0] != memID {
		t.Fatalf("cited %v: only refs of the evidence may be cited", ans.Cited)
	}
	kinds := map[string]bool{}
	for _, e := range ans.Evidence {
		kinds[e.Kind] = true
	}
	if !kinds["memory"] || !kinds["excerpt"] || ans.Evidence[0].Ref != memID {
		t.Fatalf("evidence %+v", ans.Evidence)
	}
	req := f.requests[len(f.requests)-1]
	user := req.Messages[len(req.Messages)-1].Content
	if !strings.Contains(user, "websocket reconnect loop") || !strings.Contains(user, "["+memID+"]") || !strings.Contains(user, "[s:61111111-") {
		t.Fatalf("the prompt lacks the question or the evidence refs:\n%s", user)
	}
	if !strings.Contains(string(req.Format), `"cited"`) {
		t.Fatalf("no JSON schema asked for: %s", req.Format)
	}

	// A failing or garbled model leaves the evidence, and says why.
	for _, mode := range []string{"status", "garbage"} {
		if mode == "status" {
			f.status = 500
		} else {
			f.status = 0
			f.answer = func(ollama.ChatRequest) string { return `{"answer": "trunc` }
		}
		ans, err = s2.Recall.Ask(ctx, "how did I fix the websocket reconnect loop?", AskOptions{})
		if err != nil || ans.Answer != "" || len(ans.Evidence) == 0 || !strings.Contains(ans.Note, "could not answer") {
			t.Fatalf("%s: %v %+v", mode, err, ans)
		}
	}
}

func TestAskWithoutModel(t *testing.T) {
	ctx := context.Background()
	s, id := askService(t, config.Default())
	ans, err := s.Recall.Ask(ctx, "websocket reconnect nginx", AskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Answer != "" || ans.Model != "" || !strings.Contains(ans.Note, "no language model") || len(ans.Evidence) == 0 || ans.Evidence[0].Ref != id {
		t.Fatalf("%+v", ans)
	}
	// A question nothing answers gets nothing, and says so.
	ans, err = s.Recall.Ask(ctx, "zzzzqqqq-nothing-matches", AskOptions{})
	if err != nil || len(ans.Evidence) != 0 || !strings.Contains(ans.Note, "nothing cairn keeps matches") {
		t.Fatalf("nonsense: %v %+v", err, ans)
	}
	if _, err := s.Recall.Ask(ctx, "  ", AskOptions{}); err == nil {
		t.Fatal("an empty question must be an error")
	}
	// The budget bounds the evidence.
	ans, _ = s.Recall.Ask(ctx, "websocket reconnect nginx", AskOptions{Budget: 300})
	n := 0
	for _, e := range ans.Evidence {
		n += len(e.Text)
	}
	if n > 300 {
		t.Fatalf("%d characters of evidence over a 300 budget", n)
	}
}
