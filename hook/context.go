package hook

import (
	"context"
	"fmt"
	"github.com/cairn-dev/cairn/memories"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/index"
)

// sessionStart injects the session id, the project's approved memories and
// its latest session summaries, within hooks.session_start_tokens.
func (h *handler) sessionStart(ctx context.Context) ([]byte, error) {
	max := h.cfg.Hooks.SessionStartTokens
	if max <= 0 && !h.resetsAfterCompact() {
		return nil, nil
	}
	trace("start")
	st, err := h.openStore()
	if err != nil {
		return nil, err
	}
	defer st.Close()
	h.resetAfterCompact(ctx, st)
	if max <= 0 {
		return nil, nil
	}
	trace("store open")
	if h.optedOut(ctx, st) {
		return nil, nil
	}
	project := h.project()
	h.recordCWD(ctx, st)
	b := &budget{max: max}
	b.add(h.briefHead(project))
	if given, fork := h.givenBefore(); given {
		return nil, nil
	} else if fork {
		// A fork: only its new id is news.
		return h.answer(SessionStart, b, nil)
	}
	brief, mem, err := h.brief(ctx, st, project)
	if err != nil {
		return nil, err
	}
	injected := h.fill(ctx, st, b, brief, project)
	h.recordBrief(ctx, mem, injected)
	trace("injection recorded")
	return h.answer(SessionStart, b, injected)
}

// recordBrief records that the session is given the brief's memories; a
// failure is logged, and the brief given all the same.
func (h *handler) recordBrief(ctx context.Context, mem Memories, injected []string) {
	if mem == nil || len(injected) == 0 {
		return
	}
	if err := mem.RecordInjection(ctx, h.in.SessionID, h.in.Event, injected); err != nil {
		h.env.Log.Printf("%s: recording injected memories: %v", h.in.Event, err)
	}
}

// briefHead is the brief's first line: the session id and the project.
func (h *handler) briefHead(project string) string {
	head := briefMarker + h.in.SessionID
	if project != "" {
		head += " · project " + oneLine(project, 200)
	}
	return head
}

// resetsAfterCompact reports whether the session was compacted and has
// memories whose record of what it was given must be reset.
func (h *handler) resetsAfterCompact() bool {
	return h.in.Source == "compact" && h.env.Memories != nil
}

// resetAfterCompact forgets what a compacted session was given: the model
// lost it with the compaction, so it may be given again.
func (h *handler) resetAfterCompact(ctx context.Context, st *index.Store) {
	if !h.resetsAfterCompact() {
		return
	}
	if err := h.env.Memories(st, h.cfg).ResetInjected(ctx, h.in.SessionID); err != nil {
		h.env.Log.Printf("%s: resetting what the session holds: %v", h.in.Event, err)
	}
}

// recordCWD remembers the cwd's repository while the folder exists: a
// worktree removed before cairn indexes the session still files it under
// its repository.
func (h *handler) recordCWD(ctx context.Context, st *index.Store) {
	if h.in.CWD == "" || !filepath.IsAbs(h.in.CWD) {
		return
	}
	if _, err := st.RecordProject(ctx, h.in.CWD); err != nil {
		h.env.Log.Printf("%s: recording the project of %s: %v", h.in.Event, oneLine(h.in.CWD, 200), err)
	}
}

// givenBefore says whether a resumed session's history already holds its
// brief (given), or a forked one's holds its parent's (fork): a brief is
// not given twice (history.go). After a compaction it is given again.
func (h *handler) givenBefore() (given, fork bool) {
	if h.in.Source == "compact" {
		return false, false
	}
	found, sid, err := briefInHistory(h.in.TranscriptPath)
	if err != nil {
		h.env.Log.Printf("%s: reading the transcript for an earlier brief: %v", h.in.Event, err)
	}
	return found && sid == h.in.SessionID, found && sid != h.in.SessionID
}

