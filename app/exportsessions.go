package app

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
// stored head and tail, tool inputs as stored. Per-response details cairn
// keeps per session (model, token usage) are carried on the assistant
// lines so the session's totals read the same; images are placeholders.
// Existing files are never overwritten.
func (a *App) ExportSessions(ctx context.Context, dir, project string) (SessionExport, error) {
	res := SessionExport{Dir: dir}
	f := index.SessionFilter{}
	if project != "" {
		p, err := a.Store.ResolveProject(ctx, project)
		if err != nil {
			return res, err
		}
		if p == "" {
			return res, fmt.Errorf("no project matches %q (`cairn projects` lists them)", project)
		}
		f.Project = p
	}
	ss, err := a.Store.Sessions(ctx, f)
	if err != nil {
		return res, err
	}
	for _, s := range ss {
		if f.Project != "" && s.ProjectPath != f.Project {
			continue
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
		conv, err := a.Store.Conversation(ctx, s.ID)
		if err != nil {
			return res, fmt.Errorf("reading session %s: %w", s.ID, err)
		}
		files, entries, err := exportSession(dir, conv)
		if err != nil {
			return res, err
		}
		res.Sessions++
		res.Files += files
		res.Entries += entries
	}
	return res, nil
}

// exportSession writes one session's files.
func exportSession(dir string, conv *transcripts.Conversation) (files, entries int, err error) {
	s := conv.Session
	folder := s.Project
	if folder == "" {
		folder = transcripts.EncodeProjectPath(s.ProjectPath)
	}
	base := filepath.Join(dir, "projects", folder)
	lc := transcripts.LineContext{SessionID: s.ID, CWD: s.ProjectPath}
	if len(s.Branches) > 0 {
		lc.GitBranch = s.Branches[0]
	}
	if len(s.Versions) > 0 {
		lc.Version = s.Versions[len(s.Versions)-1]
	}
	carry := &carrier{s: s}
	main := conv.Entries
	var lines [][]byte
	for i := range main {
		b, err := carry.encode(&main[i], lc)
		if err != nil {
			return files, entries, err
		}
		lines = append(lines, b)
	}
	if len(main) > 0 {
		// The session's first and last moments can come from lines cairn
		// does not store (hook progress, snapshots): a progress line at
		// each keeps its times.
		if first := main[0].Timestamp; !s.Start.IsZero() && s.Start.Before(first) {
			lines = append([][]byte{transcripts.EncodeMark(s.ID, "start", s.Start, lc)}, lines...)
		}
		if last := main[len(main)-1].Timestamp; s.End.After(last) {
			lines = append(lines, transcripts.EncodeMark(s.ID, "end", s.End, lc))
		}
		leaf := main[len(main)-1].UUID
		if t, err := transcripts.EncodeTitle(s, leaf); err != nil {
			return files, entries, err
		} else if t != nil {
			lines = append(lines, t)
		}
		if err := writeNew(filepath.Join(base, s.ID+".jsonl"), lines); err != nil {
			return files, entries, err
		}
		files++
		entries += len(main)
	}
	for _, ag := range s.Subagents {
		es := conv.Agents[ag.AgentID]
		if len(es) == 0 {
			continue
		}
		lines = lines[:0]
		for i := range es {
			b, err := carry.encode(&es[i], lc)
			if err != nil {
				return files, entries, err
			}
			lines = append(lines, b)
		}
		sub := filepath.Join(base, s.ID, "subagents", "agent-"+ag.AgentID)
		if err := writeNew(sub+".jsonl", lines); err != nil {
			return files, entries, err
		}
		if ag.Type != "" || ag.Description != "" || ag.ToolUseID != "" {
			meta, _ := json.Marshal(map[string]string{"agentType": ag.Type, "description": ag.Description, "toolUseId": ag.ToolUseID})
			if err := writeNew(sub+".meta.json", [][]byte{meta}); err != nil {
				return files, entries, err
			}
		}
		files++
		entries += len(es)
	}
	return files, entries, nil
}

// carrier puts back what the store keeps per session: the model and the
// token usage (on the first assistant line), and response ids (one per
// run of assistant lines, as one API response writes one line per block).
type carrier struct {
	s        *transcripts.Session
	usageOut bool
	n        int
	lastUser bool
}

func (c *carrier) encode(e *transcripts.Entry, lc transcripts.LineContext) ([]byte, error) {
	if e.Type == "assistant" {
		if len(c.s.Models) > 0 && e.Model == "" {
			e.Model = c.s.Models[0]
		}
		if !c.usageOut {
			u := c.s.Usage
			e.Usage = &u
			c.usageOut = true
		}
		if e.MessageID == "" {
			if c.lastUser || c.n == 0 {
				c.n++
			}
			e.MessageID = fmt.Sprintf("msg_cairn_%s_%d", strings.ReplaceAll(c.s.ID, "-", "")[:12], c.n)
		}
		c.lastUser = false
	} else if e.Type == "user" {
		c.lastUser = true
	}
	return transcripts.EncodeEntry(e, lc)
}

// writeNew writes lines to a new file (never over an existing one), via a
// temporary file renamed into place.
func writeNew(path string, lines [][]byte) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s already exists: export into an empty folder", path)
	} else if !errors.Is(err, os.ErrNotExist) {
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
	w := bufio.NewWriter(tmp)
	for _, l := range lines {
		w.Write(l)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return os.Rename(tmp.Name(), path)
}
