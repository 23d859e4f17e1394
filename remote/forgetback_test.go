package remote_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The other direction: a forget on B of a session that ran on A
// (B holds it imported) removes it on A after A's next sync — from A's
// store and search, and from every file of both data dirs, the clones'
// .git included, even though A's Claude Code still has the transcript;
// A's manifest no longer lists it, so a third machine never gets it.
func TestForgetOnBRemovesOnA(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes and syncs two machines")
	}
	t.Setenv("CAIRN_CONFIG", "")
	ctx := context.Background()
	const word = "quokkabrisket"
	url := bareRepo(t)
	A := newMachine(t, "laptop", demoFolder)
	B := newMachine(t, "desktop")
	plant(t, A, word)
	initRemote(t, A, url)
	initRemote(t, B, url)
	A.sync(t)
	B.sync(t)
	b := B.open(t)
	if hits := searchSessions(t, b, word); len(hits) != 1 || hits[0] != demoSession {
		b.Close()
		t.Fatalf("B finds %v for %s, want A's demo session", hits, word)
	}
	if _, err := b.Forget(ctx, "", demoSession, nil); err != nil {
		b.Close()
		t.Fatal(err)
	}
	b.Close()
	B.sync(t)
	if r := A.sync(t); r.Forgotten == 0 {
		t.Fatalf("A forgot nothing of B's forget")
	}
	B.sync(t) // takes the history A replaced
	a := A.open(t)
	if hits := searchSessions(t, a, word); len(hits) != 0 {
		t.Errorf("A still finds %v", hits)
	}
	a.Close()
	// A's next sync reads its Claude Code again: the transcript there must
	// not bring the session back, here or in the remote.
	if r := A.sync(t); r.PushedSessions != 0 {
		t.Errorf("A pushed %d sessions after the forget", r.PushedSessions)
	}
	a = A.open(t)
	if hits := searchSessions(t, a, word); len(hits) != 0 {
		t.Errorf("after another sync A finds %v again", hits)
	}
	a.Close()
	for _, dir := range []string{A.data, B.data} {
		if hits := grepDir(t, dir, word); len(hits) > 0 {
			t.Errorf("after B's forget and a sync on each, %s is still in %v", word, hits)
		}
		if hits := grepDir(t, filepath.Join(dir, "remote", "repo", "machines"), demoSession); !onlyTombstones(hits) {
			t.Errorf("the forgotten session is still named in %v", hits)
		}
	}
	// The remote's branch holds no bundle of it: every bundle it holds is
	// named by a manifest, and no manifest names the session.
	out, err := exec.CommandContext(t.Context(), "git", "--git-dir", url, "grep", "-l", demoSession, "main", "--", "machines/*/manifest.json").CombinedOutput()
	if err == nil || strings.TrimSpace(string(out)) != "" {
		t.Errorf("a manifest of the remote still names the session: %s", out)
	}
}

// onlyTombstones reports whether every file in hits is a tombstones.json
// (where a forgotten session's id stays, so the forget keeps travelling).
func onlyTombstones(hits []string) bool {
	for _, h := range hits {
		if filepath.Base(h) != "tombstones.json" {
			return false
		}
	}
	return true
}
