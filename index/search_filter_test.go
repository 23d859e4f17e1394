package index

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// acceptsReference is SearchQuery.accepts as one list of checks, kept to
// pin the split-up filter to it.
func acceptsReference(q *SearchQuery, d *hit) bool {
	kinds, _ := docKinds(q.Kinds)
	if len(kinds) > 0 && !slices.Contains(kinds, d.Kind) {
		return false
	}
	if len(q.Projects) > 0 && !slices.Contains(q.Projects, d.Project) {
		return false
	}
	if q.Session != "" && d.Session != q.Session {
		return false
	}
	if len(q.Roles) > 0 && !slices.Contains(q.Roles, d.Role) {
		return false
	}
	if !q.Since.IsZero() && (d.Time.IsZero() || d.Time.Before(q.Since)) {
		return false
	}
	if !q.Until.IsZero() && (d.Time.IsZero() || d.Time.After(q.Until)) {
		return false
	}
	if q.Subagents != nil && *q.Subagents != d.Subagent {
		return false
	}
	if q.NoThinking && strings.Contains(d.Block, "thinking") {
		return false
	}
	if q.NoToolOutput && d.Block == "tool_result" {
		return false
	}
	return true
}

// TestAcceptsMatchesReference runs every filter combination against every
// kind of document.
func TestAcceptsMatchesReference(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	yes, no := true, false
	var docs []*hit
	for _, kind := range []string{DocMessage, DocSession, "memory"} {
		for _, tm := range []time.Time{{}, t0.Add(-time.Hour), t0, t0.Add(time.Hour), t0.Add(48 * time.Hour)} {
			for _, block := range []string{"text", "thinking", "redacted_thinking", "tool_result", ""} {
				for _, sub := range []bool{false, true} {
					docs = append(docs, &hit{DocRow: DocRow{Kind: kind, Time: tm, Block: block, Subagent: sub,
						Project: "/p/" + block, Session: "s-" + kind, Role: map[bool]string{false: "user", true: "assistant"}[sub]}})
				}
			}
		}
	}
	var queries []SearchQuery
	for _, kinds := range [][]string{nil, {"all"}, {"messages"}, {"summaries", "memories"}} {
		for _, win := range [][2]time.Time{{}, {t0, time.Time{}}, {time.Time{}, t0}, {t0, t0.Add(time.Hour)}} {
			for _, sub := range []*bool{nil, &yes, &no} {
				for flags := range 4 {
					for _, narrow := range []bool{false, true} {
						q := SearchQuery{Kinds: kinds, Since: win[0], Until: win[1], Subagents: sub,
							NoThinking: flags&1 != 0, NoToolOutput: flags&2 != 0}
						if narrow {
							q.Projects = []string{"/p/text", "/p/thinking"}
							q.Session = "s-" + DocMessage
							q.Roles = []string{"assistant"}
						}
						queries = append(queries, q)
					}
				}
			}
		}
	}
	n := 0
	for i := range queries {
		q := &queries[i]
		for _, d := range docs {
			want := acceptsReference(q, d)
			if got := q.accepts(d); got != want {
				t.Fatalf("accepts(%+v, %+v) = %v, want %v", *q, d.DocRow, got, want)
			}
			if want {
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no document accepted: the cases test nothing")
	}
}
