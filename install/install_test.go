package install

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/hookspec"
	"github.com/cairn-dev/cairn/plugin"
)

const userSettings = `{
  "model": "opus",
  "permissions": {
    "allow": ["Bash(ls:*)"],
    "deny": []
  },
  "hooks": {
    "PostToolUse": [
      {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/fmt.sh", "timeout": 30}]}
    ],
    "Stop": [
      {"hooks": [{"type": "command", "command": "notify-send done"}]}
    ]
  },
  "env": {"FOO": "1"},
  "cleanupPeriodDays": 99999
}
`

const userClaudeJSON = `{"numStartups": 12, "projects": {"/x": {"mcpServers": {}, "allowedTools": []}},
 "mcpServers": {"other": {"type": "stdio", "command": "other-srv", "args": []}}, "tipsHistory": {"a": 1.5}}`

type home struct {
	dir, claude, claudeJSON string
}

func newHome(t *testing.T) home {
	t.Helper()
	d := t.TempDir()
	h := home{dir: d, claude: filepath.Join(d, ".claude"), claudeJSON: filepath.Join(d, ".claude.json")}
	must(t, os.MkdirAll(filepath.Join(h.claude, "commands"), 0o755))
	must(t, os.WriteFile(filepath.Join(h.claude, "settings.json"), []byte(userSettings), 0o600))
	must(t, os.WriteFile(h.claudeJSON, []byte(userClaudeJSON), 0o600))
	must(t, os.WriteFile(filepath.Join(h.claude, "commands", "deploy.md"), []byte("Deploy it.\n"), 0o644))
	return h
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// install runs Install with o and returns the settings.json it leaves.
func (h home) install(t *testing.T, o Options) []byte {
	t.Helper()
	_, err := Install(o)
	must(t, err)
	b, _ := os.ReadFile(filepath.Join(h.claude, "settings.json"))
	return b
}

func (h home) opts() Options {
	clock := time.Date(2026, 11, 23, 4, 0, 0, 0, time.UTC)
	return Options{Scope: ScopeUser, ClaudeDir: h.claude, ClaudeJSON: h.claudeJSON,
		Exe: "/opt/cairn tools/bin/cairn", CommandName: "cairn",
		Now: func() time.Time { clock = clock.Add(time.Second); return clock }}
}

func plainFile(t *testing.T, path string) any {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	o, err := ParseObject(b)
	must(t, err)
	return Plain(o)
}

func readObj(t *testing.T, path string) *Object {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	o, err := ParseObject(b)
	must(t, err)
	return o
}

func TestInstallTwiceThenUninstall(t *testing.T) {
	h := newHome(t)
	settings := filepath.Join(h.claude, "settings.json")
	before := plainFile(t, settings)
	beforeJSON := plainFile(t, h.claudeJSON)
	o := h.opts()

	changes, err := Install(o)
	must(t, err)
	byPath := map[string]Change{}
	for _, c := range changes {
		byPath[c.Path] = c
	}
	sc := byPath[settings]
	if sc.Action != "updated" || sc.Backup == "" || !strings.Contains(sc.Diff, "+ ") {
		t.Fatalf("settings change: %+v", sc)
	}
	if strings.Contains(sc.Diff, "\n- ") {
		t.Fatalf("install only adds, but the diff removes lines:\n%s", sc.Diff)
	}
	if b, err := os.ReadFile(sc.Backup); err != nil || string(b) != userSettings {
		t.Fatalf("backup does not hold the old file: %v", err)
	}
	root := readObj(t, settings)
	hooks, _ := root.Get("hooks")
	for _, ev := range hookspec.Events {
		v, ok := hooks.(*Object).Get(ev)
		if !ok {
			t.Fatalf("no %s hook", ev)
		}
		n := 0
		for _, g := range v.([]any) {
			hl, _ := g.(*Object).Get("hooks")
			for _, x := range hl.([]any) {
				cmd, _ := x.(*Object).Get("command")
				if cmd == "'/opt/cairn tools/bin/cairn' hook "+ev {
					n++
				}
			}
		}
		if n != 1 {
			t.Errorf("%s: %d cairn handlers", ev, n)
		}
	}
	stop, _ := hooks.(*Object).Get("Stop")
	if len(stop.([]any)) != 2 {
		t.Fatalf("the user's Stop hook must be kept beside cairn's: %v", Plain(stop))
	}
	// Key order of the user's file is kept.
	if got := root.Keys(); !reflect.DeepEqual(got, []string{"model", "permissions", "hooks", "env", "cleanupPeriodDays"}) {
		t.Errorf("keys reordered: %v", got)
	}
	mcpRoot := readObj(t, h.claudeJSON)
	servers, _ := mcpRoot.Get("mcpServers")
	if e, ok := servers.(*Object).Get("cairn"); !ok {
		t.Fatal("MCP server not registered")
	} else if cmd, _ := e.(*Object).Get("command"); cmd != o.Exe {
		t.Fatalf("MCP command %v", cmd)
	}
	if _, ok := servers.(*Object).Get("other"); !ok {
		t.Fatal("the other MCP server was dropped")
	}
	for _, c := range plugin.Commands() {
		b, err := os.ReadFile(filepath.Join(h.claude, "commands", c.Name+".md"))
		must(t, err)
		if string(b) != string(c.Content) {
			t.Errorf("%s.md differs from the plugin's", c.Name)
		}
	}

	// Backups are never overwritten, even within the same second.
	if b1, b2 := backupName(settings, time.Unix(0, 0)), backupName(settings, time.Unix(0, 0)); b1 != b2 {
		t.Fatal("backupName is not deterministic for a free name")
	}
	must(t, os.WriteFile(backupName(settings, time.Unix(0, 0)), []byte("x"), 0o600))
	if backupName(settings, time.Unix(0, 0)) == settings+".cairn-backup-19700101-000000" {
		t.Fatal("an existing backup would be overwritten")
	}
	// Again: nothing changes, no new backup.
	again, err := Install(o)
	must(t, err)
	for _, c := range again {
		if c.Action != "unchanged" || c.Backup != "" {
			t.Errorf("second install changed %s: %s", c.Path, c.Action)
		}
	}

	// Uninstall: identical in meaning to the start.
	removed, err := Uninstall(o)
	must(t, err)
	if after := plainFile(t, settings); !reflect.DeepEqual(after, before) {
		t.Fatalf("settings after uninstall differ:\n%v\n%v", after, before)
	}
	if after := plainFile(t, h.claudeJSON); !reflect.DeepEqual(after, beforeJSON) {
		t.Fatalf(".claude.json after uninstall differs:\n%v\n%v", after, beforeJSON)
	}
	ents, _ := os.ReadDir(filepath.Join(h.claude, "commands"))
	if len(ents) != 1 || ents[0].Name() != "deploy.md" {
		t.Fatalf("commands left: %v", ents)
	}
	nRemoved := 0
	for _, c := range removed {
		if c.Action == "removed" {
			nRemoved++
		}
	}
	if nRemoved != len(plugin.Commands()) {
		t.Errorf("removed %d command files", nRemoved)
	}
	// Uninstalling again is a no-op.
	second, err := Uninstall(o)
	must(t, err)
	for _, c := range second {
		if c.Action != "unchanged" {
			t.Errorf("second uninstall: %+v", c)
		}
	}
}

func TestInstallFreshHomeAndUninstallLeavesNothing(t *testing.T) {
	d := t.TempDir()
	o := Options{Scope: ScopeUser, ClaudeDir: filepath.Join(d, ".claude"), ClaudeJSON: filepath.Join(d, ".claude.json"), Exe: "/usr/local/bin/cairn"}
	if _, err := Install(o); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall(o); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(d, ".claude", "settings.json"), filepath.Join(d, ".claude.json")} {
		if got := plainFile(t, p); !reflect.DeepEqual(got, map[string]any{}) {
			t.Errorf("%s: %v", p, got)
		}
	}
	if _, err := os.Stat(filepath.Join(d, ".claude", "commands")); !os.IsNotExist(err) {
		t.Errorf("commands folder left behind: %v", err)
	}
}

