package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/remote"

	"charm.land/lipgloss/v2"
)

// statusBar is the bottom line: the store's size and sessions, the index
// lag, the last `cairn remote sync`, the embedder, indexing progress and
// the last message or error.
type statusBar struct {
	c     *common
	index *indexProgress

	stats    index.StoreStats
	statsOK  bool
	embedder string
	sync     syncStatus

	flash      string
	flashErr   bool
	flashUntil time.Time
}

func newStatusBar(c *common, ix *indexProgress) *statusBar { return &statusBar{c: c, index: ix} }

func (s *statusBar) setStats(msg statsMsg) {
	s.sync = msg.sync
	if msg.err != nil {
		s.setFlash(msg.err.Error(), true)
		return
	}
	s.stats, s.statsOK = msg.stats, true
	if msg.embedder != "" {
		s.embedder = msg.embedder
	}
}

// setFlash shows a message for 6s, an error for 12s. Every message is
// sanitised: most quote a project path, a folder or a title read from a
// transcript (the scope message after p, a resume command, an export path).
func (s *statusBar) setFlash(text string, isErr bool) {
	d := 6 * time.Second
	if isErr {
		d = 12 * time.Second
	}
	s.flash, s.flashErr, s.flashUntil = sanitizeLine(text), isErr, s.c.now().Add(d)
}

// expire clears a message that has been shown long enough.
func (s *statusBar) expire() {
	if s.flash != "" && s.c.now().After(s.flashUntil) {
		s.flash = ""
	}
}

func (s *statusBar) view() string {
	sty, w := s.c.sty, s.c.lay.status.w
	status := " " + strings.Join(s.counters(), sty.Subtle.Render(" │ "))
	if s.flash == "" {
		return sty.StatusBar.Render(pad(status, w))
	}
	st := sty.OK
	if s.flashErr {
		st = sty.Error
	}
	room := w - lipgloss.Width(status) - 3
	switch {
	case s.popup() != nil:
		// Too long for this line: shown whole above it (popup).
		return pad(status+sty.Subtle.Render(" │ ")+st.Render(trunc("↑ message above", max(0, room))), w)
	case room < 30:
		// The message matters more than the counters.
		return pad(" "+st.Render(s.flash), w)
	}
	return pad(status+sty.Subtle.Render(" │ ")+st.Render(s.flash), w)
}

// popup is the message wrapped on as many lines as it needs, when it does
// not fit in the status line (a resume command, an export path, a fix
// hint): the root draws them at the bottom of the body. nil when it fits.
func (s *statusBar) popup() []string {
	if s.flash == "" {
		return nil
	}
	w := s.c.lay.status.w
	room := w - lipgloss.Width(" "+strings.Join(s.counters(), " │ ")) - 3
	if room < 30 {
		room = w - 2
	}
	if lipgloss.Width(s.flash) <= room {
		return nil
	}
	st := s.c.sty.OK
	if s.flashErr {
		st = s.c.sty.Error
	}
	ls := wrapIndent(s.flash, w-1, " ", 0)
	if max := s.c.lay.body.h - 1; len(ls) > max {
		ls = ls[len(ls)-max:]
	}
	out := []string{s.c.sty.Subtle.Render(strings.Repeat("─", w))}
	for _, l := range ls {
		out = append(out, st.Render(l))
	}
	return out
}

// lag is the documents waiting for full-text indexing or embedding, as
// last read (0 before the first read).
func (s *statusBar) lag() int {
	if !s.statsOK {
		return 0
	}
	return s.stats.FTSQueue + s.stats.EmbedQueue
}

// counters are the store, lag and embedder parts, or indexing progress.
func (s *statusBar) counters() []string {
	sty := s.c.sty
	var left []string
	switch {
	case s.index.shown != nil:
		left = append(left, sty.Warn.Render("● "+s.index.line()))
	case s.statsOK:
		left = append(left, fmt.Sprintf("store %s", human.Bytes(s.stats.DBBytes)),
			plural(s.stats.Sessions, "session"))
	default:
		left = append(left, "store …")
	}
	if s.statsOK {
		if lag := s.stats.FTSQueue + s.stats.EmbedQueue; lag == 0 {
			left = append(left, "lag 0")
		} else {
			left = append(left, sty.Warn.Render(fmt.Sprintf("lag %s docs", fmtCount(int64(lag)))))
		}
	}
	if part := s.syncPart(); part != "" {
		left = append(left, part)
	}
	emb := s.embedder
	if emb == "" {
		emb = "text only"
	}
	return append(left, "embedder "+shortEmbedder(emb))
}

func shortEmbedder(s string) string {
	// cairn-lsa:v1:256:abcdef… → cairn-lsa 256d
	parts := strings.Split(s, ":")
	if len(parts) >= 3 && parts[0] == "cairn-lsa" {
		return "built-in LSA " + parts[2] + "d"
	}
	return trunc(s, 28)
}

// syncStatus is how the last `cairn remote sync` ended, as it recorded it
// (remote.ReadOutcome: status.json, no network). Not to be confused with
// the index poll's last_sync (Model.lastSync): that one is the store's.
type syncStatus struct {
	outcome    remote.Outcome
	configured bool // a remote is set up: without one nothing is shown
	err        error
}

// readSyncStatus reads it for the store in dataDir (a poll's work: a
// stat and a small file).
func readSyncStatus(dataDir string) syncStatus {
	o, configured, err := remote.ReadOutcome(dataDir)
	return syncStatus{outcome: o, configured: configured, err: err}
}

// syncPart is the last remote sync as the status line shows it: "synced
// 5m ago", "not synced yet", or the last one's error, "sync failed 2m
// ago: …" (its first line: `cairn remote status` shows it whole). It comes
// before the embedder, which a narrow terminal cuts first.
func (s *statusBar) syncPart() string {
	o, sty := s.sync.outcome, s.c.sty
	switch {
	case !s.sync.configured:
		return ""
	case s.sync.err != nil:
		return sty.Error.Render("sync status unreadable: " + sanitizeLine(s.sync.err.Error()))
	case o.Failed():
		msg, _, _ := strings.Cut(o.LastError, "\n")
		return sty.Error.Render("sync failed " + s.c.fmtAgo(o.LastErrorAt) + ": " + sanitizeLine(msg))
	case o.LastSync.IsZero():
		return "not synced yet"
	}
	return "synced " + s.c.fmtAgo(o.LastSync)
}
