package hook

import (
	"context"
	"slices"
	"sort"
	"time"

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

// Top ranks the project's approved memories (and global ones) as
// memories.Service.Top does — importance/3 × recency × confidence — but
// from a query filtered in SQL: Service.Top builds the whole memory cache
// (every memory, its tokens and vectors), which costs a hook ~25 ms at
// 2,000 memories. TestTopMatchesService keeps the two in step.
func (m serviceMem) Top(ctx context.Context, project string, limit int) ([]Memory, error) {
	ms, err := m.s.List(ctx, memories.Filter{Statuses: []memories.Status{memories.Approved}, Project: project, IncludeGlobal: true})
	if err != nil {
		return nil, err
	}
	return topOf(ms, project, time.Now(), limit), nil
}

func topOf(ms []memories.Memory, project string, now time.Time, limit int) []Memory {
	type scored struct {
		m     memories.Memory
		score float64
	}
	var out []scored
	for _, x := range ms {
		if x.Status != memories.Approved || (project != "" && x.Project != "" && x.Project != project) {
			continue
		}
		score := float64(x.Importance) / 3 * recency(x.Updated, now) * x.Confidence
		if score <= 0 {
			continue
		}
		out = append(out, scored{x, score})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if (a.m.Project == "") != (b.m.Project == "") {
			return a.m.Project != ""
		}
		if !a.m.Updated.Equal(b.m.Updated) {
			return a.m.Updated.After(b.m.Updated)
		}
		return a.m.ID < b.m.ID
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	res := make([]Memory, len(out))
	for i, x := range out {
		res[i] = Memory{ID: x.m.ID, Type: string(x.m.Type), Content: x.m.Content, Importance: x.m.Importance, Score: x.score}
	}
	return res
}

// recency is memories' recency weight: 1 under 7 days, falling linearly
// to 0.5 at 90 days.
func recency(updated, now time.Time) float64 {
	days := now.Sub(updated).Hours() / 24
	switch {
	case days <= 7:
		return 1
	case days >= 90:
		return 0.5
	}
	return 1 - 0.5*(days-7)/(90-7)
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
