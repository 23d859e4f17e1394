package fts

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/length"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/go-porterstemmer"
)

// bleveEnglishChain is analyzerEnglish as it was built before
// englishAnalyzer: bleve's own tokenizer and filters, one after another.
// englishAnalyzer must produce exactly its output.
var bleveEnglishChain = sync.OnceValue(func() analysis.Analyzer {
	c := registry.NewCache()
	tok, err := c.TokenizerNamed(unicode.Name)
	if err != nil {
		panic(err)
	}
	named := func(name string) analysis.TokenFilter {
		f, err := c.TokenFilterNamed(name)
		if err != nil {
			panic(err)
		}
		return f
	}
	return &analysis.DefaultAnalyzer{Tokenizer: tok, TokenFilters: []analysis.TokenFilter{
		named(en.PossessiveName),
		named(lowercase.Name),
		named(en.StopName),
		length.NewLengthFilter(0, maxEnglishTokenRunes),
		named(porter.Name),
	}}
})

func fusedEnglish() analysis.Analyzer { return analyzers().english }

// diffEnglish analyses in with both analyzers (each on its own copy: both
// rewrite their input) and describes the first difference, or returns "".
func diffEnglish(in []byte) string {
	want := bleveEnglishChain().Analyze(bytes.Clone(in))
	got := fusedEnglish().Analyze(bytes.Clone(in))
	if d := diffStreams(want, got); d != "" {
		return fmt.Sprintf("input %q: %s", in, d)
	}
	return ""
}

// diffStreams describes the first difference between two token streams.
func diffStreams(want, got analysis.TokenStream) string {
	for i := range max(len(want), len(got)) {
		var w, g *analysis.Token
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w == nil || g == nil || !bytes.Equal(w.Term, g.Term) || w.Start != g.Start || w.End != g.End ||
			w.Position != g.Position || w.Type != g.Type || w.KeyWord != g.KeyWord {
			return fmt.Sprintf("token %d (of %d/%d): bleve %s, fused %s", i, len(want), len(got), tokString(w), tokString(g))
		}
	}
	return ""
}

func tokString(t *analysis.Token) string {
	if t == nil {
		return "<none>"
	}
	return fmt.Sprintf("{%q %d-%d pos %d type %d kw %v}", t.Term, t.Start, t.End, t.Position, t.Type, t.KeyWord)
}

