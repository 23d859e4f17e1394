package fts

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
)

func TestOpenCreatesAndPersists(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "fts")
	ix, err := Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	mustIndex(t, ix, Doc{ID: "a", Text: "persisted words"})
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err = Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if got := searchIDs(t, ix, "persisted", Filter{}); len(got) != 1 {
		t.Errorf("after reopen: %v", got)
	}
	// Nothing but the index itself is left beside it.
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("leftovers beside the index: %v", entries)
	}
}

func TestOpenEmptyDirCreates(t *testing.T) {
	dir := t.TempDir() // exists, empty
	ix, err := Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if _, err := os.Stat(filepath.Join(dir, metaFile)); err != nil {
		t.Error(err)
	}
}

func TestConcurrentCreateAndWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fts")
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			ix, err := Open(dir, 10*time.Second)
			if err == nil {
				err = ix.Index([]Doc{{ID: string(rune('a' + i)), Text: "hello"}})
				ix.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	ix, err := Open(dir, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if n, _ := ix.Count(); n != 4 {
		t.Errorf("count %d, want 4", n)
	}
}

// corruptions damage a closed, populated index in different ways.
var corruptions = map[string]func(t *testing.T, dir string){
	"garbage meta": func(t *testing.T, dir string) {
		write(t, filepath.Join(dir, metaFile), "{not json")
	},
	"garbage root.bolt": func(t *testing.T, dir string) {
		write(t, filepath.Join(dir, rootBoltFile), strings.Repeat("garbage!", 1024))
	},
	"missing segment": func(t *testing.T, dir string) {
		zaps, _ := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
		if len(zaps) == 0 {
			t.Fatal("no segment files to remove")
		}
		if err := os.Remove(zaps[0]); err != nil {
			t.Fatal(err)
		}
	},
	"truncated segment": func(t *testing.T, dir string) {
		zaps, _ := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
		if len(zaps) == 0 {
			t.Fatal("no segment files to truncate")
		}
		if err := os.Truncate(zaps[0], 10); err != nil {
			t.Fatal(err)
		}
	},
	"other schema": func(t *testing.T, dir string) {
		idx, err := bleve.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := idx.SetInternal([]byte(schemaKey), []byte("cairn-fts-0")); err != nil {
			t.Fatal(err)
		}
		idx.Close()
	},
}

func TestCorruptIndexSaysRebuild(t *testing.T) {
	for name, damage := range corruptions {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "fts")
			ix, err := Open(dir, 0)
			if err != nil {
				t.Fatal(err)
			}
			mustIndex(t, ix, Doc{ID: "a", Text: "some text"})
			ix.Close()
			damage(t, dir)
			before := listFiles(t, dir)

			_, err = Open(dir, 0)
			if !errors.Is(err, ErrNeedsRebuild) || !strings.Contains(err.Error(), "cairn index --rebuild") {
				t.Fatalf("Open = %v; want ErrNeedsRebuild suggesting a rebuild", err)
			}
			if errors.Is(err, ErrLocked) {
				t.Errorf("corruption reported as locked: %v", err)
			}
			if after := listFiles(t, dir); !slicesEqual(before, after) {
				t.Errorf("Open changed files:\nbefore %v\nafter  %v", before, after)
			}

			// The fix works: Remove, then Open creates a fresh index.
			if err := Remove(dir); err != nil {
				t.Fatal(err)
			}
			ix, err = Open(dir, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			if n, _ := ix.Count(); n != 0 {
				t.Errorf("rebuilt index has %d docs", n)
			}
		})
	}
}

func TestForeignDirIsNotTouched(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "precious.txt"), "keep me")
	if _, err := Open(dir, 0); !errors.Is(err, ErrNeedsRebuild) {
		t.Errorf("Open on a foreign dir: %v", err)
	}
	if err := Remove(dir); err == nil || errors.Is(err, ErrLocked) {
		t.Errorf("Remove on a foreign dir: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "precious.txt")); err != nil {
		t.Errorf("foreign file gone: %v", err)
	}
}

func TestRemove(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fts")
	if err := Remove(dir); err != nil {
		t.Errorf("Remove of a missing index: %v", err)
	}
	ix, err := Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := Remove(dir); !errors.Is(err, ErrLocked) {
		t.Errorf("Remove while open: %v, want ErrLocked", err)
	}
	ix.Close()
	if err := Remove(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("index still there: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 0 {
		t.Errorf("leftovers: %v", entries)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func listFiles(t *testing.T, dir string) []string {
	var out []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func slicesEqual(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") }

func TestRemoveCleansOldLeftovers(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "fts")
	old := filepath.Join(parent, ".fts.creating-123")
	young := filepath.Join(parent, ".fts.creating-456")
	other := filepath.Join(parent, "unrelated")
	for _, d := range []string{old, young, other} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	longAgo := time.Now().Add(-2 * time.Hour)
	os.Chtimes(old, longAgo, longAgo)
	os.Chtimes(other, longAgo, longAgo)
	if err := Remove(dir); err != nil {
		t.Fatal(err)
	}
	for d, want := range map[string]bool{old: false, young: true, other: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s exists=%v, want %v", filepath.Base(d), err == nil, want)
		}
	}
}
