package memories

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/testutil"
)

// TestExtractSkipsImportedSessions: sessions another machine's sync
// unpacked under the data dir (index.ImportsDir) are indexed and
// searchable, but extraction never proposes memories from them — their
// machine extracts them and its reviewed memories arrive with the sync.
// The same sessions read from this machine's Claude dir do propose.
func TestExtractSkipsImportedSessions(t *testing.T) {
	ctx := context.Background()
	const spotter = "-home-marco-projects-spotter-worktrees-spotter-4te"

	// Control: the spotter project's sessions, local, propose memories.
	local := sampleService(t)
	ctl, err := local.Curator.Extract(ctx, ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fromSpotter := 0
	for _, p := range ctl.Proposed {
		if p.Memory.SourceSession == sampleSpotter {
			fromSpotter++
		}
	}
	if fromSpotter == 0 {
		t.Fatalf("control: the sample's spotter session proposes nothing, the test would prove nothing: %+v", ctl)
	}

	// This machine has the Demo project; the spotter project came from "laptop".
	s := newService(t)
	mine := t.TempDir()
	if err := testutil.CopyDir(filepath.Join(sampleDir, "projects", "-path-to-Demo"), filepath.Join(mine, "projects", "-path-to-Demo")); err != nil {
		t.Fatal(err)
	}
	laptop := s.st.MachineDir("laptop")
	if err := testutil.CopyDir(filepath.Join(sampleDir, "projects", spotter), filepath.Join(laptop, "projects", spotter)); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{mine, laptop} {
		if _, err := s.st.Sync(ctx, dir, index.SyncOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	origins, err := s.st.SessionOrigins(ctx)
	if err != nil || origins[sampleSpotter] != "laptop" || origins[sampleDemo] != "" {
		t.Fatalf("origins %v %v", origins, err)
	}
	if _, err := s.st.Session(ctx, sampleSpotter); err != nil {
		t.Fatalf("the imported session is not in the store: %v", err)
	}

	res, err := s.Curator.Extract(ctx, ExtractOptions{Summaries: true})
	if err != nil {
		t.Fatal(err)
	}
	// This machine's own sessions were read (the Demo project's three).
	if res.Sessions != 3 || res.Entries == 0 {
		t.Fatalf("this machine's own sessions were not all read: %+v", res)
	}
	if c, err := s.st.Mem().ExtractCursor(ctx, sampleDemo); err != nil || c == 0 {
		t.Fatalf("cursor of a local session did not move: %d %v", c, err)
	}
	for _, p := range res.Proposed {
		if m := origins[p.Memory.SourceSession]; m != "" {
			t.Errorf("proposed from a session imported from %s: %+v", m, p.Memory)
		}
	}
	all, err := s.List(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		if origins[m.SourceSession] != "" {
			t.Errorf("stored memory from an imported session: %+v", m)
		}
	}
	if _, sum, _ := s.storedSummary(ctx, sampleSpotter); sum != nil {
		t.Errorf("a summary was stored for an imported session: %+v", sum)
	}

	// Asked for by name: a clear error, nothing stored.
	_, err = s.Curator.ExtractSession(ctx, sampleSpotter[:8], ExtractOptions{})
	if !errors.Is(err, ErrImported) || !strings.Contains(err.Error(), "laptop") {
		t.Fatalf("extracting an imported session by id: %v", err)
	}
	if _, err := s.Curator.Extract(ctx, ExtractOptions{Session: sampleSpotter}); !errors.Is(err, ErrImported) {
		t.Fatalf("Extract with Session: %v", err)
	}
	// The session is still the other machine's to extract: no cursor moved.
	if c, err := s.st.Mem().ExtractCursor(ctx, sampleSpotter); err != nil || c != 0 {
		t.Fatalf("cursor of the imported session moved: %d %v", c, err)
	}
	if _, err := os.Stat(laptop); err != nil {
		t.Fatal(err)
	}
}
