package memories

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/index"
)

// syntheticStore fills s with n memories over 20 projects: mostly distinct
// facts (random identifiers, so no two overlap), plus planted clusters of
// three paraphrases each, some stale and some long-retired memories. It
// returns the planted clusters.
func syntheticStore(t testing.TB, s *Service, n int, now time.Time) (clusters [][]string, stale, old []string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		const letters = "abcdefghijklmnopqrstuvwxyz"
		b := make([]byte, 6+rng.IntN(5))
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		return string(b)
	}
	var rows []*index.MemRow
	mk := func(project string, typ Type, content string, status Status, updated time.Time) *index.MemRow {
		r := &index.MemRow{ID: newID("m-"), Project: project, Type: typ, Content: content, Status: status, Importance: 3,
			Origin: OriginExtractor, Created: updated, Updated: updated, Tags: []string{}, SourceUUIDs: []string{newID("u-")}}
		rows = append(rows, r)
		return r
	}
	paraphrases := []string{
		"The %s service needs %s set before %s starts, or the %s health check fails",
		"Set %s for the %s service before starting %s; otherwise the %s health check fails",
		"Before %[3]s starts, the %[1]s service must have %[2]s set or its %[4]s health check fails",
	}
	for i := 0; len(rows) < n; i++ {
		project := fmt.Sprintf("/home/dev/p%02d", i%20)
		switch {
		case i%50 == 0:
			a, b, c, d := word(), word(), word(), word()
			var ids []string
			for k, p := range paraphrases {
				st := Approved
				if k > 0 {
					st = Pending
				}
				ids = append(ids, mk(project, "gotcha", fmt.Sprintf(p, a, b, c, d), st, now.Add(-time.Duration(k)*time.Hour)).ID)
			}
			clusters = append(clusters, ids)
		case i%97 == 0:
			r := mk(project, "fact", fmt.Sprintf("%s %s %s %s %s uses port %d", word(), word(), word(), word(), word(), 1000+i), Approved, now)
			r.Injected = 9
			stale = append(stale, r.ID)
		case i%101 == 0:
			old = append(old, mk(project, "fact", fmt.Sprintf("%s %s %s retired %s", word(), word(), word(), word()), Archived, now.Add(-400*24*time.Hour)).ID)
		default:
			mk(project, []Type{Fact, Gotcha, Decision, Bugfix}[i%4],
				fmt.Sprintf("%s %s %s %s %s %s %s", word(), word(), word(), word(), word(), word(), word()), Approved, now)
		}
	}
	if err := s.st.Mem().Save(context.Background(), rows...); err != nil {
		t.Fatal(err)
	}
	return clusters, stale, old
}

