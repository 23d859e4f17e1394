package memories

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestAddListGetLifecycle(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	r := mustAdd(t, s, NewMemory{Project: "/p", Type: Decision, Content: "We use Stripe Checkout, not custom payment forms", Tags: []string{"Payments", "payments"}})
	if r.Action != ActionAdded || r.Memory.Status != Pending || r.Memory.Importance != 3 {
		t.Fatalf("add: %+v", r)
	}
	if !strings.HasPrefix(r.Memory.ID, "m-") || len(r.Memory.ID) != 10 {
		t.Fatalf("id %q", r.Memory.ID)
	}
	if len(r.Memory.Tags) != 1 || r.Memory.Tags[0] != "payments" {
		t.Fatalf("tags %v", r.Memory.Tags)
	}
	m, err := s.Get(ctx, r.Memory.ID[2:6])
	if err != nil || m.Content != r.Memory.Content {
		t.Fatalf("get by prefix: %v %+v", err, m)
	}
	if _, err := s.Get(ctx, "m-zzzzzzzz"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "m-zzzzzzzz") {
		t.Fatalf("unknown id: %v", err)
	}
	if _, err := s.Get(ctx, "ab"); err == nil || !strings.Contains(err.Error(), "too short") {
		t.Fatalf("short id: %v", err)
	}
	r2 := mustAdd(t, s, NewMemory{Project: "/p", Type: Preference, Content: "User prefers table-driven tests in Go"})
	if _, err := s.Curator.SetStatus(ctx, r2.Memory.ID, Approved); err != nil {
		t.Fatal(err)
	}
	list, err := s.List(ctx, Filter{})
	if err != nil || len(list) != 2 || list[0].ID != r.Memory.ID {
		t.Fatalf("list: pending first: %v %+v", err, list)
	}
	list, _ = s.List(ctx, Filter{Statuses: []Status{Approved}})
	if len(list) != 1 || list[0].ID != r2.Memory.ID {
		t.Fatalf("list approved: %+v", list)
	}
	list, _ = s.List(ctx, Filter{Types: []Type{Decision}})
	if len(list) != 1 || list[0].Type != Decision {
		t.Fatalf("list by type: %+v", list)
	}
	c, err := s.Counts(ctx)
	if err != nil || c.PendingMemories != 1 || c.ByStatus[Approved] != 1 {
		t.Fatalf("counts %+v %v", c, err)
	}
	content, imp := "We use Stripe Checkout for all payments", 5
	typ := Architecture
	m, err = s.Curator.Update(ctx, r.Memory.ID, Update{Content: &content, Importance: &imp, Type: &typ})
	if err != nil || m.Content != content || m.Importance != 5 || m.Type != Architecture {
		t.Fatalf("update: %v %+v", err, m)
	}
	bad := 9
	if _, err := s.Curator.Update(ctx, r.Memory.ID, Update{Importance: &bad}); err == nil {
		t.Fatal("importance 9 accepted")
	}
	empty := "  "
	if _, err := s.Curator.Update(ctx, r.Memory.ID, Update{Content: &empty}); err == nil {
		t.Fatal("empty content accepted")
	}
	if err := s.Curator.Delete(ctx, r.Memory.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, r.Memory.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted memory still found: %v", err)
	}
	u, err := s.Curator.Undo(ctx)
	if err != nil || u.ID != r.Memory.ID || u.Content != content || u.Importance != 5 {
		t.Fatalf("undo: %v %+v", err, u)
	}
	if _, err := s.Curator.Undo(ctx); err == nil {
		t.Fatal("second undo restored something")
	}
	if err := s.Curator.Delete(ctx, "m-00000000"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete unknown: %v", err)
	}
}

func TestAddRejectsBadInput(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	for _, n := range []NewMemory{
		{Type: "opinion", Content: "x is good"},
		{Type: Fact, Content: "   \n"},
		{Type: Fact, Content: "fine", Importance: 7},
	} {
		if _, err := s.Curator.Add(ctx, n); err == nil {
			t.Errorf("accepted %+v", n)
		}
	}
}

