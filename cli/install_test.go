package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/install"
)

func TestInstallDryRunAndTemporaryBuild(t *testing.T) {
	claude := filepath.Join(t.TempDir(), "claude")
	out, _, err := run(t, "install", "--dry-run", "--claude-dir", claude)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"would be created", "settings.json", "hook SessionStart", "dry run: nothing was written"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(claude); !os.IsNotExist(err) {
		t.Fatal("a dry run created files")
	}
	// The test binary is a temporary build: a real install is refused.
	if _, _, err := run(t, "install", "--claude-dir", claude); err == nil || !strings.Contains(err.Error(), "temporary build") {
		t.Fatalf("want a refusal, got %v", err)
	}
	if _, _, err := run(t, "install", "--scope", "galaxy", "--dry-run", "--claude-dir", claude); err == nil {
		t.Fatal("a bad scope must be refused")
	}
}

func TestDoctorJSON(t *testing.T) {
	data := indexedSample(t)
	out, _, err := run(t, "doctor", "--json", "--data", data, "--claude-dir", t.TempDir())
	var rep install.Report
	if jerr := json.Unmarshal([]byte(out), &rep); jerr != nil {
		t.Fatalf("not JSON (%v): %s", jerr, out)
	}
	names := map[string]string{}
	for _, c := range rep.Checks {
		names[c.Name] = c.Status
	}
	if names["store"] != install.OK || names["hooks"] != install.Warn || names["binary"] != install.OK {
		t.Fatalf("checks: %v", names)
	}
	if err != nil && rep.Healthy() {
		t.Fatalf("healthy report but error %v", err)
	}
}