// brief is the project's approved memories and latest summaries, with
// what waits for review (nothing without a memory service).
func (h *handler) brief(ctx context.Context, st *index.Store, project string) (memories.Brief, Memories, error) {
	if h.env.Memories == nil {
		return memories.Brief{}, nil, nil
	}
	mem := h.env.Memories(st, h.cfg)
	sums := 0
	if h.cfg.Hooks.Summaries > 0 {
		sums = h.cfg.Hooks.Summaries + 1 // one may be this session's own
	}
	brief, err := mem.Brief(ctx, project, 30, sums)
	if err != nil {
		return brief, mem, err
	}
	if p := brief.Problem(); p != nil {
		h.env.Log.Printf("%s: %v", h.in.Event, p)
	}
	trace("brief")
	return brief, mem, nil
}

// fill adds the memories, the summaries and the review line to b, and
// returns the ids of the memories it holds. The review line is reserved
// first: it must never be squeezed out.
func (h *handler) fill(ctx context.Context, st *index.Store, b *budget, brief memories.Brief, project string) []string {
	review := reviewLine(brief.PendingMemories, brief.PendingDrafts)
	reserve := 0
	if review != "" {
		reserve = Tokens(review) + 2
	}
	b.max -= reserve
	injected := addMemories(b, brief.Memories)
	h.addSummaries(ctx, st, brief.Summaries, project, b)
	trace("summaries")
	b.max += reserve
	if review != "" {
		b.add("")
		b.add(review)
	}
	return injected
}

// addSummaries adds the project's latest session summaries, completed
// with the titles of its latest sessions when there are fewer summaries.
func (h *handler) addSummaries(ctx context.Context, st *index.Store, sums []memories.Summary, project string, b *budget) {
	limit := h.cfg.Hooks.Summaries
	if limit <= 0 || project == "" {
		return
	}
	recent, err := recentSessions(ctx, st, project)
	if err != nil {
		h.env.Log.Printf("%s: listing sessions: %v", h.in.Event, err)
	}
	lines := sessionLines(sums, recent, h.in.SessionID, limit)
	if len(lines) == 0 {
		return
	}
	if !b.add("") || !b.add("Recent sessions in this project (newest first):") {
		return
	}
	for _, l := range lines {
		b.add(l)
	}
}

// sessionLines are up to limit lines about the project's other sessions:
// their summaries first (dated by the session, not the summary), then the
// titles of recent sessions without one.
func sessionLines(sums []memories.Summary, recent []recentSession, self string, limit int) []string {
	var lines []string
	covered := map[string]bool{self: true}
	started := startTimes(recent)
	for _, s := range sums {
		if covered[s.SessionID] || len(lines) >= limit {
			continue
		}
		covered[s.SessionID] = true
		if t, ok := started[s.SessionID]; ok {
			s.Created = t
		}
		lines = append(lines, summaryLine(s))
	}
	for _, s := range recent {
		if covered[s.ID] || len(lines) >= limit {
			continue
		}
		covered[s.ID] = true
		lines = append(lines, fmt.Sprintf("- %s · %s (session %s)", s.Start.Local().Format("2006-01-02"), oneLine(s.Title, 200), shortID(s.ID)))
	}
	return lines
}

// startTimes is when each of the recent sessions started, by id (those
// with a start).
func startTimes(recent []recentSession) map[string]time.Time {
	started := map[string]time.Time{}
	for _, r := range recent {
		if !r.Start.IsZero() {
			started[r.ID] = r.Start
		}
	}
	return started
}

// addMemories adds the memories that fit in up to two thirds of what is
// left of b (summaries get the rest) and returns their ids.
func addMemories(b *budget, ms []memories.Ranked) []string {
	if len(ms) == 0 {
		return nil
	}
	memMax := b.used + (b.max-b.used)*2/3
	sub := &budget{max: memMax - b.used - 2}
	sub.add("")
	sub.add("Project memories (approved in cairn; most relevant first):")
	var injected []string
	for _, m := range ms {
		if sub.add(memoryLine(m.Memory, 300)) {
			injected = append(injected, m.ID)
		}
	}
	if len(injected) > 0 {
		for _, l := range sub.lines {
			b.add(l)
		}
	}
	return injected
}

