package memories

import (
	"context"
	"fmt"
	"github.com/cairn-dev/cairn/termtext"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/transcripts"
)

// Summary is a structured summary of one session.
type Summary struct {
	SessionID string              `json:"session_id"`
	Project   string              `json:"project"`
	Source    string              `json:"source"` // heuristic | draft | ollama | import
	Markdown  string              `json:"markdown"`
	Sections  map[string][]string `json:"sections"`
	Created   time.Time           `json:"created"`

	// noWork is set on a built summary of a session in which Claude did
	// nothing (transcripts.Session.HasWork): it is never stored.
	noWork bool
}

// summaryOf reads a stored summary without the lines that are not work
// (cleanSections): summaries stored before those were left out still
// never show them.
func summaryOf(r *index.SummaryRow) Summary {
	sec, dropped := cleanSections(r.Sections)
	md := r.Markdown
	if dropped && (r.Source == "heuristic" || r.Source == "ollama") {
		md = renderSummary(strings.TrimPrefix(strings.SplitN(md, "\n", 2)[0], "# "), sec, nil)
	}
	return Summary{SessionID: r.Session, Project: r.Project, Source: r.Source, Markdown: md, Sections: sec, Created: r.Created}
}

// cleanSections drops from a summary's sections the empty lines and the
// lines Claude Code wrote in Claude's place ("No response requested.", API
// errors: transcripts.IsSyntheticReplyText), and the sections left empty.
// dropped reports whether anything went.
func cleanSections(in map[string][]string) (out map[string][]string, dropped bool) {
	out = make(map[string][]string, len(in))
	for name, lines := range in {
		var keep []string
		for _, l := range lines {
			if t := strings.TrimSpace(l); t == "" || transcripts.IsSyntheticReplyText(t) {
				dropped = true
				continue
			}
			keep = append(keep, l)
		}
		if len(keep) > 0 {
			out[name] = keep
		}
	}
	return out, dropped
}

// describesWork reports whether a summary says anything about work done:
// a section besides the request, the files read and the counts.
func (sm *Summary) describesWork() bool {
	for name, lines := range sm.Sections {
		switch name {
		case "Request", "User said", "Files read", "Notes":
			continue
		}
		if len(lines) > 0 {
			return true
		}
	}
	return false
}

// Summary returns a session's stored summary, or builds one from the
// transcript with the heuristic pipeline (not stored; see StoreSummary).
func (s Drafts) Summary(ctx context.Context, sessionID string) (*Summary, error) {
	sid, stored, err := s.storedSummary(ctx, sessionID)
	if err != nil || stored != nil {
		return stored, err
	}
	return s.buildSummary(ctx, sid)
}

// storedSummary resolves a session and returns its stored summary (nil
// when there is none).
func (s *core) storedSummary(ctx context.Context, sessionID string) (string, *Summary, error) {
	sid, _, err := s.session(ctx, sessionID)
	if err != nil {
		return "", nil, err
	}
	rows, err := s.st.Mem().Summaries(ctx, sid, "", 1)
	if err != nil || len(rows) == 0 {
		return sid, nil, err
	}
	sm := summaryOf(rows[0])
	return sid, &sm, nil
}

// Summaries lists stored summaries of a project ("" = all), newest first,
// leaving out those that describe no work (a `/clear` session, API errors
// alone: stored before such sessions got none).
func (s Drafts) Summaries(ctx context.Context, project string, limit int) ([]Summary, error) {
	ask := limit
	if ask > 0 {
		ask += 10
	}
	rows, err := s.st.Mem().Summaries(ctx, "", project, ask)
	if err != nil {
		return nil, err
	}
	var out []Summary
	for _, r := range rows {
		if sm := summaryOf(r); sm.describesWork() && (limit <= 0 || len(out) < limit) {
			out = append(out, sm)
		}
	}
	return out, nil
}

