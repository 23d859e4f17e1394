package memories

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/cairn-dev/cairn/index"
)

// ExtractOptions choose what to extract from.
type ExtractOptions struct {
	Session string    // one session (an id prefix); "" = every session with new entries
	Since   time.Time // with no Session: sessions active since then; zero = all
	DryRun  bool      // propose without storing anything or moving cursors
	// Summaries also stores each session's heuristic summary (not in hooks:
	// it reads the whole session).
	Summaries bool
	// MaxEntries caps the entries read per session per call (0 = all);
	// the cursor moves only past what was read.
	MaxEntries int
}

// Added counts the proposals that became new pending memories.
func (r ExtractResult) Added() int {
	n := 0
	for _, p := range r.Proposed {
		if p.Action == ActionAdded {
			n++
		}
	}
	return n
}

// ExtractResult says what extraction read and proposed.
type ExtractResult struct {
	Sessions int         `json:"sessions"`
	Entries  int         `json:"entries"`
	Proposed []AddResult `json:"proposed"`
	// Extractor is the extractor used: builtin, ollama or claude.
	Extractor string `json:"extractor"`
	// Notice explains a fallback (e.g. Ollama unreachable, Claude Code
	// not logged in).
	Notice string `json:"notice,omitempty"`
}

// ErrImported is returned for a session imported from another machine
// (`cairn remote sync`): that machine extracts its own sessions, and the
// memories reviewed there arrive with the sync, so the importing machine
// never proposes memories from them.
var ErrImported = errors.New("imported from another machine")

// Extract reads every session's entries past its extraction cursor (or
// those of o.Session) and proposes memories from them. Sessions imported
// from other machines are not read (ErrImported).
func (s Curator) Extract(ctx context.Context, o ExtractOptions) (ExtractResult, error) {
	if o.Session != "" {
		return s.ExtractSession(ctx, o.Session, o)
	}
	refs, err := s.st.Mem().Sessions(ctx, o.Since, true)
	if err != nil {
		return ExtractResult{}, err
	}
	origins, err := s.st.SessionOrigins(ctx)
	if err != nil {
		return ExtractResult{}, err
	}
	total := ExtractResult{Proposed: []AddResult{}}
	for _, r := range refs {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		if _, ok := origins[r.ID]; ok {
			continue
		}
		res, err := s.extract(ctx, r.ID, r.Project, r.Cursor, o)
		if err != nil {
			return total, fmt.Errorf("extracting session %s: %w", r.ID, err)
		}
		total.addSession(res)
	}
	if total.Extractor == "" {
		total.Extractor = s.model.Name()
	}
	return total, nil
}

// addSession adds one session's extraction to the total; the last
// session's extractor and notice (when it has one) stand for the run.
func (r *ExtractResult) addSession(res ExtractResult) {
	r.Sessions++
	r.Entries += res.Entries
	r.Proposed = append(r.Proposed, res.Proposed...)
	r.Extractor = res.Extractor
	if res.Notice != "" {
		r.Notice = res.Notice
	}
}

// ExtractSession extracts from one session's entries past its cursor.
func (s Curator) ExtractSession(ctx context.Context, sessionID string, o ExtractOptions) (ExtractResult, error) {
	sid, project, err := s.session(ctx, sessionID)
	if err != nil {
		return ExtractResult{}, err
	}
	machine, err := s.st.SessionOrigin(ctx, sid)
	if err != nil {
		return ExtractResult{}, err
	}
	if machine != "" {
		return ExtractResult{}, fmt.Errorf("session %s: %w (%s): %s extracts its own sessions, and the memories reviewed there arrive with `cairn remote sync`", sid, ErrImported, machine, machine)
	}
	cursor, err := s.st.Mem().ExtractCursor(ctx, sid)
	if err != nil {
		return ExtractResult{}, err
	}
	return s.extract(ctx, sid, project, cursor, o)
}

