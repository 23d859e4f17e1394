package memories

import (
	"context"
	"slices"
	"testing"
)

func TestDedupBumpMergeSupersede(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	a := mustAdd(t, s, NewMemory{Project: "/p", Type: Gotcha, Content: "The websocket test is flaky because of a reconnect race",
		SourceUUIDs: []string{"u1"}, Importance: 2})
	// The same memory again: bumped, sources merged, importance raised.
	b := mustAdd(t, s, NewMemory{Project: "/p", Type: Gotcha, Content: "The websocket test is flaky because of a reconnect race.",
		SourceUUIDs: []string{"u2"}, Importance: 4})
	if b.Action != ActionBumped || b.Memory.ID != a.Memory.ID || b.Memory.Importance != 4 ||
		!slices.Equal(b.Memory.SourceUUIDs, []string{"u1", "u2"}) {
		t.Fatalf("bump: %+v", b)
	}
	// Similar wording of a pending memory: merged (newer wording kept).
	c := mustAdd(t, s, NewMemory{Project: "/p", Type: Gotcha, Content: "websocket test flaky because of a reconnect race; fixed by awaiting open",
		SourceUUIDs: []string{"u3"}})
	if c.Action != ActionMerged || c.Memory.ID != a.Memory.ID || c.Memory.Content != "websocket test flaky because of a reconnect race; fixed by awaiting open" {
		t.Fatalf("merge: %+v", c)
	}
	// A much shorter wording is merged but does not replace the fuller one.
	short := mustAdd(t, s, NewMemory{Project: "/p", Type: Gotcha, Content: "websocket test flaky because of reconnect race"})
	if short.Action != ActionMerged || short.Memory.Content != c.Memory.Content {
		t.Fatalf("short merge: %+v", short)
	}
	// Another type is not a duplicate.
	d := mustAdd(t, s, NewMemory{Project: "/p", Type: Bugfix, Content: "websocket test flaky because of a reconnect race; fixed by awaiting open"})
	if d.Action != ActionAdded {
		t.Fatalf("other type: %+v", d)
	}
	// Another project is not a duplicate.
	e := mustAdd(t, s, NewMemory{Project: "/q", Type: Gotcha, Content: "The websocket test is flaky because of a reconnect race"})
	if e.Action != ActionAdded {
		t.Fatalf("other project: %+v", e)
	}
	// An approved memory said differently: reviews are remembered, so no
	// new proposal; the approved memory gains the source (a correction,
	// `memories correct`, is how an approved memory is replaced).
	if _, err := s.Curator.SetStatus(ctx, a.Memory.ID, Approved); err != nil {
		t.Fatal(err)
	}
	f := mustAdd(t, s, NewMemory{Project: "/p", Type: Gotcha, Content: "websocket test flaky because of reconnect race; fix: await open event in client",
		SourceUUIDs: []string{"u9"}})
	if f.Action != ActionBumped || f.Memory.ID != a.Memory.ID || f.Memory.Status != Approved || !slices.Contains(f.Memory.SourceUUIDs, "u9") {
		t.Fatalf("approved memory proposed again: %+v", f)
	}
}

func TestRejectedNeverProposedAgain(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	a := mustAdd(t, s, NewMemory{Type: Preference, Content: "Always use tabs for indentation in YAML files"})
	if _, err := s.Curator.SetStatus(ctx, a.Memory.ID, Rejected); err != nil {
		t.Fatal(err)
	}
	r := mustAdd(t, s, NewMemory{Type: Preference, Content: "always use tabs for indentation in yaml files!"})
	if r.Action != ActionSkippedRejected || r.Memory.ID != a.Memory.ID {
		t.Fatalf("rejected memory proposed again: %+v", r)
	}
	if ms, _ := s.List(ctx, Filter{}); len(ms) != 1 {
		t.Fatalf("%d memories stored", len(ms))
	}
}

func TestContradictionFlagged(t *testing.T) {
	s := newService(t)
	a := mustAdd(t, s, NewMemory{Project: "/p", Type: Preference, Content: "Use mocks for the payment gateway in unit tests"})
	b := mustAdd(t, s, NewMemory{Project: "/p", Type: Preference, Content: "Never use mocks for the payment gateway; use the sandbox"})
	if b.Action != ActionAdded || !slices.Contains(b.Conflicts, a.Memory.ID) || !slices.Contains(b.Memory.Links, Link{Kind: Contradicts, Target: a.Memory.ID}) {
		t.Fatalf("contradiction not flagged: %+v", b)
	}
}