// sectionOrder is which summary sections a one-line summary shows.
var sectionOrder = []string{"Request", "Completed", "Learned", "Next steps"}

func summaryLine(s memories.Summary) string {
	var parts []string
	for _, name := range sectionOrder {
		items := s.Sections[name]
		if len(items) == 0 {
			continue
		}
		n := min(len(items), 2)
		parts = append(parts, name+": "+oneLine(strings.Join(items[:n], "; "), 160))
	}
	line := "- "
	if !s.Created.IsZero() {
		line += s.Created.Local().Format("2006-01-02") + " · "
	}
	line += strings.Join(parts, " · ")
	return oneLine(line, 420) + " (session " + shortID(s.SessionID) + ")"
}

func memoryLine(m memories.Memory, max int) string {
	t := m.Type
	if t == "" {
		t = "memory"
	}
	return fmt.Sprintf("- [%s] %s (%s)", t, oneLine(m.Content, max), m.ID)
}

// promptMemoryLine is a memory injected for a prompt, saying why it was
// chosen: the prompt's words it holds.
func promptMemoryLine(m memories.Memory, prompt string, max int) string {
	line := memoryLine(m, max)
	if words := memories.MatchedWords(prompt, m.Content); len(words) > 0 {
		line = strings.TrimSuffix(line, ")") + "; matched: " + oneLine(strings.Join(words, ", "), 80) + ")"
	}
	return line
}

func reviewLine(memories, drafts int) string {
	var parts []string
	if memories > 0 {
		parts = append(parts, plural(memories, "memory", "memories"))
	}
	if drafts > 0 {
		parts = append(parts, plural(drafts, "summary draft", "summary drafts"))
	}
	if len(parts) == 0 {
		return ""
	}
	verb := "await"
	if memories+drafts == 1 {
		verb = "awaits"
	}
	return fmt.Sprintf("%s %s review — run `cairn` to review them (tell the user).", strings.Join(parts, " and "), verb)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// maxPromptBytes is how much of a prompt is ranked against.
const maxPromptBytes = 4000

// userPrompt injects the approved memories relevant to the prompt that the
// session has not received yet, within hooks.prompt_tokens.
func (h *handler) userPrompt(ctx context.Context) ([]byte, error) {
	max := h.cfg.Hooks.PromptTokens
	prompt := strings.TrimSpace(h.in.Prompt)
	if max <= 0 || h.env.Memories == nil || len(prompt) < 3 || strings.HasPrefix(prompt, "/") {
		return nil, nil
	}
	if len(prompt) > maxPromptBytes {
		// A pasted file or log: its start says what it is about.
		prompt = strings.ToValidUTF8(prompt[:maxPromptBytes], "")
	}
	return h.withMemories(ctx, func(mem Memories, seen []string) ([]byte, error) {
		threshold := h.cfg.Hooks.PromptThreshold
		ms, err := mem.Rank(ctx, prompt, h.project(), 5, threshold, seen)
		if err != nil {
			return nil, fmt.Errorf("ranking memories: %w", err)
		}
		trace("ranked")
		b, injected := promptBrief(ms, prompt, max, threshold, seen)
		return h.inject(ctx, mem, UserPromptSubmit, b, injected)
	})
}

// promptBrief is what a prompt is told: the memories of ms that score
// threshold or more and were not given yet, within max tokens, and their
// ids.
func promptBrief(ms []memories.Ranked, prompt string, max int, threshold float64, seen []string) (*budget, []string) {
	b := &budget{max: max}
	b.add("Possibly relevant memories from earlier sessions (cairn; approved):")
	var injected []string
	for _, m := range ms {
		if m.Score < threshold || slices.Contains(seen, m.ID) {
			continue
		}
		if b.add(promptMemoryLine(m.Memory, prompt, 400)) {
			injected = append(injected, m.ID)
		}
	}
	return b, injected
}
