package hook_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/hook"
	"github.com/cairn-dev/cairn/index"
)

// A hook that finds the store waiting for an upgrade that rewrites its
// rows does not run it inside Claude Code's wait: it answers at once,
// injects nothing, and a detached background run upgrades the store.
func TestHookLeavesARewritingUpgradeToTheBackground(t *testing.T) {
	e := newSyncedEnv(t)
	db, err := sql.Open("sqlite", filepath.Join(e.data, index.DBName))
	if err != nil {
		t.Fatal(err)
	}
	version := func() int {
		var v int
		if err := db.QueryRowContext(context.Background(), "PRAGMA user_version").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	defer db.Close()
	// The last migration packs the rows' kinds: pending again, it is one
	// that rewrites rows.
	if _, err := db.ExecContext(context.Background(), "PRAGMA user_version = 16"); err != nil {
		t.Fatal(err)
	}
	r := e.run(t, input(hook.UserPromptSubmit, demoSession, e.transcript(demoFolder, demoSession), map[string]any{"prompt": "how do we keep the todo state"}), nil)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "" {
		t.Fatalf("exit %d, stdout %q: want nothing printed", r.code, r.stdout)
	}
	if !strings.Contains(e.logText(), "left to a background run") {
		t.Fatalf("the hook log does not say the upgrade was handed off:\n%s", e.logText())
	}
	deadline := time.Now().Add(60 * time.Second)
	for version() != index.SchemaVersion {
		if time.Now().After(deadline) {
			t.Fatalf("schema %d a minute after the hook, want %d; log:\n%s", version(), index.SchemaVersion, e.logText())
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The background run ends (its store closed) before the test's data
	// dir is removed.
	for !strings.Contains(e.logText(), "background upgrade: done") {
		if time.Now().After(deadline) {
			t.Fatalf("the background upgrade did not finish; log:\n%s", e.logText())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // its exit
}
