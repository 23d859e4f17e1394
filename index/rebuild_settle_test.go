package index

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/index/ftsapi"
)

// `cairn index --rebuild` of a store past the bulk-write threshold (20,000
// full-text documents: the sample grown 16 times) ends as a cold index
// does, with its segments merged (fts.Index.Settle), and says so on the
// progress line; the rebuilt index answers as the unmerged one did, and
// its folder holds only the segments it uses.
func TestRebuildSettlesSegments(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes ~25,000 documents")
	}
	s, _ := openStore(t)
	mustSync(t, s, grownTree(t, sampleDir, 16), SyncOptions{})
	drainAll(t, s) // a drain alone does not merge: the index as many batches left it
	dir := s.ftsDir()
	queries := []string{"websocket reconnect", "mix phx.server", "dialyzer", "how did I get the dev server to start"}
	before := ftsSegmentFiles(t, dir)
	want := rebuildHits(t, dir, queries)

	var said []string
	n, err := s.Derived().RebuildFTS(context.Background(), func(m string) { said = append(said, m) })
	if err != nil {
		t.Fatal(err)
	}
	if n < 20_000 {
		t.Fatalf("rebuilt %d documents: under Settle's threshold, the test proves nothing", n)
	}
	after := ftsSegmentFiles(t, dir)
	if after > 4 || after >= before {
		t.Errorf("%d segment files after the rebuild (%d before it), want at most 4", after, before)
	}
	merging := slices.IndexFunc(said, func(m string) bool { return strings.HasPrefix(m, "full-text index: merging ") })
	counted := slices.IndexFunc(said, func(m string) bool { return strings.HasSuffix(m, " documents") })
	if merging < 0 || counted < 0 || merging < counted {
		t.Errorf("progress %q: want document counts, then the merge", said)
	}
	if last := said[len(said)-1]; !strings.Contains(last, " written") {
		t.Errorf("last progress line %q, want the merge's count of segments written", last)
	}
	got := rebuildHits(t, dir, queries)
	for _, q := range queries {
		same := slices.EqualFunc(got[q], want[q], func(a, b ftsapi.Hit) bool {
			return a.ID == b.ID && math.Abs(a.Score-b.Score) <= 1e-9*math.Max(1, math.Abs(a.Score))
		})
		if !same {
			t.Errorf("%q: %d hits after the rebuild, %d before; first after %v, before %v", q, len(got[q]), len(want[q]), head(got[q]), head(want[q]))
		}
	}
	t.Logf("%d documents; %d segment files -> %d; progress %q", n, before, after, said[max(0, merging-1):])
}

// ftsSegmentFiles counts the full-text index's segment files.
func ftsSegmentFiles(t *testing.T, dir string) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
	if err != nil || len(m) == 0 {
		t.Fatalf("no segment files in %s (%v)", dir, err)
	}
	return len(m)
}

// rebuildHits are each query's hits in the index at dir, sorted by id
// (hits of equal score may come in any order).
func rebuildHits(t *testing.T, dir string, queries []string) map[string][]ftsapi.Hit {
	t.Helper()
	ix, err := ftsapi.OpenReadOnly(dir, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	out := map[string][]ftsapi.Hit{}
	for _, q := range queries {
		hits, total, err := ix.Search(q, ftsapi.Filter{}, 100_000)
		if err != nil {
			t.Fatal(err)
		}
		if total == 0 || total != uint64(len(hits)) {
			t.Fatalf("%q: %d hits of %d", q, len(hits), total)
		}
		slices.SortFunc(hits, func(a, b ftsapi.Hit) int { return strings.Compare(a.ID, b.ID) })
		out[q] = hits
	}
	return out
}

func head(h []ftsapi.Hit) []ftsapi.Hit { return h[:min(3, len(h))] }
