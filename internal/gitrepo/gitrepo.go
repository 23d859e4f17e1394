// Package gitrepo finds the git repository a folder belongs to by reading
// the `.git` entries on disk, as `git rev-parse --git-common-dir` would,
// without running git: it is called from hooks, where a subprocess per
// event costs more than the rest of the hook.
//
// It reads three things: a `.git` folder (an ordinary checkout), a `.git`
// file holding `gitdir: <path>` (a linked worktree or a submodule) and, in
// that git dir, a `commondir` file naming the repository's shared git dir
// (linked worktrees have one, submodules do not). go-git would do the same
// with a large dependency for two small file reads.
//
// For folders that no longer exist, Guess applies cairn's documented
// naming rule for worktrees (see Guess).
package gitrepo

import (
	"os"
	"path/filepath"
	"strings"
)

// Repo is where a folder sits in a git repository.
type Repo struct {
	// Root names the repository: the main checkout's top folder (the
	// folder holding the common git dir `.git`). For a bare repository
	// it is the common git dir's parent when the dir is hidden
	// (`repo/.bare`), else the dir without its `.git` suffix.
	Root string
	// Worktree is the top folder of the checkout the folder is in: Root
	// itself, or a linked worktree.
	Worktree string
	// CommonDir is the git dir every worktree of the repository shares.
	CommonDir string
}

// Linked reports whether the folder is in a linked worktree rather than
// the main checkout.
func (r Repo) Linked() bool { return r.Worktree != r.Root }

// maxGitFile bounds what is read of a `.git` or `commondir` file.
const maxGitFile = 4096

// Find returns the repository holding dir (an absolute path), walking up
// from dir to the first folder with a `.git` entry. ok is false when dir
// is in no repository, does not exist, or its `.git` cannot be read.
func Find(dir string) (Repo, bool) {
	if dir == "" || !filepath.IsAbs(dir) {
		return Repo{}, false
	}
	dir = filepath.Clean(dir)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return Repo{}, false
	}
	for d := dir; ; d = filepath.Dir(d) {
		dot := filepath.Join(d, ".git")
		if fi, err := os.Stat(dot); err == nil {
			var r Repo
			var ok bool
			if fi.IsDir() {
				r, ok = Repo{Root: d, Worktree: d, CommonDir: dot}, true
			} else {
				r, ok = fromGitFile(d, dot)
			}
			// git writes a worktree's gitdir with symlinks resolved: so
			// is every path here, or a checkout reached through a
			// symlink (macOS's /var, a linked ~/code) would name its
			// repository differently from its worktrees.
			r.Root, r.Worktree, r.CommonDir = realPath(r.Root), realPath(r.Worktree), realPath(r.CommonDir)
			return r, ok
		}
		if filepath.Dir(d) == d {
			return Repo{}, false
		}
	}
}

// fromGitFile reads the `.git` file of the checkout top: a linked
// worktree's points into <common>/worktrees/<name>, whose commondir file
// names <common>; a submodule's points to its own git dir.
func fromGitFile(top, dot string) (Repo, bool) {
	b, ok := readSmall(dot)
	if !ok {
		return Repo{}, false
	}
	line := strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
	gd, found := strings.CutPrefix(line, "gitdir:")
	if !found {
		return Repo{}, false
	}
	gitDir := abs(top, strings.TrimSpace(gd))
	c, ok := readSmall(filepath.Join(gitDir, "commondir"))
	if !ok {
		// No commondir: a submodule (or a worktree whose admin dir is
		// gone). The checkout is its own repository.
		return Repo{Root: top, Worktree: top, CommonDir: gitDir}, true
	}
	common := abs(gitDir, strings.TrimSpace(string(c)))
	return Repo{Root: rootOf(common), Worktree: top, CommonDir: common}, true
}

// rootOf names the repository whose common git dir is common.
func rootOf(common string) string {
	base := filepath.Base(common)
	switch {
	case base == ".git":
		return filepath.Dir(common)
	case strings.HasPrefix(base, "."):
		return filepath.Dir(common) // repo/.bare
	case strings.HasSuffix(base, ".git"):
		return strings.TrimSuffix(common, ".git")
	}
	return common
}

// realPath is p with symlinks resolved, p itself when that fails.
func realPath(p string) string {
	if p == "" {
		return p
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func abs(base, p string) string {
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

func readSmall(path string) ([]byte, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	b := make([]byte, maxGitFile)
	n, _ := f.Read(b)
	return b[:n], n > 0
}

// worktreeParents are the folders, inside a repository, that tools put
// linked worktrees in: Claude Code's own (`claude --worktree`, and
// subagents with isolation "worktree"), and the common `.worktrees`.
var worktreeParents = []string{".claude/worktrees", ".worktrees"}

// worktreeSiblingSuffixes name a folder beside a repository that holds
// its worktrees: `<repo>-worktrees/<name>`, `<repo>.worktrees/<name>`.
var worktreeSiblingSuffixes = []string{"-worktrees", ".worktrees", "_worktrees"}

// Guess is the naming rule for a folder that is gone (or was never seen
// on this machine): it returns the repository a worktree folder belonged
// to when path lies in
//
//	<repo>/.claude/worktrees/<name>[/…]
//	<repo>/.worktrees/<name>[/…]
//	<repo>-worktrees/<name>[/…]   (also <repo>.worktrees, <repo>_worktrees)
//
// and ok false otherwise. The outermost match wins, so a worktree made
// inside another worktree still names the first repository.
func Guess(path string) (string, bool) {
	if path == "" {
		return "", false
	}
	p := filepath.ToSlash(filepath.Clean(path))
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts)-1; i++ {
		// parts[i+1] is the worktree's name: it must exist.
		for _, wp := range worktreeParents {
			n := strings.Count(wp, "/") + 1
			if i+n >= len(parts) || strings.Join(parts[i:i+n], "/") != wp || parts[i+n] == "" {
				continue
			}
			return join(parts[:i]), true
		}
		for _, suf := range worktreeSiblingSuffixes {
			if name, ok := strings.CutSuffix(parts[i], suf); ok && name != "" && parts[i+1] != "" {
				return join(append(append([]string{}, parts[:i]...), name)), true
			}
		}
	}
	return "", false
}

// join rebuilds a path from the parts of a slash-separated one.
func join(parts []string) string {
	s := strings.Join(parts, "/")
	if s == "" {
		s = "/"
	}
	return filepath.FromSlash(s)
}
