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

// sampleService opens a store holding the bundled sample: a copy of a
// store synced once per package (sampleStore; twelve tests each synced the
// sample, 2–5 s of CPU apiece under -race). The sample's files are the
// repository's, never changed, at the path the store read: the copy is the
// store the test's own sync would have made.
func sampleService(t testing.TB) *Service {
	t.Helper()
	dir := sampleStore.Copy(t, &shared, "sample", func(st *index.Store) error {
		_, err := st.Sync(context.Background(), sampleDir, index.SyncOptions{})
		return err
	})
	st, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return New(st, config.Default())
}

var sampleStore teststore.Template

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
