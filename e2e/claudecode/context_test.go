package claudecode_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/fakeclaude"
)

// otherPromptHook is a user's own UserPromptSubmit hook that adds context
// on every prompt (another tool's hook, as many people have): with it,
// Claude Code used to send SessionStart's context again on --resume.
const otherPromptHook = `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"echo other-tool-context-on-every-prompt"}]}]}}`

// briefHead is the line that starts cairn's SessionStart brief.
const briefHead = "cairn: session id "

// contextCounts asserts how many times the brief (by its head line) and
// the approved memory are in the request: the whole context the model got.
func contextCounts(t *testing.T, what string, r *fakeclaude.Request, memory string) {
	t.Helper()
	text := r.AllText()
	if n := strings.Count(text, briefHead); n != 1 {
		t.Errorf("%s: cairn's brief is %d times in the request, want once", what, n)
	}
	if n := strings.Count(text, memory); n != 1 {
		t.Errorf("%s: the approved memory is %d times in the request, want once", what, n)
	}
}

// On startup the brief reaches the model once, beside another hook's
// context.
func TestContextOnceOnStartup(t *testing.T) {
	w := newWorld(t, fakeclaude.Script(fakeclaude.Text("first reply")))
	w.mustCairn("install")
	w.addMemory("gotcha", "approved", stripeGotcha)
	w.ask("hello there, about the payments sandbox", "--settings", otherPromptHook)
	reqs := w.api.MainRequests()
	contextCounts(t, "startup", reqs[len(reqs)-1], stripeGotcha)
}

// On --resume the history holds the brief already: SessionStart:resume
// adds nothing, even when UserPromptSubmit hooks (cairn's and another
// tool's) inject.
func TestContextOnceOnResume(t *testing.T) {
	w := newWorld(t, fakeclaude.Script(fakeclaude.Text("first reply"), fakeclaude.Text("second reply")))
	w.mustCairn("install")
	w.addMemory("gotcha", "approved", stripeGotcha)
	run := w.ask("hello there", "--settings", otherPromptHook)
	w.waitIndexed(run.sessionID)
	// A memory approved after the session started: cairn's prompt hook
	// injects it on the resumed prompt.
	w.addMemory("gotcha", "approved", "The flaky sandbox test needs SANDBOX_TIMEOUT=90 on CI runners")
	again := w.ask("please fix the flaky sandbox test", "--resume", run.sessionID, "--settings", otherPromptHook)
	if ups := again.hooksOf("UserPromptSubmit"); !anyStdout(ups, "SANDBOX_TIMEOUT=90") {
		t.Errorf("cairn's prompt hook injected nothing on the resumed prompt: %+v", ups)
	}
	reqs := w.api.MainRequests()
	last := reqs[len(reqs)-1]
	contextCounts(t, "resume", last, stripeGotcha)
	if n := strings.Count(last.AllText(), "SANDBOX_TIMEOUT=90"); n != 1 {
		t.Errorf("the prompt's memory is %d times in the request", n)
	}
}

func anyStdout(hs []hookRun, s string) bool {
	for _, h := range hs {
		if strings.Contains(h.stdout, s) {
			return true
		}
	}
	return false
}

// askInput runs one Claude Code process that reads the user's messages
// (prompts and slash commands such as /clear) as stream-json from stdin,
// each sent once the previous one has its result, as a person types.
func (w *world) askInput(msgs []string, args ...string) *streamRun {
	w.t.Helper()
	all := append([]string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--include-hook-events"}, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := w.command(ctx, w.cli.Path, all...)
	cmd.Dir, cmd.Env = w.proj, w.env()
	cmd.WaitDelay = 5 * time.Second
	var e bytes.Buffer
	cmd.Stderr = &e
	stdin, err := cmd.StdinPipe()
	must(w.t, err)
	pipe, err := cmd.StdoutPipe()
	must(w.t, err)
	start := time.Now()
	must(w.t, cmd.Start())
	send := func(m string) {
		b, err := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": m}})
		must(w.t, err)
		_, err = stdin.Write(append(b, '\n'))
		must(w.t, err)
	}
	send(msgs[0])
	next := 1
	var lines []stampedLine
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		lines = append(lines, stampedLine{at: time.Now(), text: sc.Text()})
		var ev struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Type != "result" {
			continue
		}
		if next == len(msgs) {
			stdin.Close()
			continue
		}
		send(msgs[next])
		next++
	}
	err = cmd.Wait()
	r := result{err: e.String(), took: time.Since(start)}
	var out strings.Builder
	for _, l := range lines {
		out.WriteString(l.text + "\n")
	}
	r.out = out.String()
	if err != nil || next < len(msgs) {
		w.t.Fatalf("claude %v: %v after %d of %d messages\nstdout:\n%s\nstderr:\n%s", all, err, next, len(msgs), r.out, r.err)
	}
	s := parseStream(w.t, r, lines)
	recordLatencies(s)
	return s
}

// After /clear the context is empty: the brief is given again, once, in
// the new session.
func TestContextOnceOnClear(t *testing.T) {
	w := newWorld(t, fakeclaude.Script(fakeclaude.Text("first reply"), fakeclaude.Text("after clear")))
	w.mustCairn("install")
	w.addMemory("gotcha", "approved", stripeGotcha)
	run := w.askInput([]string{"hello there", "/clear", "and now about the payments sandbox"}, "--settings", otherPromptHook)
	if hs := run.hooksOf("SessionStart"); len(hs) != 2 || hs[1].name != "SessionStart:clear" {
		t.Fatalf("SessionStart runs: %+v", hs)
	}
	reqs := w.api.MainRequests()
	last := reqs[len(reqs)-1]
	if strings.Contains(last.AllText(), "first reply") {
		t.Fatal("/clear kept the first prompt in the context")
	}
	contextCounts(t, "clear", reqs[0], stripeGotcha)
	contextCounts(t, "after /clear", last, stripeGotcha)
}

// After compaction the context holds only the summary: the brief is given
// again, once; a later --resume finds it in the history and adds nothing.
func TestContextOnceOnCompact(t *testing.T) {
	w := newWorld(t, fakeclaude.Script(
		fakeclaude.ToolUse("Bash", map[string]any{"command": "echo looking around", "description": "look"}),
		fakeclaude.ToolUse("Bash", map[string]any{"command": "echo still looking", "description": "look"}),
		fakeclaude.Text("first reply"),
		fakeclaude.Text("Summary: the user said hello; nothing was done yet."),
		fakeclaude.Text("after compact"), fakeclaude.Text("after resume")))
	w.mustCairn("install")
	w.addMemory("gotcha", "approved", stripeGotcha)
	run := w.askInput([]string{"hello there", "/compact", "and now about the payments sandbox"},
		"--settings", otherPromptHook, "--allowedTools", "Bash(echo:*)")
	var names []string
	for _, h := range run.hooksOf("SessionStart") {
		names = append(names, h.name)
	}
	if len(names) != 2 || names[1] != "SessionStart:compact" {
		t.Fatalf("SessionStart runs: %v\n%s", names, run.out)
	}
	reqs := w.api.MainRequests()
	last := reqs[len(reqs)-1]
	if !strings.Contains(last.AllText(), "Summary: the user said hello") {
		t.Fatalf("the request after /compact does not hold the summary:\n%s", run.out)
	}
	contextCounts(t, "after /compact", last, stripeGotcha)
	w.waitIndexed(run.sessionID)
	w.ask("one more thing", "--resume", run.sessionID, "--settings", otherPromptHook)
	reqs = w.api.MainRequests()
	contextCounts(t, "resumed after /compact", reqs[len(reqs)-1], stripeGotcha)
}
