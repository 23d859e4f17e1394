package main_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// The README is a five-minute guide: detail goes to docs/.
const readmeMaxLines = 400

// readmeCommands returns the lines of README.md's ```sh blocks, in order:
// each line is one command, as a reader would paste it.
func readmeCommands(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	in := false
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case !in && strings.HasPrefix(l, "```sh"):
			in = true
		case in && strings.HasPrefix(l, "```"):
			in = false
		case in && strings.TrimSpace(l) != "":
			if strings.HasSuffix(l, `\`) {
				t.Errorf("README.md:%d: a continued line; write one command a line: %s", n, l)
			}
			cmds = append(cmds, l)
		}
	}
	if in {
		t.Fatal("README.md: a ```sh block is not closed")
	}
	if len(cmds) < 10 {
		t.Fatalf("README.md has only %d commands in ```sh blocks", len(cmds))
	}
	return cmds
}

// words splits a command line the simple way: enough to find the program
// it runs (after VAR=value assignments).
var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

func program(cmd string) string {
	for _, w := range strings.Fields(cmd) {
		if !assignment.MatchString(w) {
			return w
		}
	}
	return ""
}

// The programs README commands may run. In the shell check each is a stub
// that records its arguments; a command that runs anything else fails there
// (add a stub when the README needs a new program).
var stubbed = []string{"cairn", "cairn-hook", "go", "claude", "npm"}

// notRun are the cairn commands the README shows that the test does not
// run on the sample, and why. Every other `cairn …` line runs.
var notRun = map[string]string{
	"cairn": "opens the terminal UI, which needs a terminal (tui/tmuxtest drives it)",
}

// TestREADMECommands: every command in README.md runs as written in bash
// and in zsh, pasted into an interactive shell with its default options
// (zsh: no interactive comments, NOMATCH on), and the two pass the program
// the same arguments; the cairn commands then run, in order, on a copy of
// the bundled sample with a scratch home and data dir, and exit 0.
func TestREADMECommands(t *testing.T) {
	cmds := readmeCommands(t)
	for _, c := range cmds {
		if p := program(c); p == "" || !strings.Contains(p, "/") && !slices.Contains(stubbed, p) {
			t.Errorf("README command %q runs %q, which the test has no stub for", c, p)
		}
		if i := strings.Index(c, " #"); i >= 0 {
			t.Errorf("README command %q has a comment: zsh passes it as arguments unless interactivecomments is set; explain it in the text", c)
		}
	}

	shells := []string{"bash"}
	if _, err := exec.LookPath("zsh"); err == nil {
		shells = append(shells, "zsh")
	} else if os.Getenv("CAIRN_E2E") == "1" {
		t.Fatal("zsh is missing: .ci/run installs it (apt-get install -y zsh)")
	} else {
		t.Run("zsh", func(t *testing.T) {
			t.Skip("zsh is not installed: the README's commands are checked in bash only (apt-get install -y zsh to check zsh too; .ci/run does)")
		})
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}

	t.Run("shells", func(t *testing.T) {
		stubs := t.TempDir()
		for _, p := range stubbed {
			writeStub(t, filepath.Join(stubs, p))
		}
		for _, c := range cmds {
			argv := map[string]string{}
			for _, sh := range shells {
				if out, err := exec.CommandContext(context.Background(), sh, "-n", "-c", c).CombinedOutput(); err != nil {
					t.Errorf("%s -n: %q: %v\n%s", sh, c, err, out)
					continue
				}
				got, err := pasteInto(t, sh, c, stubs)
				if err != nil {
					t.Errorf("%s: %q: %v", sh, c, err)
					continue
				}
				argv[sh] = got
			}
			if len(argv) == 2 && argv["bash"] != argv["zsh"] {
				t.Errorf("%q: bash and zsh run different commands:\nbash: %s\nzsh:  %s", c, argv["bash"], argv["zsh"])
			}
		}
	})

	t.Run("sample", func(t *testing.T) {
		tmp := t.TempDir()
		bin := filepath.Join(tmp, "bin")
		build := exec.CommandContext(context.Background(), "go", "build", "-o", filepath.Join(bin, "cairn"), ".")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		claude := filepath.Join(tmp, "claude")
		if err := testutil.CopyDir(filepath.Join("testdata", "claude"), claude); err != nil {
			t.Fatal(err)
		}
		work := filepath.Join(tmp, "work")
		home := filepath.Join(tmp, "home")
		for _, d := range []string{work, home} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				t.Fatal(err)
			}
		}
		env := cleanEnv(
			"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
			"HOME="+home,
			"CLAUDE_CONFIG_DIR="+claude,
			"CAIRN_HOME="+filepath.Join(tmp, "data"),
			"EDITOR=false", "VISUAL=false", "PAGER=cat", "TERM=dumb",
		)
		ran := 0
		for _, c := range cmds {
			if program(c) != "cairn" {
				continue
			}
			if why, ok := notRun[strings.TrimSpace(c)]; ok {
				t.Logf("not run: %s (%s)", c, why)
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			cmd := exec.CommandContext(ctx, "bash", "--norc", "--noprofile", "-c", c)
			cmd.Dir, cmd.Env = work, env
			out, err := cmd.CombinedOutput()
			cancel()
			if err != nil {
				t.Errorf("%s: %v\n%s", c, err, out)
				continue
			}
			ran++
		}
		t.Logf("ran %d of the README's %d commands on the sample", ran, len(cmds))
		for c := range notRun {
			if !slices.Contains(cmds, c) {
				t.Errorf("notRun names %q, which the README no longer shows", c)
			}
		}
	})
}

