package memories

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseSections: the draft parser never panics, every line it returns
// comes from the input, and accepted drafts always have content.
func FuzzParseSections(f *testing.F) {
	f.Add(goodDraft)
	f.Add("")
	f.Add("## Learned\n- one\n```\n- not\n")
	f.Add("**Decisions:**\n1) first\n2. second\n> quoted\n- [ ] todo\n")
	f.Add("#\n##\n###    \n- \n* \n")
	f.Fuzz(func(t *testing.T, md string) {
		sec, order := ParseSections(md)
		for _, name := range order {
			if _, ok := sec[name]; !ok {
				t.Fatalf("order names %q, which has no entry", name)
			}
		}
		for name, lines := range sec {
			for _, l := range lines {
				if l == "" || strings.Contains(l, "\n") {
					t.Fatalf("section %q has line %q", name, l)
				}
				if !strings.Contains(md, l) {
					t.Fatalf("line %q is not in the input", l)
				}
			}
		}
		if checkDraft(md) == nil {
			n := 0
			for _, v := range sec {
				n += len(v)
			}
			if n == 0 || !utf8.ValidString(md) {
				t.Fatal("accepted a draft without content")
			}
			out := renderSummary("", sec, order)
			if !utf8.ValidString(out) {
				t.Fatal("rendered invalid UTF-8")
			}
		}
	})
}

// FuzzReplaceBlock: a file is either refused, or everything outside the
// markers is kept byte for byte and the result has exactly one block,
// which a second replacement leaves unchanged.
func FuzzReplaceBlock(f *testing.F) {
	f.Add("# Title\n\ntext\n")
	f.Add("a\n" + MarkerStart + "\nold\n" + MarkerEnd + "\nb")
	f.Add(MarkerEnd + MarkerStart)
	f.Add(MarkerStart + MarkerStart + MarkerEnd)
	f.Add("<!-- cairn:start --" + ">\n<!-- cairn:end")
	f.Fuzz(func(t *testing.T, doc string) {
		block := MarkerStart + "\n- memory\n" + MarkerEnd
		out, err := ReplaceBlock(doc, block)
		if err != nil {
			if _, _, _, ferr := FindBlock(doc); ferr == nil {
				t.Fatalf("ReplaceBlock failed where FindBlock did not: %v", err)
			}
			return
		}
		start, end, found, err := FindBlock(out)
		if err != nil || !found || out[start:end] != block {
			t.Fatalf("result has no single block: %v %q", err, out)
		}
		if s0, e0, ok, _ := FindBlock(doc); ok {
			if out[:start] != doc[:s0] || out[end:] != doc[e0:] {
				t.Fatal("bytes outside the markers changed")
			}
		} else if !strings.HasPrefix(out, doc) {
			t.Fatal("appending changed the existing text")
		}
		again, err := ReplaceBlock(out, block)
		if err != nil || again != out {
			t.Fatalf("not idempotent: %v", err)
		}
	})
}
