// Package memories owns cairn's memory domain: the distilled facts worth
// carrying into later sessions. It extracts them from transcripts (a
// deterministic built-in extractor, or Ollama when configured), de-duplicates
// and links them, keeps them through a review lifecycle (pending, approved,
// rejected, superseded, archived), ranks them for recall and injection,
// builds session summaries, takes summary drafts written by /summarize,
// synthesises a project memory, syncs approved memories into CLAUDE.md,
// imports Claude's own memory files, and exports and imports everything.
//
// Storage is the index package's; every text stored here passes through the
// redact package first.
package memories

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/index/embed"
	"github.com/cairn-dev/cairn/memtype"
	"github.com/cairn-dev/cairn/redact"
	"github.com/cairn-dev/cairn/termtext"
)

// The memory vocabulary is package memtype's (below index and memories,
// so stored rows and memories share it); these names keep it at hand.
type (
	// Type is what kind of knowledge a memory holds.
	Type = memtype.Type
	// Status is where a memory is in review.
	Status = memtype.Status
	// LinkKind is how two memories relate.
	LinkKind = memtype.LinkKind
	// Link points from a memory to another.
	Link = memtype.Link
)

// Memory types.
const (
	Decision     = memtype.Decision
	Architecture = memtype.Architecture
	Pattern      = memtype.Pattern
	Gotcha       = memtype.Gotcha
	Preference   = memtype.Preference
	Fact         = memtype.Fact
	Bugfix       = memtype.Bugfix
	Progress     = memtype.Progress
	Context      = memtype.Context
)

// Statuses.
const (
	Pending    = memtype.Pending
	Approved   = memtype.Approved
	Rejected   = memtype.Rejected
	Superseded = memtype.Superseded
	Archived   = memtype.Archived
)

// Link kinds.
const (
	Related     = memtype.Related
	Supersedes  = memtype.Supersedes
	Contradicts = memtype.Contradicts
	Elaborates  = memtype.Elaborates
)

// Types lists every type, in display order (memtype.Types).
var Types = memtype.Types

// Statuses lists every status.
var Statuses = memtype.Statuses

// TypeNames, TypeList, TypeChoice, ParseType and ParseStatus are memtype's.
var (
	TypeNames   = memtype.TypeNames
	TypeList    = memtype.TypeList
	TypeChoice  = memtype.TypeChoice
	ParseType   = memtype.ParseType
	ParseStatus = memtype.ParseStatus
)

// typeHints says in a few words what each type holds (the Ollama prompt).
var typeHints = map[Type]string{
	Decision:     "a choice made, and what it replaced",
	Architecture: "how the system is built",
	Pattern:      "a way of doing things or a command that works",
	Gotcha:       "a pitfall or surprising behaviour",
	Preference:   "an explicit instruction or preference of the user",
	Fact:         "any other durable fact",
	Bugfix:       "a bug's cause and fix",
	Progress:     "an open to-do",
	Context:      "background on the project or the task",
}

// Memory is one distilled fact.
type Memory struct {
	ID            string    `json:"id"`
	Project       string    `json:"project"`
	Type          Type      `json:"type"`
	Content       string    `json:"content"`
	Tags          []string  `json:"tags"`
	Importance    int       `json:"importance"`
	Status        Status    `json:"status"`
	Confidence    float64   `json:"confidence"`
	SourceSession string    `json:"source_session"`
	SourceUUIDs   []string  `json:"source_uuids"`
	Origin        string    `json:"origin"`
	Created       time.Time `json:"created"`
	Updated       time.Time `json:"updated"`
	AccessCount   int       `json:"access_count"`
	LastAccess    time.Time `json:"last_access"`
	Injected      int       `json:"injected"`
	Used          int       `json:"used"`
	Links         []Link    `json:"links"`
}

// Origins of memories.
const (
	OriginExtractor    = "extractor"
	OriginOllama       = "ollama"
	OriginRemember     = "remember"
	OriginDraft        = "draft"
	OriginClaudeMemory = "claude-memory"
	OriginImport       = "import"
	OriginManual       = "manual"
)

// ErrNotFound is wrapped by lookups of unknown memories, drafts and sessions.
var ErrNotFound = errors.New("not found")

// MaxContent is the longest memory content kept (longer is cut).
const MaxContent = 2000

// core is what every job shares: the store, the configuration, the clock,
// the memory cache and its lock, the embedder and the model. Its exported
// methods (lookups every job and front end needs) are promoted to Service
// and to each job.
type core struct {
	st  *index.Store
	cfg config.Config
	now func() time.Time

	mu    sync.Mutex
	cache *memCache

	embOnce sync.Once
	emb     *embed.Model

	// model writes what the rules cannot (model.go), chosen once.
	model Model
}

// Store is the store the service works on.
func (s *core) Store() *index.Store { return s.st }

// SetClock replaces the clock (tests).
func (s *core) SetClock(now func() time.Time) { s.now = now }

// embedder returns the store's built-in embedder, or nil.
func (s *core) embedder(ctx context.Context) *embed.Model {
	s.embOnce.Do(func() {
		// Loaded once for the service's life: a caller's cancellation
		// must not leave every later call without vectors.
		if m, ok, err := s.st.Derived().LoadBuiltinEmbedder(context.WithoutCancel(ctx)); err == nil && ok {
			s.emb = m
		}
	})
	return s.emb
}

