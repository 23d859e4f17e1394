package hook

import (
	"context"
	"time"
)

// Memories is what the hooks need from the memory service (cairn/memories);
// cli wires the real one in, tests a fake. Every method must be quick: it
// runs inside Claude Code's turn.
type Memories interface {
	// Brief returns what a session starting in project is told: its
	// approved memories (best first, at most memories), its latest
	// session summaries (newest first, at most summaries) and what awaits
	// review in this project, when the person is due a reminder
	// (memories.Service.Brief, PendingFor, TakeReviewReminder).
	Brief(ctx context.Context, project string, memories, summaries int) (Brief, error)
	// Rank returns approved memories relevant to query above threshold,
	// best first, leaving out the ids in exclude.
	Rank(ctx context.Context, query, project string, limit int, threshold float64, exclude []string) ([]Memory, error)
	// Injected lists the memory ids the session holds: given to it since
	// its last compaction.
	Injected(ctx context.Context, session string) ([]string, error)
	// RecordInjection records that ids were given to a session.
	RecordInjection(ctx context.Context, session, event string, ids []string) error
	// ResetInjected says the session's context was compacted: what it was
	// given before is gone (memories.Service.ResetInjected).
	ResetInjected(ctx context.Context, session string) error
	// ScoreUsage decides, from the session's indexed entries and the
	// turn's reply (when the hook has it), which injected memories were
	// used; final settles the unused ones (memories.Service.ScoreUsageWith).
	ScoreUsage(ctx context.Context, session, reply string, final bool) (checked, used int, err error)
	// ToolMemories lists the project's approved memories (and global ones)
	// with the files their source turns edited, leaving out the ids in
	// exclude (PreToolUse).
	ToolMemories(ctx context.Context, project string, exclude []string) ([]ToolMemory, error)
	// StoreSummary builds and stores the session's heuristic summary (it
	// reads the whole session: background only).
	StoreSummary(ctx context.Context, session string) error
}

// Brief is a project's brief as the hooks see it.
type Brief struct {
	Memories                       []Memory
	Summaries                      []Summary
	PendingMemories, PendingDrafts int
	// Problem is what could not be read besides the memories (logged).
	Problem error
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
