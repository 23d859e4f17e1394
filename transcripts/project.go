package transcripts

import (
	"fmt"
	"os"
	"path/filepath"
)

// DiscoverProject reads one project folder under claudeDir/projects, as
// Discover does for all of them: a caller that knows which project changed
// (a hook has the transcript path) need not stat every file of every
// project. The folder's problems are in the returned Tree's Problems.
func DiscoverProject(claudeDir, name string) (*Tree, error) {
	return discoverProject(claudeDir, name, nil)
}

// discoverProject is DiscoverProject, recording the folders it reads in
// c when c is not nil.
func discoverProject(claudeDir, name string, c *DirCache) (*Tree, error) {
	dir := filepath.Join(claudeDir, "projects", name)
	t := &Tree{ClaudeDir: claudeDir}
	st, err := os.Stat(dir)
	if err != nil {
		return t, fmt.Errorf("reading project folder %s: %w", dir, err)
	}
	if !st.IsDir() {
		return t, fmt.Errorf("%s is not a folder", dir)
	}
	p := &Project{Name: name, Dir: dir, DecodedPath: DecodeProjectName(name)}
	t.Problems = append(t.Problems, p.scan(c)...)
	if len(p.Files) > 0 || len(p.MemoryFiles) > 0 {
		t.Projects = append(t.Projects, p)
	}
	return t, nil
}
