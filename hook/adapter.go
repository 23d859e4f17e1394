package hook

import (
	"context"
	"slices"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/memories"
)

// ServiceMemories adapts cairn's memory service to what the hooks need.
func ServiceMemories(st *index.Store, cfg config.Config) Memories {
	return serviceMem{memories.New(st, cfg)}
}

type serviceMem struct{ s *memories.Service }


func toMemories(rs []memories.Ranked) []Memory {
	out := make([]Memory, len(rs))
	for i, r := range rs {
		out[i] = Memory{ID: r.ID, Type: string(r.Type), Content: r.Content, Importance: r.Importance, Score: r.Score}
	}
	return out
}

// Top is the service's ranking without a query (memories.Service.Top).
func (m serviceMem) Top(ctx context.Context, project string, limit int) ([]Memory, error) {
	rs, err := m.s.Top(ctx, project, limit)
	return toMemories(rs), err
}

func (m serviceMem) Rank(ctx context.Context, query, project string, limit int, threshold float64, exclude []string) ([]Memory, error) {
	if threshold <= 0 {
		threshold = 1e-9 // 0 would mean memories.min_relevance
	}
	// Rank loads every memory of every project: skip it when this project
	// has no approved memory (nor a global one) that is not excluded.
	ms, err := m.s.List(ctx, memories.Filter{Statuses: []memories.Status{memories.Approved}, Project: project, IncludeGlobal: true})
	if err != nil {
		return nil, err
	}
	candidates := 0
	for _, x := range ms {
		if !slices.Contains(exclude, x.ID) {
			candidates++
		}
	}
	if candidates == 0 {
		return nil, nil
	}
	rs, err := m.s.Rank(ctx, query, memories.RankOptions{Project: project, Limit: limit, Threshold: threshold, Exclude: exclude, Touch: true})
	return toMemories(rs), err
}

func (m serviceMem) Summaries(ctx context.Context, project string, limit int) ([]Summary, error) {
	ss, err := m.s.Summaries(ctx, project, limit)
	out := make([]Summary, len(ss))
	for i, s := range ss {
		out[i] = Summary{SessionID: s.SessionID, Created: s.Created, Sections: s.Sections}
	}
	return out, err
}

func (m serviceMem) Pending(ctx context.Context) (int, int, error) {
	c, err := m.s.Counts(ctx)
	return c.PendingMemories, c.PendingDrafts, err
}

func (m serviceMem) Injected(ctx context.Context, session string) ([]string, error) {
	return m.s.Injected(ctx, session)
}

func (m serviceMem) RecordInjection(ctx context.Context, session, event string, ids []string) error {
	return m.s.RecordInjection(ctx, session, event, ids)
}

func (m serviceMem) ScoreUsage(ctx context.Context, session string) (int, int, error) {
	return m.s.ScoreUsage(ctx, session)
}


func (m serviceMem) StoreSummary(ctx context.Context, session string) error {
	_, err := m.s.StoreSummary(ctx, session)
	return err
}
