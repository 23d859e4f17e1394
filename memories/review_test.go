package memories

import (
	"context"
	"strings"
	"testing"
)

// paraphrase rewords a memory as a summary or another extractor would:
// a lead-in, other case and punctuation.
func paraphrase(s string) string {
	s = strings.TrimSuffix(strings.ReplaceAll(strings.TrimSpace(s), " - ", "; "), ".")
	return "Learned that " + strings.ToLower(s[:1]) + s[1:]
}

func tokensOf(s string) []uint32 { t, _ := tokens(s); return t }

// TestReviewsAreRemembered: on the sample's real sessions, facts a person
// rejected, merged or approved are never proposed again, whatever brings
// them back: the built-in extractor reading the session again, an approved
// /summarize draft saying them in other words, /remember, or a proposal
// after the rejected memory was deleted.
func TestReviewsAreRemembered(t *testing.T) {
	ctx := context.Background()
	s := sampleService(t)
	first, err := s.Curator.Extract(ctx, ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Four proposals of the extractor, whatever it finds worth proposing:
	// one rejected, one merged into another, two approved.
	// From one session (the draft below is that session's): the first
	// with four.
	bySession := map[string][]Memory{}
	var picked []Memory
	for _, p := range first.Proposed {
		if p.Action == ActionAdded && len(picked) < 4 && len(tokensOf(p.Memory.Content)) >= 6 {
			sid := p.Memory.SourceSession
			bySession[sid] = append(bySession[sid], *p.Memory)
			if len(bySession[sid]) == 4 {
				picked = bySession[sid]
			}
		}
	}
	if len(picked) < 4 {
		t.Fatalf("the extractor proposed %d memories, want at least 4", len(picked))
	}
	noise, dupe, keep, good := picked[0], picked[1], picked[2], picked[3]
	for _, m := range picked {
		t.Logf("%s %s: %s", m.ID, m.Type, m.Content)
	}
	if _, err := s.Curator.SetStatus(ctx, noise.ID, Rejected); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Curator.Merge(ctx, keep.ID, dupe.ID); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{keep.ID, good.ID} {
		if _, err := s.Curator.SetStatus(ctx, id, Approved); err != nil {
			t.Fatal(err)
		}
	}
	reviewed := map[string]bool{noise.ID: true, dupe.ID: true, keep.ID: true, good.ID: true}
	count := func() int {
		ms, err := s.List(ctx, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		return len(ms)
	}
	before := count()
	// expect checks that a proposal was turned away or folded into a
	// reviewed memory.
	expect := func(source string, r AddResult, actions ...string) {
		t.Helper()
		ok := false
		for _, a := range actions {
			ok = ok || r.Action == a
		}
		if !ok || !reviewed[r.Memory.ID] {
			t.Errorf("%s: %s %s %q, want %v of a reviewed memory", source, r.Action, r.Memory.ID, r.Memory.Content, actions)
		}
	}

	// 1. The extractor reads the whole session again.
	for _, m := range picked {
		if err := s.st.Mem().SetExtractCursor(ctx, m.SourceSession, 0); err != nil {
			t.Fatal(err)
		}
	}
	again, err := s.Curator.Extract(ctx, ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range again.Proposed {
		for _, m := range []Memory{noise, dupe, keep, good} {
			if p.Memory.Content == m.Content || p.Action == ActionAdded && normalized(p.Memory.Content) == normalized(m.Content) {
				expect("extractor again", p, ActionSkippedRejected, ActionSkippedReviewed, ActionBumped, ActionMerged)
			}
		}
	}

	// 2. An approved /summarize draft says them in other words.
	d, err := s.Drafts.AddDraft(ctx, noise.SourceSession, "## Discoveries\n\n- "+paraphrase(noise.Content)+"\n- "+paraphrase(dupe.Content)+"\n- "+paraphrase(good.Content)+"\n")
	if err != nil {
		t.Fatal(err)
	}
	_, results, err := s.Drafts.ApproveDraft(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 3 {
		t.Fatalf("the draft proposed %d memories, want 3", len(results))
	}
	expect("draft: rejected fact", results[0], ActionSkippedRejected)
	expect("draft: merged fact", results[1], ActionBumped)
	expect("draft: approved fact", results[2], ActionBumped)

	// 3. /remember says the rejected one again.
	r := mustAdd(t, s, NewMemory{Project: noise.Project, Type: Fact, Origin: OriginRemember, Content: paraphrase(noise.Content)})
	expect("/remember", r, ActionSkippedRejected)

	// 4. Deleted, the rejected memory still turns its fact away.
	if err := s.Curator.Delete(ctx, noise.ID); err != nil {
		t.Fatal(err)
	}
	before--
	r = mustAdd(t, s, NewMemory{Project: noise.Project, Type: Bugfix, Content: noise.Content})
	expect("after deletion", r, ActionSkippedRejected)

	if after := count(); after != before {
		t.Errorf("%d memories after the reviewed facts came back, want %d", after, before)
	}
	// The opposite statement is another fact: proposed.
	if _, neg := tokens(good.Content); neg {
		return
	}
	r = mustAdd(t, s, NewMemory{Project: good.Project, Type: Gotcha, Content: "Never: " + good.Content})
	if r.Action != ActionAdded {
		t.Errorf("the opposite of an approved memory: %s %s, want added", r.Action, r.Memory.Content)
	}
}
