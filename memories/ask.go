package memories

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/index"
)

// AskOptions tune Ask.
type AskOptions struct {
	// Project limits the evidence to a project's sessions and memories
	// (and global memories); "" = everything.
	Project string
	// Budget is the evidence handed to the model, in characters (0: 8000).
	Budget int
	// NoModel returns the ranked evidence without asking a model.
	NoModel bool
	// LockWait is how long to wait for the full-text index (0: 2 s).
	LockWait time.Duration
}

// Evidence is one piece of what Ask found: an approved or pending memory,
// a session summary or an excerpt of a session.
type Evidence struct {
	Kind      string    `json:"kind"`             // memory, summary, excerpt
	Status    Status    `json:"status,omitempty"` // a memory's: approved, or pending (unreviewed: labelled, see Label)
	Ref       string    `json:"ref"`              // what to cite: the memory id, or "s:" and the session id
	SessionID string    `json:"session_id,omitempty"`
	Project   string    `json:"project,omitempty"`
	Title     string    `json:"title,omitempty"`
	Text      string    `json:"text"`
	Score     float64   `json:"score"`
	Time      time.Time `json:"time,omitzero"`
}

// Answer is what Ask returns: a short answer that cites its evidence when
// a language model is configured, and always the evidence itself.
type Answer struct {
	Question string `json:"question"`
	// Answer is the model's answer; empty when no model answered (Note
	// says why) or nothing relevant was found.
	Answer string `json:"answer"`
	// Model is who wrote Answer: "claude:<model>" or "ollama:<model>".
	Model string `json:"model,omitempty"`
	// Cited are the refs the answer used (only refs of Evidence).
	Cited    []string   `json:"cited"`
	Evidence []Evidence `json:"evidence"`
	// Note says what the caller should know: no model configured, the
	// model failed (the evidence is still there), nothing found.
	Note string `json:"note,omitempty"`
}

// askSchema is the JSON a model answers with.
const askSchema = `{"type":"object","properties":{"answer":{"type":"string"},"cited":{"type":"array","items":{"type":"string"}}},"required":["answer","cited"],"additionalProperties":false}`

const askSystem = `You answer a developer's question about their own past work with Claude Code, using ONLY the numbered evidence given (approved memories, memories pending review — proposed from sessions, not yet checked by the developer, so say when an answer rests on one — session summaries, excerpts of past sessions). Be short: at most 5 sentences or a few bullets. Cite the evidence you use inline with its ref in square brackets, e.g. [m-1a2b3c4d] or [s:0f1e2d3c-...], and list those refs in "cited". If the evidence does not answer the question, say so plainly in one sentence and cite nothing. Never invent commands, paths or facts that are not in the evidence.`

type askAnswer struct {
	Answer string   `json:"answer"`
	Cited  []string `json:"cited"`
}

// ErrNoModel is why Ask answered with the evidence alone.
var ErrNoModel = errors.New("no language model is configured")

// Ask answers a question from what cairn keeps: it gathers the best
// approved memories, session summaries and session excerpts within a
// budget and, when a language model is configured (the Claude extractor's
// Claude Code, or Ollama's chat model), has it write a short answer that
// cites them. Without a model, or when the model fails, the ranked
// evidence is the answer, and Note says so.
func (s Recall) Ask(ctx context.Context, question string, o AskOptions) (Answer, error) {
	question = strings.TrimSpace(question)
	ans := Answer{Question: question, Cited: []string{}, Evidence: []Evidence{}}
	if question == "" {
		return ans, errors.New("the question is empty")
	}
	if o.Budget <= 0 {
		o.Budget = 8000
	}
	ev, note, err := s.evidence(ctx, question, o)
	if err != nil {
		return ans, err
	}
	ans.Evidence = ev
	if len(ev) == 0 {
		ans.Note = "nothing cairn keeps matches the question; try other words, a wider --project, or `cairn search`"
		return ans, nil
	}
	if o.NoModel {
		ans.Note = joinNotes(note, "the evidence alone, as asked (no model)")
		return ans, nil
	}
	model, a, err := s.answerFrom(ctx, question, ev)
	switch {
	case errors.Is(err, ErrNoModel):
		ans.Note = joinNotes(note, "no language model is configured (memories.extractor = \"claude\", or ollama.chat_model): here is the evidence, best first")
		return ans, nil
	case err != nil:
		if ctx.Err() != nil {
			return ans, ctx.Err()
		}
		ans.Note = joinNotes(note, fmt.Sprintf("the model could not answer (%v): here is the evidence, best first", err))
		return ans, nil
	}
	ans.Model, ans.Answer = model, strings.TrimSpace(a.Answer)
	ans.Cited = append(ans.Cited, citedRefs(ev, append(a.Cited, citedIn(ans.Answer)...))...)
	ans.Note = note
	return ans, nil
}