func TestMerge(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	a := mustAdd(t, s, NewMemory{Type: Fact, Content: "The API rate limit is 100 requests per minute", Tags: []string{"api"}, SourceUUIDs: []string{"u1"}})
	b := mustAdd(t, s, NewMemory{Type: Fact, Content: "Staging shares production's rate limiter", Tags: []string{"staging"}, SourceUUIDs: []string{"u2"}, Importance: 5})
	m, err := s.Curator.Merge(ctx, a.Memory.ID, b.Memory.ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Importance != 5 || !slices.Equal(m.Tags, []string{"api", "staging"}) || !slices.Equal(m.SourceUUIDs, []string{"u1", "u2"}) ||
		!slices.Contains(m.Links, Link{Kind: Supersedes, Target: b.Memory.ID}) {
		t.Fatalf("merged: %+v", m)
	}
	other, _ := s.Get(ctx, b.Memory.ID)
	if other.Status != Superseded {
		t.Fatalf("other is %s", other.Status)
	}
	if _, err := s.Curator.Merge(ctx, a.Memory.ID, a.Memory.ID); err == nil {
		t.Fatal("merged a memory into itself")
	}
}

// TestCacheSeesOtherWriters: a second service (another process) writing
// makes the first reload before dedup.
func TestCacheSeesOtherWriters(t *testing.T) {
	s1 := newService(t)
	s2 := New(s1.st, s1.cfg)
	mustAdd(t, s1, NewMemory{Type: Fact, Content: "Builds run on the self-hosted runner pool"})
	mustAdd(t, s2, NewMemory{Type: Fact, Content: "Release notes live in docs/releases"})
	r := mustAdd(t, s1, NewMemory{Type: Fact, Content: "Release notes live in docs/releases"})
	if r.Action != ActionBumped {
		t.Fatalf("s1 did not see s2's memory: %+v", r)
	}
}

// TestScopedCache: dedup of a project's memory loads only that project's
// and global memories; a global memory is compared with every project's.
func TestScopedCache(t *testing.T) {
	s := newService(t)
	mustAdd(t, s, NewMemory{Project: "/q", Type: Fact, Content: "Queue workers restart nightly at two"})
	mustAdd(t, s, NewMemory{Type: Fact, Content: "Everyone uses UTC timestamps in logs"})
	s.cache = nil
	r := mustAdd(t, s, NewMemory{Project: "/p", Type: Fact, Content: "Queue workers restart nightly at two"})
	if r.Action != ActionAdded {
		t.Fatalf("another project's memory deduplicated: %+v", r)
	}
	if s.cache == nil || s.cache.project != "/p" {
		t.Fatalf("cache scope: %+v", s.cache)
	}
	for _, c := range s.cache.items {
		if c.row.Project == "/q" {
			t.Fatal("the /p cache loaded /q's memory")
		}
	}
	g := mustAdd(t, s, NewMemory{Type: Fact, Content: "Queue workers restart nightly at two"})
	if g.Action != ActionBumped || s.cache.project != "" {
		t.Fatalf("global memory not compared with every project: %+v", g)
	}
}

// Memories worded alike about different commands are two memories: merging
// them would replace one command by the other (the claude-code-log corpus's
// hand-run checks `uv run ty check`, `uv run pytest -m browser -v` and
// `uv run pytest -m "not (tui or browser)" -v` became one).
func TestDedupKeepsDifferentCommandsApart(t *testing.T) {
	s := newService(t)
	ty := mustAdd(t, s, NewMemory{Project: "/p", Type: Pattern, Content: "The user checks the project with `uv run ty check` (run by hand)"})
	py := mustAdd(t, s, NewMemory{Project: "/p", Type: Pattern, Content: "The user checks the project with `uv run pytest -m browser -v` (run by hand)"})
	if py.Action != ActionAdded || py.Memory.ID == ty.Memory.ID {
		t.Fatalf("a different command merged into the first: %+v", py)
	}
	got, err := s.Curator.Get(context.Background(), ty.Memory.ID)
	if err != nil || got.Content != ty.Memory.Content {
		t.Fatalf("the first command's memory changed: %+v %v", got, err)
	}
	// The same command said more fully is still its duplicate.
	more := mustAdd(t, s, NewMemory{Project: "/p", Type: Pattern, Content: "The user checks the project with `uv run ty check .` before committing (run by hand)"})
	if more.Action == ActionAdded || more.Memory.ID != ty.Memory.ID {
		t.Fatalf("the same command again was not merged: %+v", more)
	}
	// So is one whose quoted code the other mentions.
	a := mustAdd(t, s, NewMemory{Project: "/q", Type: Preference, Content: "Use `pnpm` instead of `npm` in this repository"})
	b := mustAdd(t, s, NewMemory{Project: "/q", Type: Preference, Content: "Use pnpm instead of npm in this repository, `pnpm install`"})
	if b.Memory.ID != a.Memory.ID {
		t.Fatalf("the same preference with a quoted command was not merged: %+v", b)
	}
}

func TestNamesDiffer(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"run `mix test` before commit", "run `mix credo` before commit", true},
		{"run `mix format` before commit", "run `mix format --check-formatted` before commit", false},
		{"run mix test before commit", "run `mix credo` before commit", false}, // one quotes nothing
		{"Use `pnpm` not `npm`", "Rejected `npm install`: use pnpm", false},
		{"`a.b_c/1` is slow", "`x.y` is slow", true},
	} {
		if got := namesDiffer(c.a, c.b); got != c.want {
			t.Errorf("namesDiffer(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
