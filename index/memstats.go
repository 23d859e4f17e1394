package index

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"time"
)

// extractRunsKey counts extraction runs (SetExtractCursor).
const extractRunsKey = "memories.extract.runs"

// MemCount is one group of a memory count.
type MemCount struct {
	Type    string `json:"type,omitempty"`
	Status  string `json:"status,omitempty"`
	Project string `json:"project,omitempty"`
	Origin  string `json:"origin,omitempty"`
	N       int    `json:"n"`
}

// InjectionCount is injections and uses of one memory type since a time.
type InjectionCount struct {
	Type     string `json:"type"`
	Injected int    `json:"injected"`
	Checked  int    `json:"checked"` // settled: the reply after the injection was read
	Used     int    `json:"used"`
}

// MemUsage is one memory's use, for the top-used and never-used lists.
type MemUsage struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Project  string `json:"project"`
	Content  string `json:"content"`
	Injected int    `json:"injected"`
	Used     int    `json:"used"`
	Updated  int64  `json:"-"`
}

// MemStatsRaw is what the store counts for `cairn stats`; memories turns it
// into rates.
type MemStatsRaw struct {
	ByTypeStatus   []MemCount       `json:"by_type_status"`
	ByProject      []MemCount       `json:"by_project"`
	ByOriginStatus []MemCount       `json:"by_origin_status"`
	Injections7    []InjectionCount `json:"injections_7d"`
	Injections30   []InjectionCount `json:"injections_30d"`
	InjectionsAll  []InjectionCount `json:"injections_all"`
	// PerDay is injections per day over the last 30 days, oldest first.
	PerDay, UsedPerDay []int
	TopUsed, NeverUsed []MemUsage
	SessionsExtracted  int
	ExtractionRuns     int
	PendingDrafts      int
	// ArchivedEntries are entries kept after their transcript was deleted.
	ArchivedEntries int
	// DataDirBytes is everything in the data dir (store, full-text index,
	// caches, backups kept there).
	DataDirBytes int64
}

// Stats counts the memories, their injections and uses for a stats view.
// limit bounds the top-used and never-used lists; minInjected is how many
// injections without a use make a memory a candidate to prune.
func (m MemStore) Stats(ctx context.Context, now time.Time, limit, minInjected int) (MemStatsRaw, error) {
	var r MemStatsRaw
	for _, step := range []func() error{
		func() error { return m.statCounts(ctx, &r) },
		func() error { return m.statInjections(ctx, now, &r) },
		func() error { return m.statPerDay(ctx, now, &r) },
		func() error { return m.statUsage(ctx, limit, minInjected, &r) },
		func() error { return m.statTotals(ctx, &r) },
	} {
		if err := step(); err != nil {
			return r, err
		}
	}
	_ = filepath.WalkDir(m.s.Dir(), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				r.DataDirBytes += fi.Size()
			}
		}
		return nil
	})
	return r, nil
}

// statCounts counts the memories by type, project and origin, each with
// its status.
func (m MemStore) statCounts(ctx context.Context, r *MemStatsRaw) error {
	scanCount := func(dst *[]MemCount, q string, cols func(*MemCount) []any) error {
		return m.s.eachRow(ctx, q, nil, func(rows *sql.Rows) error {
			var c MemCount
			if err := rows.Scan(append(cols(&c), &c.N)...); err != nil {
				return err
			}
			*dst = append(*dst, c)
			return nil
		})
	}
	if err := scanCount(&r.ByTypeStatus, `SELECT type, status, count(*) FROM memories GROUP BY type, status ORDER BY type, status`,
		func(c *MemCount) []any { return []any{&c.Type, &c.Status} }); err != nil {
		return err
	}
	if err := scanCount(&r.ByProject, `SELECT project, status, count(*) FROM memories GROUP BY project, status ORDER BY project, status`,
		func(c *MemCount) []any { return []any{&c.Project, &c.Status} }); err != nil {
		return err
	}
	return scanCount(&r.ByOriginStatus, `SELECT origin, status, count(*) FROM memories GROUP BY origin, status ORDER BY origin, status`,
		func(c *MemCount) []any { return []any{&c.Origin, &c.Status} })
}

