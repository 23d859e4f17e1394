package memories

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/termtext"
)

// Report is the stats as plain text for a terminal of width columns (the
// CLI prints it, the TUI's Stats view shows it): a person should be able
// to tell at a glance what is kept, whether it is used, and what to prune.
func (st Stats) Report(width int) string {
	r := &report{width: max(width, 60)}
	if st.Total == 0 {
		r.line("Memories: none yet (they are proposed as you work — the hooks, `cairn index` — or added with /remember)")
	} else {
		r.line("Memories: %d  (%s)", st.Total, statusList(st.ByStatus))
	}
	if st.PendingDrafts > 0 {
		r.line("Drafts awaiting review: %d", st.PendingDrafts)
	}
	r.line("")
	r.byType(st)
	r.byProject(st)
	r.use(st)
	r.usage(st)
	r.extraction(st)
	s := st.Store
	r.line("Store: %s in the data dir (database %s); %d sessions, %d entries", human.Bytes(s.DataDirBytes), human.Bytes(s.DBBytes), s.Sessions, s.Entries)
	r.line("  kept after Claude Code deleted the transcript: %d sessions, %d entries", s.ArchivedSessions, s.ArchivedEntries)
	return r.b.String()
}

// report is the stats' text being written, for a terminal of width
// columns.
type report struct {
	b     strings.Builder
	width int
}

func (r *report) line(format string, a ...any) { fmt.Fprintf(&r.b, format+"\n", a...) }

// pct is a rate as a percentage, "–" when there is none.
func pct(x *float64) string {
	if x == nil {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", *x*100)
}

func (r *report) byType(st Stats) {
	r.line("By type")
	types := sortedKeys(st.ByType)
	top := 0
	for _, t := range types {
		top = max(top, sum(st.ByType[t]))
	}
	for _, t := range types {
		n := sum(st.ByType[t])
		r.line("  %-11s %5d %-20s %s", t, n, human.Bar(n, top, 20), statusList(st.ByType[t]))
	}
	r.line("")
}

// byProject lists the 8 projects with most memories.
func (r *report) byProject(st Stats) {
	r.line("By project")
	projects := sortedKeys(st.ByProject)
	sort.SliceStable(projects, func(i, j int) bool { return sum(st.ByProject[projects[i]]) > sum(st.ByProject[projects[j]]) })
	w := min(40, r.width-30)
	for i, p := range projects {
		if i == 8 {
			r.line("  … and %d more projects", len(projects)-i)
			break
		}
		name := p
		if name == "" {
			name = "(global)"
		}
		r.line("  %-*s %5d  %s", w, termtext.Line(shortenLeft(name, w)), sum(st.ByProject[p]), statusList(st.ByProject[p]))
	}
	r.line("")
}

// use is the injections and uses per window, by type for the last.
func (r *report) use(st Stats) {
	r.line("Injected and used (hit rate = used / settled; settled = the reply after it was read)")
	for _, w := range st.Use {
		label := "all time"
		if w.Days > 0 {
			label = fmt.Sprintf("last %d days", w.Days)
		}
		r.line("  %-13s injected %5d  used %5d  hit rate %s", label, w.Total.Injected, w.Total.Used, pct(w.Total.HitRate))
	}
	if len(st.Use) > 0 {
		for _, u := range st.Use[len(st.Use)-1].ByType {
			r.line("    %-11s injected %5d  used %5d  hit rate %s", u.Type, u.Injected, u.Used, pct(u.HitRate))
		}
	}
	r.line("  per day, 30 days: |%s|  (used: |%s|)", human.Sparkline(st.PerDay), human.Sparkline(st.UsedPerDay))
	r.line("")
}

// usage lists the most used memories and those never used (to prune).
func (r *report) usage(st Stats) {
	if len(st.TopUsed) > 0 {
		r.line("Most used")
		for _, m := range st.TopUsed {
			r.line("  %s  used %3d/%-3d %s", m.ID, m.Used, m.Injected, termtext.Line(shorten(m.Content, r.width-24)))
		}
		r.line("")
	}
	r.line("Never used after %d+ injections (candidates to prune: cairn memories consolidate)", PruneAfter)
	if len(st.NeverUsed) == 0 {
		r.line("  none")
	}
	for _, m := range st.NeverUsed {
		r.line("  %s  injected %3d  %s", m.ID, m.Injected, termtext.Line(shorten(m.Content, r.width-26)))
	}
	r.line("")
}

// extraction is the keep rate of each origin's proposals.
func (r *report) extraction(st Stats) {
	r.line("Extraction (keep rate = approved / proposed; of those reviewed in brackets)")
	for _, o := range st.Extraction {
		origin := o.Origin
		if origin == "" {
			origin = "(unknown)"
		}
		r.line("  %-13s proposed %5d  approved %5d  rejected %5d  pending %5d  keep %s (%s)", origin, o.Proposed, o.Approved, o.Rejected, o.Pending, pct(o.KeepRate), pct(o.ReviewedKeepRate))
	}
	r.line("  extraction runs: %d over %d sessions", st.ExtractionRuns, st.SessionsExtracted)
	r.line("")
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// statusList is "12 approved · 3 pending", in review order.
func statusList(m map[string]int) string {
	var parts []string
	for _, s := range []Status{Approved, Pending, Rejected, Superseded, Archived} {
		if n := m[string(s)]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	return strings.Join(parts, " · ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if n < 4 || len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// shortenLeft keeps the end of a path, where projects differ.
func shortenLeft(s string, n int) string {
	r := []rune(s)
	if n < 4 || len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n+1:])
}
