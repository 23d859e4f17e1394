package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file install created and someone reformatted since holds only
// cairn's settings: uninstall takes them out and removes the file (a dry
// run says so and leaves it), with no record and no backup left in the
// working tree.
func TestUninstallRemovesReformattedFile(t *testing.T) {
	d, data := t.TempDir(), t.TempDir()
	o := Options{Scope: ScopeProject, ProjectDir: d, Exe: "/x/cairn", CommandName: "cairn", Portable: true, BackupDir: filepath.Join(data, "b")}
	_, err := Install(o)
	must(t, err)
	settings := filepath.Join(d, ".claude", "settings.json")
	var v any
	must(t, json.Unmarshal([]byte(readTestFile(t, settings)), &v))
	b, err := json.MarshalIndent(v, "", "\t")
	must(t, err)
	writeTestFile(t, settings, string(b))
	dry := o
	dry.DryRun = true
	ch, err := dry.uneditJSON(settings, func(obj *Object) error { o.removeHooks(obj); return nil })
	must(t, err)
	if ch.Action != "removed" || !strings.Contains(ch.Note, "only cairn's settings") {
		t.Fatalf("dry run: %+v", ch)
	}
	if readTestFile(t, settings) != string(b) {
		t.Fatal("a dry run changed the file")
	}
	_, err = Uninstall(o)
	must(t, err)
	if _, err := os.Stat(settings); !os.IsNotExist(err) {
		t.Errorf("settings.json left: %v", err)
	}
	for p := range snapshotTree(t, d) {
		if strings.Contains(p, "backup") || strings.Contains(p, ".orig") {
			t.Errorf("left in the working tree: %s", p)
		}
	}
}
