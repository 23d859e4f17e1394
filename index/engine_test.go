package index

// The store's tests drive the real full-text engine.
import _ "cairn/index/fts"
