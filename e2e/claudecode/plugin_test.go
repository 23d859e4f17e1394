package claudecode_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/fakeclaude"
	"github.com/cairn-dev/cairn/internal/testutil"
)

// installPlugin adds this repo as a marketplace and installs cairn@cairn,
// as a user would with /plugin.
func (w *world) installPlugin() {
	w.t.Helper()
	root := testutil.RepoRoot()
	for _, args := range [][]string{{"plugin", "marketplace", "add", root}, {"plugin", "install", "cairn@cairn"}} {
		if r := w.claudeCmd(args...); r.code != 0 {
			w.t.Fatalf("claude %v: exit %d\n%s%s", args, r.code, r.out, r.err)
		}
	}
}

// toolsOf counts the run's offered tools with a prefix.
func toolsOf(run *streamRun, prefix string) int {
	n := 0
	for _, name := range run.list("tools") {
		if strings.HasPrefix(name, prefix) {
			n++
		}
	}
	return n
}

// The plugin from this repo's marketplace passes `plugin validate
// --strict`, installs, registers its hooks (which run and inject), offers
// cairn's tools and lists its commands with their argument hints.
func TestPluginFromMarketplace(t *testing.T) {
	w := newWorld(t, fakeclaude.Script(fakeclaude.Text("hi")))
	root := testutil.RepoRoot()
	for _, p := range []string{filepath.Join(root, "plugin"), root} {
		if r := w.claudeCmd("plugin", "validate", "--strict", p); r.code != 0 || !strings.Contains(r.out, "Validation passed") {
			t.Errorf("plugin validate --strict %s: exit %d\n%s%s", p, r.code, r.out, r.err)
		}
	}
	if !w.cli.Before("2.1.332") {
		// The plugin directory's checks (a LICENSE and a README among them).
		p := filepath.Join(root, "plugin")
		if r := w.claudeCmd("plugin", "validate", "--profile", "directory", p); r.code != 0 || !strings.Contains(r.out, "Validation passed") {
			t.Errorf("plugin validate --profile directory %s: exit %d\n%s%s", p, r.code, r.out, r.err)
		}
	}
	w.installPlugin()
	if r := w.claudeCmd("plugin", "list"); !strings.Contains(r.out, "cairn@cairn") || !strings.Contains(r.out, "enabled") {
		t.Fatalf("plugin list:\n%s", r.out)
	}
	w.addMemory("gotcha", "approved", stripeGotcha)
	run := w.ask("hello plugin")
	if n := toolsOf(run, "mcp__plugin_cairn_cairn__"); n != len(cairnTools) {
		t.Errorf("%d plugin tools offered, want %d: %v", n, len(cairnTools), run.list("tools"))
	}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "Stop"} {
		hs := run.hooksOf(ev)
		if len(hs) != 1 || hs[0].exitCode != 0 {
			t.Errorf("%s: %+v", ev, hs)
		}
	}
	if n := strings.Count(w.api.MainRequests()[0].AllText(), stripeGotcha); n != 1 {
		t.Errorf("the plugin's SessionStart injected the memory %d times", n)
	}
	hints := w.commandHints()
	for name, want := range map[string]string{"cairn:recall": "[query]", "cairn:remember": "<what to remember>", "cairn:summarize": "[what to stress, optional]"} {
		if got, ok := hints[name]; !ok || got != want {
			t.Errorf("/%s argument hint %q (listed: %v), want %q", name, got, ok, want)
		}
	}
	if _, ok := hints["cairn:synthesize"]; !ok {
		t.Errorf("/cairn:synthesize not listed: %v", hints)
	}
}

// cairn install beside the enabled plugin refuses; installed the other
// way round (install first, plugin after), the plugin's hooks and server
// stand down: one injection, each tool offered once, and doctor says so.
func TestPluginAndInstallTogether(t *testing.T) {
	w := newWorld(t, fakeclaude.Script(fakeclaude.Text("hi"), fakeclaude.Text("hi again")))
	w.installPlugin()
	r := w.cairn("install")
	if r.code == 0 || !strings.Contains(r.err+r.out, "plugin") || !strings.Contains(r.err+r.out, "--replace-plugin") {
		t.Fatalf("cairn install beside the plugin: exit %d\n%s%s", r.code, r.out, r.err)
	}
	if _, err := os.Stat(filepath.Join(w.claude, "commands", "recall.md")); err == nil {
		t.Fatal("a refused install wrote the commands")
	}
	// The other order: the plugin enabled after cairn install.
	w.mustCairn("install", "--replace-plugin")
	if r := w.claudeCmd("plugin", "enable", "cairn@cairn"); r.code != 0 {
		t.Fatalf("plugin enable: %d %s%s", r.code, r.out, r.err)
	}
	w.addMemory("gotcha", "approved", stripeGotcha)
	run := w.ask("hello both")
	if n, m := toolsOf(run, "mcp__cairn__"), toolsOf(run, "mcp__plugin_cairn_cairn__"); n != len(cairnTools) || m != 0 {
		t.Errorf("tools: %d from the install, %d from the plugin; want %d and 0", n, m, len(cairnTools))
	}
	if n := strings.Count(w.api.MainRequests()[0].AllText(), stripeGotcha); n != 1 {
		t.Errorf("the memory was injected %d times", n)
	}
	for _, h := range run.hooks {
		if h.exitCode != 0 {
			t.Errorf("hook %s exited %d", h.name, h.exitCode)
		}
	}
	if n := len(run.hooksOf("SessionStart")); n != 2 {
		t.Errorf("SessionStart ran %d times, want 2 (install's and the plugin's, which stands down)", n)
	}
	doc := w.cairn("doctor")
	if !strings.Contains(doc.out, "installed twice") {
		t.Errorf("doctor does not flag the doubling:\n%s", doc.out)
	}
}

// With the plugin installed but neither binary on PATH, every hook exits
// 0 and SessionStart tells the model what to do; Claude Code still works.
func TestPluginWithoutBinariesExitsZero(t *testing.T) {
	w := newWorld(t, fakeclaude.Script(fakeclaude.Text("hi")))
	w.installPlugin()
	w.path = "/usr/bin:/bin"
	run := w.ask("hello without cairn")
	if run.final != "hi" {
		t.Fatalf("final %q", run.final)
	}
	if len(run.hooks) < 3 {
		t.Fatalf("hooks did not run: %+v", run.hooks)
	}
	for _, h := range run.hooks {
		if h.exitCode != 0 || h.outcome != "success" {
			t.Errorf("hook %s: exit %d %s", h.name, h.exitCode, h.outcome)
		}
	}
	if !strings.Contains(w.api.MainRequests()[0].AllText(), "is on PATH") {
		t.Errorf("the SessionStart hint did not reach the model")
	}
}
