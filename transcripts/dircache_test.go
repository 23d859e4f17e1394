package transcripts

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testutil"
)

func paths(t *Tree) []string {
	var out []string
	for _, f := range t.Files() {
		out = append(out, f.Path)
	}
	return out
}

// ageTree sets every folder's mtime an hour back, as if listed long ago.
func ageTree(t *testing.T, root string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}

// agedAppTree writes a project -w-app with a session s1 and one subagent
// file, every folder aged an hour; it returns the root and the project.
func agedAppTree(t *testing.T) (dir, project string) {
	t.Helper()
	dir = t.TempDir()
	project = filepath.Join(dir, "projects", "-w-app")
	testutil.WriteFile(t, filepath.Join(project, "s1.jsonl"), testutil.UserLine("u1", "s1", "go"))
	testutil.WriteFile(t, filepath.Join(project, "s1", "subagents", "agent-a.jsonl"), testutil.UserLine("x1", "s1", "sub"))
	ageTree(t, dir)
	return dir, project
}

// discoverCached runs DiscoverCached on dir with the cache loaded from b
// and returns the cache and its new bytes.
func discoverCached(t *testing.T, dir string, b []byte) (*DirCache, []byte) {
	t.Helper()
	c := LoadDirCache(b)
	if _, err := DiscoverCached(dir, c); err != nil {
		t.Fatal(err)
	}
	out, _ := c.MarshalBinary()
	return c, out
}

func TestDirCacheSameTreeAsDiscover(t *testing.T) {
	want, err := Discover(testutil.SampleClaudeDir())
	if err != nil {
		t.Fatal(err)
	}
	c := LoadDirCache(nil)
	for round := range 3 {
		got, err := DiscoverCached(testutil.SampleClaudeDir(), c)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: cached discovery differs", round)
		}
		b, _ := c.MarshalBinary()
		c = LoadDirCache(b)
	}
}

func TestDirCacheSkipsOnlyUnchangedFolders(t *testing.T) {
	dir, p := agedAppTree(t)
	_, b := discoverCached(t, dir, nil)

	// A new file changes its folder's mtime: found.
	testutil.WriteFile(t, filepath.Join(p, "s2.jsonl"), testutil.UserLine("u2", "s2", "go"))
	tree, _ := DiscoverCached(dir, LoadDirCache(b))
	if len(tree.Files()) != 3 {
		t.Fatalf("new file missed: %v", paths(tree))
	}

	// A folder whose mtime did not move is not read again: its listing
	// comes from the cache (shown by a file hidden behind a restored mtime).
	ageTree(t, dir)
	_, b = discoverCached(t, dir, nil)
	sub := filepath.Join(p, "s1", "subagents")
	fi, _ := os.Stat(sub)
	testutil.WriteFile(t, filepath.Join(sub, "agent-b.jsonl"), testutil.UserLine("x2", "s1", "sub"))
	os.Chtimes(sub, fi.ModTime(), fi.ModTime())
	tree, _ = DiscoverCached(dir, LoadDirCache(b))
	if len(tree.Files()) != 3 {
		t.Fatalf("an unchanged folder was read again: %v", paths(tree))
	}
	// Without the cache it is there.
	if tree, _ := Discover(dir); len(tree.Files()) != 4 {
		t.Fatalf("uncached: %v", paths(tree))
	}

	// A folder modified within a second of the discovery that listed it
	// is read again even with the same mtime (racy listing).
	now := time.Now()
	os.Chtimes(sub, now, now)
	_, b = discoverCached(t, dir, nil)
	testutil.WriteFile(t, filepath.Join(sub, "agent-c.jsonl"), testutil.UserLine("x3", "s1", "sub"))
	os.Chtimes(sub, now, now)
	if tree, _ := DiscoverCached(dir, LoadDirCache(b)); len(tree.Files()) != 5 {
		t.Fatalf("a racy listing was trusted: %v", paths(tree))
	}
}

// TestDirCacheChanged: a discovery that read every folder from the cache
// reports no change (its file need not be rewritten); a new folder, a
// changed one or a vanished one does.
func TestDirCacheChanged(t *testing.T) {
	dir, p := agedAppTree(t)
	c, b := discoverCached(t, dir, nil)
	if !c.Changed() {
		t.Fatal("a first discovery reports no change")
	}
	if c, _ = discoverCached(t, dir, b); c.Changed() {
		t.Fatal("nothing moved, yet a change is reported")
	}
	// A grown file does not touch its folder: still no change.
	f, err := os.OpenFile(filepath.Join(p, "s1.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(testutil.UserLine("u2", "s1", "more"))
	f.Close()
	if c, _ = discoverCached(t, dir, b); c.Changed() {
		t.Fatal("a grown file reported as a folder change")
	}
	testutil.WriteFile(t, filepath.Join(p, "s2.jsonl"), testutil.UserLine("u3", "s2", "go"))
	if c, _ = discoverCached(t, dir, b); !c.Changed() {
		t.Fatal("a new file is not a change")
	}
	ageTree(t, dir)
	_, b = discoverCached(t, dir, nil)
	if err := os.RemoveAll(filepath.Join(p, "s1")); err != nil {
		t.Fatal(err)
	}
	ageTree(t, dir)
	if c, _ = discoverCached(t, dir, b); !c.Changed() {
		t.Fatal("a removed folder is not a change")
	}
}

func TestDirCacheGarbageIsEmpty(t *testing.T) {
	want, _ := Discover(testutil.SampleClaudeDir())
	for _, b := range []string{"", "garbage", "cairn-dirs v1 x\n", "cairn-dirs v1 5\n/a\tnotanumber\n", "cairn-dirs v1 5\n/a\t1\tzbad\n"} {
		c := LoadDirCache([]byte(b))
		if len(c.old) != 0 {
			t.Fatalf("%q: loaded %d listings", b, len(c.old))
		}
		got, err := DiscoverCached(testutil.SampleClaudeDir(), c)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: %v", b, err)
		}
	}
}

// FuzzLoadDirCache: any bytes load without panicking into a cache whose
// listings survive a round trip.
func FuzzLoadDirCache(f *testing.F) {
	c := LoadDirCache(nil)
	DiscoverCached(testutil.SampleClaudeDir(), c)
	b, _ := c.MarshalBinary()
	f.Add(b)
	f.Add([]byte("cairn-dirs v1 5\n/a\t1\tdx\tfy\n"))
	f.Add([]byte("cairn-dirs v1 5\n/a\t1\t\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c := LoadDirCache(b)
		c.begin()
		for path, l := range c.old {
			c.record(path, l)
		}
		out, err := c.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		back := LoadDirCache(out)
		if len(back.old) != len(c.cur) {
			t.Fatalf("%d listings after a round trip, %d before", len(back.old), len(c.cur))
		}
		for path, l := range c.cur {
			if got, ok := back.old[path]; !ok || !reflect.DeepEqual(got, l) {
				t.Fatalf("%q: %+v, want %+v", path, got, l)
			}
		}
	})
}
