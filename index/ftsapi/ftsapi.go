// Package ftsapi is the full-text index as the store drives it, without the
// engine: its document, filter and hit types, its errors, and the functions
// the engine (package cairn/index/fts, on bleve) registers when a binary
// links it.
//
// The split keeps bleve out of binaries that never search: cairn-hook runs
// on every prompt with a 50 ms budget, and linking bleve alone costs ~6 ms
// of package initialisation per process (scorch builds its Levenshtein
// automata at init). Without an engine, Open returns ErrUnavailable, which
// is an ErrLocked: the documents stay queued in the store for the next
// process that has one, exactly as when another process holds the index.
package ftsapi

import (
	"errors"
	"fmt"
	"time"
)

// Doc is one searchable document.
type Doc struct {
	ID       string    // e.g. "m:<entry-uuid>", "mem:<id>", "s:<session-id>"; unique
	Kind     string    // "message" | "memory" | "summary" | "session"
	Text     string    // searchable text (already redacted); not stored
	Title    string    // session title, memory type…; searchable, not stored
	Project  string    // project path; exact-match filter
	Session  string    // session id; exact-match filter
	Role     string    // "user" | "assistant" | "tool" | "system" …; exact-match filter
	Block    string    // "text" | "thinking" | "tool_use" | "tool_result" | "summary" | "memory" …; exact-match filter
	Subagent bool      // written by a subagent (sidechain)
	Time     time.Time // zero: the document never matches a Since/Until filter
}

// Filter narrows a search. Empty lists and zero times mean "no constraint";
// several values in one list are alternatives (OR); lists combine with AND.
type Filter struct {
	Kinds         []string
	Projects      []string
	Sessions      []string
	Roles         []string
	ExcludeBlocks []string
	Blocks        []string
	Subagents     *bool     // nil: both; otherwise only docs with that value
	Since, Until  time.Time // inclusive bounds on Doc.Time, widened to whole hours (callers filter exactly)

	// ExcludeSessions leaves these sessions' documents out.
	ExcludeSessions []string
}

// Hit is one result: the document ID and its BM25 score.
type Hit struct {
	ID    string
	Score float64
}

// Index is an open full-text index. It holds the index's lock until Close.
type Index interface {
	Index(docs []Doc) error
	Delete(ids []string) error
	Search(text string, f Filter, limit int) ([]Hit, uint64, error)
	// Count is the number of documents in the index.
	Count() (uint64, error)
	// Cover says which of the query's informative words each of the
	// documents ids holds (see Cover).
	Cover(text string, ids []string) (Cover, error)
	// Correct returns text with the words the index has never seen
	// replaced by their nearest indexed terms (a small edit distance), and
	// the corrections as "typed → term"; none when nothing changed.
	Correct(text string) (string, []string, error)
	Close() error
}

// QueryWord is one informative word of a query (a stop word is not one),
// or one quoted phrase, as coverage counts it.
type QueryWord struct {
	Text string // as typed
	// Weight is its rarity in the index: BM25's inverse document
	// frequency, ln(1 + (N - df + 0.5)/(df + 0.5)). A word the index has
	// never seen weighs most.
	Weight float64
	// Root, when set, must appear in a document's text for it to hold the
	// word: the word matched through a stem of under five letters that
	// its own form does not keep (topping → top), which joins unrelated
	// words. Root is the word lowercased, less a regular inflection
	// (-s, -es, -ed, -ing).
	Root string
}

// Cover is what Index.Cover answers.
type Cover struct {
	Words []QueryWord // at most 64
	// Has holds, for each document asked about that holds any of Words,
	// the bit 1<<i set when it holds Words[i].
	Has map[string]uint64
}

// ErrLocked means another process holds the index (bleve allows one process
// at a time, readers included). Callers leave their work queued in SQLite
// for whichever process gets the index next.
var ErrLocked = errors.New("fts: full-text index is in use by another process")

// ErrNeedsRebuild means the index cannot be used as it is: its files are
// damaged, or it was written by a different schema. The index is derived
// from SQLite, so the fix is always `cairn index --rebuild`.
var ErrNeedsRebuild = errors.New("fts: full-text index needs a rebuild")