// StoreSummary builds a session's heuristic summary and stores it, unless
// a reviewed one (a draft or Ollama's) is already stored.
func (s *core) StoreSummary(ctx context.Context, sessionID string) (*Summary, error) {
	sid, stored, err := s.storedSummary(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if stored != nil && stored.Source != "heuristic" && stored.Source != "ollama" {
		return stored, nil // reviewed: kept
	}
	sm, err := s.buildSummary(ctx, sid)
	if err != nil {
		return nil, err
	}
	if sm.noWork {
		return sm, nil // nothing done (local commands, API errors): nothing to remember
	}
	if sec := s.model.summarize(ctx, sid); sec != nil {
		withModelSections(sm, sec, s.model.Name())
	}
	err = s.st.Mem().SaveSummary(ctx, &index.SummaryRow{Session: sm.SessionID, Project: sm.Project, Source: sm.Source,
		Markdown: sm.Markdown, Sections: sm.Sections, Created: sm.Created})
	return sm, err
}

// withModelSections puts the prose sections a model wrote into sm; files
// and notes stay heuristic.
func withModelSections(sm *Summary, sec map[string][]string, source string) {
	for _, k := range []string{"Files read", "Files edited", "Notes"} {
		if v := sm.Sections[k]; len(v) > 0 {
			sec[k] = v
		}
	}
	title := strings.TrimPrefix(strings.SplitN(sm.Markdown, "\n", 2)[0], "# ")
	sm.Sections, sm.Source = sec, source
	sm.Markdown = renderSummary(title, sec, nil)
}

// buildSummary is the heuristic pipeline: the first prompt is the request,
// searches and reads are what was investigated, extracted facts, gotchas,
// fixes and decisions are what was learned, commits and the last reply are
// what was completed, open to-dos are the next steps.
func (s *core) buildSummary(ctx context.Context, sid string) (*Summary, error) {
	ss, err := s.st.Session(ctx, sid)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w (%w)", sid, ErrNotFound, err)
	}
	entries, err := s.st.Mem().Entries(ctx, sid, 0, 0)
	if err != nil {
		return nil, err
	}
	sec := summarySections{}
	// Paths are shown relative to the folder the session ran in (a
	// worktree's files are not under the repository's main checkout).
	dir := ss.CWD
	if dir == "" {
		dir = ss.ProjectPath
	}
	sec.addPrompts(entries)
	sec.addSaid(entries)
	sec.addInvestigated(entries, dir)
	sec.addLearned(entries)
	sec.addCommits(entries)
	sec.addLastReply(entries)
	for _, f := range ss.FilesRead {
		sec.add("Files read", relPath(f, dir), 20)
	}
	for _, f := range ss.FilesEdited {
		sec.add("Files edited", relPath(f, dir), 20)
	}
	sec.add("Notes", fmt.Sprintf("%d prompts, %d tool calls, %d errors, %s", ss.Prompts, ss.ToolCalls, ss.Errors,
		ss.End.Sub(ss.Start).Round(time.Minute)), 3)
	created := ss.End.UTC()
	if created.IsZero() {
		created = s.now().UTC()
	}
	title := ss.Title
	if title == "" {
		title = "Session " + sid
	}
	return &Summary{SessionID: sid, Project: ss.ProjectPath, Source: "heuristic",
		Markdown: renderSummary(clean(oneLine(title)), sec, nil), Sections: sec, Created: created, noWork: !ss.HasWork()}, nil
}

// summarySections are a heuristic summary's sections: name -> lines.
type summarySections map[string][]string

// add appends line (cleaned, on one line, shortened) to section name
// unless it is empty, already there, or the section has max lines.
func (sec summarySections) add(name, line string, max int) {
	line = cut(oneLine(clean(line)), 300)
	if line == "" || len(sec[name]) >= max || slices.Contains(sec[name], line) {
		return
	}
	sec[name] = append(sec[name], line)
}

