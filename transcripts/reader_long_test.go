package transcripts

import (
	"errors"
	"testing"
)

// TestSkipLongLine pins the bookkeeping for a line over MaxLineBytes,
// which Read skips (too big to test through Read): it counts as a bad line
// at the cursor and the cursor moves past it.
func TestSkipLongLine(t *testing.T) {
	cur := Cursor{Line: 4, Offset: 1000}
	var st ReadStats
	skipLongLine("s.jsonl", 600<<20, &cur, &st)
	if cur.Line != 5 || cur.Offset != 1000+600<<20 {
		t.Fatalf("cursor %+v", cur)
	}
	if st.Lines != 1 || st.Bytes != 600<<20 || st.BadLines != 1 || st.Entries != 0 {
		t.Fatalf("stats %+v", st)
	}
	if e := st.Errors[0]; e.Line != 5 || e.Offset != 1000 || e.Path != "s.jsonl" || !errors.Is(e.Err, errLineTooLong) {
		t.Fatalf("error %+v", e)
	}
}
