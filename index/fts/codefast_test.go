package fts

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/stop"
	"github.com/blevesearch/bleve/v2/registry"
)

// codeChain is the code analyzer as it was built before codeAnalyzer: the
// code tokenizer, codePartsFilter and bleve's stop_en filter, one after
// another. codeAnalyzer must produce exactly its output.
func codeChain(compoundsOnly bool) analysis.Analyzer {
	return codeChains()[compoundsOnly]
}

var codeChains = sync.OnceValue(func() map[bool]analysis.Analyzer {
	c := registry.NewCache()
	stopFilter, err := c.TokenFilterNamed(en.StopName)
	if err != nil {
		panic(err)
	}
	m := map[bool]analysis.Analyzer{}
	for _, co := range []bool{true, false} {
		m[co] = &analysis.DefaultAnalyzer{
			Tokenizer:    codeTokenizer{compoundsOnly: co},
			TokenFilters: []analysis.TokenFilter{codePartsFilter{}, stopFilter},
		}
	}
	return m
})

func fusedCode(compoundsOnly bool) analysis.Analyzer {
	if compoundsOnly {
		return analyzers().code
	}
	return analyzers().codeQuery
}

// diffCode analyses in with the chain and the fused analyzer, both index
// and query variants, and describes the first difference, or returns "".
// It also checks that the fused analyzer leaves its input alone.
func diffCode(in []byte) string {
	for _, co := range []bool{true, false} {
		want := codeChain(co).Analyze(bytes.Clone(in))
		cp := bytes.Clone(in)
		got := fusedCode(co).Analyze(cp)
		if !bytes.Equal(cp, in) {
			return fmt.Sprintf("input %q: compoundsOnly=%v: input rewritten to %q", in, co, cp)
		}
		if d := diffCodeStreams(want, got); d != "" {
			return fmt.Sprintf("input %q: compoundsOnly=%v: %s", in, co, d)
		}
	}
	return ""
}

// diffCodeStreams is diffStreams (english_test.go) that also tells a nil
// stream from an empty one (the chain returns an empty one).
func diffCodeStreams(want, got analysis.TokenStream) string {
	if (want == nil) != (got == nil) {
		return fmt.Sprintf("chain stream nil %v, fused nil %v", want == nil, got == nil)
	}
	return diffStreams(want, got)
}

// codeCases are hand-written inputs around every rule the fused analyzer
// reimplements.
var codeCases = []string{
	"", " ", "a", "ab", "A", "AB", "Ab", "aB", "the", "The", "THE", "the_and", "The_And", "a_the", "of-the",
	"and.or", "it/is", "x_y", "a_b_c", "ab_cd", "ab__cd", "_ab_", "__init__", "--flag", "-x", "a-", "-",
	"parseTranscript", "ParseTranscript", "parse_transcript", "kebab-case-name", "SCREAMING_SNAKE_CASE",
	"HTTPServer", "HTTPServerError", "getHTTPResponseCode", "IOError", "XMLHttpRequest", "iPhone", "eBay",
	"base64Encode", "utf8", "v2", "v2.6.1", "1.2.3", "x86_64", "ABCdef", "AbCdEfGh", "aBcDeFgHiJ",
	"aGVsbG8gd29ybGQ", "SGVsbG8gV29ybGQh", "dGhlIHF1aWNrIGJyb3duIGZveA==", "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo",
	"transcripts/parse.go", "index/fts/codesplit.go:42", "(./cmd/main.go:12),", "./a", "../b/c", "/",
	`C:\Users\me\notes.txt`, `\\server\share\file`, "~/.config/cairn/config.toml", "~user", "#123",
	"https://example.com/a?b=c&d=e#frag", "http://user:pass@host:8080/path/to/x.html", "git@github.com:o/r.git",
	"user@example.com", "a@b", "@scope/pkg-name", "os.Args", "fmt.Println", "json.Unmarshal(b, &v)",
	"bleve.NewIndexMapping().DefaultAnalyzer", "a.b.c.d.e", "a..b", "a.:b", "a:@#~b", "a/.b", "a/_b_/c",
	"044212e4-97e7-488c-805a-d37a097807ab", "044212E4-97E7-488C-805A-D37A097807AB", "deadbeef-cafe",
	"dead-beef", "abc-def", "123-456", "a1b2-c3d4", "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
	"9f86d081884c7d659a2feaa0c55ad015", "ee8d054", "git show ee8d054:index/fts/english.go",
	"/home/marco/projects/spotter-worktrees/spotter-4te/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
	"naïve_café", "NAÏVE_Café", "ÉcoleNormale", "écoleNormale", "straßeName", "ΣΑΣ_σας", "ὈΔΥΣΣΕΎΣ.ok",
	"Ⱥlpha_Ⱦest", "ȺȾ", "ǅemal_ǈj", "ǅǅ", "aǅb", "İstanbul_city", "K_kelvin", "Ω_ohm", "ẞig_x",
	"e\u0301cole_x", "a\u0301B", "\u0301a_b", "a_\u0301", "x\u0308Y", "日本語_テキスト", "日本Go", "Go日本",
	"Привет_Мир", "приветМир", "ПРИВЕТмир", "ＡＢＣ_ｄｅｆ", "１２３_abc", "٣.١٤_x", "ab\u200dcd_e",
	"emoji😀_x", "a😀b_c", "→a_b", "a_b→", "a→b_c", "├── a_b.go", "     1→package main_test",
	"\xff", "a\xffb_c", "a_b\xff", "\xffa_b", "a_\xffb", "A\xc3B_c", "aB\xc3", "\xc3\xa9_B", "\xed\xa0\x80a_b",
	"\xc0\x80", "a\xf4\x90\x80\x80b_c", "AB\xe2\x80", "ab_c\x00d_e",
	strings.Repeat("a", 128), strings.Repeat("a", 129), strings.Repeat("a", 128) + "_b", strings.Repeat("a", 129) + "_bc",
	strings.Repeat("ab_", 43), strings.Repeat("ab_", 42) + "ab", strings.Repeat("é", 64) + "_x", strings.Repeat("é", 65) + "_x",
	strings.Repeat("Ⱥ", 64) + "_x", strings.Repeat("aB", 64), strings.Repeat("aB", 65),
	strings.Repeat("x", 512), strings.Repeat("x", 513), strings.Repeat("a_", 256), strings.Repeat("a_", 256) + "b",
	strings.Repeat("a/", 300), strings.Repeat("ab/", 170) + "c", strings.Repeat("aB", 256), strings.Repeat("é", 256) + "_",
	strings.Repeat("a_b ", 50), strings.Repeat("a", 511) + "_", "_" + strings.Repeat("a", 512) + "_",
	"the Transcript of parseTranscript", "call parse_transcript(r) and HTTPServer",
	"go test -run=^$ -fuzz=FuzzCodeAnalyzer -fuzztime=3m ./index/fts/",
	`{"type":"assistant","message":{"content":[{"type":"text","text":"Let's fix parse.go:42 in index/fts."}]}}`,
	"src/parse_transcript.go src/parse_transcript.go parseTranscript parse_transcript",
	"a.b a.b A.B a-b-a-b the-the-the", "x_x_x", "ab_ab", "ab-AB", "Ab-aB", "foo_Bar-baz.Qux/quux",
}

