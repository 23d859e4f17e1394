package tui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
)

// indexProgress is the state of background indexing: whether one runs,
// and the progress of a visible one (the first, or ctrl+r) for the
// status bar. Periodic re-syncs are quiet.
type indexProgress struct {
	busy       bool
	shown      *indexMsg // progress of a visible indexing; nil: none
	startedAt  time.Time
	lastReload time.Time // projects re-read while a first index runs
}

// start records that an indexing started.
func (ix *indexProgress) start(quiet bool) {
	ix.busy = true
	if !quiet {
		ix.startedAt = time.Now()
		ix.shown = &indexMsg{stage: "reading transcripts"}
	}
}

// line is the progress for the status bar.
func (ix *indexProgress) line() string {
	p := ix.shown
	switch p.stage {
	case "reading transcripts":
		if p.p.BytesTotal > 0 {
			pct := int(100 * p.p.BytesDone / max(p.p.BytesTotal, 1))
			return fmt.Sprintf("indexing %d%% (%d/%d files, %s entries)", pct, p.p.FilesDone, p.p.FilesTotal, fmtCount(int64(p.p.Entries)))
		}
		return "indexing: looking for transcripts…"
	case "full-text":
		return fmt.Sprintf("full-text index: %s docs", fmtCount(int64(p.done)))
	case "embeddings":
		return fmt.Sprintf("embedding: %s docs", fmtCount(int64(p.done)))
	}
	return "indexing…"
}

// indexed handles a progress or final message of the background indexing.
func (m *Model) indexed(msg indexMsg) tea.Cmd {
	if msg.finished {
		return m.indexFinished(msg)
	}
	if msg.quiet {
		return waitIndex(msg.ch)
	}
	cp := msg
	m.index.shown = &cp
	// Projects appear while a long first index runs.
	if time.Since(m.index.lastReload) > 2*time.Second && msg.stage == "reading transcripts" {
		m.index.lastReload = time.Now()
		return tea.Batch(waitIndex(msg.ch), m.projects.load())
	}
	return waitIndex(msg.ch)
}

// indexFinished reports the end of an indexing, reloads what it changed
// and runs OnIndexed after the first.
func (m *Model) indexFinished(msg indexMsg) tea.Cmd {
	m.index.busy = false
	m.reportIndexed(msg)
	// The lag changes with every indexing, new entries or not.
	cmd := m.loadStats()
	if msg.reloads() {
		cmd = m.refreshAll()
	}
	if f := m.cfg.OnIndexed; f != nil && !msg.quiet {
		m.cfg.OnIndexed = nil
		cmd = tea.Batch(cmd, m.onIndexed(f))
	}
	return cmd
}

// reportIndexed says how an indexing ended (a quiet one only when it
// proposed memories) and takes down its progress.
func (m *Model) reportIndexed(msg indexMsg) {
	if !msg.quiet {
		m.index.shown = nil
		if msg.err != nil {
			m.c.flashError(fmt.Errorf("indexing stopped: %w (the store still has what was indexed before; press ctrl+r to try again)", msg.err))
		} else if n := msg.stats.EntriesAdded; n > 0 {
			m.c.flashf("indexed %d new entries in %s", n, time.Since(m.index.startedAt).Round(100*time.Millisecond))
		}
	}
	if msg.err == nil && msg.proposed > 0 {
		m.c.flashf("%d memories proposed from new entries: review them in 5", msg.proposed)
	}
}

// reloads reports an indexing after which every pane reloads: one that
// succeeded and added entries or sessions, or that the user asked for.
func (msg indexMsg) reloads() bool {
	return msg.err == nil && (msg.stats.EntriesAdded > 0 || msg.stats.Sessions > 0 || !msg.quiet)
}

// onIndexed runs f under the model's context and shows what it says.
func (m *Model) onIndexed(f func(ctx context.Context) (string, error)) tea.Cmd {
	ctx, bg := m.ctx, &m.bg
	return func() tea.Msg {
		if !bg.add() {
			return nil // cairn is closing
		}
		defer bg.done()
		text, err := f(ctx)
		if err != nil {
			return flashMsg{text: err.Error(), err: true}
		}
		return onIndexedMsg{text: text}
	}
}