// TestREADMEShape: the README stays short, and it and docs/ link only to
// files that are in the repository.
func TestREADMEShape(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move detail to docs/ and link it", n, readmeMaxLines)
	}
	files, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	for _, f := range append([]string{"README.md"}, files...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "../shared") {
			t.Errorf("%s cites ../shared: the repository must stand alone", f)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			p := filepath.Clean(filepath.Join(filepath.Dir(f), target))
			if strings.HasPrefix(p, "..") {
				t.Errorf("%s links outside the repository: %s", f, target)
				continue
			}
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s links to %s, which is not there", f, target)
			}
		}
	}
}

// writeStub writes an executable that appends its name and arguments to
// $README_ARGV.
func writeStub(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\n{ printf '%s' \"$(basename \"$0\")\"; for a in \"$@\"; do printf ' [%s]' \"$a\"; done; printf '\\n'; } >> \"$README_ARGV\"\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// pasteInto feeds cmd to an interactive sh (no startup files) as a reader
// pasting it would, with the stubs first on PATH, in an empty folder, and
// returns what the stubs recorded.
func pasteInto(t *testing.T, sh, cmd, stubs string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	if p := program(cmd); strings.Contains(p, "/") {
		writeStub(t, filepath.Join(dir, p))
	}
	log := filepath.Join(t.TempDir(), "argv")
	args := []string{"-i"}
	switch sh {
	case "bash":
		args = []string{"--norc", "--noprofile", "-i"}
	case "zsh":
		args = []string{"-f", "-i"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, sh, args...)
	c.Dir = dir
	c.Stdin = strings.NewReader(cmd + "\nexit\n")
	c.Env = cleanEnv("PATH="+stubs+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+dir, "README_ARGV="+log, "TERM=dumb")
	out, err := c.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%w\n%s", err, out)
	}
	b, err := os.ReadFile(log)
	if err != nil || len(b) == 0 {
		return "", fmt.Errorf("ran nothing\n%s", out)
	}
	return string(b), nil
}

// cleanEnv is the environment without what would point cairn or a shell
// elsewhere, plus set.
func cleanEnv(set ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PATH", "HOME", "TERM", "CLAUDE_CONFIG_DIR", "CAIRN_HOME", "CAIRN_CONFIG", "XDG_DATA_HOME", "XDG_CONFIG_HOME",
			"OLLAMA_HOST", "EDITOR", "VISUAL", "PAGER", "ENV", "BASH_ENV", "ZDOTDIR", "CAIRN_DISABLE":
			continue
		}
		env = append(env, kv)
	}
	return append(env, set...)
}