// englishCases are hand-written inputs around every rule the fused
// analyzer reimplements.
var englishCases = []string{
	"", " ", "a", "s", "'s", "I", "the", "The THE tHe", "a the of and",
	"John's", "JOHN'S", "John’s", "John＇s", "Johns'", "it's", "its'", "'s's", "x's's", "James's",
	"don't", "can't", "won't", "o'clock", "rock'n'roll", "a'", "'a", "a''b", "a'1", "1'a", "1'2",
	"3.14", "1,000", "1,000.5", "1;2", "1:2", "1.a", "a.1", "1..2", "1,,2", ".5", "5.", "-5", "+5",
	"e.g.", "e.g", "i.e.,", "foo.bar", "foo.bar.baz", "a.b.c", "a:b", "a:b:c", "a::b", "a;b", "a,b",
	"foo_bar", "_foo", "foo_", "__", "_", "_1", "1_", "1_2", "a_1", "1_a", "a_.b", "a._b", "a_'s",
	"trailing.", "trailing..", "...", "a...b", "end!", "(paren)", "[x]", "{y}", "\"quoted\"", "`code`",
	"a\"b", "x=1", "k: v", "path/to/file.go", "https://example.com/a?b=c&d=e#f", "user@example.com",
	"snake_case camelCase kebab-case PascalCase SCREAMING_CASE", "v1.2.3", "0x1F", "1e10", "1.5e-3",
	"line1\nline2", "crlf\r\nline", "cr\ronly", "\r", "\n", "\r\n", "\n\r", "\v\f", "tab\tsep", "a\x00b",
	"emoji 😀 here", "😀", "👍🏽", "🇫🇷", "naïve café", "naïve", "NAÏVE", "Ⱥlpha", "ȺȾ", "ΣΑΣ", "ὈΔΥΣΣΕΎΣ",
	"combining e\u0301 a\u0301b", "\u0301", " \u0301x", "x \u0301", "a.\u0301b", "a\u00adb", "a\u200db",
	"日本語のテキスト", "カタカナ", "ひらがな", "한국어 텍스트", "中文 text", "العربية نص", "עברית\"ס", "א'ב",
	"Ελληνικά", "Русский текст", "ﬁle", "İstanbul", "ǅ", "１２３", "٣.١٤", "a·b", "a‧b", "a’b", "a‘b",
	"\xff", "a\xffb", "a \xff b", "foo. \xff", "\xc3", "a\xc3", "\xcd ", "a\xcd b", "\xe0\xa4 x", "\xf0\x9f",
	"abc\xe2\x80", "\xed\xa0\x80", "\xc0\x80", "a\xf4\x90\x80\x80b",
	strings.Repeat("a", 64), strings.Repeat("a", 65), strings.Repeat("é", 64), strings.Repeat("é", 65),
	strings.Repeat("ab", 32) + "'s", strings.Repeat("ab", 33) + "'s", strings.Repeat("x", 200),
	"running runs ran runner generalization relational conditional rational valency hesitancy",
	"digitizer conformabli radicalli differentli vileli analogousli vietnamization predication",
	"operator feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti",
	"triplicate formative formalize electriciti electrical hopeful goodness revival allowance",
	"inference airliner gyroscopic adjustable defensible irritant replacement adjustment dependent",
	"adoption homologou communism activate angulariti homologous effective bowdlerize probate rate",
	"cease controll roll caresses ponies ties caress cats feed agreed plastered bled motoring sing",
	"conflated troubled sized hopping tanned falling hissing fizzed failing filing happy sky yyy",
	"syzygy ay yay Y YY yes ey bye SSES sses ies eed ed ing",
	`{"type":"assistant","message":{"content":[{"type":"text","text":"Let's fix the bug in parse.go:42."}]}}`,
	"It’s the user’s “quoted” text — with dashes… and ellipses.",
	"     1→package main\n     2→\n     3→import \"fmt\"", "├── a.go\n│   └── b_test.go", "● Done ✓ ✗ ❌ ⎿  ok", "a→b", "1→2",
	"x.→", "e.g.→", "a—b", "a–b", "don't→", "→\u0301", "a→\xff", "→\xff",
}

// englishCheck holds the fused English analyzer to bleveEnglishChain.
var englishCheck = chainCheck{cases: englishCases, pieces: englishPieces, most: 24, diff: diffEnglish}

func TestEnglishAnalyzerMatchesBleveChainOnCases(t *testing.T) {
	englishCheck.onCases(t)
}

// TestEnglishAnalyzerMatchesBleveChainOnTranscripts feeds every line of the
// sample transcripts (raw JSONL: JSON punctuation, escapes, unicode, code)
// and, without -short, the shared corpus when it is present.
func TestEnglishAnalyzerMatchesBleveChainOnTranscripts(t *testing.T) {
	if withoutRace.RanAlone(t) {
		return
	}
	diffEveryLine(t, diffEnglish)
}