func TestConsolidate10k(t *testing.T) {
	if withoutRace.RanAlone(t) {
		return // all 10,000 without the race detector
	}
	ctx := context.Background()
	s := newService(t)
	now := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	fixedClock(s, now)
	n := 10_000
	if testing.Short() {
		n = 2_000
	}
	clusters, stale, old := syntheticStore(t, s, n, now)

	dry, err := s.Curator.Consolidate(ctx, ConsolidateOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d memories: dry run in %v: %d merges, %d stale, %d to prune", dry.Scanned, dry.Took, len(dry.Merges), len(dry.Stale), len(dry.Pruned))
	if len(dry.Merges) != len(clusters) {
		t.Errorf("proposed %d merges, planted %d clusters", len(dry.Merges), len(clusters))
	}
	planted := map[string]int{}
	for i, c := range clusters {
		for _, id := range c {
			planted[id] = i
		}
	}
	for _, m := range dry.Merges {
		if len(m.Members) != 3 {
			t.Errorf("merge of %d members: %v", len(m.Members), m.Members)
		}
		for _, id := range m.Members {
			if g, ok := planted[id]; !ok || g != planted[m.Members[0]] {
				t.Errorf("merge %v mixes unrelated memories", m.Members)
			}
		}
		if m.Members[0] != clusters[planted[m.Members[0]]][0] {
			t.Errorf("the approved memory is not the one kept: %v", m.Members)
		}
	}
	if len(dry.Stale) != len(stale) || len(dry.Pruned) != len(old) {
		t.Errorf("stale %d (want %d), pruned %d (want %d)", len(dry.Stale), len(stale), len(dry.Pruned), len(old))
	}
	if c, _ := s.Counts(ctx); c.ByStatus[Pending] != 2*len(clusters) {
		t.Fatalf("a dry run changed the store: %v", c.ByStatus)
	}

	// The real run proposes, prunes, and archives nothing approved.
	rep, err := s.Curator.Consolidate(ctx, ConsolidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("run in %v", rep.Took)
	for _, id := range stale {
		if m, _ := s.Get(ctx, id); m.Status != Approved {
			t.Fatalf("an approved memory changed without review: %s is %s", id, m.Status)
		}
	}
	p, err := s.Get(ctx, rep.Merges[0].Proposal)
	if err != nil || p.Status != Pending || len(p.SourceUUIDs) != 3 || len(supersededIDs(p.Links)) != 3 {
		t.Fatalf("merge proposal %+v %v", p, err)
	}
	if _, err := s.Get(ctx, old[0]); err == nil {
		t.Fatal("a memory archived 400 days ago was not pruned")
	}
	// A second run proposes nothing new.
	again, err := s.Curator.Consolidate(ctx, ConsolidateOptions{DryRun: true})
	if err != nil || len(again.Merges) != 0 || len(again.Pruned) != 0 {
		t.Fatalf("second run: %d merges, %d pruned, %v", len(again.Merges), len(again.Pruned), err)
	}
	// Approving the proposal retires the cluster.
	if _, err := s.Curator.SetStatus(ctx, p.ID, Approved); err != nil {
		t.Fatal(err)
	}
	for _, id := range rep.Merges[0].Members {
		if m, _ := s.Get(ctx, id); m.Status != Superseded {
			t.Fatalf("member %s is %s after approving the merge", id, m.Status)
		}
	}

	// Undo: proposals still pending go, pruned memories come back.
	if _, err := s.Curator.ConsolidateUndo(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, old[0]); err != nil {
		t.Fatalf("undo did not restore a pruned memory: %v", err)
	}
	if _, err := s.Get(ctx, rep.Merges[1].Proposal); err == nil {
		t.Fatal("undo left a pending proposal")
	}
	if _, err := s.Curator.ConsolidateUndo(ctx); err == nil {
		t.Fatal("a second undo must say there is nothing to undo")
	}

	// --archive archives the stale ones, and undo approves them again.
	rep, err = s.Curator.Consolidate(ctx, ConsolidateOptions{Archive: true})
	if err != nil || len(rep.Archived) != len(stale) {
		t.Fatalf("archived %d of %d stale: %v", len(rep.Archived), len(stale), err)
	}
	if m, _ := s.Get(ctx, stale[0]); m.Status != Archived {
		t.Fatalf("stale memory is %s", m.Status)
	}
	if _, err := s.Curator.ConsolidateUndo(ctx); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.Get(ctx, stale[0]); m.Status != Approved {
		t.Fatalf("undo left the stale memory %s", m.Status)
	}
	if !strings.HasPrefix(rep.Merges[0].Proposal, "m-") {
		t.Fatalf("proposal id %q", rep.Merges[0].Proposal)
	}
}

func BenchmarkConsolidate10k(b *testing.B) {
	ctx := context.Background()
	s := newService(b)
	now := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	fixedClock(s, now)
	syntheticStore(b, s, 10_000, now)
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Curator.Consolidate(ctx, ConsolidateOptions{DryRun: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// Undoing a consolidation that archived a faded memory gives it back its
// own last update (it stays faded, not fresh), and the hooks' daily run
// in between neither replaces the person's undo record nor is undone in
// its place; each run is undone once, newest person's run first.
func TestConsolidateUndoKeepsUpdatedAndRuns(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	now := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	clock := fixedClock(s, now)
	faded := now.Add(-40 * 24 * time.Hour).Truncate(time.Millisecond)
	old := now.Add(-400 * 24 * time.Hour)
	rows := []*index.MemRow{
		{ID: "m-faded", Project: "/p", Type: Progress, Content: "the migration to v2 is half done", Status: Approved,
			Importance: 3, Origin: OriginExtractor, Created: faded, Updated: faded, Tags: []string{}, SourceUUIDs: []string{}},
		{ID: "m-retired", Project: "/p", Type: "fact", Content: "the staging host was db7", Status: Archived,
			Importance: 3, Origin: OriginExtractor, Created: old, Updated: old, Tags: []string{}, SourceUUIDs: []string{}},
	}
	if err := s.st.Mem().Save(ctx, rows...); err != nil {
		t.Fatal(err)
	}
	user, err := s.Curator.Consolidate(ctx, ConsolidateOptions{Archive: true})
	if err != nil || len(user.Archived) != 1 || len(user.Pruned) != 1 {
		t.Fatalf("archived %v, pruned %v: %v", user.Archived, user.Pruned, err)
	}
	// The hooks' daily run, two days later: it prunes a memory retired
	// since, and must not take the person's undo away.
	*clock = now.Add(48 * time.Hour)
	late := clock.Add(-400 * 24 * time.Hour)
	if err := s.st.Mem().Save(ctx, &index.MemRow{ID: "m-late", Project: "/p", Type: "fact", Content: "the old queue was beanstalkd",
		Status: Rejected, Importance: 3, Origin: OriginExtractor, Created: late, Updated: late, Tags: []string{}, SourceUUIDs: []string{}}); err != nil {
		t.Fatal(err)
	}
	auto, ran, err := s.Curator.AutoConsolidate(ctx)
	if err != nil || !ran || len(auto.Pruned) != 1 {
		t.Fatalf("daily run: ran %v, pruned %v: %v", ran, auto.Pruned, err)
	}
	if _, ran, _ := s.Curator.AutoConsolidate(ctx); ran {
		t.Fatal("the daily run ran twice in a day")
	}

	undone, err := s.Curator.ConsolidateUndo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if undone.Auto || !undone.At.Equal(user.At) {
		t.Fatalf("undo reverted the run of %v (auto %v), want the person's run of %v", undone.At, undone.Auto, user.At)
	}
	m, err := s.Get(ctx, "m-faded")
	if err != nil || m.Status != Approved || !m.Updated.Equal(faded) {
		t.Fatalf("after undo: %+v %v; want approved, updated %v", m, err, faded)
	}
	if c := confidence(m.Type, m.Updated, *clock); c != 0 {
		t.Fatalf("the faded memory came back with confidence %v", c)
	}
	if _, err := s.Get(ctx, "m-retired"); err != nil {
		t.Fatalf("undo did not restore the pruned memory: %v", err)
	}
	if _, err := s.Get(ctx, "m-late"); err == nil {
		t.Fatal("undoing the person's run undid the daily run too")
	}
	// Undo again: the daily run.
	if undone, err = s.Curator.ConsolidateUndo(ctx); err != nil || !undone.Auto {
		t.Fatalf("second undo: auto %v, %v", undone.Auto, err)
	}
	if _, err := s.Get(ctx, "m-late"); err != nil {
		t.Fatalf("undoing the daily run did not restore its pruned memory: %v", err)
	}
	if _, err := s.Curator.ConsolidateUndo(ctx); !errors.Is(err, ErrNoConsolidation) {
		t.Fatalf("a third undo: %v, want ErrNoConsolidation", err)
	}
}

// A record an earlier build wrote (one report object) is still undone.
func TestConsolidateUndoReadsOneReport(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	if err := s.st.SetSetting(ctx, consolidateKey, []byte(`{"at":"2026-01-01T00:00:00Z","merges":[],"archived":[],"pruned":[]}`)); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Curator.ConsolidateUndo(ctx)
	if err != nil || rep.At.Year() != 2026 {
		t.Fatalf("%+v %v", rep, err)
	}
	if _, err := s.Curator.ConsolidateUndo(ctx); !errors.Is(err, ErrNoConsolidation) {
		t.Fatalf("%v", err)
	}
}
