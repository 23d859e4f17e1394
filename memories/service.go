package memories

import (
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
)

// Service is the memory domain over one store, split by job like the
// store's own accessors: each job is a small type over one shared core
// (the store, the cache and its lock, the clock, the model), so a front
// end calls the job it means and no type holds the whole domain. The
// lookups every job needs (Get, List, Resolve, Counts, Store, SetClock,
// Model, StoreSummary) are the core's, promoted to Service and to every
// job. Safe for concurrent use.
type Service struct {
	*core
	// Curator adds, de-duplicates, reviews, corrects and consolidates
	// memories (extraction proposes through it), with the review journal
	// and its undo.
	Curator Curator
	// Recall ranks memories, builds session briefs, finds related ones
	// and answers questions from them.
	Recall Recall
	// Drafts takes summary drafts written by /summarize, builds session
	// summaries and the project synthesis.
	Drafts Drafts
	// Sync writes CLAUDE.md, exports and imports memories and follows
	// Claude's own memory files.
	Sync Sync
	// Feedback records injections, scores their use and counts it.
	Feedback Feedback
}

// Curator is curation: add, dedup, review, correct, consolidate.
type Curator struct{ *core }

// Recall is recall: rank, brief, related, ask.
type Recall struct{ *core }

// Drafts is drafts and summaries.
type Drafts struct{ *core }

// Sync is CLAUDE.md, export and import, and Claude's native memory.
type Sync struct{ *core }

// Feedback is injections and their use.
type Feedback struct{ *core }

// New returns a service over st.
func New(st *index.Store, cfg config.Config) *Service {
	c := &core{st: st, cfg: cfg, now: time.Now}
	c.model = ModelFor(cfg, c)
	return &Service{core: c, Curator: Curator{c}, Recall: Recall{c}, Drafts: Drafts{c}, Sync: Sync{c}, Feedback: Feedback{c}}
}

// The jobs over the same core, for one job's method that needs another's.
func (s *core) curator() Curator { return Curator{s} }
func (s *core) recall() Recall   { return Recall{s} }
func (s *core) drafts() Drafts   { return Drafts{s} }
