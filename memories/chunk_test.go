package memories

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
)

// chunkFixture is a session of every kind of entry, of every length: some
// the model reads (prompts, replies, tool calls, tool errors, compaction
// summaries), some it does not (injected text, tool output, empty text).
func chunkFixture() []index.MemEntry {
	var es []index.MemEntry
	for i := range 60 {
		e := index.MemEntry{UUID: fmt.Sprintf("u%02d", i), Text: strings.Repeat(fmt.Sprintf("word%d ", i), 1+(i*37)%400)}
		switch i % 9 {
		case 0:
			e.Role = "user"
		case 1:
			e.Role, e.Meta = "user", true
		case 2:
			e.Role, e.Block = "assistant", "text"
		case 3:
			e.Role, e.Block = "assistant", "tool_use"
		case 4:
			e.Role, e.IsError = "tool", true
		case 5:
			e.Role = "tool"
		case 6:
			e.Role, e.Compact = "system", true
		case 7:
			e.Role, e.Block, e.Text = "assistant", "text", "   "
		case 8:
			e.Role, e.Block = "assistant", "thinking"
		}
		es = append(es, e)
	}
	return es
}

// Chunks hold whole entries, the readable ones, shortened, in chunks of
// about chunkChars overlapping by about chunkOverlap: pinned.
func TestChunkEntriesPinned(t *testing.T) {
	var b strings.Builder
	for _, c := range chunkEntries(chunkFixture()) {
		h := fnv.New64a()
		h.Write([]byte(c.text))
		refs := make([]string, 0, len(c.refs))
		for r, u := range c.refs {
			refs = append(refs, r+"="+u)
		}
		slices.Sort(refs)
		fmt.Fprintf(&b, "%d %x %s\n", len(c.text), h.Sum64(), strings.Join(refs, ","))
	}
	if got := b.String(); got != wantChunks {
		t.Errorf("got:\n%s\nwant:\n%s", got, wantChunks)
	}
	if len(chunkEntries(nil)) != 0 {
		t.Error("chunks of no entries")
	}
}

func TestSummaryExcerpt(t *testing.T) {
	chunks := []ollamaChunk{{text: "a"}, {text: "b"}, {text: "c"}, {text: "d"}}
	for n, want := range map[int]string{1: "a", 3: "abc", 4: "a\n[…]\ncd"} {
		if got, err := summaryExcerpt(chunks[:n]); err != nil || got != want {
			t.Errorf("%d chunks: %q %v, want %q", n, got, err, want)
		}
	}
	if _, err := summaryExcerpt(nil); err == nil {
		t.Error("no chunks: no error")
	}
}

const wantChunks = `5936 91b11e3a831ab32e #10=u09,#12=u11,#13=u12,#14=u13,#1=u00,#3=u02,#4=u03,#5=u04,#7=u06
5786 20277e5eed12f090 #16=u15,#19=u18,#21=u20,#22=u21,#23=u22
5213 e49362d4dd61ba94 #23=u22,#25=u24,#28=u27,#30=u29,#31=u30
5619 746fed27fad93e99 #32=u31,#34=u33,#37=u36,#39=u38,#40=u39
5766 8198827cfef215e2 #41=u40,#43=u42,#46=u45,#48=u47,#49=u48
5864 9f7f452ba573a571 #50=u49,#52=u51,#55=u54,#57=u56,#58=u57
1045 bf19a317d8ab26a5 #59=u58
`