// TestOtherRunesSegmentAlone checks that every rune otherRune knows is cut
// by segment the way fastSegment assumes (a None segment of its own, never
// joining or extending a word), in every context that matters, and that
// otherRune knows no rune outside its ranges.
func TestOtherRunesSegmentAlone(t *testing.T) {
	contexts := []string{"R", "RR", "R R", "aR", "Ra", "aRa", "ABC R xyz", "1R1", "1R", "R1", "_R_", "a_R",
		"a.R", "R.a", "a'R", "R's", "a:R", "1,R", "1.R", "1;R", "R\r\n", "\rR", "\nR", "\tR\t",
		"R\u0301", "aR\u0301", "R\u00ad", "R\u200d", "\u200dR", "R\xff", "R\xc3", "\xffR", "R\xe2", "R\xe2\x86",
		"éR", "Ré", "日R", "Rカ", "ひRひ", "אR", "R\"", "R'", "R’s", "R—R→a│b", "x R. y"}
	known := 0
	for r := rune(0x80); r <= 0x10FFFF; r++ {
		enc := []byte(string(r))
		if !utf8.ValidRune(r) || otherRune(enc, 0) == 0 {
			continue
		}
		if otherRune(enc, 0) != len(enc) {
			t.Fatalf("otherRune(%U) = %d, want %d", r, otherRune(enc, 0), len(enc))
		}
		known++
		for _, c := range contexts {
			if d := diffEnglish([]byte(strings.ReplaceAll(c, "R", string(r)))); d != "" {
				t.Errorf("%U: %s", r, d)
			}
		}
	}
	if known != 2+112+256+256+192 {
		t.Errorf("otherRune knows %d runes", known)
	}
	// Truncated or invalid encodings are not otherRunes.
	for _, b := range []string{"\xe2", "\xe2\x86", "\xe2\x86\x7f", "\xe2\x86\xc0", "\xe3\x86\x92", "\xe2\x86\x8f"} {
		if otherRune([]byte(b), 0) != 0 {
			t.Errorf("otherRune(%q) != 0", b)
		}
	}
}

