package memories

import (
	"context"
	"testing"
	"time"
)

// Claude Code often runs Stop before the transcript holds the reply. A
// scoring at that point must not settle the injections as unused: the
// reply comes with the Stop payload (last_assistant_message), and only
// the session's end settles what was not used.
func TestUsageWaitsForTheReply(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	claude := t.TempDir()
	usedLater := approve(t, s, NewMemory{Type: Gotcha, Content: "Run migrations with `make migrate-up` before integration tests"})
	usedNow := approve(t, s, NewMemory{Type: Fact, Content: "The sandbox suite needs SANDBOX_TIMEOUT=90 on CI runners"})
	never := approve(t, s, NewMemory{Type: Fact, Content: "The design system lives in the figma workspace"})
	tr := newTranscript("41111111-2222-4333-8444-555555555555", "/work/proj")
	tr.user("run the integration tests")
	tr.write(t, s, claude)
	if err := s.Feedback.RecordInjectionSinceReset(ctx, tr.sid, "SessionStart", []string{usedLater, usedNow, never}); err != nil {
		t.Fatal(err)
	}
	// Stop, before the transcript has the reply: nothing is settled.
	if checked, used, err := s.Feedback.ScoreUsageWith(ctx, tr.sid, UsageOptions{}); err != nil || checked != 0 || used != 0 {
		t.Fatalf("Stop without a reply settled %d (used %d): %v", checked, used, err)
	}
	// Stop with last_assistant_message: the memory used is recorded; the
	// others stay open.
	checked, used, err := s.Feedback.ScoreUsageWith(ctx, tr.sid, UsageOptions{Reply: "I set SANDBOX_TIMEOUT=90 for the sandbox suite on CI runners."})
	if err != nil || checked != 1 || used != 1 {
		t.Fatalf("Stop with the reply: checked %d used %d %v", checked, used, err)
	}
	// A later turn uses another one; the session's end settles the rest.
	tr.t0 = time.Now().Add(time.Minute)
	tr.assistant("First I run `make migrate-up` so the migrations are applied, then the integration tests.")
	tr.write(t, s, claude)
	checked, used, err = s.Feedback.ScoreUsageWith(ctx, tr.sid, UsageOptions{Final: true})
	if err != nil || checked != 2 || used != 1 {
		t.Fatalf("SessionEnd: checked %d used %d %v", checked, used, err)
	}
	for id, want := range map[string]int{usedLater: 1, usedNow: 1, never: 0} {
		if m, _ := s.Get(ctx, id); m.Used != want || m.Injected != 1 {
			t.Errorf("%s: used %d injected %d, want used %d", m.Content, m.Used, m.Injected, want)
		}
	}
	if checked, _, _ := s.Feedback.ScoreUsageWith(ctx, tr.sid, UsageOptions{Final: true}); checked != 0 {
		t.Errorf("a second SessionEnd settled %d again", checked)
	}
}

// After compaction the model no longer holds what was injected before:
// the session's injected set starts afresh, and a re-injection is an
// injection of its own.
func TestCompactionResetsInjected(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	base := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	now := base
	s.SetClock(func() time.Time { return now })
	id := approve(t, s, NewMemory{Type: Gotcha, Content: "Run migrations with `make migrate-up` before integration tests"})
	const sid = "51111111-2222-4333-8444-555555555555"
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Feedback.RecordInjectionSinceReset(ctx, sid, "UserPromptSubmit", []string{id}))
	if got, _ := s.Feedback.InjectedSinceReset(ctx, sid); len(got) != 1 {
		t.Fatalf("injected %v", got)
	}
	now = base.Add(time.Minute)
	must(s.Feedback.ResetInjected(ctx, sid))
	if got, _ := s.Feedback.InjectedSinceReset(ctx, sid); len(got) != 0 {
		t.Fatalf("after compaction: %v", got)
	}
	now = base.Add(2 * time.Minute)
	must(s.Feedback.RecordInjectionSinceReset(ctx, sid, "UserPromptSubmit", []string{id}))
	if got, _ := s.Feedback.InjectedSinceReset(ctx, sid); len(got) != 1 {
		t.Fatalf("re-injected after compaction: %v", got)
	}
	if m, _ := s.Get(ctx, id); m.Injected != 2 {
		t.Errorf("injected counted %d times, want 2", m.Injected)
	}
}

