package claudecode_test

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn/internal/fakeclaude"
)

// PreToolUse hits across the suite: runs of cairn's PreToolUse hook, and
// those that gave Claude a memory.
var preToolHits struct {
	sync.Mutex
	runs, hits int
}

func recordPreToolHits(s *streamRun) {
	preToolHits.Lock()
	defer preToolHits.Unlock()
	for _, h := range s.hooksOf("PreToolUse") {
		preToolHits.runs++
		if strings.Contains(h.stdout, "additionalContext") {
			preToolHits.hits++
		}
	}
}

// Before Claude edits a file or runs a command, PreToolUse gives it the
// approved memories tied to that file or command — in the request that
// follows the call, once per session, nothing unrelated.
func TestPreToolUseGivesTiedMemories(t *testing.T) {
	const (
		fileMemory    = "Invoice amounts round half-even, never half-up: billing/round.go has golden tests"
		commandMemory = "Run go test with -count=1 in billing: the test cache hides the rounding flake"
		unrelated     = "Invoices are rendered with the Typst templates in assets/invoices"
	)
	var w *world
	w = newWorld(t, func(i int, r *fakeclaude.Request) fakeclaude.Reply {
		file := filepath.Join(w.proj, "billing", "round.go")
		switch i {
		case 0:
			return fakeclaude.ToolUse("Write", map[string]any{"file_path": file, "content": "package billing\n"})
		case 1:
			return fakeclaude.ToolUse("Bash", map[string]any{"command": "go test ./billing/...", "description": "test"})
		case 2:
			return fakeclaude.ToolUse("Write", map[string]any{"file_path": file, "content": "package billing // v2\n"})
		}
		return fakeclaude.Text("done")
	})
	w.mustCairn("install")
	// No brief and no prompt match: what reaches the model comes from
	// PreToolUse.
	w.config("[hooks]\nsession_start_tokens = 0\n")
	w.addMemory("decision", "approved", fileMemory)
	w.addMemory("gotcha", "approved", commandMemory)
	w.addMemory("fact", "approved", unrelated)
	run := w.ask("please tidy up", "--allowedTools", "Write,Bash(go test:*)")
	recordPreToolHits(run)
	pre := run.hooksOf("PreToolUse")
	if len(pre) != 3 {
		t.Fatalf("PreToolUse ran %d times, want 3 (Write, Bash, Write): %+v", len(pre), run.hooks)
	}
	for _, h := range pre {
		if h.exitCode != 0 || h.outcome != "success" {
			t.Errorf("PreToolUse: exit %d, %s", h.exitCode, h.outcome)
		}
	}
	if !strings.Contains(pre[0].stdout, "half-even") || strings.Contains(pre[0].stdout, "count=1") {
		t.Errorf("PreToolUse before the Write: %q", pre[0].stdout)
	}
	if !strings.Contains(pre[1].stdout, "count=1") || strings.Contains(pre[1].stdout, "half-even") {
		t.Errorf("PreToolUse before go test: %q", pre[1].stdout)
	}
	if pre[2].stdout != "" {
		t.Errorf("PreToolUse gave a memory twice: %q", pre[2].stdout)
	}
	reqs := w.api.MainRequests()
	if len(reqs) < 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	if !strings.Contains(reqs[1].AllText(), fileMemory) {
		t.Errorf("the request after the Write lacks the file's memory")
	}
	last := reqs[len(reqs)-1].AllText()
	for m, want := range map[string]int{fileMemory: 1, commandMemory: 1, unrelated: 0} {
		if n := strings.Count(last, m); n != want {
			t.Errorf("%q is %d times in the last request, want %d", m, n, want)
		}
	}
}
