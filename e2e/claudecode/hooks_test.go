package claudecode_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/internal/fakeclaude"
	"github.com/cairn-dev/cairn/memories"
)

const stripeGotcha = "The payments sandbox needs STRIPE_MOCK=1 before the integration tests run"

// SessionStart's context (session id, approved memories) reaches the
// model's first request once; on --resume SessionStart runs again and the
// request still holds it once.
func TestSessionStartContextOnceAlsoOnResume(t *testing.T) {
	w := newWorld(t, fakeclaude.Script(fakeclaude.Text("first reply"), fakeclaude.Text("second reply")))
	w.mustCairn("install")
	w.addMemory("gotcha", "approved", stripeGotcha)
	run := w.ask("hello there")
	first := w.api.MainRequests()[0]
	if n := strings.Count(first.AllText(), stripeGotcha); n != 1 {
		t.Errorf("the approved memory is %d times in the first request", n)
	}
	if n := strings.Count(first.AllText(), "cairn: session id "+run.sessionID); n != 1 {
		t.Errorf("the session line is %d times in the first request", n)
	}
	w.waitIndexed(run.sessionID)
	seen := len(w.api.MainRequests())
	again := w.ask("and once more", "--resume", run.sessionID)
	if again.sessionID != run.sessionID {
		t.Fatalf("--resume ran session %s, want %s", again.sessionID, run.sessionID)
	}
	if hs := again.hooksOf("SessionStart"); len(hs) != 1 || hs[0].name != "SessionStart:resume" || hs[0].exitCode != 0 {
		t.Errorf("SessionStart on resume: %+v", hs)
	}
	reqs := w.mainRequestsSince(seen)
	if len(reqs) == 0 {
		t.Fatal("no request after --resume")
	}
	if n := strings.Count(reqs[0].AllText(), stripeGotcha); n != 1 {
		t.Errorf("after --resume the memory is %d times in the request", n)
	}
}

// UserPromptSubmit injects a relevant approved memory, and never again in
// the same session.
func TestPromptInjectsRelevantMemoryOnce(t *testing.T) {
	w := newWorld(t, fakeclaude.Script(fakeclaude.Text("looking"), fakeclaude.Text("still looking")))
	w.mustCairn("install")
	// SessionStart injects nothing here, so the prompt hook's injection is
	// what the request shows.
	w.config("[hooks]\nsession_start_tokens = 0\n")
	w.addMemory("gotcha", "approved", "The flaky sandbox test needs SANDBOX_TIMEOUT=90 on CI runners")
	w.addMemory("fact", "approved", "Invoices are rendered with the Typst templates in assets/invoices")
	run := w.ask("please fix the flaky sandbox test")
	req := w.api.MainRequests()[0]
	if n := strings.Count(req.AllText(), "SANDBOX_TIMEOUT=90"); n != 1 {
		t.Fatalf("the relevant memory is %d times in the request", n)
	}
	if strings.Contains(req.AllText(), "Typst") {
		t.Errorf("an irrelevant memory was injected")
	}
	ups := run.hooksOf("UserPromptSubmit")
	if len(ups) != 1 || !strings.Contains(ups[0].stdout, "SANDBOX_TIMEOUT") {
		t.Errorf("UserPromptSubmit output: %+v", ups)
	}
	w.waitIndexed(run.sessionID)
	seen := len(w.api.MainRequests())
	again := w.ask("the flaky sandbox test still fails on CI", "--resume", run.sessionID)
	if ups := again.hooksOf("UserPromptSubmit"); len(ups) != 1 || ups[0].stdout != "" {
		t.Errorf("injected again in the same session: %+v", ups)
	}
	if n := strings.Count(w.mainRequestsSince(seen)[0].AllText(), "SANDBOX_TIMEOUT=90"); n != 1 {
		t.Errorf("the memory is %d times in the resumed request, want once (from the first turn)", n)
	}
}

