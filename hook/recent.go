package hook

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	"github.com/cairn-dev/cairn/index"
)

// The latest sessions of each project are kept in a small store setting,
// updated by the indexing hooks, so SessionStart reads one row instead of
// scanning every session of a big store (~10 ms on the 1 GB corpus).

const recentKey = index.RecentSessionsKeyPrefix

// recentMax is how many sessions a project's list keeps.
const recentMax = 6

type recentSession struct {
	ID    string    `json:"id"`
	Start time.Time `json:"start"`
	Title string    `json:"title"`
}

func loadRecent(ctx context.Context, st *index.Store, project string) ([]recentSession, bool) {
	b, ok, err := st.Setting(ctx, recentKey+project)
	if err != nil || !ok {
		return nil, false
	}
	var rs []recentSession
	if json.Unmarshal(b, &rs) != nil {
		return nil, false
	}
	return rs, true
}

func saveRecent(ctx context.Context, st *index.Store, project string, rs []recentSession) error {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Start.After(rs[j].Start) })
	if len(rs) > recentMax {
		rs = rs[:recentMax]
	}
	b, err := json.Marshal(rs)
	if err != nil {
		return err
	}
	return st.SetSetting(ctx, recentKey+project, b)
}

// noteRecent records a session in the list of project (the key SessionStart
// reads), once: a session already listed costs one read.
func noteRecent(ctx context.Context, st *index.Store, project, sid string) error {
	if project == "" {
		return nil
	}
	rs, _ := loadRecent(ctx, st, project)
	for _, r := range rs {
		if r.ID == sid {
			return nil
		}
	}
	s, err := st.Session(ctx, sid)
	if err != nil {
		return err
	}
	if !s.HasWork() {
		return nil // a `/clear` or API errors alone: nothing to point back to
	}
	title := s.Title
	if title == "" {
		title = s.FirstPrompt
	}
	return saveRecent(ctx, st, project, append([]recentSession{{ID: s.ID, Start: s.Start, Title: oneLine(title, 200)}}, rs...))
}

// recentSessions returns a project's latest sessions: from the stored list,
// else from the sessions table (and then stored).
func recentSessions(ctx context.Context, st *index.Store, project string) ([]recentSession, error) {
	if rs, ok := loadRecent(ctx, st, project); ok {
		return rs, nil
	}
	ss, err := st.Sessions(ctx, index.SessionFilter{Project: project, Limit: 20})
	if err != nil {
		return nil, err
	}
	var rs []recentSession
	for _, s := range ss {
		if s.ProjectPath != project || !s.HasWork() {
			continue
		}
		title := s.Title
		if title == "" {
			title = s.FirstPrompt
		}
		rs = append(rs, recentSession{ID: s.ID, Start: s.Start, Title: oneLine(title, 200)})
	}
	if len(rs) > 0 {
		_ = saveRecent(ctx, st, project, rs)
	}
	return rs, nil
}