// The review reminder (a brief with Reminder, the SessionStart hook's)
// counts this project's pending work only, and is given at most once a
// day; a brief without it counts every project's, every time.
func TestReviewReminderPerProjectOnceADay(t *testing.T) {
	ctx := context.Background()
	s := sampleService(t)
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	s.SetClock(func() time.Time { return now })
	d, err := s.Drafts.AddDraft(ctx, sampleSpotter, goodDraft)
	if err != nil {
		t.Fatal(err)
	}
	a := d.Project // the draft's session's
	for _, n := range []NewMemory{
		{Project: a, Type: Fact, Content: "Project A deploys with make deploy-a from main"},
		{Project: "/b", Type: Fact, Content: "Project B uses pnpm and never npm"},
		{Project: "/b", Type: Gotcha, Content: "Project B's e2e tests need the mock server on port 4010"},
		{Type: Preference, Content: "Answer in short bullet points"},
	} {
		n.Status = Pending
		mustAdd(t, s, n)
	}
	reminder := func(project string) (int, int) {
		t.Helper()
		b, err := s.Recall.Brief(ctx, project, BriefOptions{Reminder: true})
		if err != nil {
			t.Fatal(err)
		}
		return b.PendingMemories, b.PendingDrafts
	}
	if m, d := reminder(a); m != 2 || d != 1 {
		t.Fatalf("first reminder for %s: %d memories %d drafts, want 2 (its own and the global one) and 1", a, m, d)
	}
	now = now.Add(23 * time.Hour)
	if m, d := reminder(a); m+d != 0 {
		t.Errorf("reminded twice in a day: %d %d", m, d)
	}
	if m, d := reminder("/b"); m != 3 || d != 0 {
		t.Errorf("another project's reminder is its own: %d %d, want 3 0", m, d)
	}
	if m, d := reminder(""); m+d != 0 {
		t.Errorf("no project, no reminder: %d %d", m, d)
	}
	// Without Reminder: every project's counts, every time.
	for range 2 {
		if b, err := s.Recall.Brief(ctx, a, BriefOptions{}); err != nil || b.PendingMemories != 4 || b.PendingDrafts != 1 {
			t.Errorf("plain brief: %d %d %v, want 4 1", b.PendingMemories, b.PendingDrafts, err)
		}
	}
	now = now.Add(2 * time.Hour)
	if m, _ := reminder(a); m != 2 {
		t.Error("no reminder the next day")
	}
}

// Rank has nothing to rank when every approved memory of the project
// (and every global one) is excluded: it answers empty without loading
// the memory cache (the hook ranks on every prompt).
func TestRankSkipsWhenNothingIsLeft(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	id := approve(t, s, NewMemory{Project: "/a", Type: Fact, Content: "Project A deploys with make deploy-a from main"})
	approve(t, s, NewMemory{Project: "/b", Type: Fact, Content: "Project B deploys with make deploy-b from main"})
	s.cache = nil // adding loaded it
	rs, err := s.Recall.Rank(ctx, "how does project A deploy from main", RankOptions{Project: "/a", Exclude: []string{id}, Prompt: true})
	if err != nil || rs == nil || len(rs) != 0 {
		t.Fatalf("all excluded: %v %v, want an empty list", rs, err)
	}
	if s.cache != nil {
		t.Error("the cache was loaded with nothing to rank")
	}
	rs, err = s.Recall.Rank(ctx, "how does project A deploy from main", RankOptions{Project: "/a", Prompt: true})
	if err != nil || len(rs) != 1 || rs[0].ID != id {
		t.Fatalf("with a candidate: %v %v", rs, err)
	}
	if s.cache == nil {
		t.Error("ranking a candidate did not load the cache")
	}
}
