package memories

import (
	"context"
	"sort"

	"github.com/cairn-dev/cairn/index"
)

// PruneAfter is how many injections without a single use make an approved
// memory a candidate to prune (in stats and consolidation).
const PruneAfter = 5

// Stats is what `cairn stats` and the TUI's Stats view show: what the
// memory store holds, whether what is injected gets used, and how much of
// what the extractors propose a person keeps.
type Stats struct {
	Total    int            `json:"total"`
	ByStatus map[string]int `json:"by_status"`
	// ByType: type -> status -> count.
	ByType map[string]map[string]int `json:"by_type"`
	// ByProject: project ('' = global) -> status -> count.
	ByProject map[string]map[string]int `json:"by_project"`
	// Use is injections and uses over the last 7 and 30 days and overall.
	Use []UseWindow `json:"use"`
	// PerDay and UsedPerDay are injections (and those used) per day over
	// the last 30 days, oldest first.
	PerDay     []int            `json:"injections_per_day"`
	UsedPerDay []int            `json:"used_per_day"`
	TopUsed    []index.MemUsage `json:"top_used"`
	// NeverUsed are approved memories injected PruneAfter times or more
	// and never used: candidates to prune.
	NeverUsed []index.MemUsage `json:"never_used"`
	// Extraction is, per origin, what was proposed and what a person kept.
	Extraction        []OriginStats `json:"extraction"`
	SessionsExtracted int           `json:"sessions_extracted"`
	ExtractionRuns    int           `json:"extraction_runs"` // passes over a session's new entries
	PendingDrafts     int           `json:"pending_drafts"`
	Store             StoreFigures  `json:"store"`
}

// UseWindow is injections and uses over one period.
type UseWindow struct {
	Days   int       `json:"days"` // 0: all time
	Total  UseCount  `json:"total"`
	ByType []UseType `json:"by_type"`
}

// UseCount counts injections; the hit rate is used / settled (an injection
// is settled once the reply that follows it has been read).
type UseCount struct {
	Injected int      `json:"injected"`
	Settled  int      `json:"settled"`
	Used     int      `json:"used"`
	HitRate  *float64 `json:"hit_rate"` // nil: nothing settled yet
}

// UseType is UseCount for one memory type.
type UseType struct {
	Type string `json:"type"`
	UseCount
}

// OriginStats is one origin's proposals and their review.
type OriginStats struct {
	Origin   string `json:"origin"`
	Proposed int    `json:"proposed"`
	Approved int    `json:"approved"` // approved, or approved then superseded/archived
	Rejected int    `json:"rejected"`
	Pending  int    `json:"pending"`
	// KeepRate is approved / proposed (pending ones count as not kept
	// yet); ReviewedKeepRate approved / reviewed. nil when undefined.
	KeepRate         *float64 `json:"keep_rate"`
	ReviewedKeepRate *float64 `json:"reviewed_keep_rate"`
}

// StoreFigures are the store's size and what it keeps beyond Claude Code.
type StoreFigures struct {
	Sessions         int   `json:"sessions"`
	Entries          int   `json:"entries"`
	ArchivedSessions int   `json:"archived_sessions"` // transcript deleted, kept here
	ArchivedEntries  int   `json:"archived_entries"`
	DBBytes          int64 `json:"db_bytes"`
	DataDirBytes     int64 `json:"data_dir_bytes"`
}

// Stats counts the memory store for the stats views.
func (s Feedback) Stats(ctx context.Context) (Stats, error) {
	raw, err := s.st.Mem().Stats(ctx, s.now(), 10, PruneAfter)
	if err != nil {
		return Stats{}, err
	}
	st := Stats{ByStatus: map[string]int{}, ByType: map[string]map[string]int{}, ByProject: map[string]map[string]int{},
		PerDay: raw.PerDay, UsedPerDay: raw.UsedPerDay, TopUsed: raw.TopUsed, NeverUsed: raw.NeverUsed,
		SessionsExtracted: raw.SessionsExtracted, ExtractionRuns: raw.ExtractionRuns, PendingDrafts: raw.PendingDrafts}
	st.countStatuses(raw)
	st.Use = useWindows(raw)
	st.Extraction = originStats(raw.ByOriginStatus)
	ss, err := s.st.Stats(ctx)
	if err != nil {
		return st, err
	}
	st.Store = StoreFigures{Sessions: ss.Sessions, Entries: ss.Entries, ArchivedSessions: ss.ArchivedSessions,
		ArchivedEntries: raw.ArchivedEntries, DBBytes: ss.DBBytes, DataDirBytes: raw.DataDirBytes}
	return st, nil
}

// countStatuses adds raw's memory counts by type, status and project.
func (st *Stats) countStatuses(raw index.MemStatsRaw) {
	for _, c := range raw.ByTypeStatus {
		st.Total += c.N
		st.ByStatus[c.Status] += c.N
		if st.ByType[c.Type] == nil {
			st.ByType[c.Type] = map[string]int{}
		}
		st.ByType[c.Type][c.Status] += c.N
	}
	for _, c := range raw.ByProject {
		if st.ByProject[c.Project] == nil {
			st.ByProject[c.Project] = map[string]int{}
		}
		st.ByProject[c.Project][c.Status] += c.N
	}
}

// useWindows is how injected memories were used over the last 7 and 30
// days and in all, per type and in total.
func useWindows(raw index.MemStatsRaw) []UseWindow {
	var out []UseWindow
	for _, w := range []struct {
		days int
		c    []index.InjectionCount
	}{{7, raw.Injections7}, {30, raw.Injections30}, {0, raw.InjectionsAll}} {
		uw := UseWindow{Days: w.days}
		for _, c := range w.c {
			u := UseType{Type: c.Type, UseCount: useCount(c.Injected, c.Checked, c.Used)}
			uw.ByType = append(uw.ByType, u)
			uw.Total.Injected += c.Injected
			uw.Total.Settled += c.Checked
			uw.Total.Used += c.Used
		}
		uw.Total = useCount(uw.Total.Injected, uw.Total.Settled, uw.Total.Used)
		out = append(out, uw)
	}
	return out
}

// originStats is what became of each extractor's proposals (its keep
// rates among all and among reviewed ones), most proposing first.
func originStats(counts []index.MemCount) []OriginStats {
	origins := map[string]*OriginStats{}
	for _, c := range counts {
		o := origins[c.Origin]
		if o == nil {
			o = &OriginStats{Origin: c.Origin}
			origins[c.Origin] = o
		}
		o.Proposed += c.N
		switch Status(c.Status) {
		case Approved, Superseded, Archived:
			o.Approved += c.N
		case Rejected:
			o.Rejected += c.N
		case Pending:
			o.Pending += c.N
		}
	}
	var out []OriginStats
	for _, o := range origins {
		if o.Proposed > 0 {
			r := float64(o.Approved) / float64(o.Proposed)
			o.KeepRate = &r
		}
		if n := o.Approved + o.Rejected; n > 0 {
			r := float64(o.Approved) / float64(n)
			o.ReviewedKeepRate = &r
		}
		out = append(out, *o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Proposed > out[j].Proposed })
	return out
}

func useCount(injected, settled, used int) UseCount {
	u := UseCount{Injected: injected, Settled: settled, Used: used}
	if settled > 0 {
		r := float64(used) / float64(settled)
		u.HitRate = &r
	}
	return u
}
