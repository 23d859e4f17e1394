package hook_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/internal/fakeclaude"
	"github.com/cairn-dev/cairn/memories"
)

// TestClaudeExtractorAfterPreCompactAndSessionEnd runs the hooks with
// memories.extractor = "claude": Stop extracts nothing (the turns wait for
// PreCompact or the session's end), PreCompact returns at once and a
// detached process runs the real Claude Code CLI (against a fake Messages API) whose
// proposals arrive as pending memories with a summary; the hooks of that
// run do nothing.
func TestClaudeExtractorAfterPreCompactAndSessionEnd(t *testing.T) {
	cli := fakeclaude.RequireCLI(t)
	ref := regexp.MustCompile(`#(\d+) user: `)
	api := fakeclaude.NewServer(t, func(_ int, r *fakeclaude.Request) fakeclaude.Reply {
		src := "#1"
		if m := ref.FindStringSubmatch(r.AllText()); m != nil {
			src = "#" + m[1]
		}
		return fakeclaude.ToolUse("StructuredOutput", map[string]any{
			"memories": []any{map[string]any{"type": "decision", "content": "The TODO app persists todos in `localStorage` under one key, not in a backend.",
				"importance": 3, "sources": []string{src}}},
			"summary": map[string]any{"request": []string{"Build the TODO app"}, "learned": []string{}, "completed": []string{"TODO app built"}, "next_steps": []string{}},
		})
	})
	api.AllRequests = true
	e := newEnv(t)
	if err := os.MkdirAll(e.data, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("[memories]\nextractor = \"claude\"\n\n[claude]\ncommand = %q\n", cli.Path)
	if err := os.WriteFile(filepath.Join(e.data, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	extra := fakeclaude.Env(home, api, "ANTHROPIC_AUTH_TOKEN=", "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"))
	tr := e.transcript(demoFolder, demoSession)

	if r := e.run(t, input("Stop", demoSession, tr, nil), extra); r.code != 0 || r.stdout != "" {
		t.Fatalf("Stop: exit %d stdout %q", r.code, r.stdout)
	}
	if strings.Contains(e.logText(), "background extract started") || len(api.Requests()) != 0 {
		t.Fatalf("Stop started a Claude extraction; log: %s", e.logText())
	}

	// PreCompact hands the turns so far to Claude.
	r := e.run(t, input("PreCompact", demoSession, tr, map[string]any{"trigger": "auto"}), extra)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("PreCompact: exit %d stdout %q", r.code, r.stdout)
	}
	st := e.store(t)
	svc := memories.New(st, config.Default())
	deadline := time.Now().Add(60 * time.Second)
	var got []memories.Memory
	for len(got) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no memory from Claude; log: %s\nrequests: %s", e.logText(), api.Dump())
		}
		time.Sleep(200 * time.Millisecond)
		ms, err := svc.List(context.Background(), memories.Filter{Statuses: []memories.Status{memories.Pending}})
		if err != nil {
			continue
		}
		for _, m := range ms {
			if m.Origin == memories.OriginClaude {
				got = append(got, m)
			}
		}
	}
	waitBackground(t, e)
	if m := got[0]; m.SourceSession != demoSession || len(m.SourceUUIDs) == 0 || !strings.Contains(m.Content, "localStorage") {
		t.Fatalf("memory %+v", m)
	}
	if n := len(api.MainRequests()); n != 1 {
		t.Fatalf("%d Claude runs, want 1", n)
	}
	// SessionEnd returns at once; with no new turns since, Claude is not
	// run again (the cursor moved).
	r = e.run(t, input("SessionEnd", demoSession, tr, map[string]any{"reason": "prompt_input_exit"}), extra)
	if r.code != 0 || r.stdout != "" || r.took > 1500*time.Millisecond {
		t.Fatalf("SessionEnd: exit %d stdout %q took %s", r.code, r.stdout, r.took)
	}
	waitBackground(t, e)
	if n := len(api.MainRequests()); n != 1 {
		t.Fatalf("%d Claude runs after SessionEnd, want still 1", n)
	}
	if !strings.Contains(e.logText(), "proposed by the claude extractor") {
		t.Fatalf("the log does not say which extractor ran: %s", e.logText())
	}
	sum, err := svc.Drafts.Summary(context.Background(), demoSession)
	if err != nil || sum.Source != memories.OriginClaude {
		t.Fatalf("summary %+v, %v", sum, err)
	}

	// The run's own hooks (were they to fire) do nothing: the marker in
	// its environment makes any cairn hook return at once.
	before := e.logText()
	r = e.run(t, input("SessionEnd", demoSession, tr, map[string]any{"reason": "other"}), append(extra, memories.ClaudeChildEnv+"=1"))
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("child hook: exit %d stdout %q", r.code, r.stdout)
	}
	after := strings.TrimPrefix(e.logText(), before)
	if !strings.Contains(after, "cairn extraction's own Claude Code run") || strings.Contains(after, "started") {
		t.Fatalf("the child's hook did work: %s", after)
	}
}