// addPrompts: the first three typed prompts are the request (not
// commands or other tagged input).
func (sec summarySections) addPrompts(entries []index.MemEntry) {
	prompts := 0
	for _, e := range entries {
		if prompts == 3 {
			return
		}
		if e.Role != "user" || e.Meta || e.Source != transcripts.SaidPrompt {
			continue
		}
		if t := transcripts.WithoutIDENotes(strings.TrimSpace(e.Text)); t != "" && !strings.HasPrefix(t, "<") {
			sec.add("Request", t, 3)
			prompts++
		}
	}
}

// addSaid: what the person said along the way besides prompts, as what
// it is: the reason a call was rejected, the answers to Claude's
// questions, the prompts queued while Claude worked.
func (sec summarySections) addSaid(entries []index.MemEntry) {
	calls := map[string]index.MemEntry{}
	for _, e := range entries {
		if e.Role == "assistant" && e.ToolUse != "" && e.ToolName != "" {
			calls[e.ToolUse] = e
		}
	}
	for _, e := range entries {
		if e.Role != "user" || e.Meta {
			continue
		}
		if line := saidLine(e, calls); line != "" {
			sec.add("User said", line, 8)
		}
	}
}

// saidLine is the person's words e as what they are (a rejection's
// reason, naming the call when known, an answer, a queued prompt), ""
// for any other words.
func saidLine(e index.MemEntry, calls map[string]index.MemEntry) string {
	switch e.Source {
	case transcripts.SaidRejection:
		if c, ok := calls[e.ToolUse]; ok {
			b := transcripts.Block{Type: transcripts.BlockToolUse, ToolName: c.ToolName, ToolInput: c.Input}
			return "rejected `" + cut(oneLine(transcripts.CallName(&b)), 80) + "`: " + e.Text
		}
		return "rejected: " + e.Text
	case transcripts.SaidAnswer:
		return "answer: " + strings.ReplaceAll(e.Text, "\n", "; ")
	case transcripts.SaidQueued:
		return "queued: " + e.Text
	}
	return ""
}

// investigative are the tools whose calls say what was looked into.
var investigative = map[string]bool{"Grep": true, "WebSearch": true, "WebFetch": true, "Task": true, "Agent": true}

// addInvestigated: searches, fetches and subagent tasks, paths relative
// to the project.
func (sec summarySections) addInvestigated(entries []index.MemEntry, project string) {
	for _, e := range entries {
		if e.Role != "assistant" || e.Block != "tool_use" || !investigative[e.ToolName] {
			continue
		}
		t := e.Text
		if project != "" {
			t = strings.ReplaceAll(t, project+"/", "")
		}
		sec.add("Investigated", cut(oneLine(t), 160), 8)
	}
}

// addLearned: what the extraction rules find is what was learned, and
// the open items are the next steps.
func (sec summarySections) addLearned(entries []index.MemEntry) {
	for _, c := range extractCandidates(entries) {
		if c.typ == Progress {
			sec.add("Next steps", c.content, 8)
		} else {
			sec.add("Learned", c.content, 10)
		}
	}
}

// addCommits: the commits made are what was completed — a commit counts
// when its result shows git made it ("[branch 1a2b3c4] subject"); a call
// the person rejected or that failed (a hook, nothing to commit) is not
// work done. The subject is git's own line.
func (sec summarySections) addCommits(entries []index.MemEntry) {
	commits := map[string]bool{} // tool_use ids of git commit calls
	for _, e := range entries {
		if isCommitCall(&e) {
			commits[e.ToolUse] = true
			continue
		}
		if e.Role != "tool" || !commits[e.ToolUse] || e.IsError {
			continue
		}
		if subj := committed(e.Text); subj != "" {
			sec.add("Completed", "Committed: "+subj, 5)
		}
	}
}

// isCommitCall reports a Bash call of Claude's that runs git commit.
func isCommitCall(e *index.MemEntry) bool {
	return e.Role == "assistant" && e.ToolName == "Bash" && e.ToolUse != "" && strings.Contains(string(e.Input), "git commit")
}

