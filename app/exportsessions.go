package app

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/transcripts"
)

// SessionExport says what ExportSessions wrote.
type SessionExport struct {
	Dir      string `json:"dir"`
	Sessions int    `json:"sessions"`
	Files    int    `json:"files"`
	Entries  int    `json:"entries"`
}

// ExportSessions writes stored sessions (a project's, or all) back out as
// Claude Code transcripts under dir/projects/<folder>/ — <id>.jsonl for
// the main thread, <id>/subagents/agent-<id>.jsonl (and .meta.json) for
// subagents — so history Claude Code deleted can be read by any tool that
// reads ~/.claude, and indexed again (`cairn index --claude-dir dir`).
//
// What cairn keeps is what comes back: text after redaction, tool output's
// stored head and tail, tool inputs as stored (long ones cut: the store
// keeps what shows a call, not its file bodies), each line's own cwd,
// branch, version and model (a store written before it kept them gives
// every line the session's: its cwd and main model), the agent a call
// spawned. Token usage, kept per session, is carried on the first
// assistant line so the session's totals read the same; images are
// placeholders. Existing files are never overwritten.
func (a *App) ExportSessions(ctx context.Context, dir, project string) (SessionExport, error) {
	res := SessionExport{Dir: dir}
	f, err := a.exportFilter(ctx, project)
	if err != nil {
		return res, err
	}
	ss, err := a.Store.Sessions(ctx, f)
	if err != nil {
		return res, err
	}
	for _, s := range ss {
		if f.Project != "" && s.ProjectPath != f.Project {
			continue
		}
		if err := a.exportOne(ctx, dir, s.ID, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// exportFilter is the sessions an export of project (as the person named
// it; "" for all) takes.
func (a *App) exportFilter(ctx context.Context, project string) (index.SessionFilter, error) {
	if project == "" {
		return index.SessionFilter{}, nil
	}
	p, err := a.project(ctx, project)
	return index.SessionFilter{Project: p}, err
}

// exportOne exports session id into dir and counts it in res.
func (a *App) exportOne(ctx context.Context, dir, id string, res *SessionExport) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	conv, err := a.Store.Conversation(ctx, id)
	if err != nil {
		return fmt.Errorf("reading session %s: %w", id, err)
	}
	files, entries, err := exportSession(dir, conv)
	if err != nil {
		return err
	}
	res.Sessions++
	res.Files += files
	res.Entries += entries
	return nil
}

// exportSession writes one session's files.
func exportSession(dir string, conv *transcripts.Conversation) (files, entries int, err error) {
	s := conv.Session
	folder := s.Project
	if folder == "" {
		folder = transcripts.EncodeProjectPath(s.ProjectPath)
	}
	base := filepath.Join(dir, "projects", folder)
	carry := &carrier{s: s, own: conv.LineContext, lc: sessionContext(s)}
	files, err = writeMain(base, conv, carry)
	if err != nil {
		return files, 0, err
	}
	entries = len(conv.Entries)
	for _, ag := range s.Subagents {
		es := conv.Agents[ag.AgentID]
		if len(es) == 0 {
			continue
		}
		if err := writeAgent(base, s, ag, es, carry); err != nil {
			return files, entries, err
		}
		files++
		entries += len(es)
	}
	return files, entries, nil
}

// sessionContext is the session's own context, for the marks and for a
// store that keeps none per line: where it ran (not the repository it
// belongs to: a worktree's session resumed from an export must start in
// the worktree), its first branch, its last version.
func sessionContext(s *transcripts.Session) transcripts.LineContext {
	lc := transcripts.LineContext{SessionID: s.ID, CWD: cmp.Or(s.CWD, s.ProjectPath)}
	if len(s.Branches) > 0 {
		lc.GitBranch = s.Branches[0]
	}
	if len(s.Versions) > 0 {
		lc.Version = s.Versions[len(s.Versions)-1]
	}
	return lc
}

// encodeAll is the transcript lines of es.
func (c *carrier) encodeAll(es []transcripts.Entry) ([][]byte, error) {
	lines := make([][]byte, 0, len(es))
	for i := range es {
		b, err := c.encode(&es[i])
		if err != nil {
			return nil, err
		}
		lines = append(lines, b)
	}
	return lines, nil
}

// writeMain writes the session's main file, and says how many files it
// wrote (0 for a session with no main entries).
func writeMain(base string, conv *transcripts.Conversation, carry *carrier) (int, error) {
	s, main := conv.Session, conv.Entries
	if len(main) == 0 {
		if !s.MainFileEmpty {
			return 0, nil
		}
		// A 2.0.x "Warmup" session: its main file exists and holds
		// nothing; only its agents' files do.
		return 1, writeNew(filepath.Join(base, s.ID+".jsonl"), nil, s.Start)
	}
	lines, err := carry.encodeAll(main)
	if err != nil {
		return 0, err
	}
	lines = carry.marked(main, lines)
	t, err := transcripts.EncodeTitle(s, main[len(main)-1].UUID)
	if err != nil {
		return 0, err
	}
	if t != nil {
		lines = append(lines, t)
	}
	return 1, writeNew(filepath.Join(base, s.ID+".jsonl"), lines, lastTime(main, s.End))
}

// marked is the main file's lines with a progress line at the session's
// first and last moments when they come from lines cairn does not store
// (hook progress, snapshots): it keeps the session's times.
func (c *carrier) marked(main []transcripts.Entry, lines [][]byte) [][]byte {
	s := c.s
	if first := main[0].Timestamp; !s.Start.IsZero() && s.Start.Before(first) {
		lines = append([][]byte{transcripts.EncodeMark(s.ID, "start", s.Start, c.context(&main[0]))}, lines...)
	}
	if last := main[len(main)-1].Timestamp; s.End.After(last) {
		lines = append(lines, transcripts.EncodeMark(s.ID, "end", s.End, c.context(&main[len(main)-1])))
	}
	return lines
}

// writeAgent writes one subagent's file and, when the session knows them,
// its type, description and tool call (the .meta.json beside it).
func writeAgent(base string, s *transcripts.Session, ag transcripts.Subagent, es []transcripts.Entry, carry *carrier) error {
	lines, err := carry.encodeAll(es)
	if err != nil {
		return err
	}
	sub := filepath.Join(base, s.ID, "subagents", "agent-"+ag.AgentID)
	mod := lastTime(es, time.Time{})
	if err := writeNew(sub+".jsonl", lines, mod); err != nil {
		return err
	}
	if ag.Type == "" && ag.Description == "" && ag.ToolUseID == "" {
		return nil
	}
	meta, _ := json.Marshal(map[string]string{"agentType": ag.Type, "description": ag.Description, "toolUseId": ag.ToolUseID})
	return writeNew(sub+".meta.json", [][]byte{meta}, mod)
}

// carrier puts back what the store keeps per session: the token usage
// (on the first assistant line), response ids (one per run of assistant
// lines, as one API response writes one line per block), and, from a
// store that keeps no context per line, the session's cwd, branch,
// version and main model on every line.
type carrier struct {
	s        *transcripts.Session
	own      bool // the entries carry their own context (Conversation.LineContext)
	lc       transcripts.LineContext
	usageOut bool
	n        int
	lastUser bool
}

// context is the cwd, branch and version e is written with.
func (c *carrier) context(e *transcripts.Entry) transcripts.LineContext {
	if !c.own {
		return c.lc
	}
	return transcripts.LineContext{SessionID: c.lc.SessionID, CWD: e.CWD, GitBranch: e.GitBranch, Version: e.Version}
}

func (c *carrier) encode(e *transcripts.Entry) ([]byte, error) {
	lc := c.context(e)
	switch e.Type {
	case "assistant":
		c.assistant(e)
		c.lastUser = false
	case "user":
		c.lastUser = true
	}
	return transcripts.EncodeEntry(e, lc)
}

// assistant puts back on assistant line e the session's main model (a
// store that keeps none per line), its token usage (the first line) and
// a response id: one per run of assistant lines.
func (c *carrier) assistant(e *transcripts.Entry) {
	if !c.own && e.Model == "" {
		e.Model = c.s.MainModel // one rule for a session's model
	}
	if !c.usageOut {
		u := c.s.Usage
		e.Usage = &u
		c.usageOut = true
	}
	if e.MessageID != "" {
		return
	}
	if c.lastUser || c.n == 0 {
		c.n++
	}
	e.MessageID = fmt.Sprintf("msg_cairn_%s_%d", strings.ReplaceAll(c.s.ID, "-", "")[:12], c.n)
}

// lastTime is the latest timestamp of es, else fallback.
func lastTime(es []transcripts.Entry, fallback time.Time) time.Time {
	t := fallback
	for i := range es {
		if es[i].Timestamp.After(t) {
			t = es[i].Timestamp
		}
	}
	return t
}

// writeClose writes lines, each ended by a newline, to f and closes it.
func writeClose(f *os.File, lines [][]byte) error {
	w := bufio.NewWriter(f)
	for _, l := range lines {
		w.Write(l)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// absent fails when path exists: an export never overwrites a file.
func absent(path string) error {
	_, err := os.Lstat(path)
	if err == nil {
		return fmt.Errorf("%s already exists: export into an empty folder", path)
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// writeNew writes lines to a new file (never over an existing one), via a
// temporary file renamed into place. The file is dated mod (when not
// zero): as Claude Code's file was last written when its last line was,
// and readers take files oldest first.
func writeNew(path string, lines [][]byte, mod time.Time) error {
	if err := absent(path); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".cairn-export-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := writeClose(tmp, lines); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if !mod.IsZero() {
		return os.Chtimes(path, mod, mod)
	}
	return nil
}
