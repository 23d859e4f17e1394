package cli

import (
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// `cairn export --sessions` then `cairn index` of the export gives back
// the same sessions: every field `cairn sessions --json` prints, for
// every session (issue 26: worktree sessions moved to the repository
// root, models collapsed to one; issue 29: a subagent's agent_id lost).
// On the bundled sample and the claude-code-log archive (the repository
// stands alone), and on both shared corpora when they are there. The
// shared claude-code-log corpus is round-tripped only when its transcripts
// differ from the archive's: today they are the same 105 files, byte for
// byte, and the round trip of the same transcripts ran twice (a third of
// the test's time).
func TestExportSessionsRoundTripJSON(t *testing.T) {
	if withoutRace.RanAlone(t) {
		return
	}
	shared := filepath.Join(testutil.RepoRoot(), "..", "shared", "corpus")
	archive := ""
	if !testing.Short() {
		archive = filepath.Join(t.TempDir(), "claude-code-log")
		if err := testutil.ExtractClaudeCodeLog(archive); err != nil {
			t.Fatal(err)
		}
	}
	type corpus struct {
		name, dir string
		archive   bool
	}
	corpora := []corpus{
		{name: "sample", dir: sample()},
		{name: "usersaid", dir: filepath.Join(testutil.RepoRoot(), "testdata", "usersaid")},
		{name: "claude-code-log archive", archive: true},
		{name: "shared claude", dir: filepath.Join(shared, "claude")},
	}
	if ccl := filepath.Join(shared, "claude-code-log"); archive != "" && sameTranscripts(t, ccl, archive) {
		t.Logf("%s holds the archive's transcripts: round-tripped once, as the archive", ccl)
	} else {
		corpora = append(corpora, corpus{name: "shared claude-code-log", dir: ccl})
	}
	for _, c := range corpora {
		t.Run(c.name, func(t *testing.T) {
			dir := c.dir
			if c.archive {
				if testing.Short() {
					t.Skip("-short")
				}
				dir = archive
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

// sameTranscripts says whether the transcripts (.jsonl files) under a's
// and b's projects folders are the same files with the same bytes.
func sameTranscripts(t *testing.T, a, b string) bool {
	t.Helper()
	read := func(dir string) map[string]string {
		files := map[string]string{}
		err := filepath.WalkDir(filepath.Join(dir, "projects"), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
				return err
			}
			data, err := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			files[rel] = string(data)
			return err
		})
		if err != nil {
			return nil
		}
		return files
	}
	fa, fb := read(a), read(b)
	return len(fa) > 0 && maps.Equal(fa, fb)
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
