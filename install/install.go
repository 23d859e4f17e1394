// Package install merges cairn into Claude Code's configuration and takes
// it out again: the hooks in settings.json, the MCP server registration
// (~/.claude.json or a project's .mcp.json) and the slash commands. Every
// change keeps the rest of the file (key order included), writes a backup
// of the old file first, is shown as a diff, and is idempotent; uninstall
// removes exactly what install added.
package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/internal/hookspec"
	"github.com/cairn-dev/cairn/plugin"
)

// Scopes.
const (
	ScopeUser    = "user"
	ScopeProject = "project"
)

// MCPName is the server name cairn registers.
const MCPName = "cairn"

// Options say where to install and what to run.
type Options struct {
	Scope      string // user (default) or project
	ClaudeDir  string // Claude Code's config dir (user scope: settings.json, commands/)
	ClaudeJSON string // the user-scope MCP file (~/.claude.json, or $CLAUDE_CONFIG_DIR/.claude.json)
	ProjectDir string // project scope root
	// Exe is the absolute path of the cairn binary the MCP server runs.
	Exe string
	// HookExe, when set, is the lean cairn-hook binary the hooks run
	// (`HookExe EVENT`); else they run `Exe hook EVENT`.
	HookExe string
	// CommandName is how the slash commands call cairn: "cairn" when it is
	// on PATH, else Exe.
	CommandName string
	// DataDir, when set, is passed to the hooks and the server as --data.
	DataDir string
	// Portable writes bare program names (cairn, cairn-hook: found on
	// PATH) instead of absolute paths, for project files a team shares;
	// its hooks exit 0, silently, where neither program is installed.
	Portable bool
	// BackupDir, when set, is where the files install and uninstall
	// change are backed up (cairn's data dir: never the working tree),
	// with a record of each file's bytes before cairn's first change, so
	// uninstall gives them back byte for byte (restore.go). Empty: a
	// backup beside the file, as before.
	BackupDir string
	DryRun    bool
	Now       func() time.Time
	// ReplacePlugin disables an enabled cairn plugin (in the settings file
	// that enables it) instead of refusing to install beside it.
	ReplacePlugin bool
}

// ErrPluginEnabled is Install's error when the cairn plugin is enabled.
var ErrPluginEnabled = errors.New("the cairn plugin is enabled")

// Paths are the files an install touches.
type Paths struct {
	Settings string
	MCP      string
	Commands string // folder
}

// Paths resolves the files of o's scope.
func (o *Options) Paths() (Paths, error) {
	switch o.Scope {
	case "", ScopeUser:
		if o.ClaudeDir == "" || o.ClaudeJSON == "" {
			return Paths{}, errors.New("no Claude config dir: pass --claude-dir")
		}
		return Paths{Settings: filepath.Join(o.ClaudeDir, "settings.json"), MCP: o.ClaudeJSON,
			Commands: filepath.Join(o.ClaudeDir, "commands")}, nil
	case ScopeProject:
		if o.ProjectDir == "" {
			return Paths{}, errors.New("no project dir")
		}
		return Paths{Settings: filepath.Join(o.ProjectDir, ".claude", "settings.json"), MCP: filepath.Join(o.ProjectDir, ".mcp.json"),
			Commands: filepath.Join(o.ProjectDir, ".claude", "commands")}, nil
	}
	return Paths{}, fmt.Errorf("unknown scope %q: use user or project", o.Scope)
}

// Change is one file install or uninstall changed (or would change).
type Change struct {
	Path   string
	Action string // created, updated, removed, unchanged, kept (user-modified)
	Backup string // the backup of the previous content, if any
	Diff   string
	Note   string
}

// Timeouts of cairn's hooks in seconds (0: Claude Code's default). They are
// ceilings, not expectations: the hooks finish in milliseconds. SessionEnd
// has none so it does not raise the shared 1.5 s SessionEnd budget.
var Timeouts = map[string]int{
	hookspec.SessionStart: 10, hookspec.UserPromptSubmit: 10, hookspec.PreToolUse: 5, hookspec.Stop: 30,
	hookspec.SubagentStop: 30, hookspec.PreCompact: 30, hookspec.SessionEnd: 0,
}

