package memories

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/cairn-dev/cairn/index"

	json "github.com/go-json-experiment/json"
)

// SourceFile is a file a memory's source turns edited, and whether it
// changed since: a memory about code that has moved on may no longer
// hold.
type SourceFile struct {
	Path    string    `json:"path"`    // relative to the session's folder when inside it
	Edited  time.Time `json:"edited"`  // when the source turn last edited it
	Changed bool      `json:"changed"` // modified on disk after that
	Missing bool      `json:"missing"` // no longer there
}

// State is "gone", "changed" (since the source turn edited it) or "" for
// a file that still holds what the memory was learned from.
func (f SourceFile) State() string {
	switch {
	case f.Missing:
		return "gone"
	case f.Changed:
		return "changed"
	}
	return ""
}

// Stale lists the files of files that changed or are gone, each as
// "path (changed)" or "path (gone)": what makes a memory possibly stale,
// said one way in every front end.
func Stale(files []SourceFile) []string {
	var out []string
	for _, f := range files {
		if st := f.State(); st != "" {
			out = append(out, f.Path+" ("+st+")")
		}
	}
	return out
}

// editTools are the tool calls that change a file, with its path in
// file_path (notebook_path for notebooks).
var editTools = []string{"Edit", "MultiEdit", "Write", "NotebookEdit"}

// SourceFiles are the files the turns m came from edited (a turn runs
// from one typed prompt to the next), each with whether it changed on
// disk since. None for a memory with no source session, or whose session
// the store no longer holds.
func (s Recall) SourceFiles(ctx context.Context, m *Memory) ([]SourceFile, error) {
	all, err := s.SourceFilesEach(ctx, []Memory{*m})
	if err != nil {
		return nil, err
	}
	return all[0], nil
}

// SourceFilesEach is SourceFiles of each of ms, reading each source
// session once (a page of search results often shares a few sessions).
func (s Recall) SourceFilesEach(ctx context.Context, ms []Memory) ([][]SourceFile, error) {
	out := make([][]SourceFile, len(ms))
	err := s.eachSource(ctx, ms, func(i int, src *sourceSession) {
		out[i] = filesOfTurns(src.entries, ms[i].SourceUUIDs, src.dir)
	})
	return out, err
}

// Provenance is where a memory came from, as the hooks match it against
// what Claude is about to do: the files its source turns edited and the
// shell commands its source entries ran.
type Provenance struct {
	Files    []string `json:"files,omitempty"`    // as SourceFile.Path
	Commands []string `json:"commands,omitempty"` // Bash commands, as run
}

// ProvenanceEach is the Provenance of each of ms, reading each source
// session once.
func (s Recall) ProvenanceEach(ctx context.Context, ms []Memory) ([]Provenance, error) {
	out := make([]Provenance, len(ms))
	err := s.eachSource(ctx, ms, func(i int, src *sourceSession) {
		for _, f := range filesOfTurns(src.entries, ms[i].SourceUUIDs, src.dir) {
			out[i].Files = append(out[i].Files, f.Path)
		}
		out[i].Commands = commandsOf(src.entries, ms[i].SourceUUIDs)
	})
	return out, err
}

// sourceSession is a memory's source session as provenance reads it.
type sourceSession struct {
	dir     string
	entries []index.MemEntry
}

// eachSource calls fn with the source session of each of ms that has one
// the store still holds, reading each session once.
func (s *core) eachSource(ctx context.Context, ms []Memory, fn func(i int, src *sourceSession)) error {
	sessions := map[string]*sourceSession{} // nil: not in the store
	for i := range ms {
		m := &ms[i]
		if m.SourceSession == "" || len(m.SourceUUIDs) == 0 {
			continue
		}
		src, seen := sessions[m.SourceSession]
		if !seen {
			if ss, err := s.st.Session(ctx, m.SourceSession); err == nil { // else forgotten or never indexed: nothing to say
				entries, err := s.st.Mem().Entries(ctx, m.SourceSession, 0, 0)
				if err != nil {
					return err
				}
				src = &sourceSession{dir: ss.CWD, entries: entries}
				if src.dir == "" {
					src.dir = ss.ProjectPath
				}
			}
			sessions[m.SourceSession] = src
		}
		if src != nil {
			fn(i, src)
		}
	}
	return nil
}

// commandsOf are the Bash commands among the entries holding uuids (a
// memory's own source entries, not its whole turn: a turn runs many
// commands the lesson is not about), in order, each once.
func commandsOf(entries []index.MemEntry, uuids []string) []string {
	var out []string
	for _, e := range entries {
		if e.Role != "assistant" || e.ToolName != "Bash" || !slices.Contains(uuids, e.UUID) {
			continue
		}
		var in struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(e.Input, &in) == nil && in.Command != "" && !slices.Contains(out, in.Command) {
			out = append(out, in.Command)
		}
	}
	return out
}

// filesOfTurns are the files the turns of entries holding uuids edited,
// paths relative to dir, each checked on disk.
func filesOfTurns(entries []index.MemEntry, uuids []string, dir string) []SourceFile {
	edited := map[string]time.Time{}
	var order []string
	for _, t := range turnsOf(entries, uuids) {
		for _, e := range entries[t[0]:t[1]] {
			p := editedPath(e)
			if p == "" {
				continue
			}
			p = absIn(p, dir)
			if _, seen := edited[p]; !seen {
				order = append(order, p)
			}
			if e.Time.After(edited[p]) {
				edited[p] = e.Time
			}
		}
	}
	var out []SourceFile
	for _, p := range order {
		out = append(out, sourceFile(p, dir, edited[p]))
	}
	return out
}

// absIn is path p, joined to dir when relative (and dir is known).
func absIn(p, dir string) string {
	if !filepath.IsAbs(p) && dir != "" {
		return filepath.Join(dir, p)
	}
	return p
}

// sourceFile is file p, last edited at edited, as it is now: missing, or
// changed since (with two seconds of slack: the edit's own write lands
// just after its entry's time).
func sourceFile(p, dir string, edited time.Time) SourceFile {
	f := SourceFile{Path: relPath(p, dir), Edited: edited}
	if st, err := os.Stat(p); err != nil {
		f.Missing = os.IsNotExist(err)
	} else {
		f.Changed = st.ModTime().After(f.Edited.Add(2 * time.Second))
	}
	return f
}

// turnsOf are the [start, end) index ranges of the turns of entries that
// hold one of uuids: a turn starts at a typed prompt.
func turnsOf(entries []index.MemEntry, uuids []string) [][2]int {
	var out [][2]int
	start := 0
	flush := func(end int) {
		for _, e := range entries[start:end] {
			if slices.Contains(uuids, e.UUID) {
				out = append(out, [2]int{start, end})
				return
			}
		}
	}
	for i, e := range entries {
		if i > start && e.Role == "user" && e.Source == "" && !e.Meta {
			flush(i)
			start = i
		}
	}
	flush(len(entries))
	return out
}

// editedPath is the file an edit call changes, "" for other entries.
func editedPath(e index.MemEntry) string {
	if e.Role != "assistant" || !slices.Contains(editTools, e.ToolName) {
		return ""
	}
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
	}
	if json.Unmarshal(e.Input, &in) != nil {
		return ""
	}
	if in.FilePath != "" {
		return in.FilePath
	}
	return in.NotebookPath
}
