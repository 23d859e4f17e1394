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
func (s Drafts) Synthesize(ctx context.Context, project string, dryRun bool) (Synthesis, error) {
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
	cur, approved, superseded := synthInputs(all, sums)
	prevMD, prev, err := s.prevSynthesis(ctx, project)
	if err != nil {
		return out, err
	}
	out.Added, out.Updated, out.Removed = prev.changes(cur)
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
	return out, s.st.Mem().SetSynthesis(ctx, project, out.Markdown, string(st))
}

// synthInputs picks a synthesis's memories (the approved and the
// superseded ones) and records the version of each input.
func synthInputs(all []Memory, sums []Summary) (cur synthState, approved, superseded []Memory) {
	cur = synthState{Inputs: map[string]int64{}}
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
	return cur, approved, superseded
}

// prevSynthesis returns the project's stored synthesis and what it was
// built from (empty when unreadable).
func (s *core) prevSynthesis(ctx context.Context, project string) (string, synthState, error) {
	md, stateJSON, _, err := s.st.Mem().SynthesisState(ctx, project)
	if err != nil {
		return "", synthState{}, err
	}
	var prev synthState
	if stateJSON != "" {
		_ = json.Unmarshal([]byte(stateJSON), &prev)
	}
	return md, prev, nil
}

// changes counts the inputs of cur that are new, of another version, and
// gone, compared with prev.
func (prev synthState) changes(cur synthState) (added, updated, removed int) {
	for id, v := range cur.Inputs {
		pv, ok := prev.Inputs[id]
		switch {
		case !ok:
			added++
		case pv != v:
			updated++
		}
	}
	for id := range prev.Inputs {
		if _, ok := cur.Inputs[id]; !ok {
			removed++
		}
	}
	return added, updated, removed
}

// SynthesisOf returns the stored synthesis of a project ("" when none).
func (s Drafts) SynthesisOf(ctx context.Context, project string) (string, error) {
	md, _, _, err := s.st.Mem().SynthesisState(ctx, project)
	return md, err
}

