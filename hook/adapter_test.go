package hook

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/internal/testutil/teststore"
	"github.com/cairn-dev/cairn/memories"
)

// The hooks' fast Top ranks exactly as memories.Service.Top.
func TestBriefMatchesService(t *testing.T) {
	ctx := context.Background()
	st := teststore.Open(t)
	now := time.Now()
	svc := memories.New(st, config.Default())
	types := []memories.Type{memories.Decision, memories.Progress, memories.Context, memories.Gotcha, memories.Fact}
	for i := range 60 {
		svc.SetClock(func() time.Time { return now.Add(-time.Duration(i*37) * time.Hour) })
		project := []string{"/p", "/q", ""}[i%3]
		status := memories.Approved
		if i%7 == 0 {
			status = memories.Pending
		}
		_, err := svc.Curator.Add(ctx, memories.NewMemory{Project: project, Type: types[i%len(types)], Importance: 1 + i%5, Status: status,
			Content: fmt.Sprintf("memory %d about module%d and function f%d with detail d%d", i, i, i, i)})
		if err != nil {
			t.Fatal(err)
		}
	}
	svc.SetClock(func() time.Time { return now })
	want, err := svc.Recall.Top(ctx, "/p", 25)
	if err != nil {
		t.Fatal(err)
	}
	b, err := serviceMem{s: svc}.Brief(ctx, "/p", 25, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := b.Memories
	if b.PendingMemories == 0 {
		t.Fatal("the brief does not count pending memories")
	}
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("got %d memories, want %d", len(got), len(want))
	}
	for i := range want {
		// The adapter's clock runs on from the service's frozen one: scores
		// of memories older than a week drift by a hair.
		if got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 1e-4 {
			t.Fatalf("rank %d: got %s %.4f, want %s %.4f", i, got[i].ID, got[i].Score, want[i].ID, want[i].Score)
		}
	}
}
