package memories

import (
	"context"
	"errors"
	"testing"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/internal/testutil/teststore"
)

const wrongGotcha = "The sandbox test needs SANDBOX_TIMEOUT=30 or it hangs on CI."
const rightGotcha = "The sandbox test needs SANDBOX_TIMEOUT=90 or it hangs on CI runners."

func TestCorrectPendingInPlace(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	m := mustAdd(t, s, NewMemory{Project: "/p", Type: Gotcha, Content: wrongGotcha, Status: Pending}).Memory
	r, err := s.Correct(ctx, CorrectRequest{ID: m.ID, Content: rightGotcha, Reason: "the timeout is 90", Session: "s-1", By: "mcp"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Action != ActionCorrected || r.Replacement != nil || r.Memory.Content != rightGotcha || r.Memory.Status != Pending {
		t.Fatalf("result %+v", r)
	}
	got, _ := s.Get(ctx, m.ID)
	if got.Content != rightGotcha {
		t.Errorf("stored %q", got.Content)
	}
	recs, err := s.Audit(ctx, m.ID)
	if err != nil || len(recs) != 1 || recs[0].Before != wrongGotcha || recs[0].After != rightGotcha || recs[0].Reason != "the timeout is 90" ||
		recs[0].By != "mcp" || recs[0].Session != "s-1" {
		t.Fatalf("audit %+v %v", recs, err)
	}
}

// An approved memory is the person's: a correction is a pending
// replacement; the original stays approved (and injected) until the
// replacement is approved, which supersedes it.
func TestCorrectApprovedProposesReplacement(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	m := mustAdd(t, s, NewMemory{Project: "/p", Type: Gotcha, Content: wrongGotcha, Status: Approved}).Memory
	r, err := s.Correct(ctx, CorrectRequest{ID: m.ID, Content: rightGotcha, By: "mcp"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Action != ActionReplacementProposed || r.Replacement == nil || r.Replacement.Status != Pending || r.Replacement.Content != rightGotcha {
		t.Fatalf("result %+v", r)
	}
	if got, _ := s.Get(ctx, m.ID); got.Status != Approved || got.Content != wrongGotcha {
		t.Fatalf("original changed before review: %+v", got)
	}
	if _, err := s.SetStatus(ctx, r.Replacement.ID, Approved); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(ctx, m.ID); got.Status != Superseded {
		t.Errorf("original is %s after the replacement's approval, want superseded", got.Status)
	}
	for _, id := range []string{m.ID, r.Replacement.ID} {
		recs, err := s.Audit(ctx, id)
		if err != nil || len(recs) != 1 || recs[0].Action != ActionReplacementProposed || recs[0].Replacement != r.Replacement.ID {
			t.Errorf("audit of %s: %+v %v", id, recs, err)
		}
	}
}

// memories.remember_status = "approved" trusts Claude's changes.
func TestCorrectAndForgetTrusted(t *testing.T) {
	ctx := context.Background()
	cfg := config.Default()
	cfg.Memories.RememberStatus = "approved"
	s := New(teststore.Open(t), cfg)
	m := mustAdd(t, s, NewMemory{Project: "/p", Type: Gotcha, Content: wrongGotcha, Status: Approved}).Memory
	r, err := s.Correct(ctx, CorrectRequest{ID: m.ID, Content: rightGotcha})
	if err != nil || r.Action != ActionCorrected || r.Memory.Status != Approved || r.Memory.Content != rightGotcha {
		t.Fatalf("correct: %+v %v", r, err)
	}
	f, err := s.Forget(ctx, ForgetRequest{ID: m.ID, Reason: "obsolete"})
	if err != nil || f.Action != ActionRejected || f.Memory.Status != Rejected {
		t.Fatalf("forget: %+v %v", f, err)
	}
}

func TestForgetRespectsReview(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	pending := mustAdd(t, s, NewMemory{Project: "/p", Type: Fact, Content: "The API lives in api/ and is written in Go.", Status: Pending}).Memory
	approved := mustAdd(t, s, NewMemory{Project: "/p", Type: Decision, Content: "We deploy with Fly.io from the main branch only.", Status: Approved}).Memory
	r, err := s.Forget(ctx, ForgetRequest{ID: pending.ID, Reason: "wrong", By: "mcp"})
	if err != nil || r.Action != ActionRejected || r.Memory.Status != Rejected {
		t.Fatalf("pending: %+v %v", r, err)
	}
	r, err = s.Forget(ctx, ForgetRequest{ID: approved.ID, Reason: "we moved to k8s", By: "mcp"})
	if err != nil || r.Action != ActionBackToReview || r.Memory.Status != Pending {
		t.Fatalf("approved: %+v %v", r, err)
	}
	recs, _ := s.Audit(ctx, approved.ID)
	if len(recs) != 1 || recs[0].StatusFrom != Approved || recs[0].StatusTo != Pending || recs[0].Reason != "we moved to k8s" {
		t.Errorf("audit %+v", recs)
	}
	// Rejected memories are history.
	if _, err := s.Forget(ctx, ForgetRequest{ID: pending.ID}); !errors.Is(err, ErrNotEditable) {
		t.Errorf("forgetting a rejected memory: %v", err)
	}
	if _, err := s.Correct(ctx, CorrectRequest{ID: pending.ID, Content: "x y z"}); !errors.Is(err, ErrNotEditable) {
		t.Errorf("correcting a rejected memory: %v", err)
	}
	if _, err := s.Correct(ctx, CorrectRequest{ID: "m-nonexistent", Content: "x"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
}
