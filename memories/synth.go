package memories

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	json "github.com/go-json-experiment/json"
)

// Synthesis is a project's synthesised memory.
type Synthesis struct {
	Project  string `json:"project"`
	Markdown string `json:"markdown"`
	Diff     string `json:"diff"`    // unified diff from the previous synthesis ("" when unchanged)
	Changed  bool   `json:"changed"` // the inputs or the text changed since the last synthesis
	// Added, Updated and Removed count input memories and summaries since
	// the last synthesis.
	Added   int `json:"added"`
	Updated int `json:"updated"`
	Removed int `json:"removed"`
}

// synthState is what a synthesis was built from: input id -> version.
type synthState struct {
	Inputs map[string]int64 `json:"inputs"`
}

// Synthesize writes the project memory (current status, key decisions by
// theme, learnings, how things evolved, open questions) from approved
// memories and session summaries. It is incremental: when no input changed
// since the last synthesis nothing is rewritten, and otherwise the diff
// shows only the sections that changed (the rendering is deterministic).
func (s *Service) Synthesize(ctx context.Context, project string, dryRun bool) (Synthesis, error) {
	if strings.TrimSpace(project) == "" {
		return Synthesis{}, fmt.Errorf("no project given: pass --project (see `cairn projects`)")
	}
	out := Synthesis{Project: project}
	all, err := s.List(ctx, Filter{Project: project, IncludeGlobal: true})
	if err != nil {
		return out, err
	}
	sums, err := s.Summaries(ctx, project, 20)
	if err != nil {
		return out, err
	}
	cur := synthState{Inputs: map[string]int64{}}
	var approved, superseded []Memory
	for _, m := range all {
		switch m.Status {
		case Approved:
			approved = append(approved, m)
		case Superseded:
			superseded = append(superseded, m)
		default:
			continue
		}
		cur.Inputs[m.ID] = m.Updated.UnixMilli()
	}
	for _, sm := range sums {
		cur.Inputs["summary:"+sm.SessionID] = sm.Created.UnixMilli()
	}
	prevMD, prevStateJSON, _, err := s.st.SynthesisState(ctx, project)
	if err != nil {
		return out, err
	}
	var prev synthState
	if prevStateJSON != "" {
		_ = json.Unmarshal([]byte(prevStateJSON), &prev)
	}
	for id, v := range cur.Inputs {
		pv, ok := prev.Inputs[id]
		switch {
		case !ok:
			out.Added++
		case pv != v:
			out.Updated++
		}
	}
	for id := range prev.Inputs {
		if _, ok := cur.Inputs[id]; !ok {
			out.Removed++
		}
	}
	if prevMD != "" && maps.Equal(prev.Inputs, cur.Inputs) {
		out.Markdown = prevMD
		return out, nil
	}
	out.Markdown = renderSynthesis(project, approved, superseded, all, sums)
	out.Diff = lineDiff("synthesis (previous)", "synthesis (now)", prevMD, out.Markdown)
	out.Changed = true
	if dryRun {
		return out, nil
	}
	st, _ := json.Marshal(cur)
	return out, s.st.SetSynthesis(ctx, project, out.Markdown, string(st))
}

// SynthesisOf returns the stored synthesis of a project ("" when none).
func (s *Service) SynthesisOf(ctx context.Context, project string) (string, error) {
	md, _, _, err := s.st.SynthesisState(ctx, project)
	return md, err
}

