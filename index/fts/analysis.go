package fts

import (
	"fmt"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"

	// The pieces englishAnalyzer fuses stay registered, as before.
	_ "github.com/blevesearch/bleve/v2/analysis/token/length"
	_ "github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	_ "github.com/blevesearch/bleve/v2/analysis/token/porter"
	_ "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
)

// Names under which this package registers its analysis pieces with bleve's
// global registry. The index mapping stored inside every index refers to them
// by name, so they must exist (this package's init) before any index is
// opened, and renaming them means a rebuild (bump schemaVersion).
const (
	// analyzerEnglish: unicode words, possessives stripped, lowercased,
	// English stop words removed, Porter-stemmed, overlong tokens dropped.
	analyzerEnglish = "cairn_en"
	// analyzerCode is the index-time code analyzer: only compound tokens
	// (camelCase, snake_case, kebab-case, paths, dotted names), lowercased
	// whole and split into parts. Plain words are left to the English
	// field, which halves the size of the code field.
	analyzerCode = "cairn_code"
	// analyzerCodeQuery is the query-time (and highlight-time) variant that
	// also keeps plain words, so a plain query word can meet the part of a
	// compound ("transcript" finds "parseTranscript").
	analyzerCodeQuery = "cairn_code_query"

	tokenizerCodeCompounds = "cairn_code_compounds" // compounds only
	tokenizerCodeWords     = "cairn_code_words"     // compounds and plain words
	filterCodeParts        = "cairn_code_parts"
)

// maxEnglishTokenRunes drops tokens that are almost always noise (base64,
// minified code, hashes) and would only bloat the term dictionary.
const maxEnglishTokenRunes = 64

func init() {
	must(registry.RegisterTokenizer(tokenizerCodeCompounds, func(map[string]interface{}, *registry.Cache) (analysis.Tokenizer, error) {
		return codeTokenizer{compoundsOnly: true}, nil
	}))
	must(registry.RegisterTokenizer(tokenizerCodeWords, func(map[string]interface{}, *registry.Cache) (analysis.Tokenizer, error) {
		return codeTokenizer{}, nil
	}))
	must(registry.RegisterTokenFilter(filterCodeParts, func(map[string]interface{}, *registry.Cache) (analysis.TokenFilter, error) {
		return codePartsFilter{}, nil
	}))
	must(registry.RegisterAnalyzer(analyzerEnglish, newEnglishAnalyzer))
	must(registry.RegisterAnalyzer(analyzerCode, func(_ map[string]interface{}, c *registry.Cache) (analysis.Analyzer, error) {
		return newCodeAnalyzer(c, true)
	}))
	must(registry.RegisterAnalyzer(analyzerCodeQuery, func(_ map[string]interface{}, c *registry.Cache) (analysis.Analyzer, error) {
		return newCodeAnalyzer(c, false)
	}))
}

func must(err error) {
	if err != nil {
		panic(fmt.Sprintf("fts: registering analysis component: %v", err))
	}
}

// newEnglishAnalyzer builds analyzerEnglish: bleve's unicode tokenizer →
// en possessive → lowercase → en stop words → length(0,
// maxEnglishTokenRunes) (before stemming, so the limit applies to what was
// written) → porter, fused into one pass by englishAnalyzer (english.go),
// whose output is identical to that chain's.
func newEnglishAnalyzer(_ map[string]interface{}, c *registry.Cache) (analysis.Analyzer, error) {
	stop, err := c.TokenMapNamed(en.StopName)
	if err != nil {
		return nil, err
	}
	return newEnglishAnalyzerFused(stop, &englishStems), nil
}

// newCodeAnalyzer builds analyzerCode (compoundsOnly) or analyzerCodeQuery:
// the code tokenizer (tokenizerCodeCompounds or tokenizerCodeWords) →
// filterCodeParts → en stop words, fused into one pass by codeAnalyzer
// (codesplit.go), whose output is identical to that chain's.
func newCodeAnalyzer(c *registry.Cache, compoundsOnly bool) (analysis.Analyzer, error) {
	stop, err := c.TokenMapNamed(en.StopName)
	if err != nil {
		return nil, err
	}
	return newCodeAnalyzerFused(stop, compoundsOnly), nil
}

type analyzerSet struct{ english, code, codeQuery, keyword analysis.Analyzer }

// analyzers resolves the package's analyzers once (lazily: package variables
// are initialised before init registers them). They are stateless and safe
// for concurrent use.
var analyzers = sync.OnceValue(func() analyzerSet {
	c := registry.NewCache()
	get := func(name string) analysis.Analyzer {
		a, err := c.AnalyzerNamed(name)
		if err != nil {
			panic(fmt.Sprintf("fts: analyzer %s: %v", name, err))
		}
		return a
	}
	return analyzerSet{get(analyzerEnglish), get(analyzerCode), get(analyzerCodeQuery), get(keyword.Name)}
})

// analyzeTerms returns the distinct terms a analyzer produces for s.
func analyzeTerms(a analysis.Analyzer, s string) []string {
	toks := a.Analyze([]byte(s))
	out := make([]string, 0, len(toks))
	seen := make(map[string]bool, len(toks))
	for _, t := range toks {
		term := string(t.Term)
		if !seen[term] {
			seen[term] = true
			out = append(out, term)
		}
	}
	return out
}
