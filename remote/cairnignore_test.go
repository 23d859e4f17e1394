package remote_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/index"
)

// A project holding a .cairnignore never leaves the machine: opted out
// after its sessions were indexed, none of them is in the remote (no
// manifest names its path) and none reaches the other machine, while the
// machine's other projects travel.
func TestCairnignoreNeverLeaves(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes and syncs two machines")
	}
	t.Setenv("CAIRN_CONFIG", "")
	ctx := context.Background()
	url := bareRepo(t)
	A := newMachine(t, "laptop", demoFolder, spotter)
	B := newMachine(t, "desktop")
	// The demo sessions ran in a real folder here, so a .cairnignore can
	// be put in it.
	proj := filepath.Join(t.TempDir(), "Demo")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(filepath.Join(A.claude, "projects", demoFolder), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.ReplaceAll(string(b), "/path/to/Demo", proj)), 0o600)
		}
		return nil
	})
	a := A.open(t)
	if _, err := a.Index(ctx, app.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	ss, _ := a.Store.Sessions(ctx, index.SessionFilter{})
	a.Close()
	mine := 0
	for _, s := range ss {
		if s.ProjectPath == proj {
			mine++
		}
	}
	if mine == 0 {
		t.Fatalf("no session of %s indexed", proj)
	}
	if err := os.WriteFile(filepath.Join(proj, ".cairnignore"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	initRemote(t, A, url)
	initRemote(t, B, url)
	ra := A.sync(t)
	if ra.PushedSessions == 0 || ra.Excluded < mine {
		t.Fatalf("A pushed %d sessions, opted out %d; want some pushed and the %d of %s opted out", ra.PushedSessions, ra.Excluded, mine, proj)
	}
	B.sync(t)
	out, err := exec.CommandContext(t.Context(), "git", "--git-dir", url, "grep", "-c", proj, "main", "--", "machines").CombinedOutput()
	if err == nil || strings.TrimSpace(string(out)) != "" {
		t.Errorf("the remote names the opted-out project: %s", out)
	}
	b := B.open(t)
	defer b.Close()
	got, _ := b.Store.Sessions(ctx, index.SessionFilter{})
	if len(got) == 0 {
		t.Fatal("B got nothing of A's other projects")
	}
	for _, s := range got {
		if s.ProjectPath == proj {
			t.Errorf("session %s of the opted-out project reached B", s.ID)
		}
	}
}
