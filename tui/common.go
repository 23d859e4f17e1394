package tui

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/theme"
	"github.com/cairn-dev/cairn/transcripts"

	tea "charm.land/bubbletea/v2"
)

// common is what every pane shares, in the manner of soft-serve's
// common.Common: the store and services, styles and keys, the screen's
// layout, the clock, the model's cancellable context, and a way to put a
// message in the status bar. Panes get it when they are built and never
// see the root model: they ask the root for anything else with messages
// (nav.go).
type common struct {
	cfg  *Config // the root's: read, never written by panes
	hub  *searchHub
	keys *KeyMap
	sty  theme.Styles
	dark bool
	lay  layout
	// ctx is cancelled when the TUI quits: background loads stop with it.
	ctx context.Context

	// flash shows a message (or an error) in the status bar.
	flash func(text string, isErr bool)
	// scopeProject is the project "this project" means (see Model.scopeProject).
	scopeProject func() string
	// indexing reports that a visible (not quiet) indexing runs.
	indexing func() bool
}

func (c *common) store() *index.Store     { return c.cfg.Store }
func (c *common) memories() MemoryService { return c.cfg.Memories }
func (c *common) now() time.Time          { return c.cfg.Now() }

// loadState is what a list pane shows instead of its rows after failing
// to list what (err, with the hint retry under it) or, err nil, while loading.
func (c *common) loadState(what string, err error, retry string) []string {
	s := c.sty
	if err != nil {
		return []string{"", s.Error.Render(" Could not list " + what + ": " + sanitizeLine(err.Error())), s.Muted.Render(retry)}
	}
	return []string{s.Muted.Render(" loading…")}
}

// memLoadState is what a pane of the memory service (listing name, or what
// in a sentence) shows instead of its rows: unavailable, an error, loading;
// nil once loaded.
func (c *common) memLoadState(name, what string, err error, loaded bool) []string {
	switch {
	case c.memories() == nil:
		return []string{"", c.sty.Muted.Render(" " + name + " are not available.")}
	case err != nil || !loaded:
		return c.loadState(what, err, " ctrl+r retries.")
	}
	return nil
}

func (c *common) flashf(format string, a ...any) { c.flash(fmt.Sprintf(format, a...), false) }
func (c *common) flashError(err error)           { c.flash(err.Error(), true) }

func (c *common) fmtTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.In(c.cfg.Location).Format("2006-01-02 15:04")
}

func (c *common) fmtClock(t time.Time) string {
	if t.IsZero() {
		return "--:--"
	}
	return t.In(c.cfg.Location).Format("15:04")
}

func (c *common) fmtAgo(t time.Time) string {
	return human.Ago(t, c.cfg.Now(), c.cfg.Location)
}

// rowStyle marks the selected row: a ▌ in the gutter (visible without
// colour) plus the selection style.
func (c *common) rowStyle(sel bool, row string) string {
	if !sel {
		return row
	}
	if strings.HasPrefix(row, " ") {
		row = "▌" + row[1:]
	}
	return c.sty.Selected.Render(row)
}

// markdown renders Markdown in w cells, indented by two like the prompts.
func (c *common) markdown(text string, w int) []string {
	ls := renderMarkdown(text, w-2, mdStylesFor(c.sty.Theme))
	for i, l := range ls {
		if l != "" {
			ls[i] = "  " + l
		}
	}
	return ls
}

