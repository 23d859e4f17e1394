package memories

import (
	"context"
	"errors"
	"fmt"
)

// Brief is what cairn tells a session about a project before anything
// is asked: its approved memories (best first), its latest session
// summaries (newest first) and what awaits the person's review. The
// SessionStart hook injects it and `cairn recall` with no query (/recall)
// prints it; each front end only lays it out within its own budget.
type Brief struct {
	Project   string
	Memories  []Ranked
	Summaries []Summary
	// Counts of what awaits review (all projects).
	PendingMemories, PendingDrafts int
	// Problems are the parts that could not be read (summaries, counts):
	// the brief is still worth giving without them. A failure to read the
	// memories themselves is Brief's error.
	Problems []error
}

// BriefOptions bound a Brief.
type BriefOptions struct {
	Memories  int // approved memories at most (0: 30)
	Summaries int // session summaries at most (0: none)
	// Reminder counts what awaits review in this project alone, and only
	// when the person is due the review reminder (at most once a day per
	// project; the brief takes it): the SessionStart hook's reminder.
	// Without it the counts are every project's, every time.
	Reminder bool
}

// Brief gathers the project's brief (see Brief). project "" is every
// project's memories and no summaries.
func (s Recall) Brief(ctx context.Context, project string, o BriefOptions) (Brief, error) {
	if o.Memories <= 0 {
		o.Memories = 30
	}
	b := Brief{Project: project}
	// What awaits review first: the front ends reserve room for it (the
	// reminder is counted once the memories are read).
	if !o.Reminder {
		b.pending(s.Counts(ctx))
	}
	var err error
	if b.Memories, err = s.Top(ctx, project, o.Memories); err != nil {
		return b, fmt.Errorf("loading memories: %w", err)
	}
	if o.Reminder {
		b.PendingMemories, b.PendingDrafts = s.reviewReminder(ctx, project)
	}
	if o.Summaries > 0 && project != "" {
		if b.Summaries, err = s.drafts().Summaries(ctx, project, o.Summaries); err != nil {
			b.Problems = append(b.Problems, fmt.Errorf("loading summaries: %w", err))
		}
	}
	return b, nil
}

// pending keeps c's counts of what awaits review, or why they are missing.
func (b *Brief) pending(c Counts, err error) {
	if err != nil {
		b.Problems = append(b.Problems, fmt.Errorf("counting pending reviews: %w", err))
		return
	}
	b.PendingMemories, b.PendingDrafts = c.PendingMemories, c.PendingDrafts
}

// reviewReminder is what awaits review in project (memories, drafts)
// when the person is due a reminder, which it takes: at most once a day
// per project. Zeros when nothing awaits, the reminder was given today,
// project is "" or the counts cannot be read (a reminder is never worth
// failing a brief for).
func (s *core) reviewReminder(ctx context.Context, project string) (memories, drafts int) {
	if project == "" {
		return 0, 0
	}
	pm, pd, err := s.pendingFor(ctx, project)
	if err != nil || pm+pd == 0 {
		return 0, 0
	}
	if due, _ := s.takeReviewReminder(ctx, project); !due {
		return 0, 0
	}
	return pm, pd
}

// Problem joins the brief's problems (nil when there are none).
func (b Brief) Problem() error { return errors.Join(b.Problems...) }