func TestDryRunChangesNothing(t *testing.T) {
	h := newHome(t)
	o := h.opts()
	o.DryRun = true
	changes, err := Install(o)
	must(t, err)
	if len(changes) < 2 || changes[0].Action != "updated" || changes[0].Diff == "" {
		t.Fatalf("dry run should report the diff: %+v", changes)
	}
	if b, _ := os.ReadFile(filepath.Join(h.claude, "settings.json")); string(b) != userSettings {
		t.Fatal("dry run wrote settings.json")
	}
	if _, err := os.Stat(filepath.Join(h.claude, "commands", "recall.md")); !os.IsNotExist(err) {
		t.Fatal("dry run wrote a command")
	}
	ents, _ := os.ReadDir(h.claude)
	for _, e := range ents {
		if strings.Contains(e.Name(), "backup") {
			t.Fatal("dry run wrote a backup")
		}
	}
}

func TestUpgradeReplacesOldHandlers(t *testing.T) {
	h := newHome(t)
	o := h.opts()
	o.Exe = "/old/place/cairn"
	h.install(t, o)
	o.Exe = "/new/place/cairn"
	b := h.install(t, o)
	if strings.Contains(string(b), "/old/place") || strings.Count(string(b), "/new/place/cairn hook") != len(hookspec.Events) {
		t.Fatalf("old handlers not replaced:\n%s", b)
	}
}