// TestEnglishAnalyzerConcurrent analyses the same lines from several
// goroutines at once (the stem cache is shared; run with -race) and checks
// every result, with the cache both cold and warm.
func TestEnglishAnalyzerConcurrent(t *testing.T) {
	lines := sampleLines(t, 400)
	a := newEnglishAnalyzerFused(fusedEnglish().(*englishAnalyzer).stop, new(stemCache)) // cold cache
	want := make([]analysis.TokenStream, len(lines))
	for i, l := range lines {
		want[i] = bleveEnglishChain().Analyze(bytes.Clone(l))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := range 4 {
		wg.Go(func() {
			for round := range 2 {
				for k := range lines {
					i := (k + g*len(lines)/4) % len(lines)
					got := a.Analyze(bytes.Clone(lines[i]))
					if d := diffStreams(want[i], got); d != "" {
						select {
						case errs <- fmt.Sprintf("goroutine %d round %d line %d: %s", g, round, i, d):
						default:
						}
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// englishPieces are fragments that random inputs are glued from: the
// joins between them (letter.letter, digit,digit, word + combining mark,
// space + invalid byte) are where the fast path hands over to segment.
var englishPieces = []string{
	"a", "Z", "s", "'s", "S", "y", "ing", "ed", "ation", "word", "Runs", "the", "of", "_", "1", "42", "0",
	".", ",", ";", ":", "'", "\"", "’", "＇", " ", "  ", "\t", "\n", "\r", "\r\n", "\v", "\f", "-", "/", "(", ")",
	"é", "É", "\u0301", "\u00ad", "\u200d", "\u200b", "😀", "🏽", "🇫", "日", "本", "カ", "ひ", "한", "ا", "א", "Σ", "σ",
	"Ⱥ", "ß", "ﬁ", "İ", "١", "１", "·", "‧", "\u2028", "\u0085", "\xff", "\xc3", "\xcd", "\xe0\xa4", "\xf0\x9f", "\x80",
	"\x00", "\x7f", "→", "─", "│", "—", "–", "✓", "●", "⎿", "\u2015", "\u218f", "\u2400", "\u27c0", "\u2012",
}

func TestEnglishAnalyzerMatchesBleveChainOnRandomInputs(t *testing.T) {
	if withoutRace.RanAlone(t) {
		return
	}
	englishCheck.onRandom(t, [2]uint64{1, 2}, 200000, 20000, 10)
}

// TestStemASCIIMatchesPorterStemmer compares the byte port with
// go-porterstemmer on random lowercase words biased towards the suffixes
// the steps look for, and on every ASCII word of the sample transcripts.
func TestStemASCIIMatchesPorterStemmer(t *testing.T) {
	if withoutRace.RanAlone(t) {
		return
	}
	check := func(w string) {
		t.Helper()
		want := string(porterstemmer.StemWithoutLowerCasing([]rune(w)))
		if got := string(stemASCII([]byte(w))); got != want {
			t.Errorf("stemASCII(%q) = %q, porterstemmer %q", w, got, want)
		}
	}
	parts := []string{"a", "e", "i", "o", "u", "y", "b", "c", "l", "s", "t", "z", "w", "x", "r", "n", "g", "d",
		"1", "_", "'", "Y", "S", "ss", "ll", "at", "bl", "iz", "ed", "ing", "eed", "ies", "sses", "ational",
		"tional", "enci", "anci", "izer", "bli", "alli", "entli", "eli", "ousli", "ization", "ation", "ator",
		"alism", "iveness", "fulness", "ousness", "aliti", "iviti", "biliti", "logi", "icate", "ative",
		"alize", "iciti", "ical", "ful", "ness", "al", "ance", "ence", "er", "ic", "able", "ible", "ant",
		"ement", "ment", "ent", "ion", "sion", "tion", "ou", "ism", "ate", "iti", "ous", "ive", "ize"}
	rng := rand.New(rand.NewPCG(3, 4))
	n := 300000
	if testing.Short() {
		n = 30000
	}
	for range n {
		var sb strings.Builder
		for range 1 + rng.IntN(5) {
			sb.WriteString(parts[rng.IntN(len(parts))])
		}
		check(sb.String())
	}
	for _, w := range strings.Fields("a ab abc yyy yyyy ay by eye sky ied eed sses ies ss s caresses ponies") {
		check(w)
	}
}

// FuzzEnglishAnalyzer holds the fused analyzer to bleve's chain on arbitrary
// bytes, invalid UTF-8 included.
func FuzzEnglishAnalyzer(f *testing.F) {
	englishCheck.fuzz(f, [2]uint64{5, 6})
}

// englishBenchText is realistic input: benchTexts (the shared corpus when
// present, else the sample transcripts), in documents of about 4 KB.
func englishBenchText(b *testing.B) [][]byte {
	docs := benchTexts()
	if len(docs) == 0 {
		b.Skip("no transcripts")
	}
	return docs
}

// BenchmarkEnglishAnalyzer compares bleve's chain with englishAnalyzer on
// the shared corpus (233 documents, 2.2 MB). On the 2-core dev box (busy;
// -cpu 1, min/median of 5): bleve 181/259 ms, 35.0 MB, 425,672 allocs per
// pass; fused 34/45 ms, 16.9 MB, 2,379 allocs; fused with a cold stem cache
// 37/48 ms, 17.1 MB, 10,269 allocs. User CPU per pass: 265 ms against
// 31-37 ms.
func BenchmarkEnglishAnalyzer(b *testing.B) {
	docs := englishBenchText(b)
	size := 0
	for _, d := range docs {
		size += len(d)
	}
	stop := fusedEnglish().(*englishAnalyzer).stop
	cold := newEnglishAnalyzerFused(stop, new(stemCache))
	for _, bc := range []struct {
		name  string
		a     analysis.Analyzer
		reset func()
	}{
		{"bleve", bleveEnglishChain(), nil},
		{"fused", fusedEnglish(), nil},
		// Each pass starts with an empty stem cache, as a cold index of a
		// corpus this size would.
		{"fused-cold-cache", cold, func() { *cold.stems = stemCache{} }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			buf := make([]byte, 0, 1<<16)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for range b.N {
				if bc.reset != nil {
					b.StopTimer()
					bc.reset()
					b.StartTimer()
				}
				for _, d := range docs {
					buf = append(buf[:0], d...)
					bc.a.Analyze(buf)
				}
			}
		})
	}
}
