package remote

import (
	"errors"
	"fmt"
	"testing"
)

// A push that finds the remote's branch lock held (git's words, as a
// killed receive-pack left it in CI) is told apart from other failures,
// and the file is named.
func TestRefLock(t *testing.T) {
	msg := "remote: error: cannot lock ref 'refs/heads/main': Unable to create '/tmp/TestKillSync4033851986/001/cairn.git/./refs/heads/main.lock': File exists.\n" +
		"remote: Another git process seems to be running in this repository\n ! [remote rejected] ed087ae -> main (failed to update ref)"
	err := fmt.Errorf("pushing: %w", &gitError{args: []string{"push"}, msg: msg})
	if got, want := refLock(err), "/tmp/TestKillSync4033851986/001/cairn.git/refs/heads/main.lock"; got != want {
		t.Fatalf("refLock = %q, want %q", got, want)
	}
	if !rejected(errors.Unwrap(err)) {
		t.Fatal("a held lock is not retried")
	}
	if got := refLock(&gitError{args: []string{"push"}, msg: "fatal: could not read from remote repository"}); got != "" {
		t.Fatalf("refLock of another failure = %q", got)
	}
}
