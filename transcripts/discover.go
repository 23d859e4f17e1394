package transcripts

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// FileKind says what a transcript file holds.
type FileKind int

const (
	// MainFile is projects/<P>/<sid>.jsonl.
	MainFile FileKind = iota
	// SubagentFile is projects/<P>/<sid>/subagents/agent-<id>.jsonl.
	SubagentFile
	// LegacyAgentFile is a flat projects/<P>/agent-<id>.jsonl (≤ 2.0.x).
	LegacyAgentFile
)

func (k FileKind) String() string {
	switch k {
	case SubagentFile:
		return "subagent"
	case LegacyAgentFile:
		return "legacy-agent"
	}
	return "main"
}

// File is one transcript file found on disk.
type File struct {
	Path      string
	Kind      FileKind
	Project   string // the project folder name <P>
	SessionID string // from the file name (main) or parent folder (subagent); "" for legacy agents
	AgentID   string // subagent and legacy agent files
	Meta      *SubagentMeta
	Size      int64
	ModTime   time.Time
}

// SubagentMeta is the agent-<id>.meta.json sidecar.
type SubagentMeta struct {
	AgentType     string `json:"agentType"`
	Description   string `json:"description"`
	ToolUseID     string `json:"toolUseId"`
	ParentAgentID string `json:"parentAgentId"`
}

// Project is one folder under projects/.
type Project struct {
	Name          string            // folder name: the encoded cwd
	Dir           string            // absolute folder path
	DecodedPath   string            // lossy decoding of Name; the real path comes from entries' cwd
	Files         []File            // transcript files, oldest first
	SessionMemory map[string]string // session id -> session-memory/summary.md path
	MemoryFiles   []string          // Claude's own auto-memory: memory/*.md
}

// Tree is everything found under a Claude config dir.
type Tree struct {
	ClaudeDir string
	Projects  []*Project
	Problems  []error // folders or files that could not be read; the rest was still found
}

// Files returns every transcript file of the tree, project by project.
func (t *Tree) Files() []File {
	var out []File
	for _, p := range t.Projects {
		out = append(out, p.Files...)
	}
	return out
}

// Discover lists projects and transcript files under claudeDir/projects.
// It reads fixed folder depths only, so symlink loops cannot trap it; a
// folder that cannot be read is recorded in Problems and skipped.
func Discover(claudeDir string) (*Tree, error) { return DiscoverCached(claudeDir, nil) }

// DiscoverCached is Discover skipping folders that c says are unchanged
// (c may be nil); c then holds this discovery's listings, for the next.
func DiscoverCached(claudeDir string, c *DirCache) (*Tree, error) {
	c.begin()
	root := filepath.Join(claudeDir, "projects")
	t := &Tree{ClaudeDir: claudeDir}
	ents, err := c.readDir(root)
	if err != nil {
		if os.IsNotExist(err) {
			return t, fmt.Errorf("no Claude Code transcripts at %s: pass --claude-dir or set CLAUDE_CONFIG_DIR to the folder that holds projects/", root)
		}
		return t, fmt.Errorf("reading %s: %w", root, err)
	}
	// Discovery is a few syscalls per file (an incremental sync of 1,500
	// files spends most of its time here): project folders are scanned on
	// a few goroutines, and gathered back in name order.
	var projects []*Project
	for _, de := range ents {
		if de.dir {
			projects = append(projects, &Project{Name: de.name, Dir: join(root, de.name), DecodedPath: DecodeProjectName(de.name)})
		}
	}
	problems := scanAll(projects, c)
	for i, p := range projects {
		t.Problems = append(t.Problems, problems[i]...)
		if len(p.Files) > 0 || len(p.MemoryFiles) > 0 {
			t.Projects = append(t.Projects, p)
		}
	}
	return t, nil
}