func renderSynthesis(project string, approved, superseded, all []Memory, sums []Summary) string {
	byID := map[string]Memory{}
	for _, m := range all {
		byID[m.ID] = m
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Project memory: %s\n", project)
	writeStatus(&b, approved, sums)
	writeDecisions(&b, approved)
	writeLearnings(&b, approved)
	writeEvolution(&b, append(slices.Clone(approved), superseded...), byID, sums)
	writeOpenQuestions(&b, approved, byID, sums)
	return b.String()
}

// bullets writes a section's list items and, when it wrote none, a
// placeholder.
type bullets struct {
	b *strings.Builder
	n int
}

func (l *bullets) add(format string, a ...any) {
	fmt.Fprintf(l.b, "- "+format+"\n", a...)
	l.n++
}

func (l *bullets) orElse(none string) {
	if l.n == 0 {
		l.b.WriteString(none)
	}
}

// byImportance sorts memories most important first, then oldest first.
func byImportance(ms []Memory) {
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

// current reports whether m is of type t and still confident.
func current(m Memory, t Type) bool { return m.Type == t && m.Confidence > 0 }

// writeStatus: the latest summaries' completed work and live progress.
func writeStatus(b *strings.Builder, approved []Memory, sums []Summary) {
	b.WriteString("\n## Current status\n\n")
	l := bullets{b: b}
	for _, sm := range sums[:min(3, len(sums))] {
		for _, c := range sm.Sections["Completed"] {
			l.add("%s (%s)", oneLine(c), sm.Created.Format("2006-01-02"))
		}
	}
	progress := slices.DeleteFunc(slices.Clone(approved), func(m Memory) bool { return !current(m, Progress) })
	byImportance(progress)
	for _, m := range progress {
		l.add("In progress: %s", oneLine(m.Content))
	}
	l.orElse("- Nothing recorded yet.\n")
}

// writeDecisions: decisions and architecture by theme (their first tag).
func writeDecisions(b *strings.Builder, approved []Memory) {
	b.WriteString("\n## Key decisions\n")
	themes := map[string][]Memory{}
	for _, m := range approved {
		if m.Type != Decision && m.Type != Architecture {
			continue
		}
		th := "General"
		if len(m.Tags) > 0 {
			th = m.Tags[0]
		}
		themes[th] = append(themes[th], m)
	}
	if len(themes) == 0 {
		b.WriteString("\n- None approved yet.\n")
	}
	for _, th := range slices.Sorted(maps.Keys(themes)) {
		fmt.Fprintf(b, "\n### %s\n\n", th)
		writeContents(b, themes[th])
	}
}

// writeContents writes memories as list items, most important first.
func writeContents(b *strings.Builder, ms []Memory) {
	byImportance(ms)
	for _, m := range ms {
		fmt.Fprintf(b, "- %s\n", oneLine(m.Content))
	}
}

// learningTypes are the types of the Learnings section, in its order.
var learningTypes = []Type{Preference, Gotcha, Pattern, Bugfix, Fact, Context}

// writeLearnings: the other approved memories by type.
func writeLearnings(b *strings.Builder, approved []Memory) {
	b.WriteString("\n## Learnings\n")
	wrote := false
	for _, t := range learningTypes {
		ms := slices.DeleteFunc(slices.Clone(approved), func(m Memory) bool { return !current(m, t) })
		if len(ms) == 0 {
			continue
		}
		wrote = true
		fmt.Fprintf(b, "\n### %s\n\n", typeHeadings[t])
		writeContents(b, ms)
	}
	if !wrote {
		b.WriteString("\n- None approved yet.\n")
	}
}

// writeEvolution: what replaced what, then the session timeline.
func writeEvolution(b *strings.Builder, mems []Memory, byID map[string]Memory, sums []Summary) {
	b.WriteString("\n## How things evolved\n\n")
	l := bullets{b: b}
	replacing := slices.DeleteFunc(mems, func(m Memory) bool { return !slices.ContainsFunc(m.Links, isSupersedes) })
	byImportance(replacing)
	for _, m := range replacing {
		for _, lk := range m.Links {
			if old, ok := byID[lk.Target]; ok && isSupersedes(lk) {
				l.add("%s: %s → now: %s", old.Updated.Format("2006-01-02"), oneLine(old.Content), oneLine(m.Content))
			}
		}
	}
	timeline := slices.Clone(sums)
	slices.SortStableFunc(timeline, func(a, c Summary) int { return a.Created.Compare(c.Created) })
	for _, sm := range timeline {
		if req := sessionRequest(sm); req != "" {
			l.add("%s session %s: %s", sm.Created.Format("2006-01-02"), short(sm.SessionID), req)
		}
	}
	l.orElse("- No history yet.\n")
}

func isSupersedes(l Link) bool { return l.Kind == Supersedes }

// sessionRequest is the first request line of a summary, shortened.
func sessionRequest(sm Summary) string {
	if r := sm.Sections["Request"]; len(r) > 0 {
		return cut(oneLine(r[0]), 160)
	}
	return ""
}

// writeOpenQuestions: the latest summary's next steps and the conflicts
// between approved memories.
func writeOpenQuestions(b *strings.Builder, approved []Memory, byID map[string]Memory, sums []Summary) {
	b.WriteString("\n## Open questions\n\n")
	l := bullets{b: b}
	if len(sums) > 0 {
		for _, step := range sums[0].Sections["Next steps"] {
			l.add("%s", oneLine(step))
		}
	}
	for _, m := range approved {
		for _, lk := range m.Links {
			if other, ok := byID[lk.Target]; ok && lk.Kind == Contradicts && other.Status == Approved {
				l.add("Conflict: %q vs %q (%s, %s)", cut(oneLine(m.Content), 120), cut(oneLine(other.Content), 120), m.ID, other.ID)
			}
		}
	}
	l.orElse("- None recorded.\n")
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
