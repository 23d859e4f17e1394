package memories

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Stats counts by type, status and project, computes hit rates over
// settled injections only, lists never-used memories after PruneAfter
// injections, and reports keep rates per origin.
func TestStats(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	now := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
	fixedClock(s, now)
	add := func(typ Type, content, project, origin string, st Status) string {
		r := mustAdd(t, s, NewMemory{Type: typ, Content: content, Project: project, Origin: origin, Status: st, Importance: 3})
		return r.Memory.ID
	}
	used := add(Gotcha, "pnpm install needs --frozen-lockfile in CI or the lockfile drifts", "/p/a", OriginExtractor, Approved)
	never := add(Decision, "The API keeps versioned routes under /v2 and never breaks /v1", "/p/a", OriginExtractor, Approved)
	add(Fact, "Postgres 16 runs on port 5433 in the dev container", "/p/b", OriginRemember, Pending)
	rej := add(Fact, "The build is slow today", "/p/b", OriginExtractor, Pending)
	if _, err := s.Curator.SetStatus(ctx, rej, Rejected); err != nil {
		t.Fatal(err)
	}
	// Six sessions injected both; one used the first. Two injections 20
	// days ago, the rest today.
	for i := range 6 {
		sid := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		at := now
		if i < 2 {
			at = now.Add(-20 * 24 * time.Hour)
		}
		if err := s.st.Mem().RecordInjection(ctx, sid, "prompt", []string{used, never}, at); err != nil {
			t.Fatal(err)
		}
		var u []string
		if i == 5 {
			u = []string{used}
		}
		if err := s.st.Mem().MarkUsage(ctx, sid, []string{used, never}, u); err != nil {
			t.Fatal(err)
		}
	}
	st, err := s.Feedback.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Total != 4 || st.ByStatus["approved"] != 2 || st.ByStatus["pending"] != 1 || st.ByStatus["rejected"] != 1 {
		t.Fatalf("counts: %d %v", st.Total, st.ByStatus)
	}
	if st.ByType["gotcha"]["approved"] != 1 || st.ByProject["/p/b"]["pending"] != 1 {
		t.Fatalf("by type %v, by project %v", st.ByType, st.ByProject)
	}
	w7, all := st.Use[0], st.Use[2]
	if w7.Days != 7 || w7.Total.Injected != 8 || all.Total.Injected != 12 || all.Total.Used != 1 {
		t.Fatalf("use windows: %+v %+v", w7.Total, all.Total)
	}
	if r := all.Total.HitRate; r == nil || *r != 1.0/12 {
		t.Fatalf("hit rate %v, want 1/12", r)
	}
	if len(st.NeverUsed) != 1 || st.NeverUsed[0].ID != never || len(st.TopUsed) != 1 || st.TopUsed[0].ID != used {
		t.Fatalf("never used %v, top used %v", st.NeverUsed, st.TopUsed)
	}
	if st.PerDay[29] != 8 || st.PerDay[9] != 4 {
		t.Fatalf("per day %v", st.PerDay)
	}
	var ex *OriginStats
	for i := range st.Extraction {
		if st.Extraction[i].Origin == OriginExtractor {
			ex = &st.Extraction[i]
		}
	}
	if ex == nil || ex.Proposed != 3 || ex.Approved != 2 || ex.Rejected != 1 || ex.KeepRate == nil || *ex.KeepRate != 2.0/3 || *ex.ReviewedKeepRate != 2.0/3 {
		t.Fatalf("extraction: %+v", ex)
	}
	rep := st.Report(100)
	for _, want := range []string{"Memories: 4", "hit rate 8%", never, "keep 67% (67%)", "per day, 30 days"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
}
