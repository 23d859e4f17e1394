package hook_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/memories"
)

// Stop fired before Claude Code wrote the transcript (3 of 4 real print
// mode runs): the reply in the payload records the use of an injected
// memory, nothing is settled as unused, nothing is logged, and SessionEnd
// (transcript written) settles the rest.
func TestStopBeforeTranscriptUsesPayloadReply(t *testing.T) {
	e := newSyncedEnv(t)
	used := e.addMemory(t, demoProject, memories.Gotcha, "Vite dev server needs --host 0.0.0.0 inside the devcontainer", memories.Approved, 4)
	later := e.addMemory(t, demoProject, memories.Fact, "The staging cluster deploys from the release branch only", memories.Approved, 3)
	sid := "66666666-3333-4444-5555-666666666666"
	tr := e.transcript(demoFolder, sid) // not written yet
	r := e.run(t, input("SessionStart", sid, tr, map[string]any{"source": "startup"}), nil)
	ctx := parseOutput(t, "SessionStart", r.stdout)
	if !strings.Contains(ctx, used) || !strings.Contains(ctx, later) {
		t.Fatalf("SessionStart did not inject both:\n%s", ctx)
	}
	before := e.logText()
	r = e.run(t, input("Stop", sid, tr, map[string]any{"last_assistant_message": "Started the Vite dev server with --host 0.0.0.0 so it is reachable inside the devcontainer."}), nil)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("Stop: exit %d stdout %q", r.code, r.stdout)
	}
	if added := strings.TrimPrefix(e.logText(), before); added != "" {
		t.Errorf("the Stop race was logged as a problem: %q", added)
	}
	if m := e.memory(t, used); m.Used != 1 {
		t.Errorf("the use in the payload's reply was not recorded: used %d", m.Used)
	}
	// The transcript appears; SessionEnd re-scores and settles.
	appendLine(t, tr, jsonlLine(sid, "bbbbbbbb-0000-0000-0000-000000000001", "", "user", "start the dev server", nowish()))
	appendLine(t, tr, jsonlLine(sid, "bbbbbbbb-0000-0000-0000-000000000002", "bbbbbbbb-0000-0000-0000-000000000001", "assistant",
		"Started the Vite dev server with --host 0.0.0.0; staging deploys from the release branch only, so nothing to deploy.", nowish()))
	e.run(t, input("SessionEnd", sid, tr, map[string]any{"reason": "other"}), nil)
	if m := e.memory(t, later); m.Used != 1 {
		t.Errorf("the memory used in a later reply is not counted at SessionEnd: used %d", m.Used)
	}
	if m := e.memory(t, used); m.Used != 1 {
		t.Errorf("used counted %d times", m.Used)
	}
}

// After compaction (SessionStart source "compact") the memories given
// before are given again: by SessionStart, and by a later prompt.
func TestCompactionReinjects(t *testing.T) {
	e := newSyncedEnv(t)
	// SessionStart injects nothing here: the prompt's injection is what
	// the compaction must let through again.
	if err := os.WriteFile(filepath.Join(e.data, "config.toml"), []byte("[hooks]\nsession_start_tokens = 0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	id := e.addMemory(t, demoProject, memories.Gotcha, "The websocket reconnect test is flaky: await the open event before sending", memories.Approved, 4)
	sid := "77777777-3333-4444-5555-666666666666"
	tr := e.transcript(demoFolder, sid)
	prompt := input("UserPromptSubmit", sid, tr, map[string]any{"prompt": "the websocket reconnect test is flaky again, can you look?"})
	if r := e.run(t, prompt, nil); !strings.Contains(r.stdout, id) {
		t.Fatalf("not injected: %q", r.stdout)
	}
	if r := e.run(t, prompt, nil); r.stdout != "" {
		t.Fatalf("injected twice before compaction: %q", r.stdout)
	}
	if r := e.run(t, input("SessionStart", sid, tr, map[string]any{"source": "compact"}), nil); r.stdout != "" || r.code != 0 {
		t.Fatalf("SessionStart: %q", r.stdout)
	}
	if r := e.run(t, prompt, nil); !strings.Contains(r.stdout, id) {
		t.Fatalf("not given again after compaction: %q (log %s)", r.stdout, e.logText())
	}
	if r := e.run(t, prompt, nil); r.stdout != "" {
		t.Fatalf("injected twice after compaction: %q", r.stdout)
	}
}

func nowish() time.Time { return time.Now() }

// The plugin's hooks (--plugin) stand down when cairn install's hooks are
// in the settings too: one injection, not two.
func TestPluginHooksStandDownBesideInstall(t *testing.T) {
	e := newSyncedEnv(t)
	id := e.addMemory(t, demoProject, memories.Gotcha, "The websocket reconnect test is flaky: await the open event before sending", memories.Approved, 4)
	sid := "88888888-3333-4444-5555-666666666666"
	tr := e.transcript(demoFolder, sid)
	start := input("SessionStart", sid, tr, map[string]any{"source": "startup"})
	if r := e.run(t, start, nil, "--plugin"); !strings.Contains(r.stdout, id) {
		t.Fatalf("the plugin alone must inject: %q", r.stdout)
	}
	settings := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"/usr/local/bin/cairn-hook SessionStart"}]}]}}`
	if err := os.WriteFile(filepath.Join(e.claude, "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	before := e.logText()
	if r := e.run(t, input("SessionStart", "99999999-3333-4444-5555-666666666666", tr, map[string]any{"source": "startup"}), nil, "--plugin"); r.stdout != "" || r.code != 0 {
		t.Fatalf("the plugin's hook beside cairn install's injected %q", r.stdout)
	}
	if strings.TrimPrefix(e.logText(), before) != "" {
		t.Errorf("standing down was logged as a problem")
	}
	if r := e.run(t, input("SessionStart", "99999999-3333-4444-5555-666666666666", tr, map[string]any{"source": "startup"}), nil); !strings.Contains(r.stdout, id) {
		t.Fatalf("cairn install's own hook must still inject: %q", r.stdout)
	}
}
