package memories

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/memtype"
)

// Corrections and forget requests come from Claude (the MCP tools
// memory_correct and memory_forget) or any other front end. The rules:
//
//   - A pending memory (nobody reviewed it yet) is corrected in place, and
//     forgetting it rejects it (so extraction never proposes it again).
//   - An approved memory was confirmed by the person: Claude cannot change
//     it behind their back. A correction becomes a new pending memory that
//     supersedes the old one once approved (the old one stays in use until
//     then); a forget request sends it back to review (pending), which
//     stops its injection until the person decides. With
//     memories.remember_status = "approved" (the person trusts what Claude
//     writes) both apply at once: the correction replaces it in place, the
//     forget rejects it.
//   - Rejected, superseded and archived memories are history: they cannot
//     be corrected or forgotten.
//
// Every change leaves an audit record (Audit) on the memories it touched.

// Actions of a correction or forget request.
const (
	ActionCorrected           = "corrected"            // changed in place
	ActionReplacementProposed = "replacement-proposed" // a pending memory supersedes it once approved
	ActionRejected            = "rejected"             // forgotten for good
	ActionBackToReview        = "back-to-review"       // approved → pending until the person decides
)

// ErrNotEditable is returned for memories whose status forbids a change.
var ErrNotEditable = errors.New("not editable in this status")

// ErrOutOfScope is returned for a change a request's Scope does not allow.
var ErrOutOfScope = errors.New("outside the project this request comes from")

// Scope limits what a request coming from one project may change. The MCP
// server runs for one project, and what Claude reads there (a README, a
// web page, a tool's output) can carry a prompt injection: it must not be
// able to silence, reword or reject what the person approved in another
// project. A request with a Scope changes only memories of Scope.Project
// and, when Global is set (memories.mcp_global), global ones (no
// project); a nil Scope is the person's own front end (CLI, TUI), which
// may change anything.
type Scope struct {
	Project string // the project the request comes from ("" = unknown)
	Global  bool   // global memories may be changed too
}

// allows reports whether a memory of project may be changed.
func (sc *Scope) allows(project string) bool {
	switch {
	case sc == nil:
		return true
	case project == "":
		return sc.Global
	}
	return project == sc.Project
}

// check is allows as an error that says what the request may do instead.
func (sc *Scope) check(m Memory) error {
	if sc.allows(m.Project) {
		return nil
	}
	if m.Project == "" {
		return fmt.Errorf("memory %s is global (every project's): %w; the user changes global memories in cairn (or allows it with memories.mcp_global = true)", m.ID, ErrOutOfScope)
	}
	here := sc.Project
	if here == "" {
		here = "an unknown project"
	}
	return fmt.Errorf("memory %s belongs to project %s, and this request comes from %s: %w; only the user changes another project's memories, in cairn", m.ID, m.Project, here, ErrOutOfScope)
}

// checkNew applies the scope to a memory about to be added: one for
// another project is refused, a global one the scope does not allow is
// only proposed (pending, whatever memories.remember_status says).
func (sc *Scope) checkNew(n *NewMemory) error {
	switch {
	case sc.allows(n.Project):
		return nil
	case n.Project == "":
		n.Status = Pending
		return nil
	}
	return fmt.Errorf("a memory for project %s cannot come from %s: %w", n.Project, sc.Project, ErrOutOfScope)
}

// AuditRecord is one change made to a memory on someone's request.
type AuditRecord struct {
	Time        time.Time `json:"time"`
	Action      string    `json:"action"`
	Memory      string    `json:"memory"`
	Replacement string    `json:"replacement,omitempty"` // the pending memory proposed instead
	Before      string    `json:"before,omitempty"`      // content before a correction
	After       string    `json:"after,omitempty"`       // content proposed or set
	StatusFrom  Status    `json:"status_from"`
	StatusTo    Status    `json:"status_to"`
	Reason      string    `json:"reason,omitempty"`
	Session     string    `json:"session,omitempty"`
	By          string    `json:"by"` // who asked: "mcp", "cli", ...
}

// CorrectRequest asks to correct a memory's content.
type CorrectRequest struct {
	ID      string // id or a prefix of 4+ characters
	Content string // the corrected content
	Reason  string // why (kept in the audit record)
	Session string // the session asking, if known
	By      string // the front end asking
	Scope   *Scope // what the request may change (nil: anything)
}

