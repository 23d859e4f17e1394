package memories

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/cairn-dev/cairn/index"
)

// What the hooks feed back into a session, and what they learn from it:
// which memories a session holds (reset by compaction), which of them the
// assistant used, and when the person was last reminded of reviews.

// --- injections and compaction ---

// injReset is a session's compaction state: when its context was last
// compacted, and how many times.
type injReset struct {
	At  int64 `json:"at"` // ms
	Gen int   `json:"gen"`
}

func injResetKey(session string) string { return "memories.injections-reset:" + session }

func (s *core) injReset(ctx context.Context, session string) (injReset, error) {
	var r injReset
	b, ok, err := s.st.Setting(ctx, injResetKey(session))
	if err != nil || !ok {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return injReset{}, nil // damaged: as if never compacted
	}
	return r, nil
}

// ResetInjected forgets what was injected into a session so far, as far as
// what it holds goes: after compaction (SessionStart with source
// "compact") the model no longer has it, so the same memories may be
// injected again. The injection records stay (usage scoring reads them).
func (s Feedback) ResetInjected(ctx context.Context, session string) error {
	r, err := s.injReset(ctx, session)
	if err != nil {
		return err
	}
	r = injReset{At: s.now().UnixMilli(), Gen: r.Gen + 1}
	b, _ := json.Marshal(r)
	return s.st.SetSetting(ctx, injResetKey(session), b)
}

// InjectedSinceReset lists the memory ids injected into a session since
// its last compaction (all of them when it was never compacted), in order.
func (s Feedback) InjectedSinceReset(ctx context.Context, session string) ([]string, error) {
	r, err := s.injReset(ctx, session)
	if err != nil {
		return nil, err
	}
	rows, err := s.st.Mem().Injections(ctx, session)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, row := range rows {
		if row.Time.UnixMilli() >= r.At && !slices.Contains(out, row.Memory) {
			out = append(out, row.Memory)
		}
	}
	return out, nil
}

// RecordInjectionSinceReset records an injection into a session; after a
// compaction it is recorded as a new injection (its own row), not merged
// into the one before.
func (s Feedback) RecordInjectionSinceReset(ctx context.Context, session, event string, ids []string) error {
	r, err := s.injReset(ctx, session)
	if err != nil {
		return err
	}
	if r.Gen > 0 {
		event += "/compact-" + strconv.Itoa(r.Gen)
	}
	return s.RecordInjection(ctx, session, event, ids)
}

// --- usage ---

// UsageOptions say what a usage scoring may rely on.
type UsageOptions struct {
	// Reply is the assistant's reply that ends the turn (the Stop hook's
	// last_assistant_message): Claude Code often runs Stop before the
	// transcript holds it.
	Reply string
	// Final settles the injections: at the end of a session, an injected
	// memory followed by a reply but not used is marked checked (unused).
	// Before that, only use is recorded: a memory injected at the start
	// may be used many turns later.
	Final bool
}

// ScoreUsageWith decides which memories injected into a session the
// assistant used: those whose distinctive words (at least two, and at
// least half of them) reappear in what it wrote after the injection (the
// stored text, plus o.Reply). An injection is never settled without a
// reply after it; o.Final re-scores every injection not found used yet.
func (s Feedback) ScoreUsageWith(ctx context.Context, session string, o UsageOptions) (checked, used int, err error) {
	inj, err := s.st.Mem().Injections(ctx, session)
	if err != nil || len(inj) == 0 {
		return 0, 0, err
	}
	p := pendingUsage(inj, o.Final)
	if len(p.ids) == 0 {
		return 0, 0, nil
	}
	rows, err := s.st.Mem().Query(ctx, index.MemFilter{IDs: p.ids})
	if err != nil {
		return 0, 0, err
	}
	said, replied, err := s.saidSince(ctx, session, p.since, o.Reply)
	if err != nil {
		return 0, 0, err
	}
	settle, usedIDs := p.settled(rows, said, replied, o.Final)
	if len(settle) == 0 {
		return 0, 0, nil
	}
	if err := s.st.Mem().MarkUsage(ctx, session, settle, usedIDs); err != nil {
		return 0, 0, err
	}
	s.mu.Lock()
	s.cache = nil
	s.mu.Unlock()
	return len(settle), len(usedIDs), nil
}