func TestUserCommandOfSameNameIsKept(t *testing.T) {
	h := newHome(t)
	mine := []byte("---\ndescription: my own recall\n---\nDo my thing.\n")
	must(t, os.WriteFile(filepath.Join(h.claude, "commands", "recall.md"), mine, 0o644))
	o := h.opts()
	changes, err := Install(o)
	must(t, err)
	kept := false
	for _, c := range changes {
		kept = kept || (strings.HasSuffix(c.Path, "recall.md") && c.Action == "kept")
	}
	if !kept {
		t.Fatalf("expected recall.md kept: %+v", changes)
	}
	_, err = Uninstall(o)
	must(t, err)
	if b, _ := os.ReadFile(filepath.Join(h.claude, "commands", "recall.md")); string(b) != string(mine) {
		t.Fatal("the user's own recall.md was changed")
	}
}

func TestBrokenSettingsRefused(t *testing.T) {
	h := newHome(t)
	p := filepath.Join(h.claude, "settings.json")
	must(t, os.WriteFile(p, []byte(`{"hooks": {`), 0o600))
	_, err := Install(h.opts())
	if err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Fatalf("want a refusal, got %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != `{"hooks": {` {
		t.Fatal("a broken file was rewritten")
	}
}

func TestLeanHookBinary(t *testing.T) {
	h := newHome(t)
	o := h.opts()
	o.HookExe = "/opt/bin/cairn-hook"
	b := h.install(t, o)
	if strings.Count(string(b), `"/opt/bin/cairn-hook `) != len(hookspec.Events) || strings.Contains(string(b), " hook Stop") {
		t.Fatalf("hooks do not use cairn-hook:\n%s", b)
	}
	// Switching back to `cairn hook` replaces them, and uninstall finds both forms.
	o.HookExe = ""
	if b := h.install(t, o); strings.Contains(string(b), "cairn-hook") {
		t.Fatalf("old cairn-hook handlers left:\n%s", b)
	}
	_, err := Uninstall(o)
	must(t, err)
	if got, want := plainFile(t, filepath.Join(h.claude, "settings.json")), func() any { o, _ := ParseObject([]byte(userSettings)); return Plain(o) }(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after uninstall: %v", got)
	}
}

