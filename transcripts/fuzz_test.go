package transcripts

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// seedLines adds real lines from the bundled sample to a fuzz corpus (the
// checked-in testdata/fuzz seeds add the edge cases).
func seedLines(f *testing.F, max int) {
	paths, _ := filepath.Glob(filepath.Join(testutil.SampleClaudeDir(), "projects", "*", "*.jsonl"))
	n := 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, line := range bytes.Split(b, []byte{'\n'}) {
			if len(line) > 0 && len(line) < 4096 && n < max {
				f.Add(line)
				n++
			}
		}
	}
}

func checkEntry(t *testing.T, e *Entry) {
	for _, b := range e.Blocks {
		if !utf8.ValidString(b.Text) {
			t.Fatalf("invalid UTF-8 in block text %q", b.Text)
		}
		_ = ToolSummary(&b)
		_ = ToolSearchText(&b)
	}
	_ = IsRealPrompt(e)
	_ = CleanPrompt(e.PromptText())
	for _, c := range e.IDEContext() {
		if !utf8.ValidString(c) {
			t.Fatalf("invalid UTF-8 in IDE context %q", c)
		}
	}
	_ = e.Media()
	_ = OneLine(e.JoinedText(), 80)
	for _, s := range EntrySaid(e) {
		if !utf8.ValidString(s.Text) || s.Text == "" {
			t.Fatalf("what the person said is empty or invalid UTF-8: %q", s.Text)
		}
	}
}

func FuzzParseLine(f *testing.F) {
	seedLines(f, 200)
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := ParseLine(line)
		if err != nil {
			return
		}
		checkEntry(t, &e)
		if !utf8.ValidString(e.UUID) || !utf8.ValidString(e.SessionID) {
			t.Fatal("invalid UTF-8 in ids")
		}
	})
}

func FuzzParseContent(f *testing.F) {
	f.Add([]byte(`"plain"`))
	f.Add([]byte(`[{"type":"text","text":"a"},{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]}]`))
	f.Add([]byte(`[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls"}}]`))
	f.Fuzz(func(t *testing.T, v []byte) {
		blocks, _ := ParseContent(v)
		e := Entry{Type: "user", Blocks: blocks}
		checkEntry(t, &e)
	})
}

// FuzzRead checks the incremental reader: reading a file in two steps at any
// split point yields the same entries as reading it at once, and the cursor
// only ever stops after a newline.
func FuzzRead(f *testing.F) {
	f.Add([]byte(testutil.UserLine("u1", "S", "one")+"{bad\n"+testutil.UserLine("u2", "S", "two")), uint16(10))
	f.Add([]byte("\n\n{}\n{\"type\":\"user\"}"), uint16(3))
	f.Fuzz(func(t *testing.T, data []byte, split uint16) {
		dir := t.TempDir()
		path := filepath.Join(dir, "f.jsonl")
		cut := int(split) % (len(data) + 1)
		if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		var two []string
		collect := func(dst *[]string) func(*Entry) error {
			return func(e *Entry) error { *dst = append(*dst, e.UUID+"|"+e.Type+"|"+e.JoinedText()); return nil }
		}
		cur, _, err := ReadFile(path, Cursor{}, collect(&two))
		if err != nil {
			t.Fatal(err)
		}
		if cur.Offset > 0 && data[cur.Offset-1] != '\n' {
			t.Fatalf("cursor %d not after a newline", cur.Offset)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cur2, st, err := ReadFile(path, cur, collect(&two))
		if err != nil {
			t.Fatal(err)
		}
		var one []string
		cur1, _, _ := ReadFile(path, Cursor{}, collect(&one))
		if st.Restart {
			return // the first line changed between the reads: a replaced file
		}
		if cur1.Offset != cur2.Offset || len(one) != len(two) {
			t.Fatalf("split read differs: %d/%d entries, offsets %d/%d", len(one), len(two), cur1.Offset, cur2.Offset)
		}
		for i := range one {
			if one[i] != two[i] {
				t.Fatalf("entry %d differs", i)
			}
		}
	})
}
