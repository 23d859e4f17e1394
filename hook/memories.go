package hook

import (
	"context"
	"time"
)

// Memories is what the hooks need from the memory service (cairn/memories);
// cli wires the real one in, tests a fake. Every method must be quick: it
// runs inside Claude Code's turn.
type Memories interface {
	// Top returns the project's approved memories, best first.
	Top(ctx context.Context, project string, limit int) ([]Memory, error)
	// Rank returns approved memories relevant to query above threshold,
	// best first, leaving out the ids in exclude.
	Rank(ctx context.Context, query, project string, limit int, threshold float64, exclude []string) ([]Memory, error)
	// Summaries returns the project's latest session summaries, newest first.
	Summaries(ctx context.Context, project string, limit int) ([]Summary, error)
	// Pending counts memories and drafts awaiting review.
	Pending(ctx context.Context) (memories, drafts int, err error)
	// Injected lists the memory ids already given to a session.
	Injected(ctx context.Context, session string) ([]string, error)
	// RecordInjection records that ids were given to a session.
	RecordInjection(ctx context.Context, session, event string, ids []string) error
	// ScoreUsage decides, from the session's newly indexed entries, which
	// injected memories were used.
	ScoreUsage(ctx context.Context, session string) (checked, used int, err error)
	// StoreSummary builds and stores the session's heuristic summary (it
	// reads the whole session: background only).
	StoreSummary(ctx context.Context, session string) error
}

// Memory is a memory as injected.
type Memory struct {
	ID         string
	Type       string
	Content    string
	Importance int
	Score      float64
}

// Summary is a session summary as shown at session start.
type Summary struct {
	SessionID string
	Title     string
	Created   time.Time
	// Sections by name (Request, Completed, Next steps, ...).
	Sections map[string][]string
}
