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
