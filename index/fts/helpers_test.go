package fts

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// openTemp opens a fresh index in a temporary directory, closed at cleanup.
func openTemp(t testing.TB) *Index {
	t.Helper()
	ix, err := Open(filepath.Join(t.TempDir(), "fts"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func mustIndex(t testing.TB, ix *Index, docs ...Doc) {
	t.Helper()
	if err := ix.Index(docs); err != nil {
		t.Fatal(err)
	}
}

// searchIDs runs a search that must not fail and returns the hit IDs in order.
func searchIDs(t testing.TB, ix *Index, q string, f Filter) []string {
	t.Helper()
	hits, total, err := ix.Search(q, f, 100)
	if err != nil {
		t.Fatalf("Search(%q): %v", q, err)
	}
	if total < uint64(len(hits)) {
		t.Fatalf("Search(%q): total %d < %d hits", q, total, len(hits))
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

// sameSet reports whether got and want hold the same IDs in any order.
func sameSet(got, want []string) bool {
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	return slices.Equal(g, w)
}

// transcriptFiles lists every .jsonl file under ../../testdata.
func transcriptFiles() []string {
	var files []string
	filepath.WalkDir("../../testdata", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
			files = append(files, path)
		}
		return nil
	})
	return files
}

// jsonlLines returns the lines of a file (t may be nil: benchmarks' setup).
func jsonlLines(t testing.TB, path string) [][]byte {
	fail := func(err error) {
		if t != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		fail(err)
		return nil
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		out = append(out, bytes.Clone(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		fail(err)
	}
	return out
}

// diffEveryLine runs diff on every raw line of the sample transcripts and,
// without -short, of the shared corpus when it is present, reporting the
// differences it describes.
func diffEveryLine(t *testing.T, diff func(line []byte) string) {
	t.Helper()
	files := transcriptFiles()
	if len(files) == 0 {
		t.Fatal("no sample transcripts under ../../testdata")
	}
	if !testing.Short() {
		shared, _ := filepath.Glob(filepath.Join(corpusDir, "*", "*.jsonl"))
		files = append(files, shared...)
	}
	lines, failures := 0, 0
	for _, f := range files {
		for _, line := range jsonlLines(t, f) {
			lines++
			if d := diff(line); d != "" {
				if len(d) > 600 {
					d = d[:600] + "…"
				}
				t.Errorf("%s line %d: %s", f, lines, d)
				if failures++; failures > 10 {
					t.Fatal("too many differences")
				}
			}
		}
	}
	if lines == 0 {
		t.Fatal("no lines")
	}
	t.Logf("%d lines from %d files", lines, len(files))
}