// TestCodeRuneBits checks the bit tables against the functions they stand
// for, for every rune (the tables cover the BMP; the rest falls through).
func TestCodeRuneBits(t *testing.T) {
	if withoutRace.RanAlone(t) {
		return
	}
	b := codeRuneBits()
	for r := rune(-1); r <= unicode.MaxRune+1; r++ {
		if got, want := b.isWord(r), isWordRune(r); got != want {
			t.Fatalf("isWord(%U) = %v, want %v", r, got, want)
		}
		if got, want := b.isUpper(r), unicode.IsUpper(r); got != want {
			t.Fatalf("isUpper(%U) = %v, want %v", r, got, want)
		}
	}
}

// codeCheck holds the fused code analyzer to codeChain.
var codeCheck = chainCheck{cases: codeCases, pieces: codePieces, most: 40, diff: diffCode}

func TestCodeAnalyzerMatchesChainOnCases(t *testing.T) {
	codeCheck.onCases(t)
}

// TestCodeAnalyzerMatchesChainOnTranscripts feeds every raw line of the
// sample transcripts (JSON punctuation, escapes, unicode, code, paths) and,
// without -short, the shared corpus when it is present.
func TestCodeAnalyzerMatchesChainOnTranscripts(t *testing.T) {
	if withoutRace.RanAlone(t) {
		return
	}
	diffEveryLine(t, diffCode)
}

