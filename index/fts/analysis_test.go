package fts

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCodeAnalyzerSplits(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // exactly these terms, in order
	}{
		{"parseTranscript", []string{"parsetranscript", "parse", "transcript"}},
		{"ParseTranscript", []string{"parsetranscript", "parse", "transcript"}},
		{"parse_transcript", []string{"parse_transcript", "parsetranscript", "parse", "transcript"}},
		{"kebab-case-name", []string{"kebab-case-name", "kebabcasename", "kebab", "case", "name"}},
		{"transcripts/parse.go", []string{"transcripts/parse.go", "transcripts", "parse.go", "parse", "go"}},
		{"os.Args", []string{"os.args", "os", "args"}},
		{"HTTPServerError", []string{"httpservererror", "http", "server", "error"}},
		{"base64Encode", []string{"base64encode", "base64", "encode"}},
		{"(./cmd/main.go:12),", []string{"cmd/main.go:12", "cmd", "main.go:12", "main", "go", "12"}},
		// One-rune pieces ("c") and stop words ("me") are dropped.
		{`C:\Users\me\notes.txt`, []string{`c:\users\me\notes.txt`, "users", "notes.txt", "notes", "txt"}},
		// IDs: the whole is searchable, its hex chunks are noise.
		{"044212e4-97e7-488c-805a-d37a097807ab", []string{"044212e4-97e7-488c-805a-d37a097807ab"}},
		// Too many case changes for an identifier: base64 or a random ID.
		{"aGVsbG8gd29ybGQ", []string{"agvsbg8gd29ybgq"}},
		// Plain words belong to the English field.
		{"plain words here", nil},
	} {
		if got := analyzeTerms(analyzers().code, tc.in); !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("code(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCodeQueryAnalyzerKeepsPlainWords(t *testing.T) {
	got := analyzeTerms(analyzers().codeQuery, "the Transcript of parseTranscript")
	want := []string{"transcript", "parsetranscript", "parse"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q (stop words dropped, plain words lowercased)", got, want)
	}
}

func TestCodeTokenOffsetsPointAtOriginalText(t *testing.T) {
	in := "call parse_transcript(r) and HTTPServer"
	joined := map[string]bool{"parsetranscript": true} // spans the whole compound
	for _, tok := range analyzers().code.Analyze([]byte(in)) {
		orig := in[tok.Start:tok.End]
		if string(tok.Term) != strings.ToLower(orig) && !joined[string(tok.Term)] {
			t.Errorf("term %q has span %q", tok.Term, orig)
		}
	}
}

func TestEnglishAnalyzer(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"parsing", "pars"},
		{"parse", "pars"},
		{"Transcripts", "transcript"},
		{"Claude's", "claud"},
	} {
		got := analyzeTerms(analyzers().english, tc.in)
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("english(%q) = %q, want [%q]", tc.in, got, tc.want)
		}
	}
	if got := analyzeTerms(analyzers().english, "the and of a"); len(got) != 0 {
		t.Errorf("stop words kept: %q", got)
	}
	long := make([]byte, 100)
	for i := range long {
		long[i] = 'a'
	}
	if got := analyzeTerms(analyzers().english, string(long)); len(got) != 0 {
		t.Errorf("100-letter token kept: %q", got)
	}
}

func TestParseQuery(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []clause
	}{
		{`a b`, []clause{{"a", false, opShould, false}, {"b", false, opShould, false}}},
		{`+a -b`, []clause{{"a", false, opMust, false}, {"b", false, opNot, false}}},
		{`"a b" -"c d"`, []clause{{"a b", true, opMust, false}, {"c d", true, opNot, false}}},
		{`"unterminated phrase`, []clause{{"unterminated phrase", true, opMust, false}}},
		{`- -- --flag x-y`, []clause{{"-", false, opShould, false}, {"--", false, opShould, false}, {"--flag", false, opShould, false}, {"x-y", false, opShould, false}}},
		{`""  " "`, nil},
		{`websock* ab* -gone* "q*"`, []clause{{"websock", false, opShould, true}, {"ab", false, opShould, false}, {"gone*", false, opNot, false}, {"q*", true, opMust, false}}},
		{`foo:bar (x)`, []clause{{"foo:bar", false, opShould, false}, {"(x)", false, opShould, false}}},
	} {
		if got := parseQuery(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("parseQuery(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// Pathological inputs (long runs of separators or case changes) must cost
// time linear in their size. Timed as a ratio, not against a clock: four
// times the input may take at most ten times as long (linear is ~4x,
// quadratic ~16x), each side the best of three runs, so a loaded machine or
// the race detector does not make it flaky.
func TestCodeAnalyzerPathologicalInputIsCheap(t *testing.T) {
	if withoutRace.RanAlone(t) {
		return
	}
	best := func(in string) time.Duration {
		var min time.Duration
		for range 7 { // best of 7: a busy machine (CI under -race) only ever adds time
			start := time.Now()
			analyzers().code.Analyze([]byte(in))
			analyzers().codeQuery.Analyze([]byte(in))
			if el := time.Since(start); min == 0 || el < min {
				min = el
			}
		}
		return min
	}
	for _, unit := range []string{"a/", "aB", "x_y.z "} {
		small, large := best(strings.Repeat(unit, 25_000)), best(strings.Repeat(unit, 100_000))
		// Linear growth is 4x; quadratic would be 16x.
		if large > 10*small+20*time.Millisecond {
			t.Errorf("%q×100k took %v, ×25k %v: analysis grows faster than linearly", unit, large, small)
		}
	}
}
