package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/install"
)

// TestForProject: a project install's files are shared, so they name
// the programs (found on PATH) and no data dir, wherever this machine keeps
// cairn, and it writes into CLAUDE_PROJECT_DIR, else the working directory.
func TestForProject(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CLAUDE_PROJECT_DIR", "/some/project")
	for _, in := range []install.Options{
		{CommandName: "cairn"},
		{CommandName: "cairn", HookExe: "/x/cairn-hook"}, // a hook binary PATH does not find
		{CommandName: "/opt/cairn", Exe: "/opt/cairn"},   // not on PATH as cairn
		{CommandName: "cairn", DataDir: "/data"},         // a data dir of this machine's
	} {
		io := in
		if err := forProject(&io); err != nil {
			t.Fatal(err)
		}
		if !io.Portable || io.CommandName != "cairn" || io.DataDir != "" || io.ProjectDir != "/some/project" {
			t.Errorf("%+v: portable %v, command %q, data %q in %q; want portable cairn, no data dir, in /some/project", in, io.Portable, io.CommandName, io.DataDir, io.ProjectDir)
		}
		for _, ev := range []string{"SessionStart", "Stop"} {
			if c := io.HookCommand(ev); strings.Contains(strings.ReplaceAll(c, "2>/dev/null", ""), "/") {
				t.Errorf("%+v: hook command %q names a path", in, c)
			}
		}
	}
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	wd, _ := os.Getwd()
	io := install.Options{}
	if err := forProject(&io); err != nil || io.ProjectDir != wd {
		t.Fatalf("without CLAUDE_PROJECT_DIR: %v, %q, want %q", err, io.ProjectDir, wd)
	}
}
