package fts

import (
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

// Field names inside bleve. Short because they are repeated in every
// segment's dictionary and in every query.
const (
	fieldText      = "text"       // Doc.Text, English analyzer
	fieldCode      = "code"       // Doc.Text, code analyzer
	fieldTitle     = "title"      // Doc.Title, English analyzer
	fieldTitleCode = "title_code" // Doc.Title, code analyzer
	fieldKind      = "kind"
	fieldProject   = "project"
	fieldSession   = "session"
	fieldRole      = "role"
	fieldBlock     = "block"
	fieldSubagent  = "subagent"
	fieldTime      = "time"
)

// schemaVersion is stored inside the index. Bump it whenever the mapping,
// the analyzers or the way documents are built change: an index written by a
// different version is reported as needing a rebuild instead of silently
// returning wrong results.
//
// Version 2 packs the ids of entries and sessions inside the index
// (docid.go); an index of version 1 (schemaIDs1), whose ids are as
// callers see them, is read and written as it is until a rebuild.
var (
	schemaVersion = "cairn-fts-2" + map[bool]string{true: "+positions"}[prosePositions]
	schemaIDs1    = "cairn-fts-1" + map[bool]string{true: "+positions"}[prosePositions]
)

// prosePositions decides whether the English fields keep term vectors
// (positions). They make quoted phrases exact and let adjacent query words
// score higher, but measured here they cost ~20% of indexing speed
// (7.0k → 5.0–6.1k docs/s) and ~40% of disk (1.2 → 2.0 bytes per byte of
// text). Without them a quoted phrase means "all of these words" (see
// phraseQuery). Changing this changes schemaVersion: existing indexes then
// ask for a rebuild.
const prosePositions = false

// Indexing options, chosen for a derived index whose text lives in SQLite:
//   - nothing is stored (hits carry only the ID; callers fetch text by ID);
//   - no doc values: results are sorted by score only, and the time range
//     filter uses indexed trie terms, not doc values;
//   - no term vectors unless prosePositions (above);
//   - exact-match filter fields skip frequencies and norms because filters
//     are evaluated without scoring.
var optProse = index.IndexField | map[bool]index.FieldIndexingOptions{true: index.IncludeTermVectors}[prosePositions]

const (
	optCode    = index.IndexField
	optKeyword = index.IndexField | index.SkipFreqNorm
	optPlain   = index.IndexField
)

// newMapping builds the static mapping stored in a new index. Documents are
// built by hand in document.go with the same analyzers and options; the
// mapping is what bleve consults at query time (analyzer per field, BM25)
// and it keeps the index self-describing.
func newMapping() *mapping.IndexMappingImpl {
	m := mapping.NewIndexMapping()
	m.ScoringModel = index.BM25Scoring
	m.IndexDynamic = false
	m.StoreDynamic = false
	m.DocValuesDynamic = false
	m.DefaultAnalyzer = analyzerEnglish
	m.DefaultField = fieldText

	doc := mapping.NewDocumentStaticMapping()
	text := func(name, analyzer string, opt index.FieldIndexingOptions) {
		f := mapping.NewTextFieldMapping()
		f.Analyzer = analyzer
		setOptions(f, opt)
		doc.AddFieldMappingsAt(name, f)
	}
	text(fieldText, analyzerEnglish, optProse)
	text(fieldCode, analyzerCode, optCode)
	text(fieldTitle, analyzerEnglish, optProse)
	text(fieldTitleCode, analyzerCode, optCode)
	for _, name := range []string{fieldKind, fieldProject, fieldSession, fieldRole, fieldBlock} {
		text(name, keyword.Name, optKeyword)
	}
	b := mapping.NewBooleanFieldMapping()
	setOptions(b, optPlain)
	doc.AddFieldMappingsAt(fieldSubagent, b)
	// Time is a text field only in name: its analyzer writes numeric trie
	// terms (timefield.go), and it is queried with timeRangeQuery.
	text(fieldTime, analyzerTime, optKeyword)

	m.DefaultMapping = doc
	return m
}

func setOptions(f *mapping.FieldMapping, opt index.FieldIndexingOptions) {
	f.Index = opt.IsIndexed()
	f.Store = opt.IsStored()
	f.IncludeTermVectors = opt.IncludeTermVectors()
	f.DocValues = opt.IncludeDocValues()
	f.SkipFreqNorm = opt.SkipFreqNorm()
	f.IncludeInAll = false // no _all field: queries name their fields
}
