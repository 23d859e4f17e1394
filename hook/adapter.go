package hook

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/memories"
)

// ServiceMemories adapts cairn's memory service to what the hooks need.
func ServiceMemories(st *index.Store, cfg config.Config) Memories {
	return serviceMem{memories.New(st, cfg), st}
}

type serviceMem struct {
	s  *memories.Service
	st *index.Store
}

func toMemories(rs []memories.Ranked) []Memory {
	out := make([]Memory, len(rs))
	for i, r := range rs {
		out[i] = Memory{ID: r.ID, Type: string(r.Type), Content: r.Content, Importance: r.Importance, Score: r.Score}
	}
	return out
}

func (m serviceMem) Brief(ctx context.Context, project string, mems, sums int) (Brief, error) {
	b, err := m.s.Recall.Brief(ctx, project, memories.BriefOptions{Memories: mems, Summaries: sums})
	out := Brief{Memories: toMemories(b.Memories), Problem: b.Problem()}
	if err == nil && project != "" {
		// What awaits review in this project, at most once a day.
		pm, pd, perr := m.s.Feedback.PendingFor(ctx, project)
		if perr == nil && pm+pd > 0 {
			if due, _ := m.s.Feedback.TakeReviewReminder(ctx, project); due {
				out.PendingMemories, out.PendingDrafts = pm, pd
			}
		}
	}
	for _, s := range b.Summaries {
		out.Summaries = append(out.Summaries, Summary{SessionID: s.SessionID, Created: s.Created, Sections: s.Sections})
	}
	return out, err
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
	rs, err := m.s.Recall.Rank(ctx, query, memories.RankOptions{Project: project, Limit: limit, Threshold: threshold, Exclude: exclude, Touch: true, Prompt: true})
	return toMemories(rs), err
}

func (m serviceMem) Injected(ctx context.Context, session string) ([]string, error) {
	return m.s.Feedback.InjectedSinceReset(ctx, session)
}

func (m serviceMem) RecordInjection(ctx context.Context, session, event string, ids []string) error {
	return m.s.Feedback.RecordInjectionSinceReset(ctx, session, event, ids)
}

func (m serviceMem) ResetInjected(ctx context.Context, session string) error {
	return m.s.Feedback.ResetInjected(ctx, session)
}

func (m serviceMem) ScoreUsage(ctx context.Context, session, reply string, final bool) (int, int, error) {
	return m.s.Feedback.ScoreUsageWith(ctx, session, memories.UsageOptions{Reply: reply, Final: final})
}

func (m serviceMem) StoreSummary(ctx context.Context, session string) error {
	_, err := m.s.StoreSummary(ctx, session)
	return err
}

// toolFilesKey is the store setting that caches, per memory id, its
// provenance (the files its source turns edited, the commands its source
// entries ran): reading a memory's source session is too slow for every
// tool call, and a memory's provenance never changes. (hook:tool-files
// held the files alone.)
const toolFilesKey = "hook:tool-sources"

// toolFilesPerRun is how many memories' provenance one PreToolUse reads
// at most (the rest waits for the next tool call).
const toolFilesPerRun = 8

func (m serviceMem) ToolMemories(ctx context.Context, project string, exclude []string) ([]ToolMemory, error) {
	ms, err := m.s.List(ctx, memories.Filter{Statuses: []memories.Status{memories.Approved}, Project: project, IncludeGlobal: true})
	if err != nil || len(ms) == 0 {
		return nil, err
	}
	cache := map[string]memories.Provenance{}
	if b, ok, err := m.st.Setting(ctx, toolFilesKey); err == nil && ok {
		_ = json.Unmarshal(b, &cache)
	}
	var missing []memories.Memory
	for _, x := range ms {
		if _, ok := cache[x.ID]; !ok && x.SourceSession != "" && !slices.Contains(exclude, x.ID) && len(missing) < toolFilesPerRun {
			missing = append(missing, x)
		}
	}
	if len(missing) > 0 {
		prov, err := m.s.Recall.ProvenanceEach(ctx, missing)
		if err != nil {
			return nil, err
		}
		for i, x := range missing {
			cache[x.ID] = prov[i]
		}
		if b, err := json.Marshal(cache); err == nil {
			// Not saved (a busy store) only means reading them again.
			_ = m.st.SetSetting(ctx, toolFilesKey, b)
		}
	}
	var out []ToolMemory
	for _, x := range ms {
		if slices.Contains(exclude, x.ID) {
			continue
		}
		out = append(out, ToolMemory{Memory: Memory{ID: x.ID, Type: string(x.Type), Content: x.Content, Importance: x.Importance}, Files: cache[x.ID].Files, Commands: cache[x.ID].Commands})
	}
	return out, nil
}
