package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// git runs the git program, not a library: the user's git already knows
// how to reach their remote (SSH keys and agent, ~/.ssh/config, credential
// helpers, proxies, insteadOf rewrites), and any host git speaks to works
// without cairn holding a credential. Errors carry git's own words.
type git struct {
	dir string // the working tree
	url string // the remote, for messages
}

// ErrNoGit is returned when git is not on PATH.
var ErrNoGit = errors.New("git is not installed (or not on PATH): cairn remote runs your git so your SSH keys and credential helpers apply; install git and run the command again (nothing was changed)")

func checkGit() error {
	if _, err := exec.LookPath("git"); err != nil {
		return ErrNoGit
	}
	return nil
}

// run runs git with args in g.dir and returns its trimmed stdout.
func (g *git) run(ctx context.Context, args ...string) (string, error) {
	return g.runEnv(ctx, nil, args...)
}

func (g *git) runEnv(ctx context.Context, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = g.dir
	// Never stop for a password or a host-key question: sync runs in the
	// background too. The user's SSH agent and credential helpers still work.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_SSH_COMMAND="+sshCommand(), "LC_ALL=C")
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return strings.TrimSpace(out.String()), &gitError{args: args, msg: msg}
	}
	return strings.TrimSpace(out.String()), nil
}

// sshCommand keeps the user's GIT_SSH_COMMAND, else ssh in batch mode (a
// key that needs a passphrase typed fails rather than hangs).
func sshCommand() string {
	if c := os.Getenv("GIT_SSH_COMMAND"); c != "" {
		return c
	}
	return "ssh -o BatchMode=yes"
}

// gitError is a git command that failed, with git's message.
type gitError struct {
	args []string
	msg  string
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: %s", strings.Join(e.args, " "), e.msg)
}

// refLockRe is git's message when a ref's lock file exists.
var refLockRe = regexp.MustCompile(`Unable to create '([^']+\.lock)': File exists`)

// refLock is the lock file a failed push found held on the remote ("" when
// it failed otherwise).
func refLock(err error) string {
	var ge *gitError
	if !errors.As(err, &ge) {
		return ""
	}
	if m := refLockRe.FindStringSubmatch(ge.msg); m != nil {
		return filepath.Clean(m[1])
	}
	return ""
}

// rejected reports whether a push failed because the remote moved on (a
// push from another machine came first): the sync starts again from a
// fresh fetch.
func rejected(err error) bool {
	var ge *gitError
	if !errors.As(err, &ge) {
		return false
	}
	m := ge.msg
	return strings.Contains(m, "[rejected]") || strings.Contains(m, "non-fast-forward") ||
		strings.Contains(m, "stale info") || strings.Contains(m, "fetch first") || strings.Contains(m, "[remote rejected]") && strings.Contains(m, "lock")
}
