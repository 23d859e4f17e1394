package memories

import (
	"context"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/testutil/teststore"
)

const sampleDir = "../testdata/claude"

// Known sessions of the bundled sample.
const (
	sampleSpotter = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"
	sampleDemo    = "fe5e1c67-53e7-4862-81ae-d0e013e3270b"
)

// newService opens an empty store in a temp dir.
func newService(t testing.TB) *Service {
	t.Helper()
	return New(teststore.Open(t), config.Default())
}

// sampleService opens a store holding the bundled sample.
func sampleService(t testing.TB) *Service {
	t.Helper()
	s := newService(t)
	if _, err := s.st.Sync(context.Background(), sampleDir, index.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	return s
}

// fixedClock makes s's clock return now, movable through the pointer.
func fixedClock(s *Service, now time.Time) *time.Time {
	t := now
	s.SetClock(func() time.Time { return t })
	return &t
}

func mustAdd(t testing.TB, s *Service, n NewMemory) AddResult {
	t.Helper()
	r, err := s.Curator.Add(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
