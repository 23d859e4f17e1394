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
}

// Brief gathers the project's brief (see Brief). project "" is every
// project's memories and no summaries.
func (s *Service) Brief(ctx context.Context, project string, o BriefOptions) (Brief, error) {
	if o.Memories <= 0 {
		o.Memories = 30
	}
	b := Brief{Project: project}
	// What awaits review first: the front ends reserve room for it.
	if c, err := s.Counts(ctx); err != nil {
		b.Problems = append(b.Problems, fmt.Errorf("counting pending reviews: %w", err))
	} else {
		b.PendingMemories, b.PendingDrafts = c.PendingMemories, c.PendingDrafts
	}
	var err error
	if b.Memories, err = s.Top(ctx, project, o.Memories); err != nil {
		return b, fmt.Errorf("loading memories: %w", err)
	}
	if o.Summaries > 0 && project != "" {
		if b.Summaries, err = s.Summaries(ctx, project, o.Summaries); err != nil {
			b.Problems = append(b.Problems, fmt.Errorf("loading summaries: %w", err))
		}
	}
	return b, nil
}

// Problem joins the brief's problems (nil when there are none).
func (b Brief) Problem() error { return errors.Join(b.Problems...) }
