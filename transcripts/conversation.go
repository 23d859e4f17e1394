package transcripts

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Conversation is one session's entries, ready to be read by a person.
type Conversation struct {
	Session *Session
	Entries []Entry            // the main thread, in order
	Agents  map[string][]Entry // subagent id -> its entries, in order
	// SpawnedBy maps the tool_use id of a Task/Agent call to the agent it spawned.
	SpawnedBy map[string]string
	// Unreadable is how many entries a damaged store could not give back
	// (they are left out).
	Unreadable int
	// LineContext: the entries carry their own cwd, branch, version and
	// model (read from transcripts, or from a store that keeps them); a
	// store written before it kept them gives only the session's.
	LineContext bool
}

// IsUUID reports whether s is a whole session id (a UUID, any case).
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range strings.ToLower(s) {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case (c < '0' || c > '9') && (c < 'a' || c > 'f'):
			return false
		}
	}
	return true
}

// MinIDPrefix is the shortest session id prefix accepted.
const MinIDPrefix = 8

// ErrSessionID is what ResolveSessionID's errors for an id that cannot
// name one session wrap: too short, or matching several (a bad argument:
// the CLI exits 2). An id that matches none is not one of them (the
// session may be gone: exit 1).
var ErrSessionID = errors.New("bad session id")

// sessionIDError is an error of ResolveSessionID: its text, and
// ErrSessionID for errors.Is.
type sessionIDError struct{ msg string }

func (e *sessionIDError) Error() string { return e.msg }
func (e *sessionIDError) Unwrap() error { return ErrSessionID }

func idErrorf(format string, a ...any) error { return &sessionIDError{msg: fmt.Sprintf(format, a...)} }

// ResolveSessionID finds the one session id in ids that starts with prefix.
func ResolveSessionID(prefix string, ids []string) (string, error) {
	prefix = strings.TrimSpace(prefix)
	if len(prefix) < MinIDPrefix {
		return "", idErrorf("session id %q is too short: give at least %d characters (see `cairn sessions`)", prefix, MinIDPrefix)
	}
	var matches []string
	seen := map[string]bool{}
	for _, id := range ids {
		if strings.HasPrefix(id, prefix) && !seen[id] {
			seen[id] = true
			matches = append(matches, id)
		}
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("no session matches %q: list sessions with `cairn sessions`", prefix)
	case 1:
		return matches[0], nil
	}
	sort.Strings(matches)
	return "", idErrorf("%q matches %d sessions (%s): give more characters", prefix, len(matches), strings.Join(matches, ", "))
}

// LoadConversation reads the session whose id starts with idPrefix from the
// tree: its main file, its subagents, and lines of it that other files of
// the project hold.
func LoadConversation(ctx context.Context, t *Tree, idPrefix string) (*Conversation, error) {
	id, p, err := resolveConversation(ctx, t, idPrefix)
	if err != nil {
		return nil, err
	}
	cc := &conversationCollector{
		id:    id,
		c:     &Conversation{Agents: map[string][]Entry{}, SpawnedBy: map[string]string{}, LineContext: true},
		b:     NewBuilder(p.Name, p.DecodedPath),
		multi: map[string]bool{},
	}
	var jobs []Job
	for _, f := range p.Files {
		jobs = append(jobs, Job{File: f})
	}
	if err := ReadAll(ctx, jobs, 0, 0, cc.add); err != nil {
		return nil, err
	}
	return cc.finish()
}

// resolveConversation finds the session id idPrefix names and the project
// that holds it.
func resolveConversation(ctx context.Context, t *Tree, idPrefix string) (string, *Project, error) {
	var ids []string
	owner := map[string]*Project{}
	for _, p := range t.Projects {
		for _, f := range p.Files {
			if f.SessionID != "" {
				ids = append(ids, f.SessionID)
				owner[f.SessionID] = p
			}
		}
	}
	id, err := ResolveSessionID(idPrefix, ids)
	if err == nil {
		return id, owner[id], nil
	}
	// Legacy agent files name no session: their entries do.
	ids = addLegacySessions(ctx, t, ids, owner)
	if id, err = ResolveSessionID(idPrefix, ids); err != nil {
		return "", nil, err
	}
	return id, owner[id], nil
}

