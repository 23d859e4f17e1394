package hook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/hookspec"
	"github.com/cairn-dev/cairn/memories"
)

// Deadlines of the indexing events. SessionEnd shares a 1.5 s budget with
// every other SessionEnd hook; the others have Claude Code's generous
// default, but Stop runs at the end of every turn.
const (
	stopDeadline       = 3 * time.Second
	sessionEndDeadline = 900 * time.Millisecond
)

// index brings the session's project folder into the store (only the files
// that grew, from their cursors), then decides which injected memories
// were used and extracts new pending memories from the new entries.
// A busy store leaves the work to the next hook or `cairn index`.
func (h *handler) index(ctx context.Context) error {
	if h.folder == "" {
		return fmt.Errorf("cannot tell the project folder of %s", h.in.TranscriptPath)
	}
	if h.transcriptNotYet() {
		// Normal in print mode: Claude Code runs Stop before it writes
		// the transcript. Nothing to index yet (SessionEnd will); the
		// reply came with the payload.
		return h.scoreReplyOnly(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, h.deadline())
	defer cancel()
	trace("start")
	a, err := app.OpenWith(app.Paths{DataDir: h.env.DataDir, ClaudeDir: h.env.ClaudeDir}, h.cfg, app.Options{BusyTimeout: BusyTimeout, DeferRewrites: true})
	if err != nil {
		return h.upgradeLater(err)
	}
	defer a.Close()
	trace("store open")
	// The pipeline's cheap variant: this project's files from their
	// cursors, then memories from the session's new entries.
	run, err := a.Index(ctx, app.IndexOptions{Profile: app.Hook, Projects: []string{h.folder},
		Extract: h.env.Memories != nil, Session: h.in.SessionID})
	h.res.Synced = run.Sync.EntriesAdded
	trace("synced")
	defer trace("done")
	for _, p := range run.Sync.Problems {
		h.env.Log.Printf("%s: indexing: %v", h.in.Event, p)
	}
	if err != nil {
		return h.indexFailed(err)
	}
	h.indexed(ctx, a, run)
	return nil
}

// transcriptNotYet reports a Stop (or SubagentStop) whose transcript is
// not written yet.
func (h *handler) transcriptNotYet() bool {
	if h.in.Event != Stop && h.in.Event != SubagentStop {
		return false
	}
	_, err := os.Stat(h.in.TranscriptPath)
	return err != nil
}

// deadline is how long the event's indexing may take: less at
// SessionEnd, which Claude Code does not wait long for.
func (h *handler) deadline() time.Duration {
	if h.in.Event == SessionEnd {
		return sessionEndDeadline
	}
	return stopDeadline
}

// indexed does what follows a sync: records the extraction, notes the
// session as recent, scores memory use, and hands the session's summary
// to a detached process after SessionEnd and PreCompact.
func (h *handler) indexed(ctx context.Context, a *app.App, run app.IndexResult) {
	h.extracted(run)
	if run.Sync.Sessions > 0 {
		h.logUnlessBusy("noting the session", noteRecent(ctx, a.Store, h.project(), h.in.SessionID))
	}
	if h.env.Memories == nil {
		return
	}
	trace("session noted")
	h.scoreUsage(ctx, h.env.Memories(a.Store, h.cfg))
	if h.in.Event == SessionEnd || h.in.Event == PreCompact {
		// The session's summary reads all of it: not inside the hook.
		h.res.Spawned = h.spawn("summary", h.in.SessionID) || h.res.Spawned
	}
}

// indexFailed says what a failed sync means: a busy store or a deadline
// loses nothing (the cursors did not move past what was not written).
func (h *handler) indexFailed(err error) error {
	if errors.Is(err, index.ErrBusy) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		h.env.Log.Printf("%s: indexing left for later (%v)", h.in.Event, err)
		return nil
	}
	return fmt.Errorf("indexing %s: %w", h.folder, err)
}

