package hook

import (
	"context"

	"github.com/cairn-dev/cairn/memories"
)

// Memories is what the hooks need from the memory service (cairn/memories);
// cli wires the real one in, tests a fake. Every method must be quick: it
// runs inside Claude Code's turn.
type Memories interface {
	// Brief returns what a session starting in project is told: its
	// approved memories (best first, at most mems), its latest session
	// summaries (newest first, at most sums) and what awaits review in
	// this project, when the person is due a reminder
	// (memories.Recall.Brief with BriefOptions.Reminder).
	Brief(ctx context.Context, project string, mems, sums int) (memories.Brief, error)
	// Rank returns approved memories relevant to query above threshold,
	// best first, leaving out the ids in exclude (memories.Recall.Rank).
	Rank(ctx context.Context, query, project string, limit int, threshold float64, exclude []string) ([]memories.Ranked, error)
	// Injected lists the memory ids the session holds: given to it since
	// its last compaction.
	Injected(ctx context.Context, session string) ([]string, error)
	// RecordInjection records that ids were given to a session.
	RecordInjection(ctx context.Context, session, event string, ids []string) error
	// ResetInjected says the session's context was compacted: what it was
	// given before is gone (memories.Feedback.ResetInjected).
	ResetInjected(ctx context.Context, session string) error
	// ScoreUsage decides, from the session's indexed entries and the
	// turn's reply (when the hook has it), which injected memories were
	// used; final settles the unused ones (memories.Feedback.ScoreUsageWith).
	ScoreUsage(ctx context.Context, session, reply string, final bool) (checked, used int, err error)
	// ToolMemories lists the project's approved memories (and global ones)
	// with the files their source turns edited, leaving out the ids in
	// exclude (PreToolUse).
	ToolMemories(ctx context.Context, project string, exclude []string) ([]ToolMemory, error)
	// StoreSummary builds and stores the session's heuristic summary (it
	// reads the whole session: background only).
	StoreSummary(ctx context.Context, session string) error
}
