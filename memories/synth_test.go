package memories

import (
	"context"
	"strings"
	"testing"
	"time"
)

// synthFixture has something for every section of a synthesis: completed
// work in more than three summaries, progress, decisions under two themes
// and none, learnings of several types (one no longer confident), a
// superseded memory, a conflict between approved memories and one with a
// rejected memory, and sessions with and without a request.
func synthFixture() (approved, superseded, all []Memory, sums []Summary) {
	day := func(d int) time.Time { return time.Date(2025, 3, d, 10, 0, 0, 0, time.UTC) }
	mem := func(id string, t Type, imp int, created int, content string, tags ...string) Memory {
		return Memory{ID: id, Type: t, Importance: imp, Created: day(created), Updated: day(created), Content: content,
			Tags: tags, Status: Approved, Confidence: 1}
	}
	approved = []Memory{
		mem("m-prog1", Progress, 2, 5, "Port the  importer\nto streaming"),
		mem("m-prog2", Progress, 4, 6, "Finish the migration script"),
		{ID: "m-prog3", Type: Progress, Importance: 5, Content: "Stale progress", Status: Approved, Confidence: 0},
		mem("m-dec1", Decision, 3, 2, "Use Postgres for sessions", "storage"),
		mem("m-dec2", Architecture, 5, 3, "Events go through one queue", "storage"),
		mem("m-dec3", Decision, 3, 1, "Ship weekly"),
		mem("m-dec4", Decision, 3, 1, "Auth tokens live in the keychain", "auth"),
		mem("m-got1", Gotcha, 3, 4, "CI caches go modules by go.sum hash"),
		mem("m-pref1", Preference, 4, 4, "Table-driven tests"),
		mem("m-fact1", Fact, 2, 7, "The API listens on :8080"),
		mem("m-fact2", Fact, 2, 8, "The API listens on :9090"),
		{ID: "m-ctx0", Type: Context, Importance: 3, Content: "Unconfident context", Status: Approved, Confidence: 0},
	}
	approved[9].Links = []Link{{Kind: Contradicts, Target: "m-fact2"}, {Kind: Contradicts, Target: "m-rej1"}}
	approved[3].Links = []Link{{Kind: Supersedes, Target: "m-old1"}, {Kind: Related, Target: "m-dec2"}, {Kind: Supersedes, Target: "m-gone"}}
	old := mem("m-old1", Decision, 3, 1, "Use MySQL for sessions", "storage")
	old.Status = Superseded
	old.Links = []Link{{Kind: Supersedes, Target: "m-older"}}
	older := mem("m-older", Decision, 2, 1, "Sessions in files")
	older.Status = Superseded
	superseded = []Memory{old, older}
	rej := mem("m-rej1", Fact, 1, 1, "The API listens on :7070")
	rej.Status = Rejected
	all = append(append(append([]Memory{}, approved...), superseded...), rej)
	sum := func(sid string, d int, sec map[string][]string) Summary {
		return Summary{SessionID: sid, Created: day(d), Sections: sec}
	}
	sums = []Summary{
		sum("5555555555555", 20, map[string][]string{"Completed": {"Shipped v2"}, "Next steps": {"Tag the release", "Write the changelog"}, "Request": {"Cut the v2 release"}}),
		sum("4444", 18, map[string][]string{"Completed": {"Fixed the flaky test", "Bumped deps"}}),
		sum("3333333333", 16, map[string][]string{"Request": {"Why does   CI\nfail?"}}),
		sum("2222222222", 14, map[string][]string{"Completed": {"Never shown: fourth summary"}, "Request": {strings.Repeat("long request ", 20)}}),
	}
	return approved, superseded, all, sums
}

func TestRenderSynthesisSections(t *testing.T) {
	approved, superseded, all, sums := synthFixture()
	got := renderSynthesis("/work/app", approved, superseded, all, sums)
	if got != wantSynthesis {
		t.Errorf("synthesis:\n%s\nwant:\n%s\ndiff:\n%s", got, wantSynthesis, lineDiff("want", "got", wantSynthesis, got))
	}
}

func TestRenderSynthesisEmpty(t *testing.T) {
	got := renderSynthesis("/empty", nil, nil, nil, nil)
	if got != wantEmptySynthesis {
		t.Errorf("synthesis:\n%s\nwant:\n%s", got, wantEmptySynthesis)
	}
}