// HookCommand is the command line a hook runs for event.
func (o *Options) HookCommand(event string) string {
	exe, hookExe := o.Exe, o.HookExe
	if o.Portable {
		// Whoever runs it: the lean binary when installed, else cairn,
		// else nothing (exit 0, no output: a teammate without cairn
		// works as before).
		c := HookProgram + " " + event + " 2>/dev/null || cairn hook " + event + " 2>/dev/null || true"
		if o.DataDir != "" {
			c = HookProgram + " " + event + " --data " + shellQuote(o.DataDir) + " 2>/dev/null || cairn hook " + event + " --data " + shellQuote(o.DataDir) + " 2>/dev/null || true"
		}
		return c
	}
	c := shellQuote(exe) + " hook " + event
	if hookExe != "" {
		c = shellQuote(hookExe) + " " + event
	}
	if o.DataDir != "" {
		c += " --data " + shellQuote(o.DataDir)
	}
	return c
}

// Install merges cairn into the scope's settings, MCP file and commands.
func Install(o Options) ([]Change, error) {
	p, err := o.Paths()
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(o.Exe) {
		return nil, fmt.Errorf("the cairn binary path %q is not absolute", o.Exe)
	}
	out, err := o.replacePlugin()
	if err != nil {
		return out, err
	}
	c, err := o.editJSON(p.Settings, func(root *Object) error { return o.mergeHooks(root) })
	if err != nil {
		return out, err
	}
	out = append(out, c)
	c, err = o.editJSON(p.MCP, func(root *Object) error { return o.addMCP(root) })
	if err != nil {
		return out, err
	}
	out = append(out, c)
	cs, err := o.installCommands(p.Commands)
	return append(out, cs...), err
}