// usageToScore is which injected memories a scoring looks at: each with
// the time of its first injection not yet found used (since), whether it
// was used already and whether an injection of it is still open.
type usageToScore struct {
	ids               []string
	since             map[string]time.Time
	alreadyUsed, open map[string]bool
}

// settled is which of p's memories a scoring settles (settle) and which
// of those were used: a memory whose words reappear in what the assistant
// said since its injection is used; when final, one still open with a
// reply after it is settled unused.
func (p usageToScore) settled(rows []*index.MemRow, said map[time.Time][]uint32, replied map[time.Time]bool, final bool) (settle, usedIDs []string) {
	for _, id := range p.ids {
		t := p.since[id]
		switch {
		case len(usedMemories([]string{id}, rows, said[t])) > 0:
			usedIDs = append(usedIDs, id)
			settle = append(settle, id)
		case final && replied[t] && !p.alreadyUsed[id] && p.open[id]:
			settle = append(settle, id)
		}
	}
	return settle, usedIDs
}

// pendingUsage is the memories of inj to score: those not found used yet
// (and not checked, unless final).
func pendingUsage(inj []index.InjectionRow, final bool) usageToScore {
	p := usageToScore{since: map[string]time.Time{}, alreadyUsed: map[string]bool{}, open: map[string]bool{}}
	for _, r := range inj {
		if r.Used {
			p.alreadyUsed[r.Memory] = true
		}
		if !r.Checked {
			p.open[r.Memory] = true
		}
		if r.Used || (r.Checked && !final) {
			continue
		}
		p.add(r.Memory, r.Time)
	}
	return p
}

// add lists memory id to score, injected since t or earlier.
func (p *usageToScore) add(id string, t time.Time) {
	if s, ok := p.since[id]; !ok || t.Before(s) {
		p.since[id] = t
	}
	if !slices.Contains(p.ids, id) {
		p.ids = append(p.ids, id)
	}
}

// saidSince is, for each injection time, the words the assistant wrote
// after it (plus reply), and whether it wrote anything.
func (s Feedback) saidSince(ctx context.Context, session string, since map[string]time.Time, reply string) (map[time.Time][]uint32, map[time.Time]bool, error) {
	said := map[time.Time][]uint32{}
	replied := map[time.Time]bool{}
	for _, t := range since {
		if _, ok := said[t]; ok {
			continue
		}
		texts, err := s.st.Mem().AssistantText(ctx, session, t)
		if err != nil {
			return nil, nil, fmt.Errorf("reading what the assistant said: %w", err)
		}
		if reply != "" {
			texts = append(texts, reply)
		}
		replied[t] = len(texts) > 0
		said[t] = saidTokens(texts)
	}
	return said, replied, nil
}

// --- review reminders ---

// ReviewReminderEvery is the least time between two reminders of pending
// reviews in a project's sessions.
const ReviewReminderEvery = 24 * time.Hour

func reviewReminderKey(project string) string { return "memories.review-reminder:" + project }

// pendingFor counts what awaits review for a project: its memories (and
// global ones) and the summary drafts of its sessions.
func (s *core) pendingFor(ctx context.Context, project string) (mems, drafts int, err error) {
	ms, err := s.List(ctx, Filter{Statuses: []Status{Pending}, Project: project, IncludeGlobal: true})
	if err != nil {
		return 0, 0, err
	}
	ds, err := s.drafts().Drafts(ctx, "pending")
	if err != nil {
		return len(ms), 0, err
	}
	for _, d := range ds {
		if d.Project == project {
			drafts++
		}
	}
	return len(ms), drafts, nil
}

// takeReviewReminder reports whether a session of project should remind
// the person of pending reviews now: at most once per
// ReviewReminderEvery. It records the reminder when it says yes.
func (s *core) takeReviewReminder(ctx context.Context, project string) (bool, error) {
	now := s.now()
	b, ok, err := s.st.Setting(ctx, reviewReminderKey(project))
	if err != nil {
		return false, err
	}
	if ok {
		if ms, err := strconv.ParseInt(string(b), 10, 64); err == nil && now.Sub(time.UnixMilli(ms)) < ReviewReminderEvery {
			return false, nil
		}
	}
	return true, s.st.SetSetting(ctx, reviewReminderKey(project), []byte(strconv.FormatInt(now.UnixMilli(), 10)))
}
