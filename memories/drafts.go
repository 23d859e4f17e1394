package memories

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/index"
)

// Draft is a session summary written by /summarize, waiting for review.
type Draft struct {
	ID        string    `json:"id"`
	SessionID string    `json:"session_id"`
	Project   string    `json:"project"`
	Markdown  string    `json:"markdown"`
	Status    string    `json:"status"` // pending | approved | rejected
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
}

func draftOf(r *index.DraftRow) Draft {
	return Draft{ID: r.ID, SessionID: r.Session, Project: r.Project, Markdown: r.Markdown, Status: r.Status, Created: r.Created, Updated: r.Updated}
}

// session resolves a session id prefix, wrapping ErrNotFound.
func (s *core) session(ctx context.Context, sessionID string) (id, project string, err error) {
	if strings.TrimSpace(sessionID) == "" {
		return "", "", fmt.Errorf("no session given: pass --session ID (see `cairn sessions`)")
	}
	ss, err := s.st.Session(ctx, sessionID)
	if err != nil {
		return "", "", fmt.Errorf("session %s: %w (%w)", sessionID, ErrNotFound, err)
	}
	return ss.ID, ss.ProjectPath, nil
}

// AddDraft stores a summary draft of a session as pending.
func (s Drafts) AddDraft(ctx context.Context, sessionID, markdown string) (*Draft, error) {
	if err := checkDraft(markdown); err != nil {
		return nil, err
	}
	sid, project, err := s.session(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC()
	r := &index.DraftRow{ID: newID("d-"), Session: sid, Project: project, Markdown: cleanMarkdown(markdown),
		Status: "pending", Created: now, Updated: now}
	if err := s.st.Mem().SaveDraft(ctx, r); err != nil {
		return nil, err
	}
	d := draftOf(r)
	return &d, nil
}

// cleanMarkdown redacts and drops control characters, keeping layout.
func cleanMarkdown(md string) string {
	md = strings.ReplaceAll(md, "\r\n", "\n")
	return clean(md) + "\n"
}

// Drafts lists drafts with status ("" or "all" = every one), newest first.
func (s Drafts) Drafts(ctx context.Context, status string) ([]Draft, error) {
	if status == "all" {
		status = ""
	}
	switch status {
	case "", "pending", "approved", "rejected":
	default:
		return nil, fmt.Errorf("unknown draft status %q: use pending, approved, rejected or all", status)
	}
	rows, err := s.st.Mem().Drafts(ctx, status, "")
	if err != nil {
		return nil, err
	}
	return convert(rows, draftOf), nil
}

func (s *core) draftRow(ctx context.Context, id string) (*index.DraftRow, error) {
	p := strings.ToLower(strings.TrimSpace(id))
	if !strings.HasPrefix(p, "d-") {
		p = "d-" + p
	}
	if len(p) < 6 {
		return nil, fmt.Errorf("draft id %q is too short: give at least 4 characters of it (see `cairn drafts list`)", id)
	}
	rows, err := s.st.Mem().Drafts(ctx, "", p)
	if err != nil {
		return nil, err
	}
	switch len(rows) {
	case 0:
		return nil, fmt.Errorf("draft %s: %w (see `cairn drafts list --status all`)", id, ErrNotFound)
	case 1:
		return rows[0], nil
	}
	return nil, fmt.Errorf("draft id %q is ambiguous (%d drafts match): give more characters", id, len(rows))
}

// Draft returns the draft whose id starts with id.
func (s Drafts) Draft(ctx context.Context, id string) (*Draft, error) {
	r, err := s.draftRow(ctx, id)
	if err != nil {
		return nil, err
	}
	d := draftOf(r)
	return &d, nil
}

// ApproveDraft stores the draft as its session's summary and proposes
// pending memories from its Decisions, Discoveries and Learned lines.
func (s Drafts) ApproveDraft(ctx context.Context, id string) (*Draft, []AddResult, error) {
	r, err := s.draftRow(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	sec, order := ParseSections(r.Markdown)
	now := s.now().UTC()
	sum := &index.SummaryRow{Session: r.Session, Project: r.Project, Source: "draft",
		Markdown: renderSummary("", sec, order), Sections: sec, Created: now}
	if err := s.st.Mem().SaveSummary(ctx, sum); err != nil {
		return nil, nil, err
	}
	r.Status, r.Updated = "approved", now
	if err := s.st.Mem().SaveDraft(ctx, r); err != nil {
		return nil, nil, err
	}
	var results []AddResult
	for _, n := range draftMemories(r, sec, order) {
		res, err := s.curator().Add(ctx, n)
		if err != nil {
			return nil, results, err
		}
		results = append(results, res)
	}
	d := draftOf(r)
	return &d, results, nil
}

// draftMemories are the pending memories an approved draft proposes: the
// lines of its sections that hold memories (12-600 characters), typed by
// the section or, except for decisions, by the rules.
func draftMemories(r *index.DraftRow, sec map[string][]string, order []string) []NewMemory {
	var out []NewMemory
	for _, name := range order {
		base := draftSectionType(name)
		if base == "" {
			continue
		}
		for _, line := range sec[name] {
			line = strings.TrimSpace(strings.Trim(line, "*_"))
			if len(line) < 12 || len(line) > 600 {
				continue
			}
			t := base
			if c, ok := classifyLine(line); ok && base != Decision {
				t = c
			}
			out = append(out, NewMemory{Project: r.Project, Type: t, Content: line, Status: Pending,
				SourceSession: r.Session, Origin: OriginDraft, Tags: []string{"draft:" + r.ID}})
		}
	}
	return out
}

// draftMined are the draft sections approving a draft proposes memories
// from, and the type each starts as. The /summarize template asks for all
// of them (plugin's test checks).
var draftMined = []struct {
	Section string
	Type    Type
}{{"Decisions", Decision}, {"Discoveries", Fact}, {"Learned", Fact}}

// MinedSections are the draft sections that approving a draft proposes
// memories from.
func MinedSections() []string {
	out := make([]string, len(draftMined))
	for i, m := range draftMined {
		out[i] = m.Section
	}
	return out
}

func draftSectionType(name string) Type {
	for _, m := range draftMined {
		if m.Section == name {
			return m.Type
		}
	}
	return ""
}

// RejectDraft marks a draft rejected (it is kept, not deleted).
func (s Drafts) RejectDraft(ctx context.Context, id string) error {
	r, err := s.draftRow(ctx, id)
	if err != nil {
		return err
	}
	r.Status, r.Updated = "rejected", s.now().UTC()
	return s.st.Mem().SaveDraft(ctx, r)
}

// EditDraft replaces a draft's Markdown (it stays or becomes pending).
func (s Drafts) EditDraft(ctx context.Context, id, markdown string) (*Draft, error) {
	if err := checkDraft(markdown); err != nil {
		return nil, err
	}
	r, err := s.draftRow(ctx, id)
	if err != nil {
		return nil, err
	}
	r.Markdown, r.Updated = cleanMarkdown(markdown), s.now().UTC()
	if r.Status == "rejected" {
		r.Status = "pending"
	}
	if err := s.st.Mem().SaveDraft(ctx, r); err != nil {
		return nil, err
	}
	d := draftOf(r)
	return &d, nil
}
