package memories

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

func approve(t *testing.T, s *Service, n NewMemory) string {
	t.Helper()
	n.Status = Approved
	return mustAdd(t, s, n).Memory.ID
}

func TestRankOrder(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := fixedClock(s, now.Add(-100*24*time.Hour))
	old := approve(t, s, NewMemory{Project: "/p", Type: Decision, Content: "Payments go through Stripe Checkout sessions"})
	*clock = now
	fresh := approve(t, s, NewMemory{Project: "/p", Type: Decision, Content: "Stripe webhooks are verified with the signing secret"})
	important := approve(t, s, NewMemory{Project: "/p", Type: Decision, Content: "Never store card numbers; Stripe holds them", Importance: 5})
	other := approve(t, s, NewMemory{Project: "/other", Type: Decision, Content: "Stripe is used for billing there too"})
	global := approve(t, s, NewMemory{Type: Preference, Content: "Prefer Stripe test clocks for subscription tests"})
	mustAdd(t, s, NewMemory{Project: "/p", Type: Decision, Content: "Stripe pending memory is not recalled"})
	progress := approve(t, s, NewMemory{Project: "/p", Type: Progress, Content: "Migrating Stripe customers to the new schema"})

	rs, err := s.Recall.Rank(ctx, "stripe", RankOptions{Project: "/p", Limit: 10, Threshold: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]int{}
	for i, r := range rs {
		pos[r.ID] = i + 1
		if r.Status != Approved {
			t.Fatalf("ranked a %s memory", r.Status)
		}
	}
	if pos[other] != 0 {
		t.Fatal("another project's memory was ranked")
	}
	if pos[global] == 0 || pos[important] == 0 || pos[fresh] == 0 || pos[old] == 0 || pos[progress] == 0 {
		t.Fatalf("missing results: %v", pos)
	}
	if !(pos[important] < pos[fresh]) {
		t.Fatalf("importance 5 should outrank importance 3: %v", pos)
	}
	if !(pos[fresh] < pos[old]) {
		t.Fatalf("a 100-day-old memory should rank below a fresh one: %v", pos)
	}
	// Progress decays: after 7 days it is gone.
	*clock = now.Add(8 * 24 * time.Hour)
	rs, _ = s.Recall.Rank(ctx, "stripe customers", RankOptions{Project: "/p", Threshold: 0.01})
	for _, r := range rs {
		if r.ID == progress {
			t.Fatal("decayed progress memory still ranked")
		}
	}
	*clock = now
	// Threshold and exclusion.
	rs, _ = s.Recall.Rank(ctx, "stripe", RankOptions{Project: "/p", Threshold: 10})
	if len(rs) != 0 {
		t.Fatalf("threshold 10 let %d through", len(rs))
	}
	rs, _ = s.Recall.Rank(ctx, "stripe", RankOptions{Project: "/p", Threshold: 0.01, Exclude: []string{important}})
	for _, r := range rs {
		if r.ID == important {
			t.Fatal("excluded memory ranked")
		}
	}
	// Nothing in common: nothing ranked.
	if rs, _ := s.Recall.Rank(ctx, "kubernetes helm chart", RankOptions{Project: "/p", Threshold: 0.01}); len(rs) != 0 {
		t.Fatalf("unrelated query ranked %d", len(rs))
	}
	// Touch counts accesses.
	rs, err = s.Recall.Rank(ctx, "card numbers", RankOptions{Project: "/p", Threshold: 0.01, Touch: true})
	if err != nil || len(rs) == 0 || rs[0].ID != important || rs[0].AccessCount != 1 {
		t.Fatalf("touch: %v %+v", err, rs)
	}
	m, _ := s.Get(ctx, important)
	if m.AccessCount != 1 || m.LastAccess.IsZero() {
		t.Fatalf("access not stored: %+v", m)
	}
}

func TestTopAndSearch(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	a := approve(t, s, NewMemory{Project: "/p", Type: Architecture, Content: "Services talk over NATS subjects", Importance: 5})
	b := approve(t, s, NewMemory{Project: "/p", Type: Fact, Content: "The NATS cluster has three nodes", Importance: 2})
	pend := mustAdd(t, s, NewMemory{Project: "/p", Type: Fact, Content: "NATS JetStream is enabled", Tags: []string{"nats"}}).Memory.ID
	rej := mustAdd(t, s, NewMemory{Project: "/p", Type: Fact, Content: "NATS is deprecated here"}).Memory.ID
	if _, err := s.Curator.SetStatus(ctx, rej, Rejected); err != nil {
		t.Fatal(err)
	}
	top, err := s.Recall.Top(ctx, "/p", 10)
	if err != nil || len(top) != 2 || top[0].ID != a || top[1].ID != b {
		t.Fatalf("top: %v %+v", err, top)
	}
	rs, err := s.Recall.Search(ctx, "nats", nil, nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rs {
		seen[r.ID] = true
	}
	if !seen[pend] || seen[rej] || !seen[a] {
		t.Fatalf("search: pending must be found, rejected not: %v", seen)
	}
	clock := fixedClock(s, time.Now().Add(time.Hour))
	newest := mustAdd(t, s, NewMemory{Project: "/p", Type: Context, Content: "Quarter closes on Friday"}).Memory.ID
	*clock = time.Now()
	if rs, _ := s.Recall.Search(ctx, "", nil, nil, 2); len(rs) != 2 || rs[0].ID != newest {
		t.Fatalf("search without a query: newest first: %+v", rs)
	}
	rs, _ = s.Recall.Search(ctx, "nats", []Type{Fact}, []string{"nats"}, 10)
	if len(rs) != 1 || rs[0].ID != pend {
		t.Fatalf("search by type and tag: %+v", rs)
	}
	rel, err := s.Recall.Related(ctx, b, nil, 5)
	if err != nil || len(rel) == 0 {
		t.Fatalf("related: %v %+v", err, rel)
	}
	for _, m := range rel {
		if m.ID == rej || m.ID == b {
			t.Fatalf("related returned %s", m.ID)
		}
	}
}

func TestInjectionsAndUsage(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	claude := t.TempDir()
	used := approve(t, s, NewMemory{Type: Gotcha, Content: "Run migrations with `make migrate-up` before integration tests"})
	unused := approve(t, s, NewMemory{Type: Fact, Content: "The design system lives in the figma workspace"})
	tr := newTranscript("31111111-2222-4333-8444-555555555555", "/work/proj")
	tr.user("run the integration tests")
	tr.write(t, s, claude)
	if err := s.Feedback.RecordInjection(ctx, tr.sid, "UserPromptSubmit", []string{used, unused, used}); err != nil {
		t.Fatal(err)
	}
	if err := s.Feedback.RecordInjection(ctx, tr.sid, "UserPromptSubmit", []string{used}); err != nil {
		t.Fatal(err)
	}
	ids, err := s.Feedback.Injected(ctx, tr.sid)
	if err != nil || len(ids) != 2 {
		t.Fatalf("injected: %v %v", err, ids)
	}
	m, _ := s.Get(ctx, used)
	if m.Injected != 1 {
		t.Fatalf("injected counted %d times", m.Injected)
	}
	tr.t0 = time.Now().Add(time.Minute) // written after the injection
	tr.assistant("First I run `make migrate-up` so the migrations are applied, then the integration tests.")
	tr.write(t, s, claude)
	checked, n, err := s.Feedback.ScoreUsage(ctx, tr.sid)
	if err != nil || checked != 2 || n != 1 {
		t.Fatalf("usage: %v checked %d used %d", err, checked, n)
	}
	m, _ = s.Get(ctx, used)
	if m.Used != 1 {
		t.Fatalf("used = %d", m.Used)
	}
	if checked, _, _ := s.Feedback.ScoreUsage(ctx, tr.sid); checked != 0 {
		t.Fatal("usage scored twice")
	}
}

// TestConcurrentUse: one service used from several goroutines (the TUI, an
// MCP server) stays consistent (run with -race).
func TestConcurrentUse(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	for i := range 20 {
		approve(t, s, NewMemory{Project: "/p", Type: Types[i%len(Types)], Content: fmt.Sprintf("Fact number %d about the billing queue", i)})
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 10 {
				switch (g + i) % 4 {
				case 0:
					if _, err := s.Recall.Rank(ctx, "billing queue", RankOptions{Project: "/p", Threshold: 0.01, Touch: i%2 == 0}); err != nil {
						t.Error(err)
					}
				case 1:
					if _, err := s.Curator.Add(ctx, NewMemory{Project: "/p", Type: Fact, Content: fmt.Sprintf("Goroutine %d note %d on invoices", g, i)}); err != nil {
						t.Error(err)
					}
				case 2:
					if _, err := s.Recall.Top(ctx, "/p", 5); err != nil {
						t.Error(err)
					}
				case 3:
					if _, err := s.Recall.Search(ctx, "invoices", nil, nil, 5); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestRankLongPrompt: a long prompt (what UserPromptSubmit sends) still
// finds the memory it is about, above the hook's default threshold, well
// ahead of memories sharing only common words.
func TestRankLongPrompt(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	want := approve(t, s, NewMemory{Project: "/p", Type: Gotcha, Content: "The websocket test is flaky because of a reconnect race; await the open event"})
	// Distinct facts that share only common words with the prompt.
	for i := range 15 {
		w := benchVocab[200+3*i : 203+3*i]
		approve(t, s, NewMemory{Project: "/p", Type: Fact, Content: fmt.Sprintf("The %s %s test run in CI covers the %s module", w[0], w[1], w[2])})
	}
	prompt := `I'm looking at the CI run from this morning and the test job failed again. Could you go through the logs,
figure out whether it's the websocket reconnect thing we saw last week or something new in the billing module, and then
update the changelog and the docs for the release? Also check whether the staging deploy picked up the new config.`
	rs, err := s.Recall.Rank(ctx, prompt, RankOptions{Project: "/p", Threshold: 0.35, Limit: 3, Prompt: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) == 0 || rs[0].ID != want {
		t.Fatalf("long prompt: %+v", rs)
	}
	for _, r := range rs[1:] {
		if r.Score > 0.8*rs[0].Score {
			t.Fatalf("a common-words memory scored close to the one the prompt is about: %.3f vs %.3f", r.Score, rs[0].Score)
		}
	}
}
