// Package transcriptstest is the test oracle for reading transcripts into
// sessions: a second, in-memory path from a tree of transcript files to
// sessions (Scan, Builder) and conversations (LoadConversation), built on
// transcripts' own rules (ReadAll, SessionState, DropReplays) but on none
// of the store's code. Tests compare the store against it; only tests
// import it.
package transcriptstest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/cairn-dev/cairn/transcripts"
)

// ScanResult is everything a full read of a tree found.
type ScanResult struct {
	Projects []transcripts.ProjectSummary
	Sessions []*transcripts.Session // newest first
	Files    int
	Bytes    int64
	Entries  int
	BadLines int
	Errors   []transcripts.LineError // first bad lines, with file and line
	Problems []error                 // unreadable files and folders
}

// Scan reads every transcript of the tree with all cores and builds sessions.
func Scan(ctx context.Context, t *transcripts.Tree, workers int) (*ScanResult, error) {
	sc := &treeScan{res: &ScanResult{Problems: append([]error(nil), t.Problems...)}, byProject: map[string]*transcripts.Project{}}
	var jobs []transcripts.Job
	for _, p := range t.Projects {
		sc.byProject[p.Name] = p
		for _, f := range p.Files {
			jobs = append(jobs, transcripts.Job{File: f})
		}
	}
	err := transcripts.ReadAll(ctx, jobs, workers, 0, sc.add)
	sc.flush()
	res := sc.res
	transcripts.SortNewestFirst(res.Sessions)
	sort.SliceStable(res.Projects, func(i, j int) bool { return res.Projects[i].LastUsed.After(res.Projects[j].LastUsed) })
	return res, err
}

// treeScan aggregates the results of Scan's reads, one project at a time
// (ReadAll delivers the files in tree order, so a project's files come
// together).
type treeScan struct {
	res       *ScanResult
	byProject map[string]*transcripts.Project
	cur       *transcripts.Project // the project being aggregated
	b         *Builder             // its sessions
}

// add is the ReadAll callback.
func (sc *treeScan) add(r *transcripts.Result) error {
	if p := sc.byProject[r.Job.File.Project]; p != sc.cur {
		sc.flush()
		sc.cur, sc.b = p, NewBuilder(p.Name, p.DecodedPath)
	}
	res := sc.res
	res.Files++
	res.Bytes += r.Stats.Bytes
	res.Entries += r.Stats.Entries
	res.BadLines += r.Stats.BadLines
	for _, le := range r.Stats.Errors {
		if len(res.Errors) < transcripts.MaxLineErrors {
			res.Errors = append(res.Errors, le)
		}
	}
	if r.Err != nil {
		res.Problems = append(res.Problems, r.Err)
	}
	if r.Warning != nil {
		res.Problems = append(res.Problems, r.Warning)
	}
	sc.b.NoteFile(&r.Job.File)
	for i := range r.Entries {
		sc.b.Add(&r.Job.File, &r.Entries[i])
	}
	return nil
}

// flush adds the sessions and the summary of the current project, if any.
func (sc *treeScan) flush() {
	if sc.b == nil {
		return
	}
	ss := sc.b.Sessions()
	sc.res.Sessions = append(sc.res.Sessions, ss...)
	sc.res.Projects = append(sc.res.Projects, summarizeProject(sc.cur, ss))
}

// summarizeProject sums up project p with its sessions ss.
func summarizeProject(p *transcripts.Project, ss []*transcripts.Session) transcripts.ProjectSummary {
	ps := transcripts.ProjectSummary{Name: p.Name, Path: p.DecodedPath, Sessions: len(ss)}
	for _, f := range p.Files {
		ps.Size += f.Size
	}
	for _, s := range ss {
		if s.End.After(ps.LastUsed) {
			ps.LastUsed = s.End
		}
	}
	if len(ss) > 0 {
		ps.Path = ss[len(ss)-1].ProjectPath // the oldest session's first cwd
	}
	return ps
}

// Builder assembles Sessions from the entries of one project's files. Files
// must be fed oldest first: entries are de-duplicated by uuid, keeping the
// first seen. The aggregation itself is SessionState's, shared with the
// store's incremental index.
type Builder struct {
	project, decodedPath string
	seen                 map[string]string // entry uuid -> session id
	sessions             map[string]*transcripts.SessionState
	summaries            []summaryRef
	mainFiles            map[string]bool // session ids whose <id>.jsonl is on disk
}

type summaryRef struct{ text, leaf string }

// NewBuilder starts a project. decodedPath is the fallback project path.
func NewBuilder(project, decodedPath string) *Builder {
	return &Builder{project: project, decodedPath: decodedPath,
		seen: map[string]string{}, sessions: map[string]*transcripts.SessionState{}, mainFiles: map[string]bool{}}
}

// NoteFile tells the builder a file of the project exists, even when it
// holds nothing: a session whose main file is empty is told apart from one
// whose main file is gone.
func (b *Builder) NoteFile(f *transcripts.File) {
	if f.Kind == transcripts.MainFile && f.SessionID != "" {
		b.mainFiles[f.SessionID] = true
	}
}

// Add feeds one entry read from f. It reports false when the entry was a
// duplicate (same uuid seen earlier) and was ignored.
func (b *Builder) Add(f *transcripts.File, e *transcripts.Entry) bool {
	if e.Type == "summary" {
		if e.Summary != "" && e.LeafUUID != "" {
			b.summaries = append(b.summaries, summaryRef{e.Summary, e.LeafUUID})
		}
		return true
	}
	sid := transcripts.EntrySessionID(f, e)
	if sid == "" {
		return true // nothing to attach it to (snapshots of unknown sessions)
	}
	if e.UUID != "" && e.Type != "progress" {
		if _, dup := b.seen[e.UUID]; dup {
			return false
		}
		b.seen[e.UUID] = sid
	}
	st := b.sessions[sid]
	if st == nil {
		st = transcripts.NewSessionState(sid, b.project)
		b.sessions[sid] = st
	}
	st.Add(f, e)
	return true
}

