package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// `cairn memories undo` takes back any recorded action, newest first, in a
// later process: here a bulk approval of the sample's proposals and a
// merge, each command its own run.
func TestMemoriesUndoAnyAction(t *testing.T) {
	data := t.TempDir()
	if _, _, err := runIn(t, data, "", "extract"); err != nil {
		t.Fatal(err)
	}
	pending := func() []memJSON {
		t.Helper()
		out, _, err := runIn(t, data, "", "memories", "list", "--status", "pending", "--json")
		var l []memJSON
		if err != nil || json.Unmarshal([]byte(out), &l) != nil {
			t.Fatalf("list: %v %s", err, out)
		}
		return l
	}
	before := pending()
	if len(before) < 3 {
		t.Fatalf("the sample proposed %d memories; the test needs 3", len(before))
	}
	a, b := before[0], before[1]
	out, _, err := runIn(t, data, "", "memories", "merge", a.ID, b.ID)
	if err != nil || !strings.Contains(out, "merged into "+a.ID) {
		t.Fatalf("merge: %v %s", err, out)
	}
	out, _, _ = runIn(t, data, "", "memories", "show", a.ID, "--json")
	var merged memJSON
	_ = json.Unmarshal([]byte(out), &merged)
	if !strings.Contains(merged.Content, strings.TrimSpace(a.Content)) || !strings.Contains(merged.Content, strings.TrimSpace(b.Content)) {
		t.Fatalf("the merge lost a text:\nA %q\nB %q\nmerged %q", a.Content, b.Content, merged.Content)
	}
	if _, _, err := runIn(t, data, "", "memories", "approve", "--all"); err != nil {
		t.Fatal(err)
	}
	if n := len(pending()); n != 0 {
		t.Fatalf("%d pending after approve --all", n)
	}
	out, _, err = runIn(t, data, "", "memories", "undo")
	if err != nil || !strings.Contains(out, "undid approve") {
		t.Fatalf("undo: %v %s", err, out)
	}
	if n := len(pending()); n != len(before)-1 {
		t.Fatalf("%d pending after undoing the bulk approval, want %d (the merged one is superseded)", n, len(before)-1)
	}
	out, _, err = runIn(t, data, "", "memories", "undo")
	if err != nil || !strings.Contains(out, "undid merge "+b.ID+" into "+a.ID) {
		t.Fatalf("second undo: %v %s", err, out)
	}
	if n := len(pending()); n != len(before) {
		t.Fatalf("%d pending after undoing the merge, want %d", n, len(before))
	}
}
