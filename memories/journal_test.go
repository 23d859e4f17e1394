package memories

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/testutil/teststore"
)

// journalSample is a store holding the bundled sample with the memories
// the built-in extractor proposes from it, and its data dir.
func journalSample(t *testing.T) (*Service, string) {
	t.Helper()
	ctx := context.Background()
	dir := journalStore.Copy(t, &shared, "journal", func(st *index.Store) error {
		if _, err := st.Sync(ctx, sampleDir, index.SyncOptions{}); err != nil {
			return err
		}
		_, err := New(st, config.Default()).Curator.Extract(ctx, ExtractOptions{Summaries: true})
		return err
	})
	st, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return New(st, config.Default()), dir
}

// journalStore is the sample synced and extracted (with summaries), built
// once for the journal tests.
var journalStore teststore.Template

func pendingIDs(t *testing.T, s *Service) []string {
	t.Helper()
	l, err := s.List(context.Background(), Filter{Statuses: []Status{Pending}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range l {
		ids = append(ids, m.ID)
	}
	return ids
}

// A bulk approval, a delete and a merge are undone in order, newest
// first, by a service over the store reopened (a restart).
func TestJournalUndoAcrossRestart(t *testing.T) {
	ctx := context.Background()
	s, dir := journalSample(t)
	ids := pendingIDs(t, s)
	if len(ids) < 5 {
		t.Fatalf("the sample proposes %d memories; the test needs 5", len(ids))
	}
	bulk := ids[:3]
	err := s.Curator.Record(ctx, "approve 3", bulk, func(ctx context.Context) error {
		for _, id := range bulk {
			if _, err := s.Curator.SetStatus(ctx, id, Approved); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	del := ids[3]
	if err := s.Curator.Record(ctx, "delete", []string{del}, func(ctx context.Context) error { return s.Curator.Delete(ctx, del) }); err != nil {
		t.Fatal(err)
	}
	// Nothing changed: nothing recorded.
	if err := s.Curator.Record(ctx, "noop", []string{ids[4]}, func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	l, _ := s.Curator.Journal(ctx)
	if len(l) != 2 {
		t.Fatalf("journal holds %d entries, want 2 (the no-op is not recorded)", len(l))
	}
	s.st.Close()

	st, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s2 := New(st, config.Default())
	e, err := s2.Curator.UndoLast(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if e.What != "delete" {
		t.Fatalf("undid %q first, want the delete", e.What)
	}
	if m, err := s2.Get(ctx, del); err != nil || m.Status != Pending {
		t.Fatalf("deleted memory not back as pending: %v %v", m, err)
	}
	if _, err := s2.Curator.UndoLast(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range bulk {
		if m, err := s2.Get(ctx, id); err != nil || m.Status != Pending {
			t.Fatalf("%s after undoing the bulk approval: %v %v", id, m, err)
		}
	}
	if _, err := s2.Curator.UndoLast(ctx); !errors.Is(err, ErrNothingLogged) {
		t.Fatalf("a third undo: %v, want ErrNothingLogged", err)
	}
}

// A merge keeps what both memories said, and its undo gives both back.
func TestMergeWithKeepsBothTexts(t *testing.T) {
	ctx := context.Background()
	s, _ := journalSample(t)
	ids := pendingIDs(t, s)
	a, _ := s.Get(ctx, ids[0])
	b, _ := s.Get(ctx, ids[1])
	err := s.Curator.Record(ctx, "merge", []string{a.ID, b.ID}, func(ctx context.Context) error {
		_, err := s.Curator.MergeWith(ctx, a.ID, b.ID, "")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := s.Get(ctx, a.ID)
	if !strings.Contains(m.Content, strings.TrimSpace(a.Content)) || !strings.Contains(m.Content, strings.TrimSpace(b.Content)) {
		t.Fatalf("merged text lost one of them:\nA: %s\nB: %s\nmerged: %s", a.Content, b.Content, m.Content)
	}
	if o, _ := s.Get(ctx, b.ID); o.Status != Superseded {
		t.Fatalf("the other memory is %s, want superseded", o.Status)
	}
	if _, err := s.Curator.UndoLast(ctx); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.Get(ctx, a.ID); m.Content != a.Content {
		t.Fatalf("undo left %q, want %q", m.Content, a.Content)
	}
	if o, _ := s.Get(ctx, b.ID); o.Status != b.Status {
		t.Fatalf("undo left the other %s, want %s", o.Status, b.Status)
	}
}

func TestMergedContent(t *testing.T) {
	for _, c := range []struct{ keep, other, want string }{
		{"Use pnpm.", "Use  PNPM.", "Use pnpm."},
		{"Use pnpm.", "Use pnpm. Not npm.", "Use pnpm. Not npm."},
		{"Use pnpm.", "Tests need Docker.", "Use pnpm.\nTests need Docker."},
	} {
		if got := MergedContent(c.keep, c.other); got != c.want {
			t.Errorf("MergedContent(%q, %q) = %q, want %q", c.keep, c.other, got, c.want)
		}
	}
}