func TestAutoApproveAndRememberStatus(t *testing.T) {
	s := newService(t)
	s.cfg.Memories.AutoApprove = []string{"preference"}
	r := mustAdd(t, s, NewMemory{Type: Preference, Content: "Prefer small commits with clear messages"})
	if r.Memory.Status != Approved {
		t.Fatalf("auto-approved type: %s", r.Memory.Status)
	}
	r = mustAdd(t, s, NewMemory{Type: Fact, Content: "The CI runs on two cores only"})
	if r.Memory.Status != Pending {
		t.Fatalf("other type: %s", r.Memory.Status)
	}
	s.cfg.Memories.RememberStatus = "approved"
	r = mustAdd(t, s, NewMemory{Type: Fact, Content: "Deploys happen on Tuesdays", Origin: OriginRemember})
	if r.Memory.Status != Approved {
		t.Fatalf("remember: %s", r.Memory.Status)
	}
}

func TestConfidenceDecay(t *testing.T) {
	now := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	cases := []struct {
		typ  Type
		age  time.Duration
		want float64
	}{
		{Progress, 0, 1}, {Progress, 3*day + 12*time.Hour, 0.5}, {Progress, 7 * day, 0}, {Progress, 30 * day, 0},
		{Context, 15 * day, 0.5}, {Context, 31 * day, 0},
		{Decision, 400 * day, 1}, {Fact, 1000 * day, 1},
	}
	for _, c := range cases {
		if got := confidence(c.typ, now.Add(-c.age), now); abs(got-c.want) > 1e-9 {
			t.Errorf("confidence(%s, %v) = %v, want %v", c.typ, c.age, got, c.want)
		}
	}
	rec := []struct {
		age  time.Duration
		want float64
	}{{0, 1}, {6 * day, 1}, {7 * day, 1}, {48*day + 12*time.Hour, 0.75}, {90 * day, 0.5}, {400 * day, 0.5}}
	for _, c := range rec {
		if got := recency(now.Add(-c.age), now); abs(got-c.want) > 1e-9 {
			t.Errorf("recency(%v) = %v, want %v", c.age, got, c.want)
		}
	}
	// Decay is applied when memories are read.
	s := newService(t)
	clock := fixedClock(s, now)
	r := mustAdd(t, s, NewMemory{Type: Progress, Content: "Halfway through migrating the billing tables"})
	*clock = now.Add(3*day + 12*time.Hour)
	m, err := s.Get(context.Background(), r.Memory.ID)
	if err != nil || abs(m.Confidence-0.5) > 1e-6 {
		t.Fatalf("read-time decay: %v %+v", err, m)
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// An approved memory added in a batch (an extraction's write set) marks
// the approved or pending memories it supersedes, in the batch's cache
// and, once flushed, in the store; a rejected one stays as it is.
func TestAddBatchApprovedSupersedes(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	old := mustAdd(t, s, NewMemory{Project: "/p", Type: Fact, Content: "The staging database listens on port 5433", Status: Approved})
	pend := mustAdd(t, s, NewMemory{Project: "/p", Type: Gotcha, Content: "Redis keys expire after one hour in the cache layer"})
	rej := mustAdd(t, s, NewMemory{Project: "/p", Type: Pattern, Content: "Handlers return typed errors wrapped with fmt.Errorf", Status: Rejected})
	s.mu.Lock()
	var ws writeSet
	r, err := s.add(ctx, NewMemory{Project: "/p", Type: Decision, Content: "Staging moved to the managed Postgres cluster on port 6432",
		Status: Approved, Supersedes: []string{old.Memory.ID, pend.Memory.ID, rej.Memory.ID, "m-unknown1"}}, false, &ws)
	if err == nil {
		if c := ws.mc.byID[old.Memory.ID]; c == nil || c.row.Status != Superseded {
			t.Errorf("the batch's cache does not show %s superseded", old.Memory.ID)
		}
		err = s.flush(ctx, &ws)
	}
	s.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if r.Action != ActionAdded || len(r.Memory.Links) < 3 {
		t.Fatalf("add: %+v", r)
	}
	for id, want := range map[string]Status{old.Memory.ID: Superseded, pend.Memory.ID: Superseded, rej.Memory.ID: Rejected, r.Memory.ID: Approved} {
		m, err := s.Get(ctx, id)
		if err != nil || m.Status != want {
			t.Errorf("%s: %v, status %s, want %s", id, err, m.Status, want)
		}
	}
}
