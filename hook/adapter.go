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

func (m serviceMem) Brief(ctx context.Context, project string, mems, sums int) (memories.Brief, error) {
	return m.s.Recall.Brief(ctx, project, memories.BriefOptions{Memories: mems, Summaries: sums, Reminder: true})
}

func (m serviceMem) Rank(ctx context.Context, query, project string, limit int, threshold float64, exclude []string) ([]memories.Ranked, error) {
	if threshold <= 0 {
		threshold = 1e-9 // 0 would mean memories.min_relevance
	}
	return m.s.Recall.Rank(ctx, query, memories.RankOptions{Project: project, Limit: limit, Threshold: threshold, Exclude: exclude, Touch: true, Prompt: true})
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
	cache, err := m.provenance(ctx, ms, exclude)
	if err != nil {
		return nil, err
	}
	var out []ToolMemory
	for _, x := range ms {
		if slices.Contains(exclude, x.ID) {
			continue
		}
		out = append(out, ToolMemory{Memory: x, Files: cache[x.ID].Files, Commands: cache[x.ID].Commands})
	}
	return out, nil
}

// provenance is the files and commands of each memory's source, by id,
// from the store's cache (toolFilesKey): at most toolFilesPerRun of the
// memories of ms not in it and not excluded are read and cached.
func (m serviceMem) provenance(ctx context.Context, ms []memories.Memory, exclude []string) (map[string]memories.Provenance, error) {
	cache := map[string]memories.Provenance{}
	if b, ok, err := m.st.Setting(ctx, toolFilesKey); err == nil && ok {
		_ = json.Unmarshal(b, &cache)
	}
	missing := uncached(ms, cache, exclude)
	if len(missing) == 0 {
		return cache, nil
	}
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
	return cache, nil
}

// uncached are the first toolFilesPerRun memories of ms with a source
// session that are neither in cache nor excluded.
func uncached(ms []memories.Memory, cache map[string]memories.Provenance, exclude []string) []memories.Memory {
	var missing []memories.Memory
	for _, x := range ms {
		if _, ok := cache[x.ID]; !ok && x.SourceSession != "" && !slices.Contains(exclude, x.ID) && len(missing) < toolFilesPerRun {
			missing = append(missing, x)
		}
	}
	return missing
}
