package remote_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/remote"
	"github.com/gofrs/flock"
)

// TestBadInput: no git, an unreachable remote, a sync already running and
// a damaged file in the remote each give a message naming what and what
// next, and lose nothing.
func TestBadInput(t *testing.T) {
	if testing.Short() {
		t.Skip("syncs two machines")
	}
	t.Setenv("CAIRN_CONFIG", "")
	ctx := context.Background()
	url := bareRepo(t)
	A := newMachine(t, "laptop", demoFolder)
	B := newMachine(t, "desktop")

	if _, err := remote.Sync(ctx, A.paths(), remote.Options{}); !errors.Is(err, remote.ErrNotConfigured) {
		t.Errorf("sync before init: %v, want ErrNotConfigured", err)
	}
	if _, configured, err := remote.ReadOutcome(A.data); configured || err != nil {
		t.Errorf("status before init: configured %v, %v", configured, err)
	}
	t.Run("no git", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, err := remote.Init(ctx, A.data, url, "laptop")
		if !errors.Is(err, remote.ErrNoGit) || !strings.Contains(err.Error(), "install git") {
			t.Errorf("init without git: %v", err)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "nope.git")
		_, err := remote.Init(ctx, A.data, missing, "laptop")
		if err == nil || !strings.Contains(err.Error(), "cannot reach the remote "+missing) || !strings.Contains(err.Error(), "git ls-remote") {
			t.Errorf("init of a missing remote: %v", err)
		}
		if _, err := os.Stat(filepath.Join(A.data, "remote", "remote.json")); err == nil {
			t.Errorf("an unreachable remote was recorded")
		}
	})
	initRemote(t, A, url)
	initRemote(t, B, url)
	first := A.sync(t)
	if first.PushedSessions == 0 {
		t.Fatal("A pushed nothing")
	}
	t.Run("remote gone at sync", func(t *testing.T) {
		os.Rename(url, url+".away")
		defer os.Rename(url+".away", url)
		_, err := remote.Sync(ctx, B.paths(), remote.Options{})
		if err == nil || !strings.Contains(err.Error(), "cannot reach the remote") || !strings.Contains(err.Error(), "store was not changed") {
			t.Errorf("sync with the remote gone: %v", err)
		}
		st, _ := remote.ReadStatus(B.data)
		if st.LastError == "" {
			t.Errorf("the status does not keep the error")
		}
		// status.json, what the TUI's status bar reads, says so too.
		o, configured, err := remote.ReadOutcome(B.data)
		if err != nil || !configured || !o.Failed() || !strings.Contains(o.LastError, "cannot reach the remote") || o.LastErrorAt.IsZero() {
			t.Errorf("status.json after a failed sync: %+v, %v, %v", o, configured, err)
		}
	})
	t.Run("no git at sync", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		if _, err := remote.Sync(ctx, A.paths(), remote.Options{}); !errors.Is(err, remote.ErrNoGit) {
			t.Fatalf("sync without git: %v", err)
		}
		o, _, _ := remote.ReadOutcome(A.data)
		if !o.Failed() || !strings.Contains(o.LastError, "git is not installed") || o.LastSync.IsZero() || o.Last == nil {
			t.Errorf("status.json after a sync without git (the last good sync kept): %+v", o)
		}
	})
	t.Run("locked", func(t *testing.T) {
		l := flock.New(filepath.Join(B.data, "remote", "sync.lock"))
		os.MkdirAll(filepath.Join(B.data, "remote"), 0o700)
		if ok, err := l.TryLock(); !ok || err != nil {
			t.Fatal(ok, err)
		}
		defer l.Unlock()
		_, err := remote.Sync(ctx, B.paths(), remote.Options{})
		if err == nil || !strings.Contains(err.Error(), "another `cairn remote sync` is running") {
			t.Errorf("a second sync: %v", err)
		}
	})
	// Damage A's manifest and a bundle in the remote, as a bad disk or a
	// hand edit would.
	work := t.TempDir()
	git(t, "", "clone", "-q", "-b", "main", url, work)
	var bundle string
	filepath.WalkDir(filepath.Join(work, "sessions"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && bundle == "" {
			bundle = p
		}
		return nil
	})
	os.WriteFile(bundle, []byte("not a gzip file"), 0o600)
	git(t, work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-am", "damage")
	git(t, work, "push", "-q", "origin", "HEAD:main")
	rb := B.sync(t)
	if o, _, _ := remote.ReadOutcome(B.data); o.Failed() || o.LastSync.IsZero() || o.Last == nil || o.Last.PulledSessions != rb.PulledSessions {
		t.Errorf("status.json after a good sync: %+v", o)
	}
	if len(rb.Warnings) == 0 || !strings.Contains(strings.Join(rb.Warnings, "\n"), "sessions/") {
		t.Errorf("B's sync over a damaged bundle warns %q", rb.Warnings)
	}
	if rb.PulledSessions != first.PushedSessions-1 {
		t.Errorf("B pulled %d sessions of %d with one damaged", rb.PulledSessions, first.PushedSessions)
	}
	// A's next sync writes the damaged bundle again; B then gets it.
	A.sync(t)
	if rb := B.sync(t); rb.PulledSessions != 1 || len(rb.Warnings) != 0 {
		t.Errorf("after A repaired it B pulled %d (warnings %q), want 1", rb.PulledSessions, rb.Warnings)
	}
	// A damaged manifest is a warning; nothing imported is removed.
	git(t, work, "pull", "-q", "origin", "main")
	os.WriteFile(filepath.Join(work, "machines", "laptop", "manifest.json"), []byte("{"), 0o600)
	git(t, work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-am", "damage")
	git(t, work, "push", "-q", "origin", "HEAD:main")
	rb = B.sync(t)
	if rb.Removed != 0 || !strings.Contains(strings.Join(rb.Warnings, "\n"), "machines/laptop/manifest.json") {
		t.Errorf("damaged manifest: removed %d, warnings %q", rb.Removed, rb.Warnings)
	}
	b := B.open(t)
	origins, _ := b.Store.SessionOrigins(ctx)
	b.Close()
	if len(origins) != first.PushedSessions {
		t.Errorf("B keeps %d of A's sessions, want %d", len(origins), first.PushedSessions)
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