// ChangeResult says what a correction or forget request did.
type ChangeResult struct {
	Action string
	// Memory is the memory as it is now; Replacement the pending memory
	// proposed instead of it, if any.
	Memory      *Memory
	Replacement *Memory
	Audit       AuditRecord
}

// maxReason bounds the reason kept in an audit record.
const maxReason = 500

// auditKey is the store setting holding a memory's audit records.
func auditKey(id string) string { return index.MemAuditKeyPrefix + id }

// trusted reports whether Claude's changes apply without review.
func (s *core) trusted() bool { return Status(s.cfg.Memories.RememberStatus) == Approved }

// Correct corrects a memory's content by the rules above.
func (s Curator) Correct(ctx context.Context, r CorrectRequest) (ChangeResult, error) {
	content := cut(clean(r.Content), MaxContent)
	if content == "" {
		return ChangeResult{}, errors.New("the corrected content is empty: pass the whole corrected memory")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	row, err := s.row(ctx, r.ID)
	if err != nil {
		return ChangeResult{}, err
	}
	old := fromRow(row, s.now())
	if err := r.Scope.check(old); err != nil {
		return ChangeResult{}, err
	}
	rec := AuditRecord{Time: s.now().UTC(), Memory: old.ID, Before: old.Content, After: content, StatusFrom: old.Status,
		StatusTo: old.Status, Reason: cut(clean(r.Reason), maxReason), Session: r.Session, By: orUnknown(r.By)}
	if content == old.Content {
		return ChangeResult{}, fmt.Errorf("memory %s already says exactly that: nothing to correct", old.ID)
	}
	switch {
	case old.Status == Pending || old.Status == Approved && s.trusted():
		return s.correctInPlace(ctx, row, content, rec)
	case old.Status == Approved:
		return s.correctByReplacement(ctx, old, content, r.Session, rec)
	}
	return ChangeResult{}, fmt.Errorf("memory %s is %s: %w (only pending and approved memories can be corrected)", old.ID, old.Status, ErrNotEditable)
}

// correctInPlace rewrites row's content (a pending memory, or an approved
// one when Claude's changes are trusted) and audits it as rec.
func (s *core) correctInPlace(ctx context.Context, row *index.MemRow, content string, rec AuditRecord) (ChangeResult, error) {
	vecs, err := s.updateContent(ctx, row, content)
	if err != nil {
		return ChangeResult{}, err
	}
	row.Updated = s.now().UTC()
	if err := s.st.Mem().Save(ctx, row); err != nil {
		return ChangeResult{}, err
	}
	s.wrote(ctx, 1, []*index.MemRow{row}, vecs, nil)
	rec.Action = ActionCorrected
	m := fromRow(row, s.now())
	if err := s.appendAudit(ctx, rec); err != nil {
		return ChangeResult{}, err
	}
	return ChangeResult{Action: rec.Action, Memory: &m, Audit: rec}, nil
}

// correctByReplacement leaves approved memory old as it is and proposes a
// pending replacement with content, auditing both.
func (s *core) correctByReplacement(ctx context.Context, old Memory, content, session string, rec AuditRecord) (ChangeResult, error) {
	rep, err := s.proposeReplacement(ctx, old, content, session)
	if err != nil {
		return ChangeResult{}, err
	}
	rec.Action, rec.Replacement = ActionReplacementProposed, rep.ID
	if err := s.appendAudit(ctx, rec); err != nil {
		return ChangeResult{}, err
	}
	repRec := rec
	repRec.Memory, repRec.StatusFrom, repRec.StatusTo = rep.ID, "", Pending
	if err := s.appendAudit(ctx, repRec); err != nil {
		return ChangeResult{}, err
	}
	return ChangeResult{Action: rec.Action, Memory: &old, Replacement: rep, Audit: rec}, nil
}

// proposeReplacement stores a pending copy of old with the new content
// that supersedes old once approved. Duplicate detection is skipped on
// purpose: a correction is meant to be close to what it corrects.
func (s *core) proposeReplacement(ctx context.Context, old Memory, content, session string) (*Memory, error) {
	n := NewMemory{Project: old.Project, Type: old.Type, Content: content, Tags: old.Tags, Importance: old.Importance,
		Status: Pending, SourceSession: session, Origin: OriginRemember, Supersedes: []string{old.ID}}
	if err := s.validate(&n); err != nil {
		return nil, err
	}
	mc, err := s.addCache(ctx, n.Project, nil)
	if err != nil {
		return nil, err
	}
	mem, _ := newMemory(n, s.now().UTC(), mc, nil, false)
	if !memtype.HasLink(mem.Links, old.ID) {
		mem.Links = append(mem.Links, Link{Kind: Supersedes, Target: old.ID})
	}
	if err := s.saveRow(ctx, toRow(&mem), s.vectorOf(ctx, mem.Content), nil); err != nil {
		return nil, err
	}
	return &mem, nil
}

// ForgetRequest asks to forget a memory.
type ForgetRequest struct {
	ID      string
	Reason  string
	Session string
	By      string
	Scope   *Scope // what the request may change (nil: anything)
}

// Forget forgets a memory by the rules above.
func (s Curator) Forget(ctx context.Context, r ForgetRequest) (ChangeResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	row, err := s.row(ctx, r.ID)
	if err != nil {
		return ChangeResult{}, err
	}
	old := fromRow(row, s.now())
	if err := r.Scope.check(old); err != nil {
		return ChangeResult{}, err
	}
	rec := AuditRecord{Time: s.now().UTC(), Memory: old.ID, StatusFrom: old.Status, Reason: cut(clean(r.Reason), maxReason),
		Session: r.Session, By: orUnknown(r.By)}
	switch {
	case old.Status == Pending || old.Status == Approved && s.trusted():
		rec.Action, rec.StatusTo = ActionRejected, Rejected
	case old.Status == Approved:
		rec.Action, rec.StatusTo = ActionBackToReview, Pending
	default:
		return ChangeResult{}, fmt.Errorf("memory %s is %s already: %w (only pending and approved memories can be forgotten)", old.ID, old.Status, ErrNotEditable)
	}
	row.Status = rec.StatusTo
	row.Updated = s.now().UTC()
	if err := s.st.Mem().Save(ctx, row); err != nil {
		return ChangeResult{}, err
	}
	s.wrote(ctx, 1, []*index.MemRow{row}, nil, nil)
	if err := s.appendAudit(ctx, rec); err != nil {
		return ChangeResult{}, err
	}
	m := fromRow(row, s.now())
	return ChangeResult{Action: rec.Action, Memory: &m, Audit: rec}, nil
}

// Audit returns the changes made to a memory on request, oldest first.
func (s Curator) Audit(ctx context.Context, id string) ([]AuditRecord, error) {
	full, err := s.Resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	return s.audit(ctx, full)
}

func (s *core) audit(ctx context.Context, id string) ([]AuditRecord, error) {
	b, ok, err := s.st.Setting(ctx, auditKey(id))
	if err != nil || !ok {
		return nil, err
	}
	var recs []AuditRecord
	if err := json.Unmarshal(b, &recs); err != nil {
		return nil, fmt.Errorf("the audit trail of memory %s is damaged: %w", id, err)
	}
	return recs, nil
}

// The audit trail of one memory is bounded: a loop of corrections (a
// prompt injection, a confused session) must not grow one stored value
// without limit (1,000 corrections made one 4.4 MB). The newest records
// are kept: at most maxAudit of them, in at most maxAuditBytes of JSON.
const (
	maxAudit      = 50
	maxAuditBytes = 64 << 10
)

func (s *core) appendAudit(ctx context.Context, rec AuditRecord) error {
	recs, err := s.audit(ctx, rec.Memory)
	if err != nil {
		return err
	}
	b, err := boundedAudit(append(recs, rec))
	if err != nil {
		return err
	}
	if err := s.st.SetSetting(ctx, auditKey(rec.Memory), b); err != nil {
		return fmt.Errorf("recording the audit trail of %s: %w", rec.Memory, err)
	}
	return nil
}

// boundedAudit is recs as stored: the newest maxAudit records that fit in
// maxAuditBytes (the newest one always).
func boundedAudit(recs []AuditRecord) ([]byte, error) {
	if len(recs) > maxAudit {
		recs = recs[len(recs)-maxAudit:]
	}
	for {
		b, err := json.Marshal(recs)
		if err != nil || len(b) <= maxAuditBytes || len(recs) == 1 {
			return b, err
		}
		// Drop the oldest records worth the excess (at least one).
		drop, excess := 0, len(b)-maxAuditBytes
		for drop < len(recs)-1 && excess > 0 {
			one, _ := json.Marshal(recs[drop])
			excess -= len(one) + 1
			drop++
		}
		recs = recs[drop:]
	}
}

func orUnknown(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return "unknown"
	}
	return s
}