// ErrUnavailable means this binary has no full-text engine (cairn-hook):
// the work stays queued for cairn. It is an ErrLocked.
var ErrUnavailable = fmt.Errorf("%w: not in this binary (cairn-hook leaves full-text work queued for cairn)", ErrLocked)

// Engine is what the full-text engine provides.
type Engine struct {
	// Open opens (creating when missing) the index in dir, waiting up to
	// lockWait for another process that holds it.
	Open func(dir string, lockWait time.Duration) (Index, error)
	// OpenReadOnly opens an existing index for searching only: it writes
	// nothing, starts no background merging, and takes the index's lock
	// shared. A missing index is an ErrNeedsRebuild.
	OpenReadOnly func(dir string, lockWait time.Duration) (Index, error)
	// Remove deletes the index in dir (only an index: never other files).
	Remove func(dir string) error
	// Replace puts the (closed) index in built where dir's index is, in
	// one rename, and deletes the old one; it refuses while another
	// process holds dir's index.
	Replace func(dir, built string) error
	// QueryTerms are the analysed terms of query text, for highlighting.
	QueryTerms func(text string) []string
	// Snippet is the window of at most width runes of text holding the most
	// terms, each match passed through mark (nil: plain).
	Snippet func(text string, terms []string, width int, mark func(string) string) string
	// PrefixLast marks the last word of query text as a prefix ("word*")
	// when it is a plain word being typed; false when it is not.
	PrefixLast func(text string) (string, bool)
	// PrefixOnly is the query for the hits PrefixLast adds: the last word
	// as a prefix with the exclusions; false when it can add none.
	PrefixOnly func(text string) (string, bool)
}

var engine *Engine

// Register installs the engine; package fts calls it at init.
func Register(e Engine) { engine = &e }

// Available reports whether this binary has a full-text engine.
func Available() bool { return engine != nil }

// Open opens the index in dir (ErrUnavailable without an engine).
func Open(dir string, lockWait time.Duration) (Index, error) {
	if engine == nil {
		return nil, ErrUnavailable
	}
	return engine.Open(dir, lockWait)
}

// OpenReadOnly opens the index in dir for searching only
// (ErrUnavailable without an engine).
func OpenReadOnly(dir string, lockWait time.Duration) (Index, error) {
	if engine == nil {
		return nil, ErrUnavailable
	}
	return engine.OpenReadOnly(dir, lockWait)
}

// Remove deletes the index in dir (ErrUnavailable without an engine).
func Remove(dir string) error {
	if engine == nil {
		return ErrUnavailable
	}
	return engine.Remove(dir)
}

// Replace puts the index built in built in the place of dir's
// (ErrUnavailable without an engine).
func Replace(dir, built string) error {
	if engine == nil {
		return ErrUnavailable
	}
	return engine.Replace(dir, built)
}

// QueryTerms are the analysed terms of query text (none without an engine).
func QueryTerms(text string) []string {
	if engine == nil {
		return nil
	}
	return engine.QueryTerms(text)
}

// Snippet is a window of text around the terms (the head of the text
// without an engine).
func Snippet(text string, terms []string, width int, mark func(string) string) string {
	if engine == nil {
		r := []rune(text)
		if width > 0 && len(r) > width {
			return string(r[:width]) + "…"
		}
		return text
	}
	return engine.Snippet(text, terms, width, mark)
}

// PrefixLast returns query text whose last word also matches as the start
// of longer words ("websock" → "websock*"), and whether it changed (not
// without an engine, nor for a finished, quoted, excluded or short word).
func PrefixLast(text string) (string, bool) {
	if engine == nil || engine.PrefixLast == nil {
		return text, false
	}
	return engine.PrefixLast(text)
}

// PrefixOnly returns the query matching what PrefixLast(text) adds to
// text's hits (the last word as a prefix, with text's exclusions), and
// false when there is nothing it could add.
func PrefixOnly(text string) (string, bool) {
	if engine == nil || engine.PrefixOnly == nil {
		return text, false
	}
	return engine.PrefixOnly(text)
}