// addLegacySessions reads the tree's legacy agent files and adds the
// session ids their entries name to ids and owner. Read errors are ignored:
// the lookup then just finds less.
func addLegacySessions(ctx context.Context, t *Tree, ids []string, owner map[string]*Project) []string {
	var legacy []Job
	for _, p := range t.Projects {
		for _, f := range p.Files {
			if f.Kind == LegacyAgentFile {
				legacy = append(legacy, Job{File: f})
			}
		}
	}
	_ = ReadAll(ctx, legacy, 0, 0, func(r *Result) error {
		for _, e := range r.Entries {
			if e.SessionID != "" && !containsStr(ids, e.SessionID) {
				ids = append(ids, e.SessionID)
				owner[e.SessionID] = projectOf(t, r.Job.File.Project)
			}
		}
		return nil
	})
	return ids
}

// conversationCollector gathers one session's entries from the files of
// its project as ReadAll hands them over.
type conversationCollector struct {
	id    string
	c     *Conversation
	b     *Builder
	multi map[string]bool // main-thread files that contributed entries
}

// add is the ReadAll callback: it keeps the entries of r that belong to the
// session.
func (cc *conversationCollector) add(r *Result) error {
	f := &r.Job.File
	cc.b.NoteFile(f)
	for i := range r.Entries {
		e := &r.Entries[i]
		if !cc.belongs(f, e) || !cc.b.Add(f, e) {
			continue
		}
		cc.place(f, e)
	}
	return nil
}

// belongs reports whether e, read from f, is a line of the session.
func (cc *conversationCollector) belongs(f *File, e *Entry) bool {
	return e.SessionID == cc.id || (e.SessionID == "" && f.SessionID == cc.id)
}

// place files e under its agent or in the main thread.
func (cc *conversationCollector) place(f *File, e *Entry) {
	c := cc.c
	// Subagent files (and 2.1 sidechain lines naming their agent)
	// are nested where they were spawned; older builds wrote
	// sidechains inline, and those stay in file order.
	if agent := firstNonEmpty(f.AgentID, e.AgentID); f.Kind != MainFile || (e.IsSidechain && agent != "") {
		c.Agents[agent] = append(c.Agents[agent], *e)
		return
	}
	cc.multi[f.Path] = true
	c.Entries = append(c.Entries, *e)
	if e.ResultAgentID == "" {
		return
	}
	for _, bl := range e.Blocks {
		if bl.Type == BlockToolResult {
			c.SpawnedBy[bl.ToolUseID] = e.ResultAgentID
		}
	}
}

// finish orders the main thread when several files fed it and attaches the
// session summary and the agents it spawned.
func (cc *conversationCollector) finish() (*Conversation, error) {
	c := cc.c
	c.DropReplays()
	if len(cc.multi) > 1 {
		sort.SliceStable(c.Entries, func(i, j int) bool {
			a, b := c.Entries[i].Timestamp, c.Entries[j].Timestamp
			return !a.IsZero() && !b.IsZero() && a.Before(b)
		})
	}
	for _, s := range cc.b.Sessions() {
		if s.ID == cc.id {
			c.Session = s
		}
	}
	if c.Session == nil {
		return nil, fmt.Errorf("session %s has no user or assistant entries", cc.id)
	}
	for _, ag := range c.Session.Subagents {
		if ag.ToolUseID != "" && ag.AgentID != "" {
			c.SpawnedBy[ag.ToolUseID] = ag.AgentID
		}
	}
	return c, nil
}

func projectOf(t *Tree, name string) *Project {
	for _, p := range t.Projects {
		if p.Name == name {
			return p
		}
	}
	return nil
}

func containsStr(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