// Synthesize counts added, updated and removed inputs against the last
// synthesis, rewrites nothing when no input changed, and writes nothing
// on a dry run.
func TestSynthesizeIncremental(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	clock := fixedClock(s, time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC))
	if _, err := s.Drafts.Synthesize(ctx, " ", false); err == nil {
		t.Fatal("no project: no error")
	}
	a := mustAdd(t, s, NewMemory{Project: "/p", Type: Decision, Content: "We deploy with the blue-green script", Status: Approved})
	b := mustAdd(t, s, NewMemory{Project: "/p", Type: Gotcha, Content: "The linter needs the generated files first", Status: Approved})
	mustAdd(t, s, NewMemory{Project: "/p", Type: Fact, Content: "Pending memories stay out of the synthesis"})
	dry, err := s.Drafts.Synthesize(ctx, "/p", true)
	if err != nil || !dry.Changed || dry.Added != 2 || dry.Diff == "" {
		t.Fatalf("dry run: %v %+v", err, dry)
	}
	if md, _ := s.Drafts.SynthesisOf(ctx, "/p"); md != "" {
		t.Fatalf("a dry run stored a synthesis:\n%s", md)
	}
	first, err := s.Drafts.Synthesize(ctx, "/p", false)
	if err != nil || !first.Changed || first.Added != 2 || first.Markdown != dry.Markdown {
		t.Fatalf("first: %v %+v", err, first)
	}
	again, err := s.Drafts.Synthesize(ctx, "/p", false)
	if err != nil || again.Changed || again.Added+again.Updated+again.Removed != 0 || again.Markdown != first.Markdown || again.Diff != "" {
		t.Fatalf("unchanged: %v %+v", err, again)
	}
	*clock = clock.Add(time.Hour)
	content := "We deploy with the canary script"
	if _, err := s.Curator.Update(ctx, a.Memory.ID, Update{Content: &content}); err != nil {
		t.Fatal(err)
	}
	if err := s.Curator.Delete(ctx, b.Memory.ID); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, s, NewMemory{Project: "/p", Type: Preference, Content: "Short commit subjects in the imperative", Status: Approved})
	next, err := s.Drafts.Synthesize(ctx, "/p", false)
	if err != nil || !next.Changed || next.Added != 1 || next.Updated != 1 || next.Removed != 1 {
		t.Fatalf("next: %v %+v", err, next)
	}
	if !strings.Contains(next.Diff, "+- We deploy with the canary script") || !strings.Contains(next.Diff, "-- The linter needs") {
		t.Fatalf("diff:\n%s", next.Diff)
	}
	if md, _ := s.Drafts.SynthesisOf(ctx, "/p"); md != next.Markdown {
		t.Fatalf("stored:\n%s\nwant:\n%s", md, next.Markdown)
	}
}

const wantSynthesis = "# Project memory: /work/app\n\n## Current status\n\n- Shipped v2 (2025-03-20)\n- Fixed the flaky test (2025-03-18)\n- Bumped deps (2025-03-18)\n- In progress: Finish the migration script\n- In progress: Port the importer to streaming\n\n## Key decisions\n\n### General\n\n- Ship weekly\n\n### auth\n\n- Auth tokens live in the keychain\n\n### storage\n\n- Events go through one queue\n- Use Postgres for sessions\n\n## Learnings\n\n### Preferences\n\n- Table-driven tests\n\n### Gotchas\n\n- CI caches go modules by go.sum hash\n\n### Facts\n\n- The API listens on :8080\n- The API listens on :9090\n\n## How things evolved\n\n- 2025-03-01: Sessions in files → now: Use MySQL for sessions\n- 2025-03-01: Use MySQL for sessions → now: Use Postgres for sessions\n- 2025-03-14 session 22222222: long request long request long request long request long request long request long request long request long request long request long request long request long…\n- 2025-03-16 session 33333333: Why does CI fail?\n- 2025-03-20 session 55555555: Cut the v2 release\n\n## Open questions\n\n- Tag the release\n- Write the changelog\n- Conflict: \"The API listens on :8080\" vs \"The API listens on :9090\" (m-fact1, m-fact2)\n"

const wantEmptySynthesis = "# Project memory: /empty\n\n## Current status\n\n- Nothing recorded yet.\n\n## Key decisions\n\n- None approved yet.\n\n## Learnings\n\n- None approved yet.\n\n## How things evolved\n\n- No history yet.\n\n## Open questions\n\n- None recorded.\n"
