package cli

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// runCode runs cairn in-process as the binary does and returns the exit
// code, stdout and stderr.
func runCode(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	o := &Options{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader("")}
	hasData := false
	for _, a := range args {
		hasData = hasData || a == "--data"
	}
	if !hasData {
		args = append(args, "--data", t.TempDir())
	}
	code := Run(o, args)
	return code, out.String(), errb.String()
}

// badValues are values a flag of f's kind must refuse.
func badValues(f *pflag.Flag) []string {
	if _, ok := f.Annotations[annChoices]; ok {
		return []string{"bogus-value"}
	}
	if _, ok := f.Value.(*checkedValue); ok && !isNumber(f) {
		return []string{"bogus-value"}
	}
	if !isNumber(f) {
		return nil
	}
	bad := []string{"-1", "abc", "1e999x"}
	if strings.HasPrefix(f.Value.Type(), "float") {
		bad = append(bad, "NaN", "Inf")
	}
	if r, ok := f.Annotations[annRange]; ok && r[1] != "" {
		hi, _ := strconv.ParseFloat(r[1], 64)
		bad = append(bad, fmtNum(hi+1))
	}
	return bad
}

// TestEveryCommandRefusesBadFlagValues drives every command of the tree
// with bad values for each of its number and choice flags: no panic, exit
// code 2 (usage), and a message that names the flag. New commands and
// flags are covered without touching this test.
func TestEveryCommandRefusesBadFlagValues(t *testing.T) {
	root := NewRoot(&Options{})
	n := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			for _, v := range badValues(f) {
				args := append(strings.Fields(strings.TrimPrefix(c.CommandPath(), "cairn")), "--"+f.Name+"="+v)
				code, _, stderr := runCode(t, append(args, "--claude-dir", sample())...)
				n++
				if strings.Contains(stderr, "internal error") || strings.Contains(stderr, "panic") {
					t.Errorf("%v: panicked:\n%s", args, stderr)
				}
				if code != ExitUsage {
					t.Errorf("%v: exit %d, want %d (usage); stderr %q", args, code, ExitUsage, stderr)
				}
				if !strings.Contains(stderr, "--"+f.Name) {
					t.Errorf("%v: the message does not name --%s: %q", args, f.Name, stderr)
				}
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if n < 40 {
		t.Fatalf("only %d bad values tried: the walk missed flags", n)
	}
	t.Logf("%d bad flag values refused", n)
}

// TestBadFlagValuesFromTheIssue: the cases issue 17 lists, with their
// messages.
func TestBadFlagValuesFromTheIssue(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"show", "ae4a77f8", "--tool-lines", "-1"}, "--tool-lines takes 0 or more, not -1"},
		{[]string{"sessions", "--days", "-3"}, "--days takes 0 or more, not -3"},
		{[]string{"sessions", "--days", "abc"}, `--days takes a whole number, not "abc"`},
		{[]string{"search", "x", "--role", "bot"}, `--role takes user, assistant, tool or system (comma-separated), not "bot"`},
		{[]string{"search", "x", "--limit", "-1"}, "--limit takes 1 to 100"},
		{[]string{"search", "x", "--limit", "500"}, "--limit takes 1 to 100 (a search ranks at most 100 candidates), not 500"},
		{[]string{"search", "x", "--since", "3x"}, `--since: cannot read time "3x"`},
		{[]string{"memories", "list", "--type", "bogus"}, `--type: unknown memory type "bogus"`},
		{[]string{"sessions", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"sessions", "extra"}, `unknown command "extra"`},
		{[]string{"show"}, "accepts 1 arg(s)"},
		{[]string{"no-such-command"}, `unknown command "no-such-command"`},
	} {
		code, stdout, stderr := runCode(t, append(c.args, "--claude-dir", sample())...)
		if code != ExitUsage || !strings.Contains(stderr, c.msg) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and %q", c.args, code, stderr, stdout, c.msg)
		}
	}
	// Good values still work, and a runtime failure is exit 1.
	if code, _, stderr := runCode(t, "show", "ae4a77f8", "--tool-lines", "0", "--claude-dir", sample()); code != ExitOK {
		t.Errorf("show --tool-lines 0: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCode(t, "sessions", "--days", "0", "--claude-dir", sample()); code != ExitOK {
		t.Errorf("sessions --days 0: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCode(t, "show", "ffffffffffff", "--claude-dir", sample()); code != ExitFailure {
		t.Errorf("show of an unknown session: exit %d, want 1: %s", code, stderr)
	}
}

// TestHookNeverExitsWithAUsageError: Claude Code reads a hook's exit 2 as
// "block"; the hook handler exits 0 even when called wrongly.
func TestHookNeverExitsWithAUsageError(t *testing.T) {
	tmp := t.TempDir()
	for _, args := range [][]string{{"hook", "prompt", "--data"}, {"hook", "prompt", "--data", tmp, "--claude-dir", tmp, "--bogus"},
		{"hook", "--data", tmp, "--claude-dir", tmp, "--session"}} {
		var out, errb bytes.Buffer
		o := &Options{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader("{}")}
		if code := Run(o, args); code != ExitOK || out.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q", args, code, out.String())
		}
	}
}

// TestReadOnlyDataDir: every command that needs the store names a data dir
// it cannot write (exit 1), and doctor says so too instead of "no store
// yet, run cairn index".
func TestReadOnlyDataDir(t *testing.T) {
	dir := testutil.ReadOnlyDir(t)
	want := "cannot write to " + dir + ": read-only; set --data or CAIRN_HOME"
	code, _, stderr := runCode(t, "sessions", "--data", dir, "--claude-dir", sample())
	if code != ExitFailure || !strings.Contains(stderr, want) {
		t.Errorf("sessions: exit %d, %q", code, stderr)
	}
	_, stdout, _ := runCode(t, "doctor", "--data", dir, "--claude-dir", sample())
	if !strings.Contains(stdout, "data dir") || !strings.Contains(stdout, want) {
		t.Errorf("doctor does not say the data dir is read-only:\n%s", stdout)
	}
}
