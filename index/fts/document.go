package fts

import (
	"github.com/cairn-dev/cairn/index/ftsapi"

	"strconv"

	"github.com/blevesearch/bleve/v2/document"
)

// toDocument builds the bleve document directly instead of letting the
// mapping reflect over a struct: it is faster and makes every field's
// analyzer and options explicit (they mirror newMapping).
// Doc is one searchable unit (see ftsapi.Doc).
type Doc = ftsapi.Doc

func toDocument(d Doc, key string) *document.Document {
	a := analyzers()
	doc := document.NewDocument(key)
	// Each field gets its own copy of the text: bleve's lowercase and
	// stemming filters rewrite token bytes in place, and tokens alias the
	// input, so a shared buffer would reach the code analyzer lowercased
	// (and camelCase boundaries lost).
	if d.Text != "" {
		doc.AddField(document.NewTextFieldCustom(fieldText, nil, []byte(d.Text), optProse, a.english))
		doc.AddField(document.NewTextFieldCustom(fieldCode, nil, []byte(d.Text), optCode, a.code))
	}
	if d.Title != "" {
		doc.AddField(document.NewTextFieldCustom(fieldTitle, nil, []byte(d.Title), optProse, a.english))
		doc.AddField(document.NewTextFieldCustom(fieldTitleCode, nil, []byte(d.Title), optCode, a.code))
	}
	for _, kv := range [...]struct{ field, value string }{
		{fieldKind, d.Kind}, {fieldProject, d.Project}, {fieldSession, d.Session},
		{fieldRole, d.Role}, {fieldBlock, d.Block},
	} {
		if kv.value != "" {
			doc.AddField(document.NewTextFieldCustom(kv.field, nil, []byte(kv.value), optKeyword, a.keyword))
		}
	}
	doc.AddField(document.NewBooleanFieldWithIndexingOptions(fieldSubagent, nil, d.Subagent, optPlain))
	// Times outside 1970–2106 cannot be encoded (see timefield.go); such a
	// document has no time, like a zero one.
	if secs, ok := unixSeconds(d.Time); ok {
		doc.AddField(document.NewTextFieldCustom(fieldTime, nil, strconv.AppendInt(nil, floorGrain(secs), 10), optKeyword, timeAnalyzer{}))
	}
	return doc
}
