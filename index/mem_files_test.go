package index

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A memory file has one baseline and at most one pending change, even
// when two processes record it at once: the second write is refused with
// ErrMemFileConflict; review order (seq) grows with each review.
func TestMemFileVersionsOnePending(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	m := s.Mem()
	now := time.Now()
	add := func(status string, review bool) (*MemFileVersion, error) {
		v := &MemFileVersion{Path: "/c/projects/p/memory/MEMORY.md", Project: "/p", Hash: status, Text: status, Status: status, Seen: now}
		return v, m.SaveMemFileVersion(ctx, v, review)
	}
	if _, err := add("baseline", false); err != nil {
		t.Fatal(err)
	}
	if _, err := add("baseline", false); !errors.Is(err, ErrMemFileConflict) {
		t.Fatalf("second baseline: %v", err)
	}
	p, err := add("pending", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := add("pending", false); !errors.Is(err, ErrMemFileConflict) {
		t.Fatalf("second pending change: %v", err)
	}
	p.Status = "approved"
	if err := m.SaveMemFileVersion(ctx, p, true); err != nil || p.Seq != 1 {
		t.Fatalf("approve: seq %d, %v", p.Seq, err)
	}
	q, err := add("pending", false)
	if err != nil {
		t.Fatal(err)
	}
	q.Status = "rejected"
	if err := m.SaveMemFileVersion(ctx, q, true); err != nil || q.Seq != 2 {
		t.Fatalf("reject: seq %d, %v", q.Seq, err)
	}
	last, err := m.LastMemFileReview(ctx)
	if err != nil || last == nil || last.ID != q.ID {
		t.Fatalf("last review: %+v %v", last, err)
	}
	vs, err := m.MemFileVersions(ctx, MemFileFilter{Path: p.Path})
	if err != nil || len(vs) != 3 || vs[0].Status != "baseline" || vs[2].Text != "pending" {
		t.Fatalf("versions: %+v %v", vs, err)
	}
}