// citedRefs is the refs of cited (as the model listed them, then as the
// answer cites them inline) that name evidence in ev, each once.
func citedRefs(ev []Evidence, cited []string) []string {
	refs := map[string]bool{}
	for _, e := range ev {
		refs[e.Ref] = true
	}
	var out []string
	for _, c := range cited {
		c = strings.Trim(strings.TrimSpace(c), "[]")
		if refs[c] && !contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

var citeRE = regexp.MustCompile(`\[((?:m-[0-9a-f]{4,})|(?:s:[0-9a-fA-F-]{8,}))\]`)

// citedIn finds the refs an answer cites inline.
func citedIn(answer string) []string {
	var out []string
	for _, m := range citeRE.FindAllStringSubmatch(answer, -1) {
		out = append(out, m[1])
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// evidence gathers and ranks what answers the question, within o.Budget
// characters, best evidence first: approved memories (reviewed), then
// pending ones (proposed, not reviewed: labelled), then the summaries and
// then the excerpts of the sessions that match; each kind best first.
func (s *core) evidence(ctx context.Context, question string, o AskOptions) ([]Evidence, string, error) {
	var out []Evidence
	// Pending first: its cache (every status) also serves Rank's
	// approved-only one.
	pending, err := s.rankPending(ctx, question, o.Project, 5)
	if err != nil {
		return nil, "", err
	}
	ranked, err := s.recall().Rank(ctx, question, RankOptions{Project: o.Project, Limit: 8, ungraded: true})
	if err != nil {
		return nil, "", err
	}
	for _, r := range append(ranked, pending...) {
		out = append(out, Evidence{Kind: "memory", Status: r.Status, Ref: r.ID, Project: r.Project, SessionID: r.SourceSession,
			Text: fmt.Sprintf("(%s) %s", r.Type, r.Content), Score: r.Score, Time: r.Updated})
	}
	sessions, note, err := s.sessionsEvidence(ctx, question, o)
	if err != nil {
		return nil, "", err
	}
	out = append(out, sessions...)
	sort.SliceStable(out, func(i, j int) bool {
		if a, b := evidenceRank(out[i]), evidenceRank(out[j]); a != b {
			return a < b
		}
		return out[i].Score > out[j].Score
	})
	return withinBudget(out, o.Budget), note, nil
}

// sessionsEvidence is the summaries and excerpts of the past sessions
// (of o.Project, when set) that match question; when the index cannot be
// opened in time, none, and the note says so.
func (s *core) sessionsEvidence(ctx context.Context, question string, o AskOptions) ([]Evidence, string, error) {
	var projects []string
	if o.Project != "" {
		projects = []string{o.Project}
	}
	lockWait := o.LockWait
	if lockWait <= 0 {
		lockWait = 2 * time.Second
	}
	sr, err := s.st.OpenSearcher(ctx, lockWait)
	if err != nil {
		return nil, fmt.Sprintf("past sessions were not searched (%v)", err), nil
	}
	found, _, err := sr.RecallSessions(ctx, []string{question}, projects, 5)
	sr.Close()
	if err != nil {
		return nil, "", err
	}
	var out []Evidence
	for _, f := range found {
		out = append(out, s.sessionEvidence(ctx, f)...)
	}
	return out, "", nil
}

// withinBudget keeps evidence in order while its text fits budget
// characters: a piece that does not fit is cut to the room left when more
// than 200 characters remain, else left out. It reuses out's array.
func withinBudget(out []Evidence, budget int) []Evidence {
	used, kept := 0, out[:0]
	for _, e := range out {
		if used+len(e.Text) > budget {
			if room := budget - used; room > 200 {
				e.Text = cut(e.Text, room)
			} else {
				continue
			}
		}
		used += len(e.Text)
		kept = append(kept, e)
	}
	return kept
}

// evidenceRank orders the kinds of evidence: approved memories, pending
// memories, summaries, excerpts.
func evidenceRank(e Evidence) int {
	switch {
	case e.Kind == "memory" && e.Status == Approved:
		return 0
	case e.Kind == "memory":
		return 1
	case e.Kind == "summary":
		return 2
	}
	return 3
}

// rankPending ranks the pending memories for question as Rank ranks the
// approved ones (any shared word, the relevance floor).
func (s *core) rankPending(ctx context.Context, question, project string, limit int) ([]Ranked, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	mc, err := s.loadCache(ctx, false, project)
	if err != nil {
		return nil, err
	}
	o := RankOptions{Project: project, Limit: limit, Threshold: s.cfg.Memories.MinRelevance, ungraded: true}
	return s.rank(ctx, mc, question, o, func(c *cached) bool { return c.row.Status == Pending }), nil
}

// sessionEvidence is a found session's summary (when one is stored) and
// its best excerpt.
func (s *core) sessionEvidence(ctx context.Context, f index.RecalledSession) []Evidence {
	var out []Evidence
	ref := "s:" + f.SessionID
	if rows, err := s.st.Mem().Summaries(ctx, f.SessionID, "", 1); err == nil && len(rows) > 0 {
		if t := strings.TrimSpace(rows[0].Markdown); t != "" {
			out = append(out, Evidence{Kind: "summary", Ref: ref, SessionID: f.SessionID, Project: f.Project, Title: f.Title,
				Text: cut(t, 1500), Score: f.Relevance + 0.01, Time: f.Timestamp})
		}
	}
	if t := strings.TrimSpace(f.Snippet); t != "" {
		out = append(out, Evidence{Kind: "excerpt", Ref: ref, SessionID: f.SessionID, Project: f.Project, Title: f.Title,
			Text: cut(t, 800), Score: f.Relevance, Time: f.Timestamp})
	}
	return out
}

// Label names the kind of evidence for a person or a model: "memory",
// "memory (pending review)", "summary", "excerpt".
func (e Evidence) Label() string {
	if e.Kind == "memory" && e.Status == Pending {
		return "memory (pending review)"
	}
	return e.Kind
}

// askPrompt is the user message: the question and the numbered evidence.
func askPrompt(question string, ev []Evidence) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Question: %s\n\nEvidence:\n", question)
	for i, e := range ev {
		head := fmt.Sprintf("%d. [%s] %s", i+1, e.Ref, e.Label())
		if e.Title != "" {
			head += " of session \"" + oneLine(e.Title) + "\""
		}
		if !e.Time.IsZero() {
			head += " (" + e.Time.Format("2006-01-02") + ")"
		}
		fmt.Fprintf(&b, "%s:\n%s\n\n", head, e.Text)
	}
	return b.String()
}

// answerFrom has the configured model answer; ErrNoModel when none is.
func (s *core) answerFrom(ctx context.Context, question string, ev []Evidence) (string, askAnswer, error) {
	var a askAnswer
	model, err := s.model.answer(ctx, askSystem, askSchema, askPrompt(question, ev), &a)
	return model, a, err
}

// ollamaAnswer has the Ollama chat model answer prompt in JSON into out.
func (s *core) ollamaAnswer(ctx context.Context, system, schema, prompt string, out any) (string, error) {
	client, base, model, err := s.ollamaChat("")
	if err != nil {
		return "", err
	}
	if err := chatJSON(ctx, client, base, model, s.cfg.Ollama.Timeout.Duration, schema, system, prompt, out); err != nil {
		return "", err
	}
	return "ollama:" + model, nil
}
