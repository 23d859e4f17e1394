package index

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index/ftsapi"
)

// A file of a few huge lines (a pasted 20 MB log) used to peak at 634 MB
// (1 GB here) of memory: every copy of the text — the first prompt kept as
// a title, the full-text document, the vector's text — was whole. Now the
// store keeps the text for reading and everything derived is bounded.
// (Measured with /usr/bin/time on 62 MB of three ~20 MB lines: 1,022 MB
// before, 279 MB after, 216 MB without embeddings.)
func TestHugeLinesStayBounded(t *testing.T) {
	claude := t.TempDir()
	proj := filepath.Join(claude, "projects", "-w-big")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	huge := "hugeheadword " + strings.Repeat("lorem ipsum dolor sit amet ", 3<<20/27) + " hugetailword"
	sid := "bbbbbbbb-0000-4000-8000-000000000001"
	var lines []string
	for _, m := range []map[string]any{
		{"type": "user", "uuid": "u1", "message": map[string]any{"role": "user", "content": huge}},
		{"type": "assistant", "uuid": "a1", "parentUuid": "u1", "message": map[string]any{"id": "m1", "role": "assistant", "model": "claude", "content": []any{map[string]any{"type": "text", "text": huge}}}},
	} {
		m["sessionId"], m["timestamp"], m["cwd"] = sid, "2026-01-01T00:00:00Z", "/w/big"
		b, _ := json.Marshal(m)
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(filepath.Join(proj, sid+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, _ := openStore(t)
	if _, err := s.Update(t.Context(), claude, UpdateOptions{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	sess, err := s.Session(t.Context(), sid)
	if err != nil {
		t.Fatal(err)
	}
	if len(sess.FirstPrompt) > 9<<10 || !strings.HasPrefix(sess.FirstPrompt, "hugeheadword") {
		t.Errorf("first prompt kept: %d bytes (want its head, at most ~8 KB)", len(sess.FirstPrompt))
	}
	conv, err := s.Conversation(t.Context(), sid)
	if err != nil || len(conv.Entries) != 2 || !strings.HasSuffix(conv.Entries[0].JoinedText(), "hugetailword") {
		t.Fatalf("the whole text must stay readable: %v", err)
	}
	if d := ftsDoc(DocRow{Text: huge, Block: "text"}); len(d.Text) > ftsMaxText+200 || !strings.Contains(d.Text, "hugetailword") {
		t.Errorf("full-text document: %d bytes (want head and tail, at most %d)", len(d.Text), ftsMaxText)
	}
	if e := embedText(huge); len(e) > embedMaxText {
		t.Errorf("vector text: %d bytes", len(e))
	}
	sr, err := s.OpenSearcher(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	for _, w := range []string{"hugeheadword", "hugetailword"} {
		if _, n, err := sr.FTS.Search(w, ftsapi.Filter{}, 5); err != nil || n == 0 {
			t.Errorf("%s not searchable (%v)", w, err)
		}
	}
}
