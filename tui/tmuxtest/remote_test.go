//go:build linux

package tmuxtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 30, as a person sees it: with a remote set up, the status bar
// says when `cairn remote sync` last ran, and, when the last one failed,
// that it failed and why — read from what the sync recorded (status.json),
// updated while cairn runs.
func TestStatusBarShowsLastRemoteSync(t *testing.T) {
	root, _ := project(t)
	claude, data := filepath.Join(root, "claude"), filepath.Join(root, "data")
	bare := filepath.Join(root, "sync.git")
	if out, err := exec.CommandContext(t.Context(), "git", "init", "-q", "--bare", bare).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v %s", err, out)
	}
	cairn := func(wantErr bool, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), bin, append(args, "--data", data, "--claude-dir", claude)...)
		cmd.Env = append(os.Environ(), "CAIRN_CONFIG=", "NO_COLOR=1")
		out, err := cmd.CombinedOutput()
		if (err != nil) != wantErr {
			t.Fatalf("cairn %s: %v (want error: %v)\n%s", strings.Join(args, " "), err, wantErr, out)
		}
		return string(out)
	}
	s := newServer(t)
	env := []string{"TMPDIR=" + t.TempDir(), "PATH=/usr/bin:/bin", "CAIRN_CONFIG="}
	args := []string{"--claude-dir", claude, "--data", data}

	// No remote: the status bar says nothing of syncs.
	p := s.start("noremote", 100, 30, env, args...)
	sc := p.waitFor(60*time.Second, "lag 0")
	if strings.Contains(lastLine(sc), "sync") {
		t.Fatalf("no remote set up, the status bar speaks of syncs:\n%s", sc)
	}
	p.kill()

	cairn(false, "remote", "init", bare, "--machine", "laptop")
	p = s.start("remote", 100, 30, env, args...)
	defer p.kill()
	p.waitFor(60*time.Second, "│ not synced yet │ embedder")

	cairn(false, "remote", "sync")
	p.waitFor(10*time.Second, "│ synced just now │ embedder")

	// The remote goes away (a USB disk unplugged): the sync fails, and the
	// status bar says so with git's reason.
	if err := os.Rename(bare, bare+".away"); err != nil {
		t.Fatal(err)
	}
	out := cairn(true, "remote", "sync")
	if !strings.Contains(out, "cannot reach the remote") {
		t.Fatalf("the failed sync says: %s", out)
	}
	sc = p.waitFor(10*time.Second, "│ sync failed just now: cannot reach the remote "+bare[:10])
	if l := lastLine(sc); !strings.HasPrefix(strings.TrimSpace(l), "store ") {
		t.Fatalf("the failure is not on the status line: %q", l)
	}
	t.Logf("after the failed sync: %s", lastLine(sc))

	// Back: the next sync clears it.
	if err := os.Rename(bare+".away", bare); err != nil {
		t.Fatal(err)
	}
	cairn(false, "remote", "sync")
	sc = p.waitFor(10*time.Second, "│ synced just now │ embedder")
	if strings.Contains(sc, "sync failed") {
		t.Fatalf("a sync that worked still shows the last failure:\n%s", sc)
	}
	t.Logf("after the next sync: %s", lastLine(sc))
}

// lastLine is the last non-empty line of a screen: the status bar.
func lastLine(sc string) string {
	ls := strings.Split(strings.TrimRight(sc, "\n "), "\n")
	return ls[len(ls)-1]
}
