package index

// The store's tests drive the real full-text engine.
import _ "github.com/cairn-dev/cairn/index/fts"