// scanAll scans the project folders on discoverWorkers goroutines, and
// returns each one's problems.
func scanAll(projects []*Project, c *DirCache) [][]error {
	problems := make([][]error, len(projects))
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range min(discoverWorkers, len(projects)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < len(projects); i = int(next.Add(1)) - 1 {
				problems[i] = projects[i].scan(c)
			}
		}()
	}
	wg.Wait()
	return problems
}

// discoverWorkers scan project folders at once: syscall-bound, so a few
// more than the cores.
const discoverWorkers = 4

// isDir follows symlinks (a project folder may be a link); broken links and
// loops are not directories.
func isDir(path string, de os.DirEntry) bool {
	if de.IsDir() {
		return true
	}
	if de.Type()&os.ModeSymlink == 0 {
		return false
	}
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

func (p *Project) scan(c *DirCache) []error {
	var problems []error
	ents, err := c.readDir(p.Dir)
	if err != nil {
		return []error{fmt.Errorf("reading project folder %s: %w", p.Dir, err)}
	}
	for _, de := range ents {
		name := de.name
		path := join(p.Dir, name)
		switch {
		case strings.HasSuffix(name, ".jsonl") && !de.dir:
			p.addFile(p.topFile(name, path), &problems)
		case name == "memory" && de.dir:
			p.addMemoryFiles(c, path, &problems)
		case de.dir:
			problems = append(problems, p.scanSessionDir(c, name, path)...)
		}
	}
	// Oldest first: when two files hold the same entry uuid (older builds
	// replayed history into a new file on resume), the earlier one wins.
	sort.SliceStable(p.Files, func(i, j int) bool { return olderFile(&p.Files[i], &p.Files[j]) })
	return problems
}

// topFile is the transcript file name at path in the project folder
// itself: an old build's agent file (agent-<id>.jsonl), else a session's.
func (p *Project) topFile(name, path string) File {
	if id, ok := agentFileID(name); ok {
		return File{Path: path, Kind: LegacyAgentFile, Project: p.Name, AgentID: id}
	}
	return File{Path: path, Kind: MainFile, Project: p.Name, SessionID: strings.TrimSuffix(name, ".jsonl")}
}

// olderFile orders files by modification time, then path.
func olderFile(a, b *File) bool {
	if !a.ModTime.Equal(b.ModTime) {
		return a.ModTime.Before(b.ModTime)
	}
	return a.Path < b.Path
}

// addMemoryFiles adds the .md files of the project's memory folder to
// p.MemoryFiles, in name order.
func (p *Project) addMemoryFiles(c *DirCache, dir string, problems *[]error) {
	for _, md := range c.subFiles(dir, problems) {
		if strings.HasSuffix(md, ".md") {
			p.MemoryFiles = append(p.MemoryFiles, filepath.Join(dir, md))
		}
	}
	sort.Strings(p.MemoryFiles)
}

// subFiles are the names of the files (not folders) in a subfolder of a
// project; a failure is noted in problems and lists nothing.
func (c *DirCache) subFiles(path string, problems *[]error) []string {
	ents, err := c.readDir(path)
	if err != nil {
		*problems = append(*problems, fmt.Errorf("reading %s: %w", path, err))
	}
	var names []string
	for _, e := range ents {
		if !e.dir {
			names = append(names, e.name)
		}
	}
	return names
}

// agentFileID is the agent id of an "agent-<id>.jsonl" file name.
func agentFileID(name string) (string, bool) {
	base, ok := strings.CutSuffix(name, ".jsonl")
	if !ok {
		return "", false
	}
	return strings.CutPrefix(base, "agent-")
}

// addFile stats f and adds it to p.Files; a failure is noted in problems
// instead.
func (p *Project) addFile(f File, problems *[]error) {
	if err := stat(&f); err != nil {
		*problems = append(*problems, err)
		return
	}
	p.Files = append(p.Files, f)
}

// scanSessionDir reads <sid>/subagents/ and <sid>/session-memory/.
func (p *Project) scanSessionDir(c *DirCache, sid, dir string) []error {
	var problems []error
	ents, err := c.readDir(dir)
	if err != nil {
		return []error{fmt.Errorf("reading %s: %w", dir, err)}
	}
	for _, e := range ents {
		if !e.dir {
			continue
		}
		sub := join(dir, e.name)
		switch {
		case e.name == "subagents":
			p.addSubagents(c, sid, sub, &problems)
		case e.name == "session-memory" && slices.Contains(c.subFiles(sub, &problems), "summary.md"):
			if p.SessionMemory == nil {
				p.SessionMemory = map[string]string{}
			}
			p.SessionMemory[sid] = filepath.Join(sub, "summary.md")
		}
	}
	return problems
}

// addSubagents adds the agent files (agent-<id>.jsonl) of session sid's
// subagents folder dir.
func (p *Project) addSubagents(c *DirCache, sid, dir string, problems *[]error) {
	for _, name := range c.subFiles(dir, problems) {
		if id, ok := agentFileID(name); ok {
			p.addFile(File{Path: join(dir, name), Kind: SubagentFile, Project: p.Name, SessionID: sid, AgentID: id}, problems)
		}
	}
}

// loadMeta reads the agent-<id>.meta.json sidecar of a subagent file, when
// there is one. It is read with the file (ReadAll), not at discovery: an
// incremental sync discovers every file but reads only the ones that grew.
func (f *File) loadMeta() error {
	if f.Kind != SubagentFile || f.Meta != nil {
		return nil
	}
	metaPath := strings.TrimSuffix(f.Path, ".jsonl") + ".meta.json"
	b, err := ReadSmallFile(metaPath, 1<<20)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return fmt.Errorf("reading %s: %w", metaPath, err)
	}
	var m SubagentMeta
	if json.Unmarshal(b, &m) != nil {
		return fmt.Errorf("%s: not valid JSON, ignored", metaPath)
	}
	f.Meta = &m
	return nil
}