// statInjections counts the injections, checks and uses by type over the
// last 7 and 30 days and in all.
func (m MemStore) statInjections(ctx context.Context, now time.Time, r *MemStatsRaw) error {
	injections := func(since int64) ([]InjectionCount, error) {
		var out []InjectionCount
		err := m.s.eachRow(ctx, `SELECT m.type, count(*), sum(i.checked), sum(i.used) FROM memory_injections i JOIN memories m ON m.id = i.memory
			WHERE i.ts >= ? GROUP BY m.type ORDER BY m.type`, []any{since}, func(rows *sql.Rows) error {
			var c InjectionCount
			if err := rows.Scan(&c.Type, &c.Injected, &c.Checked, &c.Used); err != nil {
				return err
			}
			out = append(out, c)
			return nil
		})
		return out, err
	}
	day := 24 * time.Hour
	var err error
	if r.Injections7, err = injections(now.Add(-7 * day).UnixMilli()); err != nil {
		return err
	}
	if r.Injections30, err = injections(now.Add(-30 * day).UnixMilli()); err != nil {
		return err
	}
	r.InjectionsAll, err = injections(0)
	return err
}

// statPerDay counts the injections and uses of each of the last 30 days
// (the last bucket is the last 24 hours).
func (m MemStore) statPerDay(ctx context.Context, now time.Time, r *MemStatsRaw) error {
	const day = 24 * time.Hour
	r.PerDay, r.UsedPerDay = make([]int, 30), make([]int, 30)
	start := now.Add(-30 * day)
	return m.s.eachRow(ctx, `SELECT ts, used FROM memory_injections WHERE ts >= ?`, []any{start.UnixMilli()}, func(rows *sql.Rows) error {
		var ts int64
		var used int
		if err := rows.Scan(&ts, &used); err != nil {
			return err
		}
		i := 29 - int(now.Sub(time.UnixMilli(ts))/day)
		if i >= 0 && i < 30 {
			r.PerDay[i]++
			r.UsedPerDay[i] += used
		}
		return nil
	})
}

// statUsage lists the most used approved memories and those injected
// minInjected times or more without a use, limit of each.
func (m MemStore) statUsage(ctx context.Context, limit, minInjected int, r *MemStatsRaw) error {
	usage := func(dst *[]MemUsage, q string, args ...any) error {
		return m.s.eachRow(ctx, q, args, func(rows *sql.Rows) error {
			var u MemUsage
			if err := rows.Scan(&u.ID, &u.Type, &u.Project, &u.Content, &u.Injected, &u.Used, &u.Updated); err != nil {
				return err
			}
			*dst = append(*dst, u)
			return nil
		})
	}
	const cols = `SELECT id, type, project, content, injected, used, updated FROM memories `
	if err := usage(&r.TopUsed, cols+`WHERE status = 'approved' AND used > 0 ORDER BY used DESC, injected ASC, id LIMIT ?`, limit); err != nil {
		return err
	}
	return usage(&r.NeverUsed, cols+`WHERE status = 'approved' AND used = 0 AND injected >= ? ORDER BY injected DESC, updated ASC, id LIMIT ?`, minInjected, limit)
}

// statTotals reads the sessions extracted, extraction runs, pending
// drafts and entries of archived sessions.
func (m MemStore) statTotals(ctx context.Context, r *MemStatsRaw) error {
	s := m.s
	for _, q := range []struct {
		sql string
		dst *int
	}{
		{`SELECT count(*) FROM extract_cursors`, &r.SessionsExtracted},
		{`SELECT coalesce((SELECT CAST(value AS INTEGER) FROM kv WHERE key = '` + extractRunsKey + `'), 0)`, &r.ExtractionRuns},
		{`SELECT count(*) FROM drafts WHERE status = 'pending'`, &r.PendingDrafts},
		{`SELECT count(*) FROM entries_raw WHERE session IN (SELECT id FROM sessions WHERE archived = 1)`, &r.ArchivedEntries},
	} {
		if err := s.r.QueryRowContext(ctx, q.sql).Scan(q.dst); err != nil {
			return s.wrap(err)
		}
	}
	return nil
}
