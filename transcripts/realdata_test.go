package transcripts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// TestCompleteLastLineWithoutNewline: a complete last line without its
// newline waits while the file is being written, is read once the file
// has been quiet for QuietPeriod, and is not read again (nor counted as
// another line) when the newline arrives.
func TestCompleteLastLineWithoutNewline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	testutil.WriteFile(t, path, testutil.UserLine("u1", "S", "first")+strings.TrimSuffix(testutil.UserLine("u2", "S", "final answer"), "\n"))
	es, cur, _ := readAll(t, path, Cursor{})
	if len(es) != 1 {
		t.Fatalf("a fresh file: %d entries, want 1 (the last line may still be written)", len(es))
	}
	old := time.Now().Add(-2 * QuietPeriod)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	es, cur, _ = readAll(t, path, cur)
	if len(es) != 1 || es[0].PromptText() != "final answer" || cur.Line != 2 {
		t.Fatalf("quiet file: %d entries, cursor %+v", len(es), cur)
	}
	es, cur2, _ := readAll(t, path, cur)
	if len(es) != 0 || cur2.Offset != cur.Offset {
		t.Fatalf("read again: %d entries", len(es))
	}
	// The newline arrives, then another line.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	_, _ = f.WriteString("\n")
	f.Close()
	es, cur, st := readAll(t, path, cur)
	if len(es) != 0 || st.BadLines != 0 || st.Restart || cur.Line != 2 {
		t.Fatalf("after the newline: %d entries, %d bad, restart %v, line %d", len(es), st.BadLines, st.Restart, cur.Line)
	}
	f, _ = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	_, _ = f.WriteString(testutil.UserLine("u3", "S", "next"))
	f.Close()
	es, cur, _ = readAll(t, path, cur)
	if len(es) != 1 || es[0].UUID != "u3" || es[0].Line != 3 || cur.Line != 3 {
		t.Fatalf("next line: %+v, cursor %+v", es, cur)
	}
	// A half-written line (not complete JSON) still waits, however quiet.
	testutil.WriteFile(t, path, testutil.UserLine("u1", "S", "first")+`{"type":"user","uuid":"u2"`)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if es, _, st := readAll(t, path, Cursor{}); len(es) != 1 || st.BadLines != 0 {
		t.Fatalf("half line: %d entries, %d bad", len(es), st.BadLines)
	}
}
