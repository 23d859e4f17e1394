package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/install"
)

// TestForProject: a project install names the programs only when hooks
// can run them from PATH, and writes into CLAUDE_PROJECT_DIR, else the
// working directory.
func TestForProject(t *testing.T) {
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	t.Setenv("CLAUDE_PROJECT_DIR", "/some/project")
	cases := []struct {
		io         install.Options
		hookOnPath bool
		portable   bool
	}{
		{io: install.Options{CommandName: "cairn"}, portable: true},           // no hook binary beside cairn
		{io: install.Options{CommandName: "cairn", HookExe: "/x/cairn-hook"}}, // a hook binary PATH does not find
		{io: install.Options{CommandName: "cairn", HookExe: "/x/cairn-hook"}, hookOnPath: true, portable: true},
		{io: install.Options{CommandName: "/opt/cairn"}},              // not on PATH as cairn
		{io: install.Options{CommandName: "cairn", DataDir: "/data"}}, // a data dir to pass along
	}
	for _, c := range cases {
		hook := filepath.Join(bin, install.HookProgram)
		os.Remove(hook)
		if c.hookOnPath {
			if err := os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		io := c.io
		if err := forProject(&io); err != nil {
			t.Fatal(err)
		}
		if io.Portable != c.portable || io.ProjectDir != "/some/project" {
			t.Errorf("%+v (hook on PATH: %v): portable %v in %q, want %v in /some/project", c.io, c.hookOnPath, io.Portable, io.ProjectDir, c.portable)
		}
	}
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	wd, _ := os.Getwd()
	io := install.Options{}
	if err := forProject(&io); err != nil || io.ProjectDir != wd {
		t.Fatalf("without CLAUDE_PROJECT_DIR: %v, %q, want %q", err, io.ProjectDir, wd)
	}
}
