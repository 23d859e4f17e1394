package tui

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn/theme"
	"github.com/cairn-dev/cairn/transcripts"

	"github.com/charmbracelet/x/ansi"
)

func plainMD(src string, w int) []string {
	return renderMarkdown(src, w, mdStylesFor(theme.New(true, true)))
}

func darkMD(src string, w int) []string {
	return renderMarkdown(src, w, mdStylesFor(theme.New(true, false)))
}

func checkLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n--- got\n%s\n--- want\n%s", what, strings.Join(got, "|\n"), strings.Join(want, "|\n"))
	}
}

func TestMarkdownBlocks(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		w         int
		want      []string
	}{
		{"headings keep their level", "# One\n\nSetext\n------\n\n### Three", 40,
			[]string{"# One", "", "## Setext", "", "### Three"}},
		{"paragraph word-wrapped", "The quick brown fox jumps over the lazy dog again and again.", 20,
			[]string{"The quick brown fox", "jumps over the lazy", "dog again and again."}},
		{"soft breaks join, hard breaks break", "one\ntwo  \nthree", 40,
			[]string{"one two", "three"}},
		{"emphasis without colour keeps its markers", "a *b* **c** ~~d~~ `e f`", 40,
			[]string{"a *b* **c** ~~d~~ `e f`"}},
		{"bullets hang their wrapped lines", "- first item wraps onto a second line\n- two\n  - nested one\n    - deeper", 20,
			[]string{"• first item wraps", "  onto a second line", "• two", "  ◦ nested one", "    ▪ deeper"}},
		{"ordered numbers align", "9. nine\n10. ten wraps here", 12,
			[]string{" 9. nine", "10. ten", "    wraps", "    here"}},
		{"loose lists keep blank lines", "- a\n\n- b", 20,
			[]string{"• a", "", "• b"}},
		{"task lists", "- [ ] open\n- [x] done", 20,
			[]string{"• [ ] open", "• [x] done"}},
		{"quote bar", "> quoted text that wraps", 12,
			[]string{"▎ quoted", "▎ text that", "▎ wraps"}},
		{"fenced code: label, bar, hard-wrapped not word-wrapped", "```go\nfunc f() { return 1234567890 }\n\n}\n```", 20,
			[]string{"╭ go", "│ func f() { return", "┆ 1234567890 }", "│", "│ }"}},
		{"indented code", "    x := 1", 20, []string{"│ x := 1"}},
		{"thematic break", "a\n\n---\n\nb", 5, []string{"a", "", "─────", "", "b"}},
		{"links show their URL", "see [docs](https://x.io/d) and <https://x.io> and [https://x.io](https://x.io)", 80,
			[]string{"see docs (https://x.io/d) and https://x.io and https://x.io"}},
		{"images show their alt text", "![a chart](c.png)", 40, []string{"[image: a chart] (c.png)"}},
		{"raw HTML literally", "<div>\nhi\n</div>\n\nuse Vec<String> here", 40,
			[]string{"<div>", "hi", "</div>", "", "use Vec<String> here"}},
		{"escapes and entities", `\*not em\* &amp; &lt;b&gt;`, 40, []string{"*not em* & <b>"}},
		{"long words are cut", "abcdefghijkl", 5, []string{"abcde", "fghij", "kl"}},
		{"table aligned", "| a | bb | c |\n|---|:--:|--:|\n| xxx | y | 1 |\n| z | | 22 |", 40,
			[]string{"a   │ bb │  c", "────┼────┼───", "xxx │ y  │  1", "z   │    │ 22"}},
		{"table after text", "Text:\n| a | b |\n|---|---|\n| 1 | 2 |", 40,
			[]string{"Text:", "", "a │ b", "──┼──", "1 │ 2"}},
		{"table cells wrap to fit", "| name | description |\n|---|---|\n| x | a long description of the thing |", 24,
			[]string{"name │ description", "─────┼──────────────────", "x    │ a long", "     │ description of", "     │ the thing"}},
		{"code and tables inside list items hang", "- run:\n\n  ```sh\n  go test\n  ```\n- t:\n\n  | a | b |\n  |---|---|\n  | 1 | 2 |", 40,
			[]string{"• run:", "", "  ╭ sh", "  │ go test", "", "• t:", "", "  a │ b", "  ──┼──", "  1 │ 2"}},
		{"pipes without a delimiter row stay text", "a | b\nc | d", 40, []string{"a | b c | d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkLines(t, tc.name, plainMD(tc.src, tc.w), tc.want)
		})
	}
}

func TestMarkdownStyles(t *testing.T) {
	st := mdStylesFor(theme.New(true, false))
	out := strings.Join(darkMD("# Title\n\n**bold** `code` [l](u)\n\n```\nx\n```", 40), "\n")
	for _, want := range []string{st.h1 + "Title", st.strong + "bold", st.code + "code", st.link + "l", st.url + "(u)", st.codeText + "x"} {
		if !strings.Contains(out, want) {
			t.Errorf("dark output lacks %q:\n%q", want, out)
		}
	}
	if st.h1 == "" || st.code == "" || st.link == "" {
		t.Fatal("dark theme has empty Markdown styles")
	}
	// Every line closes what it opens: cutting the view never bleeds colour.
	for _, l := range darkMD("a **bold phrase that wraps over lines** and `code that wraps too`", 12) {
		if strings.LastIndex(l, "\x1b[") != strings.LastIndex(l, sgrOff) {
			t.Errorf("line leaves a style open: %q", l)
		}
	}
	if d, l := mdStylesFor(theme.New(true, false)), mdStylesFor(theme.New(false, false)); d.h1 == l.h1 {
		t.Error("light and dark Markdown share the heading colour")
	}
}