// Stop, SubagentStop and SessionEnd index the new turns and the
// subagent's file; usage of the injected memory is scored.
func TestStopSubagentStopSessionEndIndex(t *testing.T) {
	const sub = "List what is in this dir and say hi"
	w := newWorld(t, func(_ int, r *fakeclaude.Request) fakeclaude.Reply {
		text := r.AllText()
		switch {
		case !strings.Contains(text, "please look around"):
			return fakeclaude.Text("subagent: hi, nothing here")
		case strings.Contains(text, "subagent: hi"):
			return fakeclaude.Text("main: done, the payments sandbox needs STRIPE_MOCK=1 as noted")
		}
		return fakeclaude.ToolUse("Agent", map[string]any{"description": "Look around", "prompt": sub, "subagent_type": "general-purpose"})
	})
	w.mustCairn("install")
	id := w.addMemory("gotcha", "approved", stripeGotcha)
	run := w.ask("please look around")
	if !strings.Contains(run.final, "main: done") {
		t.Fatalf("final reply %q", run.final)
	}
	for _, ev := range []string{"SubagentStop", "Stop"} {
		hs := run.hooksOf(ev)
		if len(hs) == 0 {
			t.Errorf("%s did not run", ev)
		}
		for _, h := range hs {
			if h.exitCode != 0 || h.outcome != "success" {
				t.Errorf("%s: %+v", ev, h)
			}
		}
	}
	s := w.waitIndexed(run.sessionID)
	if len(s.Subagents) == 0 {
		t.Errorf("the subagent's file was not indexed: %+v", s)
	}
	if txt := w.assistantText(run.sessionID); !strings.Contains(txt, "main: done") {
		t.Errorf("the final turn was not indexed: %q", txt)
	}
	// The reply used the injected memory.
	st := w.store()
	defer st.Close()
	m, err := memories.New(st, config.Default()).Get(context.Background(), id)
	must(t, err)
	if m.Injected != 1 || m.Used != 1 {
		t.Errorf("memory injected %d, used %d; want 1 and 1", m.Injected, m.Used)
	}
}

// /compact runs PreCompact, and SessionEnd leaves a summary of the
// session (written by the background process the hooks start).
func TestCompactAndSessionEndLeaveSummary(t *testing.T) {
	w := newWorld(t, fakeclaude.Script(
		fakeclaude.ToolUse("Bash", map[string]any{"command": "echo looking at billing/round.go", "description": "look"}),
		fakeclaude.ToolUse("Bash", map[string]any{"command": "echo rounding half-even now", "description": "fix"}),
		fakeclaude.Text("I fixed the invoice rounding in billing/round.go"),
		fakeclaude.Text("Summary: the invoice rounding in billing/round.go was fixed (half-even).")))
	w.mustCairn("install")
	w.addMemory("decision", "approved", "Invoice amounts round half-even, never half-up (billing/round.go)")
	run := w.ask("fix the invoice rounding bug in billing/round.go", "--allowedTools", "Bash(echo:*)")
	w.waitIndexed(run.sessionID)
	compact := w.ask("/compact", "--resume", run.sessionID)
	// Claude Code reports PreCompact in the command's output, not as a
	// hook event.
	if !strings.Contains(compact.out, "PreCompact [") || !strings.Contains(compact.out, "completed successfully") {
		t.Errorf("PreCompact did not run:\n%s", compact.out)
	}
	// After compaction SessionStart gives the approved memories again.
	var after []hookRun
	for _, h := range compact.hooksOf("SessionStart") {
		if h.name == "SessionStart:compact" {
			after = append(after, h)
		}
	}
	if len(after) != 1 || after[0].exitCode != 0 || !strings.Contains(after[0].stdout, "half-even") {
		t.Errorf("SessionStart:compact: %+v", after)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		st := w.store()
		sums, err := memories.New(st, config.Default()).Drafts.Summaries(context.Background(), "", 50)
		st.Close()
		must(t, err)
		for _, s := range sums {
			if s.SessionID == run.sessionID {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no summary of session %s stored (have %d)", run.sessionID, len(sums))
		}
		time.Sleep(200 * time.Millisecond)
	}
}