// replacePlugin disables the cairn plugin when it is enabled and the
// person asked to replace it (ReplacePlugin), else refuses: the plugin
// and an install side by side would run every hook twice and offer every
// tool twice.
func (o *Options) replacePlugin() ([]Change, error) {
	file, key := plugin.Enabled(plugin.SettingsFiles(o.ClaudeDir, o.ProjectDir)...)
	if file == "" {
		return nil, nil
	}
	if !o.ReplacePlugin {
		return nil, fmt.Errorf("%w (%s in %s): installing cairn as well would run every hook twice and offer every tool twice. "+
			"Keep the plugin (nothing to install), or switch: cairn install --replace-plugin disables the plugin and installs, "+
			"or disable it yourself (claude plugin disable %s) and run cairn install again", ErrPluginEnabled, key, file, key)
	}
	c, err := o.editJSON(file, func(root *Object) error {
		ep, err := root.Child("enabledPlugins")
		if err != nil {
			return err
		}
		ep.Set(key, false)
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.Note = "the cairn plugin (" + key + ") is disabled: cairn install replaces it"
	return []Change{c}, nil
}

// Uninstall removes what Install added.
func Uninstall(o Options) ([]Change, error) {
	p, err := o.Paths()
	if err != nil {
		return nil, err
	}
	var out []Change
	c, err := o.uneditJSON(p.Settings, func(root *Object) error { o.removeHooks(root); return nil })
	if err != nil {
		return out, err
	}
	out = append(out, c)
	c, err = o.uneditJSON(p.MCP, func(root *Object) error { o.removeMCP(root); return nil })
	if err != nil {
		return out, err
	}
	out = append(out, c)
	cs, err := o.removeCommands(p.Commands)
	out = append(out, cs...)
	if err == nil && o.Scope == ScopeProject && !o.DryRun {
		// The .claude folder install created, when nothing else is in it.
		removeEmptyDir(filepath.Dir(p.Settings))
	}
	return out, err
}

// editJSON reads a JSON object file (missing = empty), applies fn, and
// writes it back when it changed: a backup first, then an atomic replace
// keeping the file's mode.
func (o *Options) editJSON(path string, fn func(*Object) error) (Change, error) {
	ch := Change{Path: path, Action: "unchanged"}
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return ch, fmt.Errorf("reading %s: %w", path, err)
	}
	root, err := ParseObject(old)
	if err != nil {
		return ch, fmt.Errorf("%s is not valid JSON (%w): fix it first; cairn changed nothing", path, err)
	}
	if err := fn(root); err != nil {
		return ch, fmt.Errorf("%s: %w; cairn changed nothing", path, err)
	}
	if !jsonChanged(old, exists, root) {
		return ch, nil
	}
	neu := root.Marshal()
	describeChange(&ch, old, exists, neu)
	if o.DryRun {
		return ch, nil
	}
	err = o.writeJSON(&ch, old, exists, neu) // sets ch.Backup
	return ch, err
}

// jsonChanged reports whether root, edited, differs in meaning from the
// file's old bytes (whatever their formatting), or, when there was no file,
// whether it holds anything.
func jsonChanged(old []byte, exists bool, root *Object) bool {
	if !exists {
		return root.Len() > 0
	}
	before, _ := ParseObject(old)
	return !equalJSON(before, root)
}

// describeChange fills in ch's diff, note and action. The diff shows what
// changed in meaning: the old file as cairn would format it against the
// new one.
func describeChange(ch *Change, old []byte, exists bool, neu []byte) {
	before := old
	if exists {
		if b, err := ParseObject(old); err == nil {
			before = b.Marshal()
		}
	}
	ch.Diff = Diff(ch.Path, before, neu)
	if exists && !bytes.Equal(before, old) {
		ch.Note = "reformatted with two-space indentation (the backup keeps the original)"
	}
	ch.Action = "updated"
	if !exists {
		ch.Action = "created"
	}
}

// writeJSON writes neu to ch.Path, after backing up the old file (keeping
// its mode) when there is one.
func (o *Options) writeJSON(ch *Change, old []byte, exists bool, neu []byte) error {
	mode := fs.FileMode(0o644)
	if exists {
		if fi, err := os.Stat(ch.Path); err == nil {
			mode = fi.Mode().Perm()
		}
		ch.Backup = o.backupPath(ch.Path)
		if err := os.MkdirAll(filepath.Dir(ch.Backup), 0o700); err != nil {
			return fmt.Errorf("writing the backup %s: %w; cairn changed nothing", ch.Backup, err)
		}
		if err := os.WriteFile(ch.Backup, old, mode); err != nil {
			return fmt.Errorf("writing the backup %s: %w; cairn changed nothing", ch.Backup, err)
		}
	}
	if err := o.recordOriginal(ch.Path, old, exists, neu); err != nil {
		return fmt.Errorf("recording %s before changing it: %w; cairn changed nothing", ch.Path, err)
	}
	return writeAtomic(ch.Path, neu, mode)
}

// backupName is a backup path that does not exist yet: an older backup is
// never overwritten.
func backupName(path string, now time.Time) string {
	base := path + ".cairn-backup-" + now.UTC().Format("20060102-150405")
	p := base
	for i := 2; fileExists(p); i++ {
		p = fmt.Sprintf("%s-%d", base, i)
	}
	return p
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func equalJSON(a, b *Object) bool {
	return bytes.Equal(canon(a), canon(b))
}

func canon(o *Object) []byte {
	v := Plain(o)
	b, _ := jsonMarshalSorted(v)
	return b
}

// writeAtomic writes through a temporary file in the same folder.
func writeAtomic(path string, b []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replacing %s: %w", path, err)
	}
	return nil
}

// --- hooks ---

// mergeHooks removes cairn's old handlers and adds the current ones, one
// matcher group per event, after the user's own.
func (o *Options) mergeHooks(root *Object) error {
	o.removeHooks(root)
	hooks, err := root.Child("hooks")
	if err != nil {
		return err
	}
	for _, ev := range hookspec.Events {
		h := NewObject()
		h.Set("type", "command")
		h.Set("command", o.HookCommand(ev))
		if t := Timeouts[ev]; t > 0 {
			h.Set("timeout", t)
		}
		group := NewObject()
		if m := hookspec.Matchers[ev]; m != "" {
			group.Set("matcher", m)
		}
		group.Set("hooks", []any{h})
		v, ok := hooks.Get(ev)
		var list []any
		if ok {
			if list, ok = v.([]any); !ok {
				return fmt.Errorf("hooks.%s is a %s, not a list", ev, kindOf(v))
			}
		}
		hooks.Set(ev, append(list, group))
	}
	return nil
}

// removeHooks takes cairn's handlers out of every event; a matcher group,
// event or hooks object left empty by that is removed too.
func (o *Options) removeHooks(root *Object) {
	v, ok := root.Get("hooks")
	hooks, isObj := v.(*Object)
	if !ok || !isObj {
		return
	}
	for _, ev := range hooks.Keys() {
		list, ok := mustList(hooks, ev)
		if !ok {
			continue
		}
		keep, changed := o.withoutOurHooks(list)
		if !changed {
			continue
		}
		if len(keep) == 0 {
			hooks.Delete(ev)
		} else {
			hooks.Set(ev, keep)
		}
		if hooks.Len() == 0 {
			root.Delete("hooks")
		}
	}
}

// withoutOurHooks returns an event's list of hook groups without cairn's
// hooks, dropping groups left empty, and whether it removed any.
func (o *Options) withoutOurHooks(list []any) (keep []any, changed bool) {
	for _, g := range list {
		group, ok := g.(*Object)
		if !ok {
			keep = append(keep, g)
			continue
		}
		hl, ok := mustList(group, "hooks")
		if !ok {
			keep = append(keep, g)
			continue
		}
		var hs []any
		for _, h := range hl {
			if o.isOurs(h) {
				changed = true
				continue
			}
			hs = append(hs, h)
		}
		if len(hs) == len(hl) {
			keep = append(keep, g)
			continue
		}
		if len(hs) > 0 {
			group.Set("hooks", hs)
			keep = append(keep, group)
		}
	}
	return keep, changed
}

func mustList(o *Object, k string) ([]any, bool) {
	v, ok := o.Get(k)
	if !ok {
		return nil, false
	}
	l, ok := v.([]any)
	return l, ok
}

// isOurs reports whether a hook handler runs `cairn hook`.
func (o *Options) isOurs(h any) bool {
	cmd, ok := commandOf(h)
	return ok && o.IsHookCommand(cmd)
}

// commandOf is the "command" of a hook handler or MCP server entry; ok is
// false when v is not an object.
func commandOf(v any) (cmd string, ok bool) {
	obj, ok := v.(*Object)
	if !ok {
		return "", false
	}
	c, _ := obj.Get("command")
	cmd, _ = c.(string)
	return cmd, true
}

// HookProgram is the lean hook binary's name.
const HookProgram = "cairn-hook"

// IsHookCommand reports whether a hook command runs cairn's hook handler:
// `cairn hook ...` or `cairn-hook ...`.
func (o *Options) IsHookCommand(cmd string) bool {
	prog, _ := plugin.FirstWord(strings.TrimSpace(cmd))
	base := strings.TrimSuffix(filepath.Base(prog), ".exe")
	return plugin.IsHookCommand(cmd) || base == HookProgram || (o.HookExe != "" && prog == o.HookExe) || o.IsCairnCommand(cmd, "hook")
}

// IsCairnCommand reports whether a command line runs cairn (by the name
// cairn or this binary's path) with the given subcommand.
func (o *Options) IsCairnCommand(cmd, sub string) bool {
	prog, rest := plugin.FirstWord(strings.TrimSpace(cmd))
	if !o.isCairnProgram(prog) {
		return false
	}
	next, _ := plugin.FirstWord(strings.TrimSpace(rest))
	return next == sub
}

func (o *Options) isCairnProgram(prog string) bool {
	base := strings.TrimSuffix(filepath.Base(prog), ".exe")
	return base == "cairn" || (o.Exe != "" && (prog == o.Exe || base == strings.TrimSuffix(filepath.Base(o.Exe), ".exe")))
}

// shellQuote quotes a path for a hook command when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'$`\\!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// --- MCP ---

func (o *Options) mcpEntry() *Object {
	e := NewObject()
	e.Set("type", "stdio")
	if o.Portable {
		e.Set("command", "cairn")
	} else {
		e.Set("command", o.Exe)
	}
	args := []any{"mcp"}
	if o.DataDir != "" {
		args = append(args, "--data", o.DataDir)
	}
	e.Set("args", args)
	e.Set("env", NewObject())
	return e
}

func (o *Options) addMCP(root *Object) error {
	servers, err := root.Child("mcpServers")
	if err != nil {
		return err
	}
	if v, ok := servers.Get(MCPName); ok && !o.isOurMCP(v) {
		return fmt.Errorf("an MCP server named %q that is not cairn is registered already: remove or rename it (claude mcp remove %s)", MCPName, MCPName)
	}
	servers.Set(MCPName, o.mcpEntry())
	return nil
}

func (o *Options) isOurMCP(v any) bool {
	cmd, ok := commandOf(v)
	return ok && o.isCairnProgram(cmd)
}

func (o *Options) removeMCP(root *Object) {
	v, ok := root.Get("mcpServers")
	servers, isObj := v.(*Object)
	if !ok || !isObj {
		return
	}
	if e, ok := servers.Get(MCPName); ok && o.isOurMCP(e) {
		servers.Delete(MCPName)
		if servers.Len() == 0 {
			root.Delete("mcpServers")
		}
	}
}

// --- slash commands ---

// CommandFiles are the slash command files cairn installs, with cairn
// called by CommandName.
func (o *Options) CommandFiles() map[string][]byte {
	out := map[string][]byte{}
	for _, c := range plugin.Commands() {
		out[c.Name+".md"] = o.rewriteCommand(c.Content)
	}
	return out
}

// rewriteCommand points a command file at CommandName when cairn is not on
// PATH.
func (o *Options) rewriteCommand(b []byte) []byte {
	name := o.CommandName
	if name == "" || name == "cairn" || strings.ContainsAny(name, " \t'\"") {
		return b
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		l = strings.ReplaceAll(l, "!`cairn ", "!`"+name+" ")
		l = strings.ReplaceAll(l, "Bash(cairn ", "Bash("+name+" ")
		if strings.HasPrefix(l, "cairn ") {
			l = name + strings.TrimPrefix(l, "cairn")
		}
		lines[i] = l
	}
	return []byte(strings.Join(lines, "\n"))
}

func (o *Options) installCommands(dir string) ([]Change, error) {
	var out []Change
	files := o.CommandFiles()
	for _, name := range sortedKeys(files) {
		path := filepath.Join(dir, name)
		want := files[name]
		ch, err := o.commandChange(path, name, want)
		if err != nil {
			return out, err
		}
		if (ch.Action == "created" || ch.Action == "updated") && !o.DryRun {
			if err := writeAtomic(path, want, 0o644); err != nil {
				return out, err
			}
		}
		out = append(out, ch)
	}
	return out, nil
}

// commandChange decides what installing the command file name with
// content want at path does: create it, update our older version, leave
// it unchanged, or keep a different command of the same name.
func (o *Options) commandChange(path, name string, want []byte) (Change, error) {
	ch := Change{Path: path, Action: "created"}
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(old, want):
		ch.Action = "unchanged"
	case err == nil && !o.isOurCommandFile(old):
		ch.Action = "kept"
		ch.Note = "a different command of this name exists; cairn left it alone (/" + strings.TrimSuffix(name, ".md") + " stays yours)"
	case err == nil:
		ch.Action = "updated"
		ch.Diff = Diff(path, old, want)
	case !errors.Is(err, fs.ErrNotExist):
		return ch, fmt.Errorf("reading %s: %w", path, err)
	}
	return ch, nil
}

