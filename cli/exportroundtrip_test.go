package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// `cairn export --sessions` then `cairn index` of the export gives back
// the same sessions: every field `cairn sessions --json` prints, for
// every session (issue 26: worktree sessions moved to the repository
// root, models collapsed to one; issue 29: a subagent's agent_id lost).
// On the bundled sample and the claude-code-log archive (the repository
// stands alone), and on both shared corpora when they are there.
func TestExportSessionsRoundTripJSON(t *testing.T) {
	shared := filepath.Join(testutil.RepoRoot(), "..", "shared", "corpus")
	for _, c := range []struct {
		name, dir string
		archive   bool
	}{
		{name: "sample", dir: sample()},
		{name: "usersaid", dir: filepath.Join(testutil.RepoRoot(), "testdata", "usersaid")},
		{name: "claude-code-log archive", archive: true},
		{name: "shared claude", dir: filepath.Join(shared, "claude")},
		{name: "shared claude-code-log", dir: filepath.Join(shared, "claude-code-log")},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := c.dir
			if c.archive {
				if testing.Short() {
					t.Skip("-short")
				}
				dir = t.TempDir()
				if err := testutil.ExtractClaudeCodeLog(dir); err != nil {
					t.Fatal(err)
				}
			} else if _, err := os.Stat(filepath.Join(dir, "projects")); err != nil {
				t.Skip("not present:", dir)
			} else {
				// A copy dated as ~/.claude is: the order cairn reads a
				// project's files in (oldest first) decides which model
				// and branch were seen first.
				cp := t.TempDir()
				if err := testutil.CopyDir(dir, cp); err != nil {
					t.Fatal(err)
				}
				if err := testutil.DateByLastLine(cp); err != nil {
					t.Fatal(err)
				}
				dir = cp
			}
			exportRoundTrip(t, dir)
		})
	}
}

func exportRoundTrip(t *testing.T, claude string) {
	dataDir := func() string {
		d := t.TempDir()
		if err := os.WriteFile(filepath.Join(d, "config.toml"), []byte("embedder.kind = \"none\"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return d
	}
	sessions := func(claude, data string) map[string]map[string]any {
		t.Helper()
		if _, _, err := run(t, "index", "--claude-dir", claude, "--data", data); err != nil {
			t.Fatal(err)
		}
		out, _, err := run(t, "sessions", "--json", "--claude-dir", claude, "--data", data)
		if err != nil {
			t.Fatal(err)
		}
		var list []map[string]any
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatalf("not JSON: %v", err)
		}
		byID := map[string]map[string]any{}
		for _, s := range list {
			byID[s["id"].(string)] = s
		}
		return byID
	}
	t.Setenv("CAIRN_CONFIG", "")
	src := dataDir()
	before := sessions(claude, src)
	if len(before) == 0 {
		t.Fatal("no sessions")
	}
	out := filepath.Join(t.TempDir(), "export")
	if _, _, err := run(t, "export", "--sessions", "-o", out, "--claude-dir", claude, "--data", src); err != nil {
		t.Fatal(err)
	}
	after := sessions(out, dataDir())
	if len(after) != len(before) {
		t.Errorf("%d sessions after the round trip, %d before", len(after), len(before))
	}
	ids := make([]string, 0, len(before))
	for id := range before {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	worktrees, models := 0, 0
	for _, id := range ids {
		was, now := before[id], after[id]
		if now == nil {
			t.Errorf("session %s lost", id)
			continue
		}
		if was["cwd"] != was["project"] {
			worktrees++
		}
		if m, _ := was["models"].([]any); len(m) > 1 {
			models++
		}
		for field := range was {
			if !reflect.DeepEqual(was[field], now[field]) {
				w, _ := json.Marshal(was[field])
				n, _ := json.Marshal(now[field])
				t.Errorf("session %s, %s:\n was %.300s\n now %.300s", id[:8], field, w, n)
			}
		}
		for field := range now {
			if _, ok := was[field]; !ok {
				t.Errorf("session %s: %s appeared", id[:8], field)
			}
		}
	}
	t.Logf("%d sessions round-tripped field for field (%d ran outside their project's root, %d used several models)", len(before), worktrees, models)
}
