package cli

import (
	"strings"
	"testing"
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
	if err != nil || !strings.Contains(out, "## Matching approved memories\nNone.\n") || !strings.Contains(out, "## Matching past sessions\nNone.\n") {
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
