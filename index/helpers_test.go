package index

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
	"github.com/cairn-dev/cairn/internal/transcriptstest"
	"github.com/cairn-dev/cairn/transcripts"
)

// sampleDir is the bundled sample tree.
const sampleDir = "../testdata/claude"

// copyTree copies a Claude config dir into a temporary folder so a test
// can append to, truncate and delete its files.
func copyTree(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "claude")
	if err := testutil.CopyDir(src, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

func openStore(t testing.TB) (*Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

func mustSync(t testing.TB, s *Store, claude string, o SyncOptions) SyncStats {
	t.Helper()
	st, err := s.Sync(context.Background(), claude, o)
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	return st
}

// scan is the in-memory reference: transcriptstest.Scan of the same tree.
func scan(t testing.TB, claude string) *transcriptstest.ScanResult {
	t.Helper()
	tree, err := transcripts.Discover(claude)
	if err != nil {
		t.Fatal(err)
	}
	res, err := transcriptstest.Scan(context.Background(), tree, 0)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func storeSessions(t testing.TB, s *Store) []*transcripts.Session {
	t.Helper()
	ss, err := s.Sessions(t.Context(), SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// comparable strips what legitimately differs between the store and an
// in-memory scan: nothing but the nil-vs-empty distinction of lists.
func normalise(s *transcripts.Session) transcripts.Session {
	c := *s
	for _, l := range []*[]string{&c.Branches, &c.Models, &c.Versions, &c.FilesRead, &c.FilesEdited, &c.Commands, &c.SourceFiles} {
		if len(*l) == 0 {
			*l = nil
		}
	}
	if len(c.Subagents) == 0 {
		c.Subagents = nil
	}
	return c
}

// sameSessions fails unless the store's sessions equal the scan's field by
// field.
func sameSessions(t testing.TB, got, want []*transcripts.Session) {
	t.Helper()
	compareSessions(t, got, want, false)
}

// sameSessionsAnyOrder is sameSessions with lists compared as sets: lists
// are in first-seen order, and which file is read first depends on mtimes,
// which appending changes.
func sameSessionsAnyOrder(t testing.TB, got, want []*transcripts.Session) {
	t.Helper()
	compareSessions(t, got, want, true)
}

func compareSessions(t testing.TB, got, want []*transcripts.Session, anyOrder bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("store has %d sessions, scan %d", len(got), len(want))
	}
	byID := map[string]*transcripts.Session{}
	for _, s := range got {
		byID[s.ID] = s
	}
	for _, w := range want {
		g := byID[w.ID]
		if g == nil {
			t.Errorf("session %s missing from the store", w.ID)
			continue
		}
		gn, wn := normalise(g), normalise(w)
		// A scan knows folders; the store files each session under the
		// folder's repository (ProjectOf) and keeps the folder as CWD.
		wn.ProjectPath = ProjectOf(wn.CWD)
		slices.Sort(gn.SourceFiles)
		slices.Sort(wn.SourceFiles)
		if anyOrder {
			for _, c := range []*transcripts.Session{&gn, &wn} {
				for _, l := range [][]string{c.Branches, c.Models, c.Versions, c.FilesRead, c.FilesEdited, c.Commands} {
					slices.Sort(l)
				}
			}
		}
		if !reflect.DeepEqual(gn, wn) {
			t.Errorf("session %s differs:\n%s", w.ID, diffFields(gn, wn))
		}
	}
}

func diffFields(got, want transcripts.Session) string {
	var out string
	gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := 0; i < gv.NumField(); i++ {
		if !reflect.DeepEqual(gv.Field(i).Interface(), wv.Field(i).Interface()) {
			out += "  " + gv.Type().Field(i).Name + ": store " + short(gv.Field(i).Interface()) + "\n     scan  " + short(wv.Field(i).Interface()) + "\n"
		}
	}
	return out
}

func short(v any) string {
	var s string
	if b, ok := v.(interface{ String() string }); ok {
		s = b.String()
	} else {
		s = fmtAny(v)
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func appendFile(t testing.TB, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func count(t testing.TB, s *Store, q string, args ...any) int {
	t.Helper()
	var n int
	if err := s.r.QueryRowContext(t.Context(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}
