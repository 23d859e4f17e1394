package cli

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// The store-health commands end to end through the CLI: backup, restore,
// stats, consolidate, forget; and their usage errors.
func TestMaintenanceCommands(t *testing.T) {
	data := indexedSample(t)
	if _, _, err := run(t, "extract", "--claude-dir", sample(), "--data", data); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, "stats", "--json", "--claude-dir", sample(), "--data", data)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Total int `json:"total"`
		Runs  int `json:"extraction_runs"`
		Store struct {
			Sessions int `json:"sessions"`
		} `json:"store"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Total == 0 || st.Store.Sessions == 0 || st.Runs == 0 {
		t.Fatalf("stats --json: %v %+v\n%s", err, st, out)
	}
	out, _, err = run(t, "stats", "--claude-dir", sample(), "--data", data)
	if err != nil || !strings.Contains(out, "By type") || !strings.Contains(out, "keep rate") {
		t.Fatalf("stats: %v\n%s", err, out)
	}
	out, _, err = run(t, "memories", "consolidate", "--dry-run", "--claude-dir", sample(), "--data", data)
	if err != nil || !strings.Contains(out, "would propose") {
		t.Fatalf("consolidate --dry-run: %v\n%s", err, out)
	}
	if _, _, err := run(t, "memories", "consolidate", "--undo", "--archive", "--data", data); !isUsage(err) {
		t.Fatalf("--undo --archive: %v, want a usage error", err)
	}

	backup := filepath.Join(t.TempDir(), "b.db")
	out, _, err = run(t, "backup", "-o", backup, "--claude-dir", sample(), "--data", data)
	if err != nil || !strings.Contains(out, "backed up 8 sessions") {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	restored := t.TempDir()
	out, _, err = run(t, "restore", backup, "--claude-dir", sample(), "--data", restored)
	if err != nil || !strings.Contains(out, "restored 8 sessions") {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	if _, _, err := run(t, "restore", backup, "--claude-dir", sample(), "--data", restored); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("restore over a full store: %v", err)
	}

	if _, _, err := run(t, "forget", "--data", data); !isUsage(err) {
		t.Fatalf("forget with no target: %v, want a usage error", err)
	}
	if _, _, err := run(t, "forget", "--project", "x", "--session", "y", "--data", data); !isUsage(err) {
		t.Fatalf("forget with two targets: %v, want a usage error", err)
	}
	out, _, err = run(t, "forget", "--session", "1af7fc5e", "--claude-dir", sample(), "--data", data)
	if err != nil || !strings.Contains(out, "forgot session 1af7fc5e") {
		t.Fatalf("forget: %v\n%s", err, out)
	}
	out, _, _ = run(t, "sessions", "--claude-dir", sample(), "--data", data)
	if strings.Contains(out, "1af7fc5e") {
		t.Fatalf("a forgotten session is listed after a sync:\n%s", out)
	}
}

func isUsage(err error) bool {
	var ue usageError
	return errors.As(err, &ue)
}

// export --sessions writes Claude Code files for one project and refuses
// bad combinations.
func TestExportSessionsCommand(t *testing.T) {
	data, out := t.TempDir(), t.TempDir()
	got, _, err := run(t, "export", "--sessions", "--project", "Demo", "-o", out, "--claude-dir", sample(), "--data", data)
	if err != nil || !strings.Contains(got, "exported 3 sessions") {
		t.Fatalf("export --sessions --project Demo: %v\n%s", err, got)
	}
	files, _ := filepath.Glob(filepath.Join(out, "projects", "-path-to-Demo", "*.jsonl"))
	if len(files) != 3 {
		t.Fatalf("wrote %v", files)
	}
	if _, _, err := run(t, "export", "--sessions", "--data", data); !isUsage(err) {
		t.Fatalf("--sessions without -o: %v", err)
	}
	if _, _, err := run(t, "export", "--project", "Demo", "--data", data); !isUsage(err) {
		t.Fatalf("--project without --sessions: %v", err)
	}
}