// isOurCommandFile recognises a command file an earlier cairn wrote: its
// allowed-tools are cairn's MCP tools, or (before cairn's commands handed
// text to MCP tools) run cairn through Bash.
func (o *Options) isOurCommandFile(b []byte) bool {
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "allowed-tools: "); ok {
			if strings.HasPrefix(rest, "mcp__cairn__") {
				return true
			}
			rest, ok = strings.CutPrefix(rest, "Bash(")
			prog, _ := plugin.FirstWord(rest)
			return ok && o.isCairnProgram(prog)
		}
	}
	return false
}

// removeCommand removes the command file at path when it holds what cairn
// installed (ours), and keeps it otherwise; nil when there is none.
func (o *Options) removeCommand(path string, ours []byte) (*Change, error) {
	old, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(old, ours) {
		return &Change{Path: path, Action: "kept", Note: "changed since cairn installed it (or not cairn's): left in place"}, nil
	}
	if !o.DryRun {
		if err := os.Remove(path); err != nil {
			return nil, err
		}
	}
	return &Change{Path: path, Action: "removed"}, nil
}

// removeCommands removes cairn's command files from dir, and dir when
// they were all it held.
func (o *Options) removeCommands(dir string) ([]Change, error) {
	var out []Change
	files := o.CommandFiles()
	for _, name := range sortedKeys(files) {
		ch, err := o.removeCommand(filepath.Join(dir, name), files[name])
		if err != nil {
			return out, err
		}
		if ch != nil {
			out = append(out, *ch)
		}
	}
	// The commands folder goes too when cairn's files were all it held.
	if !o.DryRun {
		if ents, err := os.ReadDir(dir); err == nil && len(ents) == 0 {
			os.Remove(dir)
		}
	}
	return out, nil
}
