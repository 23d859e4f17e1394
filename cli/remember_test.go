package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/memories"
)

func TestRememberAndRecall(t *testing.T) {
	data := t.TempDir()
	t.Setenv("CLAUDE_PROJECT_DIR", "/path/to/Demo")
	out, _, err := run(t, "remember", "--data", data, "--type", "decision", "--importance", "4", "The TODO app keeps state in a React context, not Redux")
	if err != nil || !strings.Contains(out, "pending review") {
		t.Fatalf("remember: %v %q", err, out)
	}
	id := strings.Fields(out)[1]
	if _, _, err := run(t, "memories", "approve", id, "--data", data); err != nil {
		t.Fatal(err)
	}
	out, _, err = run(t, "recall", "--data", data, "--claude-dir", sample())
	if err != nil || !strings.Contains(out, id) || !strings.Contains(out, "React context") {
		t.Fatalf("recall without a query: %v\n%s", err, out)
	}
	out, _, err = run(t, "recall", "--data", data, "--claude-dir", sample(), "--", "React context state")
	if err != nil || !strings.Contains(out, id) || !strings.Contains(out, "## Matching past sessions") {
		t.Fatalf("recall with a query: %v\n%s", err, out)
	}
	if len(out) > recallChars+2000 {
		t.Fatalf("recall printed %d characters", len(out))
	}
	if _, _, err := run(t, "remember", "--data", data, "--type", "opinion", "x"); err == nil {
		t.Fatal("an unknown type must be refused")
	}
}

func TestRecallPendingReview(t *testing.T) {
	data := t.TempDir()
	t.Setenv("CLAUDE_PROJECT_DIR", "/path/to/Demo")
	if _, _, err := run(t, "remember", "--data", data, "The deploy script needs the staging VPN"); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, "recall", "--data", data, "--claude-dir", sample())
	if err != nil || !strings.Contains(out, "None yet.") || !strings.Contains(out, "1 memories and 0 summary drafts await the user's review in `cairn`.") {
		t.Fatalf("recall with a pending memory: %v\n%s", err, out)
	}
	out, _, err = run(t, "recall", "--data", data, "--claude-dir", sample(), "--", "zyxwvut")
	if err != nil || !strings.Contains(out, "## Matching approved memories\nNone match by words or meaning.\n") || !strings.Contains(out, "## Matching past sessions\nNone match by words or meaning.\n") {
		t.Fatalf("recall matching nothing: %v\n%s", err, out)
	}
}

func TestRecallOutputIsBounded(t *testing.T) {
	var b recallOutput
	long := strings.Repeat("x", 1000)
	for range 100 {
		b.line("- %s", long)
	}
	if n := b.Len(); n < recallChars || n > recallChars+len(long)+3 {
		t.Fatalf("recall output holds %d characters, bound %d", n, recallChars)
	}
	if !strings.HasSuffix(b.String(), long+"\n") {
		t.Fatal("a line was cut")
	}
}

func TestRememberContent(t *testing.T) {
	for _, c := range []struct {
		args        []string
		stdin, want string
	}{
		{[]string{"use", "pnpm"}, "ignored", "use pnpm"},
		{nil, "from stdin\n", "from stdin\n"},
		{[]string{"-"}, "from stdin", "from stdin"},
	} {
		got, err := rememberContent(c.args, strings.NewReader(c.stdin))
		if err != nil || got != c.want {
			t.Errorf("rememberContent(%q, %q) = %q, %v; want %q", c.args, c.stdin, got, err, c.want)
		}
	}
	for _, args := range [][]string{nil, {" "}, {"-"}} {
		var ue usageError
		if _, err := rememberContent(args, strings.NewReader(" \n")); !errors.As(err, &ue) || !strings.Contains(err.Error(), "nothing to remember") {
			t.Errorf("rememberContent(%q) with nothing: %v", args, err)
		}
	}
}

func TestPrintRemembered(t *testing.T) {
	m := &memories.Memory{ID: "m1", Type: "fact", Status: memories.Approved}
	pending := &memories.Memory{ID: "m2", Type: "gotcha", Status: memories.Pending}
	for _, c := range []struct {
		r    memories.AddResult
		want string
	}{
		{memories.AddResult{Memory: m, Action: memories.ActionAdded}, "remembered m1 (fact, approved)\n"},
		{memories.AddResult{Memory: pending, Action: memories.ActionAdded, Conflicts: []string{"m0"}},
			"remembered m2 (gotcha), pending review: run `cairn` or `cairn memories approve m2`\n  may contradict m0: review both (cairn memories show m0)\n"},
		{memories.AddResult{Memory: m, Action: memories.ActionMerged}, "merged m1: a similar memory exists (approved)\n"},
		{memories.AddResult{Memory: m, Action: memories.ActionSkippedRejected}, "not saved: you rejected this memory before (m1)\n"},
	} {
		var b bytes.Buffer
		printRemembered(&b, c.r)
		if b.String() != c.want {
			t.Errorf("printRemembered(%s) = %q, want %q", c.r.Action, b.String(), c.want)
		}
	}
}