func newID(prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// confidence decays progress to 0 over 7 days and context over 30 days
// since the memory was last updated; other types keep 1.
func confidence(t Type, updated, now time.Time) float64 {
	var span time.Duration
	switch t {
	case Progress:
		span = 7 * 24 * time.Hour
	case Context:
		span = 30 * 24 * time.Hour
	default:
		return 1
	}
	age := now.Sub(updated)
	if age <= 0 {
		return 1
	}
	c := 1 - float64(age)/float64(span)
	if c < 0 {
		return 0
	}
	return c
}

// recency is 1.0 under 7 days, falling linearly to 0.5 at 90 days, 0.5 after.
func recency(updated, now time.Time) float64 {
	days := now.Sub(updated).Hours() / 24
	switch {
	case days <= 7:
		return 1
	case days >= 90:
		return 0.5
	}
	return 1 - 0.5*(days-7)/(90-7)
}

func fromRow(r *index.MemRow, now time.Time) Memory {
	m := Memory{ID: r.ID, Project: r.Project, Type: r.Type, Content: r.Content, Tags: r.Tags,
		Importance: r.Importance, Status: r.Status, SourceSession: r.SourceSession, SourceUUIDs: r.SourceUUIDs,
		Origin: r.Origin, Created: r.Created, Updated: r.Updated, AccessCount: r.AccessCount, LastAccess: r.LastAccess,
		Injected: r.Injected, Used: r.Used}
	if m.Tags == nil {
		m.Tags = []string{}
	}
	if m.SourceUUIDs == nil {
		m.SourceUUIDs = []string{}
	}
	m.Links = append(make([]Link, 0, len(r.Links)), r.Links...)
	m.Confidence = confidence(m.Type, m.Updated, now)
	return m
}

func toRow(m *Memory) *index.MemRow {
	r := &index.MemRow{ID: m.ID, Project: m.Project, Type: m.Type, Content: m.Content, Tags: m.Tags,
		Importance: m.Importance, Status: m.Status, SourceSession: m.SourceSession, SourceUUIDs: m.SourceUUIDs,
		Origin: m.Origin, Created: m.Created, Updated: m.Updated, AccessCount: m.AccessCount, LastAccess: m.LastAccess,
		Injected: m.Injected, Used: m.Used}
	r.Links = append(r.Links, m.Links...)
	return r
}

// clean redacts secrets, neutralises control characters and trims.
func clean(s string) string {
	s, _ = redact.Redact(s)
	// Memories reach terminals, CLAUDE.md and Claude's context: the one
	// terminal-safe form (controls and bidi overrides as visible escapes).
	return strings.TrimSpace(termtext.Safe(s))
}

func cleanTags(tags []string) []string {
	out := []string{}
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(clean(t)))
		t = strings.Trim(t, "#,")
		if t != "" && len(t) <= 40 && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return strings.TrimSpace(s[:n]) + "…"
}

// Resolve returns the full id of the memory whose id starts with prefix
// (4+ characters, with or without "m-").
func (s *core) Resolve(ctx context.Context, prefix string) (string, error) {
	p := strings.ToLower(strings.TrimSpace(prefix))
	if !strings.HasPrefix(p, "m-") {
		p = "m-" + p
	}
	if len(p) < 6 {
		return "", fmt.Errorf("memory id %q is too short: give at least 4 characters of it (see `cairn memories list`)", prefix)
	}
	ids, err := s.st.Mem().IDsWithPrefix(ctx, p)
	if err != nil {
		return "", err
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("memory %s: %w (see `cairn memories list --status all`)", prefix, ErrNotFound)
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("memory id %q is ambiguous: it matches %s; give more characters", prefix, strings.Join(ids, ", "))
}

// Get returns the memory whose id starts with idPrefix.
func (s *core) Get(ctx context.Context, idPrefix string) (*Memory, error) {
	r, err := s.row(ctx, idPrefix)
	if err != nil {
		return nil, err
	}
	m := fromRow(r, s.now())
	return &m, nil
}

// Filter selects memories for List.
type Filter struct {
	Statuses      []Status
	Types         []Type
	Project       string
	IncludeGlobal bool
	Limit         int
}

// List returns memories: pending first, then newest.
func (s *core) List(ctx context.Context, f Filter) ([]Memory, error) {
	mf := index.MemFilter{Project: f.Project, IncludeGlobal: f.IncludeGlobal, Statuses: f.Statuses, Types: f.Types}
	rows, err := s.st.Mem().Query(ctx, mf)
	if err != nil {
		return nil, err
	}
	now := s.now()
	out := convert(rows, func(r *index.MemRow) Memory { return fromRow(r, now) })
	slices.SortStableFunc(out, pendingFirst)
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

// pendingFirst orders memories pending first (what needs review), then
// the newest.
func pendingFirst(a, b Memory) int {
	ap, bp := a.Status == Pending, b.Status == Pending
	switch {
	case ap == bp:
		return b.Updated.Compare(a.Updated)
	case ap:
		return -1
	}
	return 1
}

// Counts are what a status line needs.
type Counts struct {
	PendingMemories, PendingDrafts int
	ByStatus                       map[Status]int
}

// Counts counts memories by status and pending drafts.
func (s *core) Counts(ctx context.Context) (Counts, error) {
	by, drafts, err := s.st.Mem().StatusCounts(ctx)
	if err != nil {
		return Counts{}, err
	}
	c := Counts{PendingDrafts: drafts, ByStatus: by}
	c.PendingMemories = c.ByStatus[Pending]
	return c, nil
}

func (s *core) autoApproved(t Type) bool {
	for _, a := range s.cfg.Memories.AutoApprove {
		if at, err := ParseType(a); err == nil && at == t {
			return true
		}
	}
	return false
}

// convert returns f of each of rows, in order: an empty list, not nil, for
// no rows.
func convert[R, T any](rows []R, f func(R) T) []T {
	out := make([]T, 0, len(rows))
	for _, r := range rows {
		out = append(out, f(r))
	}
	return out
}