func (s *core) extract(ctx context.Context, sid, project string, cursor int64, o ExtractOptions) (ExtractResult, error) {
	res := ExtractResult{Sessions: 1, Proposed: []AddResult{}, Extractor: BuiltinName}
	entries, err := s.st.Mem().Entries(ctx, sid, cursor, o.MaxEntries)
	if err != nil {
		return res, err
	}
	res.Entries = len(entries)
	if len(entries) == 0 {
		return res, nil
	}
	news, sections, err := s.proposals(ctx, sid, project, entries, &res)
	if err != nil {
		return res, err
	}
	s.mu.Lock()
	added, err := s.addProposals(ctx, news, project, entries, o.DryRun)
	s.mu.Unlock()
	res.Proposed = append(res.Proposed, added...)
	if err != nil {
		return res, err
	}
	if o.DryRun {
		return res, nil
	}
	if sections != nil {
		if err := s.storeClaudeSummary(ctx, sid, sections); err != nil {
			return res, err
		}
	} else if o.Summaries {
		if _, err := s.StoreSummary(ctx, sid); err != nil {
			return res, err
		}
	}
	last := entries[len(entries)-1].ID
	return res, s.st.Mem().SetExtractCursor(ctx, sid, last)
}

// proposals are the memories entries propose: the model's when it
// answers, else the built-in rules' (res says which, and why). sections is
// the summary the model wrote, if it did.
func (s *core) proposals(ctx context.Context, sid, project string, entries []index.MemEntry, res *ExtractResult) ([]NewMemory, map[string][]string, error) {
	p, err := s.model.extract(ctx, sid, project, entries)
	switch {
	case err == nil:
		res.Extractor = s.model.Name()
		return p.news, p.sections, nil
	case !errors.Is(err, ErrModelUnavailable):
		return nil, nil, err
	}
	res.Notice = err.Error() + "; used the built-in extractor instead"
	return builtinProposals(sid, project, entries), nil, nil
}

// builtinProposals are the built-in rules' proposals from entries.
func builtinProposals(sid, project string, entries []index.MemEntry) []NewMemory {
	var news []NewMemory
	for _, c := range extractCandidates(entries) {
		news = append(news, NewMemory{Project: project, Type: c.typ, Content: c.content, Tags: c.tags,
			Importance: c.importance, SourceSession: sid, SourceUUIDs: c.uuids, Origin: OriginExtractor})
	}
	return news
}

// openTodo reports whether r is a live progress memory of project reading
// as one of the done to-dos.
func openTodo(r *index.MemRow, project string, done []string) bool {
	if r.ID == "" || r.Type != Progress || r.Project != project || !slices.Contains(done, r.Content) {
		return false
	}
	return r.Status == Pending || r.Status == Approved
}

// addProposals adds news in one batch, written at once, and (unless dry)
// archives the to-dos the session's entries completed. Callers hold s.mu.
func (s *core) addProposals(ctx context.Context, news []NewMemory, project string, entries []index.MemEntry, dry bool) ([]AddResult, error) {
	var ws writeSet
	var out []AddResult
	for _, n := range news {
		r, err := s.add(ctx, n, dry, &ws)
		if err != nil {
			s.cache = nil
			return out, err
		}
		out = append(out, r)
	}
	if !dry {
		s.archiveDone(ctx, project, entries, &ws)
	}
	return out, s.flush(ctx, &ws)
}

// archiveDone archives the to-do memories whose items the session's last
// to-do list marks completed: the work is done, the memory is history.
// Called under s.mu.
func (s *core) archiveDone(ctx context.Context, project string, entries []index.MemEntry, ws *writeSet) {
	done := doneTodos(entries)
	if len(done) == 0 {
		return
	}
	mc, err := s.loadCache(ctx, false, project)
	if err != nil {
		return
	}
	now := s.now().UTC()
	for _, c := range mc.items {
		if !openTodo(c.row, project, done) {
			continue
		}
		old := *c.row
		old.Status, old.Updated = Archived, now
		ws.put(&old, nil)
		mc.put(&old, nil)
	}
}

// roomForModel reports whether ctx leaves time for a model call: hooks run
// with deadlines of a second or two and must not wait for a model.
func roomForModel(ctx context.Context) bool {
	dl, ok := ctx.Deadline()
	return !ok || time.Until(dl) >= 10*time.Second
}
