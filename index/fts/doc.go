// Package fts is cairn's full-text index: a bleve (scorch) index derived
// from SQLite, which stays the source of truth. Everything here can be
// thrown away and rebuilt (Remove, then Index from SQLite).
//
// One process at a time: scorch holds store/root.bolt under an exclusive
// flock, and even read-only opens are excluded. So every process opens the
// index, does its work and closes it; Open gives up after lockWait with
// ErrLocked so the caller can leave its work queued in SQLite. Open+Close
// of a 100k-document index costs about 1 ms, which makes per-operation
// opens affordable.
//
// Documents carry only an ID out of a search; their text is indexed twice
// (English analysis in "text", code-aware analysis in "code") but never
// stored. Queries are plain user text, parsed here (parse.go), never bleve
// query-string syntax. Scoring is BM25.
//
// Files: open.go, remove.go (lifecycle and locking), generation.go
// (detecting silent snapshot rollback), compact.go (segment merging for
// short-lived writers), mapping.go, document.go, analysis.go, codesplit.go,
// timefield.go (index layout), parse.go, query.go, search.go (queries),
// snippet.go (highlighting).
package fts