// extracted records the post-index extraction, and hands an Ollama
// extraction (seconds a call) to a detached process.
func (h *handler) extracted(run app.IndexResult) {
	h.res.Proposed = run.Proposed
	if !errors.Is(run.ExtractErr, context.DeadlineExceeded) {
		h.logUnlessBusy("extracting memories", run.ExtractErr)
	}
	if run.ExtractDeferred && h.backgroundExtractNow() {
		h.res.Spawned = h.spawn("extract", h.in.SessionID)
	}
}

// backgroundExtractNow reports whether this event hands extraction to a
// detached process: Ollama's after every indexing event, Claude Code's
// only after SessionEnd and PreCompact (a run per turn would spend
// claude.daily_runs; its cursor keeps the turns for then).
func (h *handler) backgroundExtractNow() bool {
	if memories.ModelFor(h.cfg, nil).Policy().EveryTurn {
		return true
	}
	return h.in.Event == SessionEnd || h.in.Event == PreCompact
}

// scoreReplyOnly scores memory use against the Stop payload's reply when
// the transcript is not written yet.
func (h *handler) scoreReplyOnly(ctx context.Context) error {
	if h.env.Memories == nil || h.in.Event != Stop || h.in.LastAssistantMessage == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, stopDeadline)
	defer cancel()
	st, err := h.openStore()
	if err != nil {
		h.logUnlessBusy("scoring memory use", err)
		return nil
	}
	defer st.Close()
	h.scoreUsage(ctx, h.env.Memories(st, h.cfg))
	return nil
}

// scoreUsage decides which injected memories the assistant used: Stop
// adds the reply of its payload (the transcript may not hold it yet);
// only SessionEnd settles the memories not used.
func (h *handler) scoreUsage(ctx context.Context, mem Memories) {
	reply := ""
	if h.in.Event == Stop {
		reply = h.in.LastAssistantMessage
	}
	checked, used, err := mem.ScoreUsage(ctx, h.in.SessionID, reply, h.in.Event == SessionEnd)
	h.res.Checked, h.res.Used = checked, used
	trace("usage scored")
	h.logUnlessBusy("scoring memory use", err)
}

// logUnlessBusy logs a step's error, unless it is a busy store (the next
// hook does the work).
func (h *handler) logUnlessBusy(step string, err error) {
	if err != nil && !errors.Is(err, index.ErrBusy) {
		h.env.Log.Printf("%s: %s: %v", h.in.Event, step, err)
	}
}

// upgradeLater hands an upgrade of the store that rewrites its rows
// (index.ErrUpgradePending) to a detached process, at most once per
// spawnEvery, and leaves this hook's work to the next: nothing is lost,
// the cursors did not move. Any other error is err.
func (h *handler) upgradeLater(err error) error {
	if !errors.Is(err, index.ErrUpgradePending) {
		return err
	}
	h.env.Log.Printf("%s: %v: left to a background run; nothing injected until it is done", h.in.Event, err)
	if h.ranLately("upgrade") {
		return nil
	}
	h.res.Spawned = h.spawn("upgrade", h.in.SessionID) || h.res.Spawned
	return nil
}

// ranLately reports whether a background run of what started within
// spawnEvery, and if not, notes that one starts now (a stamp file's time).
func (h *handler) ranLately(what string) bool {
	stamp := filepath.Join(h.env.DataDir, "hook-background-"+what+".stamp")
	if fi, err := os.Stat(stamp); err == nil && h.env.Now().Sub(fi.ModTime()) < spawnEvery {
		return true
	}
	_ = os.WriteFile(stamp, nil, 0o600)
	_ = os.Chtimes(stamp, h.env.Now(), h.env.Now())
	return false
}

// spawnEvery limits detached background runs.
const spawnEvery = 15 * time.Second