// Sessions finishes the project: resolves summaries through their leaf uuid,
// picks titles, links subagents to the calls that spawned them, and returns
// the sessions that have at least one user or assistant entry, newest first.
func (b *Builder) Sessions() []*transcripts.Session {
	for _, sm := range b.summaries {
		if sid, ok := b.seen[sm.leaf]; ok {
			if st := b.sessions[sid]; st != nil {
				st.Summary = sm.text
			}
		}
	}
	out := make([]*transcripts.Session, 0, len(b.sessions))
	for _, st := range b.sessions {
		if st.Session.Entries == 0 {
			continue
		}
		s := st.Finish(b.decodedPath)
		s.MainFileEmpty = !s.HasMainFile && b.mainFiles[s.ID]
		out = append(out, s)
	}
	transcripts.SortNewestFirst(out)
	return out
}

// LoadConversation reads the session whose id starts with idPrefix from the
// tree: its main file, its subagents, and lines of it that other files of
// the project hold.
func LoadConversation(ctx context.Context, t *transcripts.Tree, idPrefix string) (*transcripts.Conversation, error) {
	id, p, err := resolveConversation(ctx, t, idPrefix)
	if err != nil {
		return nil, err
	}
	cc := &conversationCollector{
		id:    id,
		c:     &transcripts.Conversation{Agents: map[string][]transcripts.Entry{}, SpawnedBy: map[string]string{}, LineContext: true},
		b:     NewBuilder(p.Name, p.DecodedPath),
		multi: map[string]bool{},
	}
	var jobs []transcripts.Job
	for _, f := range p.Files {
		jobs = append(jobs, transcripts.Job{File: f})
	}
	if err := transcripts.ReadAll(ctx, jobs, 0, 0, cc.add); err != nil {
		return nil, err
	}
	return cc.finish()
}

// resolveConversation finds the session id idPrefix names and the project
// that holds it.
func resolveConversation(ctx context.Context, t *transcripts.Tree, idPrefix string) (string, *transcripts.Project, error) {
	var ids []string
	owner := map[string]*transcripts.Project{}
	for _, p := range t.Projects {
		for _, f := range p.Files {
			if f.SessionID != "" {
				ids = append(ids, f.SessionID)
				owner[f.SessionID] = p
			}
		}
	}
	id, err := transcripts.ResolveSessionID(idPrefix, ids)
	if err == nil {
		return id, owner[id], nil
	}
	// Legacy agent files name no session: their entries do.
	ids = addLegacySessions(ctx, t, ids, owner)
	if id, err = transcripts.ResolveSessionID(idPrefix, ids); err != nil {
		return "", nil, err
	}
	return id, owner[id], nil
}

// addLegacySessions reads the tree's legacy agent files and adds the
// session ids their entries name to ids and owner. Read errors are ignored:
// the lookup then just finds less.
func addLegacySessions(ctx context.Context, t *transcripts.Tree, ids []string, owner map[string]*transcripts.Project) []string {
	var legacy []transcripts.Job
	for _, p := range t.Projects {
		for _, f := range p.Files {
			if f.Kind == transcripts.LegacyAgentFile {
				legacy = append(legacy, transcripts.Job{File: f})
			}
		}
	}
	_ = transcripts.ReadAll(ctx, legacy, 0, 0, func(r *transcripts.Result) error {
		for _, e := range r.Entries {
			if e.SessionID != "" && !slices.Contains(ids, e.SessionID) {
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
	c     *transcripts.Conversation
	b     *Builder
	multi map[string]bool // main-thread files that contributed entries
}

// add is the ReadAll callback: it keeps the entries of r that belong to the
// session.
func (cc *conversationCollector) add(r *transcripts.Result) error {
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
func (cc *conversationCollector) belongs(f *transcripts.File, e *transcripts.Entry) bool {
	return e.SessionID == cc.id || (e.SessionID == "" && f.SessionID == cc.id)
}

// place files e under its agent or in the main thread.
func (cc *conversationCollector) place(f *transcripts.File, e *transcripts.Entry) {
	c := cc.c
	// Subagent files (and 2.1 sidechain lines naming their agent)
	// are nested where they were spawned; older builds wrote
	// sidechains inline, and those stay in file order.
	if agent := cmp.Or(f.AgentID, e.AgentID); f.Kind != transcripts.MainFile || (e.IsSidechain && agent != "") {
		c.Agents[agent] = append(c.Agents[agent], *e)
		return
	}
	cc.multi[f.Path] = true
	c.Entries = append(c.Entries, *e)
	if e.ResultAgentID == "" {
		return
	}
	for _, bl := range e.Blocks {
		if bl.Type == transcripts.BlockToolResult {
			c.SpawnedBy[bl.ToolUseID] = e.ResultAgentID
		}
	}
}

// finish orders the main thread when several files fed it and attaches the
// session summary and the agents it spawned.
func (cc *conversationCollector) finish() (*transcripts.Conversation, error) {
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

func projectOf(t *transcripts.Tree, name string) *transcripts.Project {
	for _, p := range t.Projects {
		if p.Name == name {
			return p
		}
	}
	return nil
}