func renderSynthesis(project string, approved, superseded, all []Memory, sums []Summary) string {
	byID := map[string]Memory{}
	for _, m := range all {
		byID[m.ID] = m
	}
	sortMems := func(ms []Memory) {
		slices.SortStableFunc(ms, func(a, b Memory) int {
			if a.Importance != b.Importance {
				return b.Importance - a.Importance
			}
			if c := a.Created.Compare(b.Created); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Project memory: %s\n", project)

	// Current status: the latest summaries and live progress.
	b.WriteString("\n## Current status\n\n")
	wrote := false
	for i, sm := range sums {
		if i == 3 {
			break
		}
		for _, l := range sm.Sections["Completed"] {
			fmt.Fprintf(&b, "- %s (%s)\n", oneLine(l), sm.Created.Format("2006-01-02"))
			wrote = true
		}
	}
	var progress []Memory
	for _, m := range approved {
		if m.Type == Progress && m.Confidence > 0 {
			progress = append(progress, m)
		}
	}
	sortMems(progress)
	for _, m := range progress {
		fmt.Fprintf(&b, "- In progress: %s\n", oneLine(m.Content))
		wrote = true
	}
	if !wrote {
		b.WriteString("- Nothing recorded yet.\n")
	}

	// Key decisions by theme (their first tag).
	var decisions []Memory
	for _, m := range approved {
		if m.Type == Decision || m.Type == Architecture {
			decisions = append(decisions, m)
		}
	}
	b.WriteString("\n## Key decisions\n")
	if len(decisions) == 0 {
		b.WriteString("\n- None approved yet.\n")
	}
	themes := map[string][]Memory{}
	for _, m := range decisions {
		th := "General"
		if len(m.Tags) > 0 {
			th = m.Tags[0]
		}
		themes[th] = append(themes[th], m)
	}
	for _, th := range slices.Sorted(maps.Keys(themes)) {
		ms := themes[th]
		sortMems(ms)
		fmt.Fprintf(&b, "\n### %s\n\n", th)
		for _, m := range ms {
			fmt.Fprintf(&b, "- %s\n", oneLine(m.Content))
		}
	}

	// Learnings by type.
	b.WriteString("\n## Learnings\n")
	any := false
	for _, t := range []Type{Preference, Gotcha, Pattern, Bugfix, Fact, Context} {
		var ms []Memory
		for _, m := range approved {
			if m.Type == t && m.Confidence > 0 {
				ms = append(ms, m)
			}
		}
		if len(ms) == 0 {
			continue
		}
		any = true
		sortMems(ms)
		fmt.Fprintf(&b, "\n### %s\n\n", typeHeadings[t])
		for _, m := range ms {
			fmt.Fprintf(&b, "- %s\n", oneLine(m.Content))
		}
	}
	if !any {
		b.WriteString("\n- None approved yet.\n")
	}

	// How things evolved: what replaced what, then the session timeline.
	b.WriteString("\n## How things evolved\n\n")
	evolved := false
	var withLinks []Memory
	for _, m := range append(slices.Clone(approved), superseded...) {
		for _, l := range m.Links {
			if l.Kind == Supersedes {
				withLinks = append(withLinks, m)
				break
			}
		}
	}
	sortMems(withLinks)
	for _, m := range withLinks {
		for _, l := range m.Links {
			if l.Kind != Supersedes {
				continue
			}
			if old, ok := byID[l.Target]; ok {
				fmt.Fprintf(&b, "- %s: %s → now: %s\n", old.Updated.Format("2006-01-02"), oneLine(old.Content), oneLine(m.Content))
				evolved = true
			}
		}
	}
	timeline := slices.Clone(sums)
	slices.SortStableFunc(timeline, func(a, c Summary) int { return a.Created.Compare(c.Created) })
	for _, sm := range timeline {
		req := ""
		if r := sm.Sections["Request"]; len(r) > 0 {
			req = cut(oneLine(r[0]), 160)
		}
		if req == "" {
			continue
		}
		fmt.Fprintf(&b, "- %s session %s: %s\n", sm.Created.Format("2006-01-02"), short(sm.SessionID), req)
		evolved = true
	}
	if !evolved {
		b.WriteString("- No history yet.\n")
	}

	// Open questions: next steps of the latest summary and conflicts.
	b.WriteString("\n## Open questions\n\n")
	open := false
	if len(sums) > 0 {
		for _, l := range sums[0].Sections["Next steps"] {
			fmt.Fprintf(&b, "- %s\n", oneLine(l))
			open = true
		}
	}
	for _, m := range approved {
		for _, l := range m.Links {
			if other, ok := byID[l.Target]; ok && l.Kind == Contradicts && other.Status == Approved {
				fmt.Fprintf(&b, "- Conflict: %q vs %q (%s, %s)\n", cut(oneLine(m.Content), 120), cut(oneLine(other.Content), 120), m.ID, other.ID)
				open = true
			}
		}
	}
	if !open {
		b.WriteString("- None recorded.\n")
	}
	return b.String()
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
