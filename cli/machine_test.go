package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
)

// Sessions synced from another machine (cairn remote) are marked with it:
// `sessions` shows @machine before the title, --json says "machine", and
// --machine keeps one machine's (or local, this machine's).
func TestSessionsByMachine(t *testing.T) {
	data := t.TempDir()
	claude := t.TempDir()
	copyTree(t, filepath.Join(sample(), "projects", "-path-to-Demo"), filepath.Join(claude, "projects", "-path-to-Demo"))
	if _, _, err := run(t, "index", "--no-embed", "--claude-dir", claude, "--data", data); err != nil {
		t.Fatal(err)
	}
	// One of the sample's sessions as cairn remote unpacks it from
	// "laptop": every uuid its own.
	var src string
	_ = filepath.WalkDir(filepath.Join(claude, "projects"), func(p string, d os.DirEntry, err error) error {
		if err == nil && src == "" && !d.IsDir() && strings.HasSuffix(p, ".jsonl") && !strings.Contains(p, "subagents") {
			src = p
		}
		return nil
	})
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	uuid := regexp.MustCompile(`[0-9a-f]{8}(-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`)
	laptop := filepath.Join(data, filepath.FromSlash(index.ImportsDir), "laptop")
	dst := filepath.Join(laptop, "projects", "-path-to-Demo", uuid.ReplaceAllString(filepath.Base(src), "0c0c0c0c$1"))
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, uuid.ReplaceAll(b, []byte("0c0c0c0c$1")), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, "index", "--no-embed", "--claude-dir", laptop, "--data", data); err != nil {
		t.Fatal(err)
	}
	list := func(args ...string) []SessionJSON {
		t.Helper()
		out, _, err := run(t, append([]string{"sessions", "--json", "--claude-dir", claude, "--data", data}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		var ss []SessionJSON
		if err := json.Unmarshal([]byte(out), &ss); err != nil {
			t.Fatal(err)
		}
		return ss
	}
	all, fromLaptop, local := list(), list("--machine", "laptop"), list("--machine", "local")
	if len(fromLaptop) != 1 || fromLaptop[0].Machine != "laptop" || !strings.HasPrefix(fromLaptop[0].ID, "0c0c0c0c") {
		t.Fatalf("--machine laptop: %+v", fromLaptop)
	}
	if len(local)+1 != len(all) || len(local) == 0 {
		t.Fatalf("%d sessions, %d local: want all but the laptop's", len(all), len(local))
	}
	for _, s := range local {
		if s.Machine != "" {
			t.Errorf("a local session says machine %q", s.Machine)
		}
	}
	out, _, err := run(t, "sessions", "--wide", "--claude-dir", claude, "--data", data)
	if err != nil || !strings.Contains(out, "@laptop · ") {
		t.Fatalf("sessions table: %v\n%s", err, out)
	}
}
