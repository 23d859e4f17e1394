package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/transcripts"
)

// ErrNoProject is returned when a project name matches no stored project.
var ErrNoProject = errors.New("no project matches")

// ErrAmbiguousProject is returned when a name that must name one project
// matches several.
var ErrAmbiguousProject = errors.New("several projects match")

// MatchProjects turns what a person or Claude typed for a project into the
// stored project paths it names. It is the one rule every front end uses
// (CLI --project, MCP `project`, /recall). A project is a git repository
// (ProjectOf): a worktree or subfolder names its repository.
//
//  1. "" names no project: nil, no filter.
//  2. "." is the current working directory's project.
//  3. A stored project's exact path names that project alone, as does the
//     exact path of a folder its sessions ran in (a worktree, a
//     subfolder), and an absolute path whose project (ProjectFor) is
//     stored.
//  4. Otherwise every stored project whose path, folder name or one of
//     whose session folders contains the text, ignoring case.
//  5. Nothing matches: an absolute path names its project (ProjectFor: a
//     project cairn has not indexed yet); anything else is ErrNoProject.
func (s *Store) MatchProjects(ctx context.Context, name string) ([]string, error) {
	p, err := projectQuery(name)
	if p == "" || err != nil {
		return nil, err
	}
	ps, err := s.Projects(ctx)
	if err != nil {
		return nil, err
	}
	owner, err := s.pathOwner(ctx, p)
	if err != nil {
		return nil, err
	}
	if x, ok := namedExactly(ps, p, owner); ok {
		return []string{x}, nil
	}
	if out := projectsContaining(ps, p); len(out) > 0 {
		return out, nil
	}
	if owner != "" {
		return []string{owner}, nil
	}
	return nil, fmt.Errorf("%w %q (list them with `cairn projects`)", ErrNoProject, p)
}

// pathOwner is the project p names when it is an absolute path
// (ProjectFor), else "".
func (s *Store) pathOwner(ctx context.Context, p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", nil
	}
	return s.ProjectFor(ctx, p)
}

// namedExactly is the stored project p names alone (rule 3 of
// MatchProjects): its exact path, the exact path of a folder its sessions
// ran in, or a path whose project, owner, is it.
func namedExactly(ps []transcripts.ProjectSummary, p, owner string) (string, bool) {
	for _, x := range ps {
		if x.Path == p || x.Path == owner || slices.Contains(x.Folders, p) {
			return x.Path, true
		}
	}
	return "", false
}

// projectQuery is what name asks MatchProjects for: "" for nothing, the
// working directory for ".", an absolute path cleaned, else the text.
func projectQuery(name string) (string, error) {
	p := strings.TrimSpace(name)
	if p == "." {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("resolving project \".\": %w", err)
		}
		p = wd
	}
	if filepath.IsAbs(p) {
		p = filepath.Clean(p)
	}
	return p, nil
}

// projectsContaining are the projects of ps whose path, name or one of
// whose session folders contains text, ignoring case.
func projectsContaining(ps []transcripts.ProjectSummary, text string) []string {
	lp := strings.ToLower(text)
	has := func(s string) bool { return strings.Contains(strings.ToLower(s), lp) }
	var out []string
	for _, x := range ps {
		if has(x.Path) || has(x.Name) || slices.ContainsFunc(x.Folders, has) {
			out = append(out, x.Path)
		}
	}
	return out
}

// ResolveProject is MatchProjects for a name that must name one project
// (memories are filed under one): several matches are ErrAmbiguousProject.
func (s *Store) ResolveProject(ctx context.Context, name string) (string, error) {
	ps, err := s.MatchProjects(ctx, name)
	switch {
	case err != nil || len(ps) == 0:
		return "", err
	case len(ps) > 1:
		return "", fmt.Errorf("%w %q: %s; give more of the path", ErrAmbiguousProject, strings.TrimSpace(name), strings.Join(ps, ", "))
	}
	return ps[0], nil
}
