package transcripts

import (
	"os"
	"path/filepath"
	"testing"
)

// A first line starting with a UTF-8 byte order mark was dropped as "not
// JSON": the session lost its first prompt.
func TestByteOrderMarkOnFirstLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	body := "\xef\xbb\xbf" + `{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"first prompt"}}` + "\n" +
		`{"type":"user","uuid":"u2","sessionId":"s1","timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":"second"}}` + "\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	var got []string
	_, st, err := ReadFile(path, Cursor{}, func(e *Entry) error {
		got = append(got, e.UUID)
		return nil
	})
	if err != nil || st.BadLines != 0 || len(got) != 2 || got[0] != "u1" {
		t.Fatalf("entries %v, %d bad lines, err %v: want u1 and u2", got, st.BadLines, err)
	}
}