// codePieces are what random inputs are strung together from, to exercise
// the splitter: words in every case, connectors, digits, hex, non-ASCII
// letters and marks, separators and broken UTF-8.
var codePieces = []string{"a", "b", "x", "ab", "Ab", "AB", "parse", "Transcript", "HTTP", "Server", "the", "and",
	"of", "it", "0", "1", "42", "f", "e4", "dead", "BEEF", "_", "-", ".", ":", "@", "#", "~", "/", `\`,
	" ", "\n", "(", ")", ",", "'", "\"", "=", "é", "É", "ß", "ẞ", "Σ", "σ", "ǅ", "Ⱥ", "İ", "K", "\u0301",
	"日", "Я", "я", "１", "٣", "😀", "→", "\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80",
}

func TestCodeAnalyzerMatchesChainOnRandomInputs(t *testing.T) {
	if withoutRace.RanAlone(t) {
		return
	}
	codeCheck.onRandom(t, [2]uint64{7, 8}, 20000, 3000, 0)
}

// TestCodeAnalyzerTermsAreNotShared checks that terms of one call do not
// change when the analyzer runs again (bleve keeps them).
func TestCodeAnalyzerTermsAreNotShared(t *testing.T) {
	a := analyzers().code
	first := a.Analyze([]byte("ParseTranscript snake_case HTTPServer"))
	var saved []string
	for _, tok := range first {
		saved = append(saved, string(tok.Term))
	}
	for range 10 {
		a.Analyze([]byte("OtherThing KEBAB-CASE-NAME ÉcoleNormale"))
	}
	for i, tok := range first {
		if string(tok.Term) != saved[i] {
			t.Fatalf("term %d changed from %q to %q", i, saved[i], tok.Term)
		}
	}
}

func TestCodeAnalyzerConcurrent(t *testing.T) {
	lines := sampleLines(t, 400)
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < len(lines); i += 4 {
				if d := diffCode(lines[i]); d != "" {
					errs <- d
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for d := range errs {
		t.Error(d)
	}
}

// FuzzCodeAnalyzer holds the fused analyzer (both variants) to the chain on
// arbitrary bytes, invalid UTF-8 included.
func FuzzCodeAnalyzer(f *testing.F) {
	codeCheck.fuzz(f, [2]uint64{9, 10})
}

// codeBenchLines is realistic input: the raw lines of the sample
// transcripts (or of the shared corpus when present), concatenated into
// documents of 3 to 4 KB. Raw JSONL has what the indexer sees (text, tool
// input and output, paths) plus JSON keys, UUIDs and punctuation, which
// makes it denser in compounds than what is indexed.
var codeBenchLines = sync.OnceValue(func() [][]byte {
	var docs [][]byte
	var cur []byte
	for _, f := range benchFiles() {
		for _, line := range jsonlLines(nil, f) {
			for len(line) > 0 {
				k := min(len(line), 4096-len(cur))
				// Cut at a space so documents hold whole tokens.
				if k < len(line) {
					if sp := bytes.LastIndexByte(line[:k], ' '); sp > 0 {
						k = sp + 1
					}
				}
				cur = append(cur, line[:k]...)
				line = line[k:]
				if len(cur) >= 3072 {
					docs = append(docs, cur)
					cur = nil
				}
			}
			cur = append(cur, '\n')
		}
	}
	if len(cur) > 0 {
		docs = append(docs, cur)
	}
	return docs
})

// BenchmarkCodeAnalyzer compares the chain and the fused analyzer, index
// and query variants, on raw transcript lines and on transcript texts.
func BenchmarkCodeAnalyzer(b *testing.B) {
	for _, set := range []struct {
		name string
		docs func() [][]byte
	}{{"lines", codeBenchLines}, {"texts", benchTexts}} {
		docs := set.docs()
		if len(docs) == 0 {
			b.Skip("no transcripts")
		}
		size := 0
		for _, d := range docs {
			size += len(d)
		}
		for _, bc := range []struct {
			name string
			a    analysis.Analyzer
			cold bool
		}{
			{"chain", codeChain(true), false},
			{"fused", fusedCode(true), false},
			// Each pass starts with an empty compound cache.
			{"fused-cold-cache", fusedCode(true), true},
			{"chain-query", codeChain(false), false},
			{"fused-query", fusedCode(false), false},
		} {
			b.Run(set.name+"/"+bc.name, func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				tokens := 0
				for range b.N {
					if bc.cold {
						b.StopTimer()
						clearCodeCompounds()
						b.StartTimer()
					}
					tokens = 0
					for _, d := range docs {
						tokens += len(bc.a.Analyze(d))
					}
				}
				b.ReportMetric(float64(tokens), "tokens/op")
			})
		}
	}
}

func BenchmarkCodeRuneBits(b *testing.B) {
	for range b.N {
		codeRuneBits = sync.OnceValue(codeRuneBitsBuild)
		codeRuneBits()
	}
}

// TestCodeAnalyzerOwnStopList checks that analyzers with other stop lists
// do not replay each other's entries of the shared compound cache.
func TestCodeAnalyzerOwnStopList(t *testing.T) {
	in := []byte("parse_transcript parseTranscript the_and HTTPServer src/parse.go")
	for _, stopWords := range []analysis.TokenMap{{}, {"parse": true, "go": true}, {"http": true, "": true}} {
		want := (&analysis.DefaultAnalyzer{
			Tokenizer:    codeTokenizer{compoundsOnly: true},
			TokenFilters: []analysis.TokenFilter{codePartsFilter{}, stop.NewStopTokensFilter(stopWords)},
		}).Analyze(in)
		for range 2 { // a miss, then a hit
			analyzers().code.Analyze(in)
			got := newCodeAnalyzerFused(stopWords, true).Analyze(in)
			if d := diffCodeStreams(want, got); d != "" {
				t.Errorf("stop words %v: %s", stopWords, d)
			}
		}
	}
}

func clearCodeCompounds() {
	for i := range codeCompounds {
		codeCompounds[i].Store(nil)
	}
}
