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

// `cairn search --machine NAME|local` keeps one machine's sessions (the
// rule is index's, SearchQuery.Machine), and a result from another machine
// names it: @machine before the title, "machine" in --json.
func TestSearchByMachine(t *testing.T) {
	data, claude := t.TempDir(), t.TempDir()
	copyTree(t, filepath.Join(sample(), "projects", "-path-to-Demo"), filepath.Join(claude, "projects", "-path-to-Demo"))
	// One of the sample's sessions as cairn remote unpacks it from
	// "laptop": every uuid its own, the same words as the local one.
	const sid = "fe5e1c67-53e7-4862-81ae-d0e013e3270b"
	b, err := os.ReadFile(filepath.Join(claude, "projects", "-path-to-Demo", sid+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	uuid := regexp.MustCompile(`[0-9a-f]{8}(-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`)
	newID := uuid.ReplaceAllString(sid, "0d0d0d0d$1")
	laptop := filepath.Join(data, filepath.FromSlash(index.ImportsDir), "laptop")
	dst := filepath.Join(laptop, "projects", "-path-to-Demo", newID+".jsonl")
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, uuid.ReplaceAll(b, []byte("0d0d0d0d$1")), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{claude, laptop} {
		if _, _, err := run(t, "index", "--no-embed", "--claude-dir", dir, "--data", data); err != nil {
			t.Fatal(err)
		}
	}
	search := func(args ...string) []SearchResultJSON {
		t.Helper()
		out, _, err := run(t, append([]string{"search", "--json", "--limit", "100", "--mode", "text", "--claude-dir", claude, "--data", data, "TODO app components"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		var r SearchJSON
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r.Results
	}
	all, fromLaptop, local := search(), search("--machine", "laptop"), search("--machine", "local")
	if len(fromLaptop) == 0 || len(local) == 0 {
		t.Fatalf("%d results from laptop, %d local: want both", len(fromLaptop), len(local))
	}
	marked := 0
	for _, r := range all {
		if (r.SessionID == newID) != (r.Machine == "laptop") {
			t.Fatalf("every machine: a result of %s says machine %q", r.SessionID, r.Machine)
		}
		if r.Machine == "laptop" {
			marked++
		}
	}
	if marked == 0 || marked == len(all) {
		t.Fatalf("every machine: %d of %d results from laptop: want some of both", marked, len(all))
	}
	for _, r := range fromLaptop {
		if r.Machine != "laptop" || r.SessionID != newID {
			t.Fatalf("--machine laptop: a result of %s (machine %q)", r.SessionID, r.Machine)
		}
	}
	for _, r := range local {
		if r.Machine != "" || r.SessionID == newID {
			t.Fatalf("--machine local: a result of %s (machine %q)", r.SessionID, r.Machine)
		}
	}
	out, _, err := run(t, "search", "--wide", "--mode", "text", "--machine", "laptop", "--claude-dir", claude, "--data", data, "TODO app components")
	if err != nil || !strings.Contains(out, "@laptop · ") || !strings.Contains(out, "cairn show "+newID) {
		t.Fatalf("search --machine laptop: %v\n%s", err, out)
	}
	_, _, err = run(t, "search", "--machine", "desk", "--claude-dir", claude, "--data", data, "TODO")
	if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), `no session was synced from machine "desk" (machines synced from: laptop; local is this machine's)`) {
		t.Fatalf("--machine desk: exit %d, %v", exitCode(err), err)
	}
}