// A project install writes no path of this machine, keeps its backups
// out of the working tree, and uninstall gives every file back byte for
// byte (a committed {"mcpServers": {}} included) and removes the ones it
// created.
func TestPortableProjectInstall(t *testing.T) {
	d, data := t.TempDir(), t.TempDir()
	const mcpBefore = "{\"mcpServers\":   {}}\n"
	writeTestFile(t, filepath.Join(d, ".mcp.json"), mcpBefore)
	before := snapshotTree(t, d)
	o := Options{Scope: ScopeProject, ProjectDir: d, Exe: "/home/me/go/bin/cairn", HookExe: "/home/me/go/bin/cairn-hook", CommandName: "cairn", Portable: true,
		BackupDir: filepath.Join(data, "install-backups")}
	_, err := Install(o)
	must(t, err)
	b, _ := os.ReadFile(filepath.Join(d, ".claude", "settings.json"))
	m, _ := os.ReadFile(filepath.Join(d, ".mcp.json"))
	if strings.Contains(string(b)+string(m), "/home/me") || !strings.Contains(string(b), `"cairn-hook Stop 2>/dev/null || cairn hook Stop 2>/dev/null || true"`) || !strings.Contains(string(m), `"command": "cairn"`) {
		t.Fatalf("not portable:\n%s\n%s", b, m)
	}
	for p := range snapshotTree(t, d) {
		if strings.Contains(p, "backup") {
			t.Errorf("a backup in the working tree: %s", p)
		}
	}
	// Installing again changes nothing and keeps the first original.
	_, err = Install(o)
	must(t, err)
	_, err = Uninstall(o)
	must(t, err)
	if after := snapshotTree(t, d); !reflect.DeepEqual(after, before) {
		t.Fatalf("after uninstall the project holds %v, want %v", after, before)
	}
}

// A file changed since install loses only cairn's entries; a file install
// created that holds nothing else goes.
func TestUninstallAfterEdits(t *testing.T) {
	d, data := t.TempDir(), t.TempDir()
	o := Options{Scope: ScopeProject, ProjectDir: d, Exe: "/x/cairn", CommandName: "cairn", Portable: true, BackupDir: filepath.Join(data, "b")}
	_, err := Install(o)
	must(t, err)
	settings := filepath.Join(d, ".claude", "settings.json")
	obj, err := ParseObject([]byte(readTestFile(t, settings)))
	must(t, err)
	obj.Set("model", "opus")
	writeTestFile(t, settings, string(obj.Marshal()))
	_, err = Uninstall(o)
	must(t, err)
	if got := plainFile(t, settings); !reflect.DeepEqual(got, map[string]any{"model": "opus"}) {
		t.Errorf("settings after uninstall: %v", got)
	}
	if _, err := os.Stat(filepath.Join(d, ".mcp.json")); !os.IsNotExist(err) {
		t.Errorf(".mcp.json left: %v", err)
	}
}

