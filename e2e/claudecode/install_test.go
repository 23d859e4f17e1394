package claudecode_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/fakeclaude"
	"github.com/cairn-dev/cairn/mcpserver"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// settingsBefore is a user's own settings, which install must keep and
// uninstall must give back as they were.
const settingsBefore = `{
  "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "true # the user's own hook"}]}]
  }
}
`

// mcpConnected asserts `claude mcp list` shows cairn connected.
func (w *world) mcpConnected(name string) {
	w.t.Helper()
	r := w.claudeCmd("mcp", "list")
	if r.code != 0 {
		w.t.Fatalf("claude mcp list: exit %d\n%s%s", r.code, r.out, r.err)
	}
	for _, l := range strings.Split(r.out, "\n") {
		if strings.HasPrefix(l, name+":") && strings.Contains(l, "Connected") {
			return
		}
	}
	w.t.Fatalf("claude mcp list does not show %s connected:\n%s%s", name, r.out, r.err)
}

// checkInstalledRun runs one prompt and checks cairn is wired in: the
// SessionStart context reaches the model, cairn's 9 MCP tools are
// offered once, every cairn hook exits 0, and the commands are listed.
func (w *world) checkInstalledRun(wantStop int) *streamRun {
	w.t.Helper()
	run := w.ask("hello from the install test")
	if !serverConnected(run, "cairn") {
		w.t.Errorf("cairn not connected: %v", run.init()["mcp_servers"])
	}
	tools := 0
	for _, n := range run.list("tools") {
		if strings.HasPrefix(n, "mcp__cairn__") {
			tools++
		}
	}
	if tools != len(cairnTools) {
		w.t.Errorf("%d cairn tools offered, want %d: %v", tools, len(cairnTools), run.list("tools"))
	}
	for _, c := range []string{"recall", "remember", "summarize", "synthesize"} {
		if !contains(run.list("slash_commands"), c) {
			w.t.Errorf("/%s not listed: %v", c, run.list("slash_commands"))
		}
	}
	first := w.api.MainRequests()[len(w.api.MainRequests())-1]
	if n := strings.Count(first.AllText(), "cairn: session id "+run.sessionID); n != 1 {
		w.t.Errorf("SessionStart context %d times in the request", n)
	}
	for _, h := range run.hooks {
		if h.exitCode != 0 || h.outcome != "success" {
			w.t.Errorf("hook %s: exit %d, %s", h.name, h.exitCode, h.outcome)
		}
	}
	for ev, want := range map[string]int{"SessionStart": 1, "UserPromptSubmit": 1, "Stop": wantStop} {
		if len(run.hooksOf(ev)) != want {
			w.t.Errorf("%s ran %d times, want %d", ev, len(run.hooksOf(ev)), want)
		}
	}
	return run
}

// cairnTools are the tools cairn's MCP server offers, listed from the
// server itself (so a new tool is expected everywhere at once).
var cairnTools = func() []string {
	srv := mcpserver.New(mcpserver.Options{Broken: errors.New("listing only")})
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		panic(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		panic(err)
	}
	var names []string
	for _, t := range res.Tools {
		names = append(names, t.Name)
	}
	return names
}()

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte(s), 0o644))
}

// cairn install (user scope) into a config with the user's own settings:
// Claude Code connects the MCP server, runs the hooks, lists the commands;
// cairn uninstall gives the settings back unchanged.
func TestInstallUserScopeThenUninstall(t *testing.T) {
	w := newWorld(t, fakeclaude.Script(fakeclaude.Text("hi")))
	settings := filepath.Join(w.claude, "settings.json")
	writeFile(t, settings, settingsBefore)
	w.mustCairn("install")
	w.mcpConnected("cairn")
	w.checkInstalledRun(2) // cairn's Stop hook and the user's own
	w.mustCairn("uninstall")
	if got := readFile(t, settings); !sameJSON(t, got, settingsBefore) {
		t.Errorf("settings after uninstall:\n%s\nwant:\n%s", got, settingsBefore)
	}
	r := w.claudeCmd("mcp", "list")
	if strings.Contains(r.out, "cairn:") {
		t.Errorf("cairn still registered after uninstall:\n%s", r.out)
	}
	if _, err := os.Stat(filepath.Join(w.claude, "commands", "recall.md")); err == nil {
		t.Error("commands left after uninstall")
	}
}

// cairn install --scope project writes .claude/settings.json and .mcp.json
// in the project: Claude Code (print mode) runs the hooks and connects the
// server.
func TestInstallProjectScope(t *testing.T) {
	w := newWorld(t, fakeclaude.Script(fakeclaude.Text("hi")))
	projSettings := filepath.Join(w.proj, ".claude", "settings.json")
	writeFile(t, projSettings, settingsBefore)
	w.mustCairn("install", "--scope", "project")
	for _, p := range []string{filepath.Join(w.proj, ".mcp.json"), filepath.Join(w.proj, ".claude", "settings.json"),
		filepath.Join(w.proj, ".claude", "commands", "recall.md")} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("project install did not write %s", p)
		}
	}
	// Project servers await the user's approval in `claude mcp list`
	// (interactive only); print mode connects them.
	if r := w.claudeCmd("mcp", "list"); !strings.Contains(r.out, "cairn: cairn mcp") {
		t.Errorf("claude mcp list does not show the project's cairn server:\n%s", r.out)
	}
	w.checkInstalledRun(2) // cairn's Stop hook and the project's own
	w.mustCairn("uninstall", "--scope", "project")
	if got := readFile(t, projSettings); !sameJSON(t, got, settingsBefore) {
		t.Errorf("project settings after uninstall:\n%s\nwant:\n%s", got, settingsBefore)
	}
	if r := w.claudeCmd("mcp", "list"); strings.Contains(r.out, "cairn:") {
		t.Errorf("cairn still registered after uninstall:\n%s", r.out)
	}
}

// With CLAUDE_CONFIG_DIR, cairn install writes into that dir (settings,
// commands and its .claude.json), where Claude Code reads them.
func TestInstallClaudeConfigDir(t *testing.T) {
	w := newWorld(t, fakeclaude.Script(fakeclaude.Text("hi")))
	w.useConfigDir(filepath.Join(w.home, "alt-claude"))
	writeFile(t, filepath.Join(w.configDir, "settings.json"), settingsBefore)
	w.mustCairn("install")
	if _, err := os.Stat(filepath.Join(w.configDir, "settings.json")); err != nil {
		t.Fatal("install did not write $CLAUDE_CONFIG_DIR/settings.json")
	}
	if _, err := os.Stat(filepath.Join(w.home, ".claude", "settings.json")); err == nil {
		t.Fatal("install wrote ~/.claude/settings.json despite CLAUDE_CONFIG_DIR")
	}
	w.mcpConnected("cairn")
	run := w.checkInstalledRun(2) // cairn's Stop hook and the user's own
	// The hooks index into the store from the config dir's projects.
	w.waitIndexed(run.sessionID)
	w.mustCairn("uninstall")
	if got := readFile(t, filepath.Join(w.configDir, "settings.json")); !sameJSON(t, got, settingsBefore) {
		t.Errorf("settings after uninstall:\n%s\nwant:\n%s", got, settingsBefore)
	}
	r := w.claudeCmd("mcp", "list")
	if strings.Contains(r.out, "cairn:") {
		t.Errorf("cairn still registered after uninstall:\n%s", r.out)
	}
}