// resume runs `claude --resume ID` in the folder the session ran in and
// comes back; without claude on PATH it shows the command instead. The
// PATH lookup runs in the command, not in Update.
func (c *common) resume(s *transcripts.Session) tea.Cmd {
	if s == nil {
		return nil
	}
	// Claude Code finds a session by the folder it ran in (a worktree,
	// a subfolder), not by its project.
	dir := s.CWD
	if dir == "" {
		dir = s.ProjectPath
	}
	ctx, lookPath, id, st := c.ctx, c.cfg.LookPath, s.ID, c.store()
	line, ok := resumeLine(dir, id)
	return func() tea.Msg {
		if machine, err := st.SessionOrigin(ctx, id); err == nil && machine != "" {
			// Synced from another machine: its files are there, not in
			// this machine's Claude Code.
			return msgCmd(flashMsg{err: true, text: fmt.Sprintf("this session ran on %s (synced by cairn remote): resume it there with claude --resume %s",
				sanitizeLine(machine), sanitizeLine(id))})()
		}
		if !ok {
			// A folder name no one can see or paste safely: the
			// clipboard gets the id alone, never a command.
			return tea.BatchMsg{msgCmd(flashMsg{err: true, text: fmt.Sprintf(
				"the session's folder %s holds control or invisible characters: no command copied (pasted into a shell it could run another); "+
					"copied the session id: from that folder run claude --resume ID", sanitizeLine(dir))}),
				tea.SetClipboard(sanitizeLine(id))}
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			// Resuming anywhere else starts a new session: say so
			// instead of running it.
			return tea.BatchMsg{msgCmd(flashMsg{err: true, text: fmt.Sprintf(
				"the session's folder %s is gone: recreate it (or clone the project there), then run: %s (copied)", dir, line)}),
				tea.SetClipboard(line)}
		}
		path, err := lookPath("claude")
		if err != nil {
			return tea.BatchMsg{msgCmd(flashMsg{text: "claude is not on PATH; to resume, run: " + line}), tea.SetClipboard(line)}
		}
		// Under the TUI's context: a SIGTERM that ends cairn ends it too.
		cmd := exec.CommandContext(ctx, path, "--resume", id)
		cmd.Dir = dir
		return tea.ExecProcess(cmd, func(err error) tea.Msg { return resumedMsg{cmd: line, err: err} })()
	}
}

// resumeLine is the shell command that resumes session id in dir, as r
// shows and copies it; ok is false when no safe command exists. A
// session's cwd comes from its transcript, and a planted one can hold
// ESC [201~ (the end of bracketed paste: what follows runs as typed), a
// newline, C1 controls, bidi overrides or invisible characters. Quoting
// cannot make those safe to paste (the terminal acts on them before the
// shell sees its quotes), so a dir or id that termtext would show
// differently, or a dir that is not absolute (cd would read "-x" as an
// option), gets no command at all.
func resumeLine(dir, id string) (line string, ok bool) {
	if !filepath.IsAbs(dir) || sanitizeLine(dir) != dir || id == "" || sanitizeLine(id) != id {
		return "", false
	}
	return "cd " + shellQuote(dir) + " && claude --resume " + shellQuote(id), true
}

// shellQuote quotes s for bash and zsh: as is when it holds only
// characters no shell expands (~ and = expand at the start of a word),
// else in single quotes, where nothing is special but the quote itself.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, needsShellQuote) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// needsShellQuote reports a character a shell may expand or split at:
// anything but letters, digits and / . - _.
func needsShellQuote(r rune) bool {
	return !(r == '/' || r == '.' || r == '-' || r == '_' || isASCIIAlnum(r))
}

// isASCIIAlnum reports an ASCII letter or digit.
func isASCIIAlnum(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

// exportPath is where a session export is written.
func (c *common) exportPath(id string) string {
	dir := c.cfg.ExportDir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	return filepath.Join(dir, "cairn-session-"+exportName(id)+".md")
}

// exportName is the file-name part of a session export: the whole id (two
// sessions sharing an 8-character prefix must not overwrite each other's
// export), only its file-name-safe characters and at most 64 of them; an
// id cut that way gets a hash of it too.
func exportName(id string) string {
	safe := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || isASCIIAlnum(r) {
			return r
		}
		return -1
	}, id)
	if len(safe) > 64 {
		safe = safe[:64]
	}
	if safe != id || safe == "" {
		h := sha256.Sum256([]byte(id))
		safe += "-" + hex.EncodeToString(h[:4])
	}
	return safe
}