// gitCommitted is the line git prints for a commit it made.
var gitCommitted = regexp.MustCompile(`(?m)^\[[^\]\n]+ (?:\(root-commit\) )?[0-9a-f]{7,40}\] (.+)$`)

// committed is the subject of the commit a `git commit` output reports,
// "" when it reports none.
func committed(out string) string {
	m := gitCommitted.FindStringSubmatch(out)
	if m == nil {
		return ""
	}
	return cut(strings.TrimSpace(m[1]), 160)
}

// addLastReply: what the last substantial reply reports as done, in up
// to two statements: never an intention ("Let me check…", "I'll…"),
// never a sentence whose colon introduced a list that is not there (the
// list's first items come with it).
func (sec summarySections) addLastReply(entries []index.MemEntry) {
	reply := lastReply(entries)
	if done := reported(reply, 2); reply != "" && done != "" {
		sec.add("Completed", done, 6)
	}
}

// lastReply is the text of the last substantial reply, the one to the
// person's last prompt; "" when it answered one of cairn's commands.
func lastReply(entries []index.MemEntry) string {
	reply := ""
	for i := len(entries) - 1; i >= 0; i-- {
		e := &entries[i]
		switch {
		case substantialReply(e):
			if reply == "" {
				reply = e.Text
			}
		case e.Role != "assistant" && transcripts.IsCairnCommand(e.Text):
			// The reply answered one of cairn's commands ("The summary
			// draft awaits your review"): not the session's work.
			reply = ""
		case e.Role == "user" && !e.Meta && reply != "":
			return reply // the reply to a prompt of the person's: the one
		}
	}
	return reply
}

// substantialReply reports a reply of Claude's in text of more than 20
// characters.
func substantialReply(e *index.MemEntry) bool {
	return e.Role == "assistant" && e.Block == "text" && len(strings.TrimSpace(e.Text)) > 20
}

// intention is a sentence about what Claude is going to do.
var intention = regexp.MustCompile(`(?i)^(let me|let's|i'll|i will|i'm going to|i am going to|i need to|now (let|i)|next,? i|first,? i|we need to|we'll|going to)\b`)

// reported is up to n statements of a reply's prose that report, not
// announce: a statement ending in a colon takes the first three items of
// the list below it.
func reported(text string, n int) string {
	var out []string
	lines := strings.Split(text, "\n")
	inFence := false
	for i := 0; i < len(lines) && len(out) < n; i++ {
		t := strings.TrimSpace(lines[i])
		if strings.HasPrefix(t, "```") {
			inFence = !inFence
			continue
		}
		if inFence || notProse(t) || isListLine(t) {
			continue
		}
		for _, s := range sentences(stripMarkdown(t)) {
			if len(out) == n {
				break
			}
			if s, ok := reportStatement(s, lines[i+1:]); ok {
				out = append(out, s)
			}
		}
	}
	return strings.Join(out, " ")
}

// reportStatement is sentence s as a report, false when it announces an
// intention, asks, or is empty; one ending in a colon takes the first
// three items of the list in the lines below it (false when there is none).
func reportStatement(s string, below []string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" || intention.MatchString(s) || strings.HasSuffix(s, "?") {
		return "", false
	}
	if !strings.HasSuffix(s, ":") {
		return s, true
	}
	items := listAfter(below, 3)
	if len(items) == 0 {
		return "", false
	}
	return s + " " + strings.Join(items, "; "), true
}

// listAfter is up to n items of the list that starts lines (blank lines
// before it skipped), without their markers; an item introducing a nested
// list is left out for the nested items.
func listAfter(lines []string, n int) []string {
	var items []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" && len(items) == 0 {
			continue
		}
		if !isListLine(t) || len(items) == n {
			break
		}
		if it := stripMarkdown(t); !strings.HasSuffix(it, ":") {
			// An item ending in a colon introduces a list of its own:
			// alone it is a fragment; its items follow as the list's.
			items = append(items, it)
		}
	}
	return items
}

func relPath(p, root string) string {
	if root != "" {
		if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return p
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(termtext.Line(s)), " ")
}
