package fts

import (
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/internal/codesplit"
)

// TestCodesplitMatchesAnalyzer holds internal/codesplit (the splitting
// memory ranking uses, without this engine) to the code analyzer: for each
// compound, Parts and the whole are exactly the terms the reference chain
// emits before stop words are dropped.
func TestCodesplitMatchesAnalyzer(t *testing.T) {
	for _, w := range []string{
		"opentelemetry.set_text_map_propagators/1", "set_text_map_propagators", "parseTranscript",
		"src/parse_transcript.go", "HTTPServer", "base64Encode", "a.b_c/1", "OpentelemetryBandit.setup",
		"create-next-app", "550e8400-e29b-41d4-a716-446655440000", "v2.6.1", "iPhone", "lucide-react@0.542.0",
		"~/.claude/projects/-home-x", "Oban.Migration.up", "liveview_otel.ex", "x", "plain",
	} {
		toks := codePartsFilter{}.Filter((codeTokenizer{}).Tokenize([]byte(w)))
		var want []string
		for _, tok := range toks {
			want = append(want, string(tok.Term))
		}
		got := codesplit.Parts(w)
		if whole := codesplit.Whole(w); whole != "" {
			got = append([]string{whole}, got...)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%q: codesplit %q, analyzer %q", w, got, want)
		}
	}
}