// Transcript text is untrusted: a reply's escape sequences, raw or spelled as
// entities, must never reach the terminal.
func TestMarkdownNeutralisesControls(t *testing.T) {
	src := "x\x1b[2J y &#27;[31m z &#x9b;1m\n\n```\n\x1b]52;c;aGk=\x07\n```\n| a\x1b[5m | b |\n|---|---|\n| \x07 | &#7; |"
	for _, l := range plainMD(src, 40) {
		if strings.ContainsAny(l, "\x1b\x07\u009b") {
			t.Errorf("control character in %q", l)
		}
	}
	for _, l := range darkMD(src, 40) {
		if strings.ContainsAny(ansi.Strip(l), "\x1b\x07\u009b") {
			t.Errorf("control character in %q", l)
		}
	}
}

func TestMarkdownEdgeCases(t *testing.T) {
	for _, src := range []string{"", "   \n\n", "#", "-", "1.", "- [ ]", ">", "```", "|a|\n|-|", "| a | b |\n|---|---|\n| 1 |", "***", "[x]: y"} {
		for _, w := range []int{0, 1, 2, 3, 80} {
			for _, l := range plainMD(src, w) {
				if ansi.StringWidth(l) > max(1, w) {
					t.Errorf("%q at %d: line %q too wide", src, w, l)
				}
				if strings.HasSuffix(l, " ") {
					t.Errorf("%q at %d: trailing space in %q", src, w, l)
				}
			}
		}
	}
}

// assistantTexts are the text blocks of Claude's replies in the bundled
// sample and, when present, the shared corpus.
var assistantTexts = sync.OnceValue(func() []string {
	var out []string
	for _, dir := range []string{sampleDir, "../../shared/corpus/claude"} {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
				return nil
			}
			transcripts.ReadFile(path, transcripts.Cursor{}, func(e *transcripts.Entry) error {
				if e.Type != "assistant" {
					return nil
				}
				for _, b := range e.Blocks {
					if b.Type == transcripts.BlockText && strings.TrimSpace(b.Text) != "" {
						out = append(out, b.Text)
					}
				}
				return nil
			})
			return nil
		})
	}
	return out
})

// Every line of every real reply fits the width, at every width, and
// without colour nothing but text is written.
func TestMarkdownFitsRealReplies(t *testing.T) {
	texts := assistantTexts()
	if len(texts) < 10 {
		t.Fatalf("only %d assistant texts in the sample", len(texts))
	}
	if _, err := os.Stat("../../shared/corpus/claude"); err != nil {
		t.Logf("shared corpus absent: %d texts from the bundled sample", len(texts))
	} else {
		t.Logf("%d assistant texts", len(texts))
	}
	dark, none := mdStylesFor(theme.New(true, false)), mdStylesFor(theme.New(false, true))
	for _, w := range []int{20, 40, 80, 120} {
		for i, src := range texts {
			for _, st := range []*mdStyles{dark, none} {
				for _, l := range renderMarkdown(src, w, st) {
					if n := ansi.StringWidth(l); n > w {
						t.Fatalf("text %d at width %d: line of %d cells: %q", i, w, n, l)
					}
					if st.noColor && strings.ContainsRune(l, '\x1b') {
						t.Fatalf("text %d: escape sequence without colour: %q", i, l)
					}
				}
			}
		}
	}
}

func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{
		"# h\n\npara *em* **strong** `code` ~~s~~ [l](u) <a> ![i](j)\n\n- a\n  - b\n1. c\n- [x] d\n\n> q\n\n```go\nx\n```\n\n| a | b |\n|:-|-:|\n| 1 | 2 |\n\n---",
		"漢字とかなの混じった長い文章が続きます。|表|\n|-|\n|セル|", "👩‍👩‍👧 emoji 🎉 text", "a\x1b[31mb\tc\r\n",
		"- - - -\n  > - x\n    ```\n    code\n    ```", "\\\n&#0; &#x110000; &nbsp;",
	} {
		f.Add(s, 20)
	}
	// A rule nested deep enough to push the width below 0 once crashed the
	// renderer (a negative strings.Repeat).
	f.Add("0000000000000000000000000000000000000000000\n* ---", -1)
	dark, none := mdStylesFor(theme.New(true, false)), mdStylesFor(theme.New(false, true))
	f.Fuzz(func(t *testing.T, src string, w int) {
		w = max(-1, min(w, 200))
		for _, st := range []*mdStyles{dark, none} {
			for _, l := range renderMarkdown(src, w, st) {
				if n := ansi.StringWidth(l); n > max(1, w) {
					t.Fatalf("width %d: line of %d cells: %q", w, n, l)
				}
				plain := l
				if !st.noColor {
					plain = ansi.Strip(l)
				}
				for _, r := range plain {
					if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
						t.Fatalf("control character %U in %q", r, l)
					}
				}
			}
		}
	})
}

// BenchmarkMarkdown renders every assistant text of the sample at 100 cells.
func BenchmarkMarkdown(b *testing.B) {
	texts := assistantTexts()
	st := mdStylesFor(theme.New(true, false))
	bytes := 0
	for _, s := range texts {
		bytes += len(s)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, s := range texts {
			renderMarkdown(s, 100, st)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(texts)), "µs/msg")
	b.ReportMetric(float64(bytes)/float64(len(texts)), "bytes/msg")
}

func TestMarkdownRuleAtNegativeWidth(t *testing.T) {
	st := mdStylesFor(theme.New(true, false))
	for w := -3; w <= 3; w++ {
		_ = renderMarkdown("x\n* > - ---", w, st) // must not panic
	}
}
