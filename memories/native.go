package memories

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/transcripts"
)

// NativeImport says what ImportClaudeMemory read and proposed.
type NativeImport struct {
	Files     int         `json:"files"`
	Summaries int         `json:"summaries"` // session-memory summaries stored
	Proposed  []AddResult `json:"proposed"`
	Problems  []string    `json:"problems"`
}

// maxNativeFile is the largest memory file read.
const maxNativeFile = 1 << 20

var mdLinkOnly = lazyRE(`^\[[^\]]*\]\([^)]*\)\s*(—|-|:)?\s*$`)

// ImportClaudeMemory proposes the entries of Claude Code's own memory files
// (<claudeDir>/projects/<P>/memory/*.md) as pending memories of project P,
// de-duplicated like any other, and stores each session's
// session-memory/summary.md as that session's summary when it has none.
// The files are only read.
func (s Sync) ImportClaudeMemory(ctx context.Context, claudeDir string, dryRun bool) (NativeImport, error) {
	res := NativeImport{Proposed: []AddResult{}, Problems: []string{}}
	tree, err := transcripts.Discover(claudeDir)
	if err != nil {
		return res, err
	}
	paths := s.projectPaths(ctx)
	for _, p := range tree.Projects {
		if err := s.importClaudeProject(ctx, p, paths[p.Name], dryRun, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// importClaudeProject imports the memory files of project folder p
// (project: its project, "" to decode it from the folder's name) and,
// unless dryRun, its sessions' summaries, into res. A forgotten or
// opted-out project is never read again.
func (s *core) importClaudeProject(ctx context.Context, p *transcripts.Project, project string, dryRun bool, res *NativeImport) error {
	if project == "" {
		project = index.ProjectOf(p.DecodedPath)
	}
	if excluded, _ := s.st.Excluded(ctx, project); excluded || s.st.Forgotten(ctx, p.Name, "") {
		return nil
	}
	for _, f := range p.MemoryFiles {
		s.importMemoryFile(ctx, f, project, dryRun, res)
	}
	if dryRun {
		return nil
	}
	for sid, f := range p.SessionMemory {
		if s.st.Forgotten(ctx, "", sid) {
			continue
		}
		if err := s.importSessionMemory(ctx, sid, f, project, res); err != nil {
			return err
		}
	}
	return nil
}

// projectPaths maps transcript folder names to their projects (the
// repository a worktree folder belongs to; empty when unreadable).
func (s *core) projectPaths(ctx context.Context) map[string]string {
	paths, err := s.st.FolderProjects(ctx)
	if err != nil {
		return map[string]string{}
	}
	return paths
}

// importMemoryFile proposes the entries of memory file f as memories of
// project, recording what it added and the problems it met in res.
func (s *core) importMemoryFile(ctx context.Context, f, project string, dryRun bool, res *NativeImport) {
	b, err := readSmall(f)
	if err != nil {
		res.Problems = append(res.Problems, err.Error())
		return
	}
	res.Files++
	for _, n := range nativeMemories(string(b), project, f) {
		s.mu.Lock()
		r, err := s.add(ctx, n, dryRun, nil)
		s.mu.Unlock()
		if err != nil {
			res.Problems = append(res.Problems, fmt.Sprintf("%s: %v", f, err))
			continue
		}
		res.Proposed = append(res.Proposed, r)
	}
}

// importSessionMemory stores session sid's session-memory summary f as its
// summary when it has none and f reads as one; only a failed write is an
// error.
func (s *core) importSessionMemory(ctx context.Context, sid, f, project string, res *NativeImport) error {
	stored, err := s.st.Mem().Summaries(ctx, sid, "", 1)
	if err != nil || len(stored) > 0 {
		return nil
	}
	b, err := readSmall(f)
	if err != nil {
		res.Problems = append(res.Problems, err.Error())
		return nil
	}
	if checkDraft(string(b)) != nil {
		return nil
	}
	md := cleanMarkdown(string(b))
	sec, _ := ParseSections(md)
	if err := s.st.Mem().SaveSummary(ctx, &index.SummaryRow{Session: sid, Project: project, Source: "claude-session-memory",
		Markdown: md, Sections: sec, Created: s.now().UTC()}); err != nil {
		return err
	}
	res.Summaries++
	return nil
}

func readSmall(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (a named pipe or device would block); skipped", path)
	}
	if fi.Size() > maxNativeFile {
		return nil, fmt.Errorf("%s is %d KB: larger than the %d KB a memory file may have; skipped", path, fi.Size()>>10, maxNativeFile>>10)
	}
	return os.ReadFile(path)
}

// nativeMemories turns a memory file into memories: each list item or
// paragraph line is one, typed by the rules (or by its heading), tagged
// with the file's name.
func nativeMemories(md, project, path string) []NewMemory {
	var out []NewMemory
	heading := ""
	tag := strings.ToLower(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	proseLines(md, func(h string) { heading = h }, func(line string) {
		item := stripMarkdown(line)
		if len(item) < 12 || mdLinkOnly.MatchString(item) {
			return
		}
		t := headingType(heading)
		if c, ok := classifyLine(item); ok && t == "" {
			t = c
		}
		if t == "" {
			t = Fact
		}
		tags := []string{"claude-memory"}
		if tag != "memory" {
			tags = append(tags, tag)
		}
		out = append(out, NewMemory{Project: project, Type: t, Content: item, Tags: tags, Origin: OriginClaudeMemory, Status: Pending})
	})
	return out
}

func headingType(h string) Type {
	h = strings.ToLower(h)
	for _, t := range Types {
		if strings.Contains(h, string(t)) {
			return t
		}
	}
	for _, k := range headingWords {
		if containsAny(h, k.words) {
			return k.typ
		}
	}
	return ""
}

// headingWords type a heading that names no type, in order.
var headingWords = []struct {
	words []string
	typ   Type
}{
	{[]string{"prefer", "style", "convention"}, Preference},
	{[]string{"bug", "fix"}, Bugfix},
	{[]string{"pitfall", "caveat", "gotcha"}, Gotcha},
}