// The hooks of a project install exit 0 with no output where neither
// cairn-hook nor cairn is installed.
func TestPortableHookWithoutCairn(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	o := Options{Scope: ScopeProject, Portable: true}
	cmd := exec.CommandContext(t.Context(), sh, "-c", o.HookCommand("SessionStart"))
	cmd.Env = []string{"PATH=" + t.TempDir()}
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"SessionStart"}`)
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) != 0 {
		t.Fatalf("without cairn: %v, output %q", err, out)
	}
}

// snapshotTree is every file under dir with its bytes.
func snapshotTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if e.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	must(t, err)
	return out
}

func writeTestFile(t *testing.T, p, s string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte(s), 0o644))
}

func readTestFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	must(t, err)
	return string(b)
}

func TestProjectScope(t *testing.T) {
	d := t.TempDir()
	o := Options{Scope: ScopeProject, ProjectDir: d, Exe: "/usr/bin/cairn", CommandName: "/usr/bin/cairn"}
	_, err := Install(o)
	must(t, err)
	mcp := plainFile(t, filepath.Join(d, ".mcp.json")).(map[string]any)
	if _, ok := mcp["mcpServers"].(map[string]any)["cairn"]; !ok {
		t.Fatalf(".mcp.json: %v", mcp)
	}
	b, err := os.ReadFile(filepath.Join(d, ".claude", "commands", "synthesize.md"))
	must(t, err)
	if !strings.Contains(string(b), "allowed-tools: Bash(/usr/bin/cairn synthesize:*)") || !strings.Contains(string(b), "!`/usr/bin/cairn synthesize --project .`") {
		t.Fatalf("command not pointed at the binary:\n%s", b)
	}
	_, err = Uninstall(o)
	must(t, err)
	if got := plainFile(t, filepath.Join(d, ".claude", "settings.json")); !reflect.DeepEqual(got, map[string]any{}) {
		t.Fatalf("settings left: %v", got)
	}
}

// The plugin's hooks.json registers the same events and timeouts as
// `cairn install`.
func TestPluginHooksMatchInstall(t *testing.T) {
	root, err := ParseObject(plugin.HooksJSON())
	must(t, err)
	hv, _ := root.Get("hooks")
	hooks := hv.(*Object)
	if hooks.Len() != len(hookspec.Events) {
		t.Fatalf("plugin registers %v", hooks.Keys())
	}
	o := Options{Exe: "/x/cairn"}
	for _, ev := range hookspec.Events {
		v, _ := hooks.Get(ev)
		h := Plain(v).([]any)[0].(map[string]any)["hooks"].([]any)[0].(map[string]any)
		cmd, _ := h["command"].(string)
		if !strings.HasPrefix(cmd, "cairn-hook "+ev+" --plugin 2>/dev/null || cairn hook "+ev+" --plugin 2>/dev/null || ") || !o.IsHookCommand(cmd) {
			t.Errorf("%s: command %v", ev, h["command"])
		}
		want := Timeouts[ev]
		got, _ := h["timeout"].(float64)
		if int(got) != want {
			t.Errorf("%s: timeout %v, install uses %d", ev, h["timeout"], want)
		}
	}
}

// The slash commands cairn install writes are the plugin's, pointed at the
// binary: their argument hints stay quoted YAML strings, the commands that
// take the user's text hand it to cairn's MCP tools (no shell), and a
// reinstall recognises both these files and the older Bash ones as cairn's.
func TestInstalledCommandsKeepHintsAndUseMCP(t *testing.T) {
	o := Options{Exe: "/opt/cairn/bin/cairn", CommandName: "/opt/cairn/bin/cairn"}
	files := o.CommandFiles()
	for name, want := range map[string]string{"recall.md": `argument-hint: "[query]"`, "remember.md": `argument-hint: "<what to remember>"`,
		"summarize.md": `argument-hint: "[what to stress, optional]"`} {
		if !strings.Contains(string(files[name]), want+"\n") {
			t.Errorf("%s lacks %s:\n%s", name, want, files[name])
		}
		if strings.Contains(string(files[name]), "Bash(") || !o.isOurCommandFile(files[name]) {
			t.Errorf("%s: not an MCP command cairn recognises:\n%s", name, files[name])
		}
	}
	for _, old := range []string{"---\nallowed-tools: Bash(cairn recall:*)\n---\n", "---\nallowed-tools: Bash(/opt/cairn/bin/cairn drafts add:*)\n---\n"} {
		if !o.isOurCommandFile([]byte(old)) {
			t.Errorf("an older cairn command is not recognised: %q", old)
		}
	}
	if o.isOurCommandFile([]byte("---\nallowed-tools: Bash(git status:*)\n---\n")) {
		t.Error("another command taken for cairn's")
	}
}

func TestIsCairnCommand(t *testing.T) {
	o := Options{Exe: "/home/me/go/bin/cairn"}
	for cmd, want := range map[string]bool{
		"cairn hook Stop":                     true,
		"'/opt/x y/cairn' hook Stop":          true,
		`"/usr/bin/cairn" hook`:               true,
		"/home/me/go/bin/cairn hook --data x": true,
		"cairn mcp":                           false,
		"notify-send cairn hook":              false,
		"mycairn hook":                        false,
	} {
		if got := o.IsCairnCommand(cmd, "hook"); got != want {
			t.Errorf("%q: %v", cmd, got)
		}
	}
}

func TestDiff(t *testing.T) {
	d := Diff("f", []byte("a\nb\nc\n"), []byte("a\nB\nc\nd\n"))
	for _, want := range []string{"- b", "+ B", "+ d", "  a"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	if Diff("f", []byte("x"), []byte("x")) != "" {
		t.Error("equal inputs must give no diff")
	}
}