func stat(f *File) error {
	size, mtime, regular, err := statSizeTime(f.Path)
	if err == nil && !regular {
		st, serr := os.Stat(f.Path) // for the error's mode
		if serr == nil {
			return NotRegularError(f.Path, st.Mode())
		}
		err = serr
	}
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", f.Path, &os.PathError{Op: "stat", Path: f.Path, Err: err})
	}
	f.Size, f.ModTime = size, mtime
	return nil
}

// join is filepath.Join of a clean folder path and a name read from it
// (no separator, not "." or ".."): one allocation, no Clean.
func join(dir, name string) string { return dir + string(filepath.Separator) + name }

// maxEncodedName is where Claude Code cuts long project folder names and
// appends "-<hash>".
const maxEncodedName = 200

// DecodeProjectName turns a project folder name back into a path, lossily:
// every non-alphanumeric character was encoded as '-', so "-home-me-my-app"
// becomes "/home/me/my/app". Real paths come from the transcripts' cwd; this
// is only the fallback. Windows names ("C--Users-me") decode to "C:/Users/me".
func DecodeProjectName(name string) string {
	truncated := false
	if len(name) > maxEncodedName && name[maxEncodedName] == '-' {
		name = name[:maxEncodedName]
		truncated = true
	}
	var out string
	if len(name) >= 3 && isLetter(name[0]) && name[1] == '-' && name[2] == '-' {
		out = name[:1] + ":/" + strings.ReplaceAll(name[3:], "-", "/")
	} else {
		out = strings.ReplaceAll(name, "-", "/")
	}
	if truncated {
		out += "…"
	}
	return out
}

// EncodeProjectPath is Claude Code's folder name for a cwd.
func EncodeProjectPath(path string) string {
	b := []byte(path)
	for i, c := range b {
		if !(isLetter(c) || (c >= '0' && c <= '9')) {
			b[i] = '-'
		}
	}
	if len(b) > maxEncodedName {
		return string(b[:maxEncodedName])
	}
	return string(b)
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