// spawn starts `cairn hook --background <what> --session <id>` detached from
// Claude Code (its own session, output to the hook log); extraction at most
// once per spawnEvery. It never waits for it.
func (h *handler) spawn(what, session string) bool {
	if h.env.Executable == "" {
		h.env.Log.Printf("%s: no executable to run %s in the background", h.in.Event, what)
		return false
	}
	if what == "extract" && memories.ModelFor(h.cfg, nil).Policy().EveryTurn {
		// Extraction is cursor-based: a skipped run is caught up by the
		// next one. (Claude's runs follow only PreCompact and SessionEnd:
		// rare, and a SessionEnd skipped after a PreCompact would leave
		// the last turns to a manual `cairn extract`.)
		if h.ranLately(what) {
			return false
		}
	}
	pid, err := startDetached(h.env.Executable, []string{"hook", "--data", h.env.DataDir, "--claude-dir", h.env.ClaudeDir,
		"--background", what, "--session", session}, filepath.Join(h.env.DataDir, hookspec.LogName))
	if err != nil {
		h.env.Log.Printf("%s: starting background %s: %v", h.in.Event, what, err)
		return false
	}
	h.env.Log.Printf("%s: background %s started (pid %d)", h.in.Event, what, pid)
	return true
}

// Background does the slow work hooks hand off: Ollama extraction for a
// session, then bringing the full-text index up to date when it is free.
// It runs in its own process; errors go to the log.
func Background(ctx context.Context, env Env, what, session string) error {
	if env.Log == nil {
		env.Log = hookspec.NewLogger(env.DataDir)
	}
	env.Log.Prefix = "background "
	cfg, err := loadConfig(env)
	if err != nil {
		env.Log.Printf("%s: %v: nothing done until it is fixed", what, err)
		return err
	}
	a, err := app.OpenWith(app.Paths{DataDir: env.DataDir, ClaudeDir: env.ClaudeDir}, cfg, app.Options{})
	if err != nil {
		env.Log.Printf("%s: %v", what, err)
		return err
	}
	defer env.Log.Printf("%s: done", what) // after the store is closed
	defer a.Close()
	maintain(ctx, env, a)
	if env.Memories != nil && validSessionID(session) {
		sessionWork(ctx, env, a, cfg, what, session)
	}
	drainFTS(ctx, env, a.Store)
	return nil
}

// sessionWork is the session's part of the background work: its
// extraction, or its summary.
func sessionWork(ctx context.Context, env Env, a *app.App, cfg config.Config, what, session string) {
	mem := env.Memories(a.Store, cfg)
	switch what {
	case "extract":
		backgroundExtract(ctx, env, a, session)
	case "summary":
		if err := mem.StoreSummary(ctx, session); err != nil {
			env.Log.Printf("summary %s: %v", shortID(session), err)
		}
	}
}

// backgroundExtract extracts a session's new memories and logs what came
// of it.
func backgroundExtract(ctx context.Context, env Env, a *app.App, session string) {
	eo := memories.ExtractOptions{MaxEntries: app.ExtractMax}
	if a.Memories.Model().Policy().WholeSession {
		// Every new turn: Claude reads the newest claude.max_input
		// characters, the built-in rules the rest.
		eo.MaxEntries = 0
	}
	r, err := a.Memories.Curator.ExtractSession(ctx, session, eo)
	n := r.Added()
	if r.Notice != "" {
		env.Log.Printf("extract %s: %s", shortID(session), r.Notice)
	}
	if err != nil {
		env.Log.Printf("extract %s: %v", shortID(session), err)
	} else {
		env.Log.Printf("extract %s: %d memories proposed by the %s extractor", shortID(session), n, r.Extractor)
	}
}

// drainFTS brings the full-text index up to date when it is free; when
// it is busy, the documents stay queued.
func drainFTS(ctx context.Context, env Env, st *index.Store) {
	ix, err := st.Derived().OpenFTS(2 * time.Second)
	if err != nil {
		return
	}
	defer ix.Close()
	if _, err := st.Derived().DrainFTS(ctx, ix, nil); err != nil {
		env.Log.Printf("full-text index: %v", err)
	}
}
