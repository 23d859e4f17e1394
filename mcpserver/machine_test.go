package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
)

// memory_recall takes machine (a machine cairn remote synced sessions
// from, or local), by the store's one rule (index.SearchQuery.Machine),
// and names the machine of a session synced from another.
func TestRecallByMachine(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	// A sample session as cairn remote unpacks it from "laptop": its own
	// ids, the same words as the local one.
	const folder, sid = "-path-to-Demo", "fe5e1c67-53e7-4862-81ae-d0e013e3270b"
	b, err := os.ReadFile(filepath.Join(sample(), "projects", folder, sid+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	uuid := regexp.MustCompile(`[0-9a-f]{8}(-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`)
	newID := uuid.ReplaceAllString(sid, "0e0e0e0e$1")
	dst := filepath.Join(f.st.MachineDir("laptop"), "projects", folder, newID+".jsonl")
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, uuid.ReplaceAll(b, []byte("0e0e0e0e$1")), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.Sync(ctx, f.st.MachineDir("laptop"), index.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	recall := func(machine string) []RecallResult {
		t.Helper()
		var out RecallOut
		args := map[string]any{"query": "TODO app with React components"}
		if machine != "" {
			args["machine"] = machine
		}
		f.call(t, "memory_recall", args, &out, false)
		return out.Results
	}
	all, laptop, local := recall(""), recall("laptop"), recall("local")
	if len(laptop) != 1 || laptop[0].SessionID != newID || laptop[0].Machine != "laptop" {
		t.Fatalf("machine laptop: %+v", laptop)
	}
	if len(local) == 0 {
		t.Fatal("machine local: nothing")
	}
	for _, r := range local {
		if r.SessionID == newID || r.Machine != "" {
			t.Fatalf("machine local: %+v", r)
		}
	}
	both := false
	for _, r := range all {
		if (r.SessionID == newID) != (r.Machine == "laptop") {
			t.Fatalf("every machine: %+v", r)
		}
		both = both || r.SessionID == newID
	}
	if !both {
		t.Fatalf("every machine: the laptop's session is not recalled: %+v", all)
	}
	msg := f.call(t, "memory_recall", map[string]any{"query": "TODO", "machine": "desk"}, nil, true)
	if !strings.Contains(msg, `"desk" (machines synced from: laptop; local is this machine's): pass one of those as machine`) {
		t.Fatalf("machine desk: %s", msg)
	}
}
