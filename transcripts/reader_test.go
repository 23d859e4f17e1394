package transcripts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

func readAll(t *testing.T, path string, cur Cursor) ([]Entry, Cursor, ReadStats) {
	t.Helper()
	var es []Entry
	next, st, err := ReadFile(path, cur, func(e *Entry) error { es = append(es, *e); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return es, next, st
}

func TestIncrementalReadWaitsForCompleteLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	first := testutil.UserLine("u1", "S", "one")
	half := testutil.UserLine("u2", "S", "two")
	testutil.WriteFile(t, path, first+half[:20])
	es, cur, _ := readAll(t, path, Cursor{})
	if len(es) != 1 || cur.Offset != int64(len(first)) || cur.Line != 1 {
		t.Fatalf("first read: %d entries, cursor %+v", len(es), cur)
	}
	// The writer finishes the line and appends another.
	testutil.WriteFile(t, path, first+half+testutil.UserLine("u3", "S", "three"))
	es, cur, st := readAll(t, path, cur)
	if len(es) != 2 || es[0].UUID != "u2" || es[1].UUID != "u3" || st.Restart {
		t.Fatalf("second read: %+v %+v", es, st)
	}
	if es[0].Line != 2 || es[0].Offset != int64(len(first)) {
		t.Fatalf("positions: line %d offset %d", es[0].Line, es[0].Offset)
	}
	// Nothing new: nothing read.
	es, cur2, st := readAll(t, path, cur)
	if len(es) != 0 || cur2.Offset != cur.Offset || st.Bytes != 0 {
		t.Fatalf("idle read: %d %+v", len(es), st)
	}
}

func TestTruncatedOrReplacedFileStartsOver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	testutil.WriteFile(t, path, testutil.UserLine("u1", "S", "one")+testutil.UserLine("u2", "S", "two"))
	_, cur, _ := readAll(t, path, Cursor{})
	// Truncated: shorter than the cursor.
	testutil.WriteFile(t, path, testutil.UserLine("u1", "S", "one"))
	es, cur, st := readAll(t, path, cur)
	if !st.Restart || len(es) != 1 || cur.Line != 1 {
		t.Fatalf("truncate: restart=%v entries=%d", st.Restart, len(es))
	}
	// Replaced: same or larger size, different first line.
	testutil.WriteFile(t, path, testutil.UserLine("x1", "T", "other")+testutil.UserLine("x2", "T", "other two")+testutil.UserLine("x3", "T", "three"))
	es, _, st = readAll(t, path, cur)
	if !st.Restart || len(es) != 3 || es[0].UUID != "x1" {
		t.Fatalf("replace: restart=%v %d", st.Restart, len(es))
	}
}

func TestBadLinesAreCountedWithPosition(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	testutil.WriteFile(t, path, testutil.UserLine("u1", "S", "one")+"{broken\n\n"+"garbage here\n"+testutil.UserLine("u2", "S", "two"))
	es, cur, st := readAll(t, path, Cursor{})
	if len(es) != 2 || st.BadLines != 2 || cur.Line != 5 {
		t.Fatalf("entries %d bad %d line %d", len(es), st.BadLines, cur.Line)
	}
	if st.Errors[0].Line != 2 || st.Errors[1].Line != 4 || !strings.Contains(st.Errors[0].Error(), "s.jsonl:2") {
		t.Fatalf("errors %+v", st.Errors)
	}
}

func TestHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("20 MB line")
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	big := strings.Repeat("x", 20<<20)
	testutil.WriteFile(t, path, testutil.UserLine("u1", "S", big)+testutil.UserLine("u2", "S", "after"))
	es, _, st := readAll(t, path, Cursor{})
	if len(es) != 2 || len(es[0].PromptText()) != len(big) || es[1].PromptText() != "after" || st.BadLines != 0 {
		t.Fatalf("entries %d bad %d", len(es), st.BadLines)
	}
}

func TestEmptyAndMetadataOnlyFiles(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "e.jsonl")
	testutil.WriteFile(t, empty, "")
	es, cur, st := readAll(t, empty, Cursor{})
	if len(es) != 0 || cur.Offset != 0 || st.BadLines != 0 {
		t.Fatal("empty file")
	}
	meta := filepath.Join(dir, "m.jsonl")
	testutil.WriteFile(t, meta, `{"type":"summary","summary":"x","leafUuid":"nope"}`+"\n"+`{"type":"file-history-snapshot","messageId":"m","snapshot":{}}`+"\n")
	es, _, _ = readAll(t, meta, Cursor{})
	if len(es) != 2 {
		t.Fatal("metadata entries")
	}
}

func TestMissingFile(t *testing.T) {
	_, _, err := ReadFile(filepath.Join(t.TempDir(), "gone.jsonl"), Cursor{}, func(*Entry) error { return nil })
	if !os.IsNotExist(err) {
		t.Fatalf("want not-exist, got %v", err)
	}
}
