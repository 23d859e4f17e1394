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
	s := m.s
	var r MemStatsRaw
	scanCount := func(dst *[]MemCount, q string, cols func(*MemCount) []any) error {
		return s.eachRow(ctx, q, nil, func(rows *sql.Rows) error {
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
		return r, err
	}
	if err := scanCount(&r.ByProject, `SELECT project, status, count(*) FROM memories GROUP BY project, status ORDER BY project, status`,
		func(c *MemCount) []any { return []any{&c.Project, &c.Status} }); err != nil {
		return r, err
	}
	if err := scanCount(&r.ByOriginStatus, `SELECT origin, status, count(*) FROM memories GROUP BY origin, status ORDER BY origin, status`,
		func(c *MemCount) []any { return []any{&c.Origin, &c.Status} }); err != nil {
		return r, err
	}
	injections := func(since int64) ([]InjectionCount, error) {
		var out []InjectionCount
		err := s.eachRow(ctx, `SELECT m.type, count(*), sum(i.checked), sum(i.used) FROM memory_injections i JOIN memories m ON m.id = i.memory
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
		return r, err
	}
	if r.Injections30, err = injections(now.Add(-30 * day).UnixMilli()); err != nil {
		return r, err
	}
	if r.InjectionsAll, err = injections(0); err != nil {
		return r, err
	}
	r.PerDay, r.UsedPerDay = make([]int, 30), make([]int, 30)
	start := now.Add(-30 * day)
	if err := s.eachRow(ctx, `SELECT ts, used FROM memory_injections WHERE ts >= ?`, []any{start.UnixMilli()}, func(rows *sql.Rows) error {
		var ts int64
		var used int
		if err := rows.Scan(&ts, &used); err != nil {
			return err
		}
		i := 29 - int(now.Sub(time.UnixMilli(ts))/day) // the last bucket is the last 24 hours
		if i >= 0 && i < 30 {
			r.PerDay[i]++
			r.UsedPerDay[i] += used
		}
		return nil
	}); err != nil {
		return r, err
	}
	usage := func(dst *[]MemUsage, q string, args ...any) error {
		return s.eachRow(ctx, q, args, func(rows *sql.Rows) error {
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
		return r, err
	}
	if err := usage(&r.NeverUsed, cols+`WHERE status = 'approved' AND used = 0 AND injected >= ? ORDER BY injected DESC, updated ASC, id LIMIT ?`, minInjected, limit); err != nil {
		return r, err
	}
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM extract_cursors`).Scan(&r.SessionsExtracted); err != nil {
		return r, s.wrap(err)
	}
	if err := s.r.QueryRowContext(ctx, `SELECT coalesce((SELECT CAST(value AS INTEGER) FROM kv WHERE key = '`+extractRunsKey+`'), 0)`).Scan(&r.ExtractionRuns); err != nil {
		return r, s.wrap(err)
	}
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM drafts WHERE status = 'pending'`).Scan(&r.PendingDrafts); err != nil {
		return r, s.wrap(err)
	}
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM entries_raw WHERE session IN (SELECT id FROM sessions WHERE archived = 1)`).Scan(&r.ArchivedEntries); err != nil {
		return r, s.wrap(err)
	}
	_ = filepath.WalkDir(s.Dir(), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				r.DataDirBytes += fi.Size()
			}
		}
		return nil
	})
	return r, nil
}
