package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/install"
	"github.com/cairn-dev/cairn/termtext"

	"github.com/spf13/cobra"
)

// installOptions resolves where cairn is installed for a scope.
func installOptions(o *Options, scope string, dry bool) (install.Options, error) {
	claude, err := o.ResolveClaudeDir()
	if err != nil {
		return install.Options{}, err
	}
	exe, err := installedBinary(dry)
	if err != nil {
		return install.Options{}, err
	}
	io := install.Options{Scope: scope, ClaudeDir: claude, Exe: exe, CommandName: commandName(exe), DryRun: dry,
		ClaudeJSON: claudeJSON(o, claude)}
	// The lean hook binary, when it was installed beside this one.
	if hp := filepath.Join(filepath.Dir(exe), install.HookProgram); isExecutable(hp) {
		io.HookExe = hp
	}
	if o.DataDir != "" || os.Getenv("CAIRN_HOME") != "" {
		// Claude Code may not have this environment: pass it along.
		if io.DataDir, err = o.ResolveDataDir(); err != nil {
			return io, err
		}
	}
	// Backups, and the record of what each file held before cairn, live in
	// cairn's data dir: never in a project's working tree.
	data, err := o.ResolveDataDir()
	if err != nil {
		return io, err
	}
	io.BackupDir = filepath.Join(data, "install-backups")
	if scope == install.ScopeProject {
		return io, forProject(&io)
	}
	return io, nil
}

// installedBinary is this binary's path, symlinks resolved. Installing a
// temporary build (go run) is refused, but for a dry run: its hooks would
// stop working.
func installedBinary(dry bool) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find the cairn binary: %w", err)
	}
	return checkInstallBinary(exe, dry)
}

// checkInstallBinary resolves exe's symlinks and refuses a `go run` build
// (install.TemporaryBuild) unless dry.
func checkInstallBinary(exe string, dry bool) (string, error) {
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	if !dry && install.TemporaryBuild(exe) {
		return "", fmt.Errorf("%s is a temporary build (go run?): install cairn first (go install ./...) and run that binary's install, so the hooks keep working", exe)
	}
	return exe, nil
}

// commandName is how hooks run exe: "cairn" when PATH finds this binary
// by that name, else its path.
func commandName(exe string) string {
	if p, err := exec.LookPath("cairn"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil && r == exe {
			return "cairn"
		}
	}
	return exe
}

// claudeJSON is Claude Code's ~/.claude.json: it sits beside ~/.claude;
// with CLAUDE_CONFIG_DIR (or --claude-dir) Claude Code keeps it inside
// that dir.
func claudeJSON(o *Options, claude string) string {
	if o.ClaudeDir == "" && os.Getenv("CLAUDE_CONFIG_DIR") == "" {
		home, _ := os.UserHomeDir()
		return filepath.Join(home, ".claude.json")
	}
	return filepath.Join(claude, ".claude.json")
}

// forProject completes the options of a project install. Project files
// are committed and shared: they name programs found on PATH (cairn-hook,
// else cairn, else nothing: the hooks exit 0 silently), never this
// machine's paths, and never its data dir (each person's hooks use their
// own: CAIRN_HOME or the default).
func forProject(io *install.Options) error {
	io.Portable, io.CommandName, io.DataDir = true, "cairn", ""
	var err error
	if io.ProjectDir = os.Getenv("CLAUDE_PROJECT_DIR"); io.ProjectDir == "" {
		io.ProjectDir, err = os.Getwd()
	}
	return err
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

func printChanges(o *Options, changes []install.Change, dry bool) {
	color := o.colorFor(o.Stdout)
	for _, c := range changes {
		fmt.Fprintln(o.Stdout, changeLine(c, dry))
		if c.Note != "" {
			fmt.Fprintln(o.Stdout, "  "+c.Note)
		}
		if c.Diff != "" && !strings.HasSuffix(c.Path, ".md") {
			printChangeDiff(o, c.Diff, color)
		}
	}
}

// changeLine is a change's line: what was done (or would be, dry) to
// which file, and its backup's name.
func changeLine(c install.Change, dry bool) string {
	verb := c.Action
	if dry && slices.Contains([]string{"created", "updated", "removed"}, verb) {
		verb = "would be " + verb
	}
	line := fmt.Sprintf("%-22s %s", verb, c.Path)
	if c.Backup != "" {
		line += "  (backup: " + filepath.Base(c.Backup) + ")"
	}
	return line
}

// printChangeDiff prints a change's diff indented under it, added lines green
// and removed ones red.
func printChangeDiff(o *Options, diff string, color bool) {
	for _, l := range strings.Split(termtext.Safe(strings.TrimRight(diff, "\n")), "\n") {
		if strings.HasPrefix(l, "+ ") {
			l = sgr(color, "32", l)
		} else if strings.HasPrefix(l, "- ") {
			l = sgr(color, "31", l)
		}
		fmt.Fprintln(o.Stdout, "    "+l)
	}
}

// printPortableNotes warns after a project-scope install what its
// shared files cannot do: name this cairn's path or its data dir.
func printPortableNotes(o *Options) {
	if _, err := exec.LookPath("cairn"); err != nil {
		fmt.Fprintln(o.Stdout, "note: the project's files call cairn by name (they are shared): put cairn on your PATH, or its hooks do nothing here")
	}
	if o.DataDir != "" || os.Getenv("CAIRN_HOME") != "" {
		fmt.Fprintln(o.Stdout, "note: the project's files do not name a data dir (they are shared): Claude Code's hooks use CAIRN_HOME from its environment, else the default")
	}
}

// printUserNotes says after a user-scope install what would make it
// better: a cairn-hook beside cairn, cairn on the PATH.
func printUserNotes(o *Options, io install.Options) {
	if io.HookExe == "" {
		fmt.Fprintf(o.Stdout, "note: hooks run `%s hook`; install cairn-hook beside it (go install ./...) for ~5x faster hooks, then run cairn install again\n", io.Exe)
	}
	if io.CommandName != "cairn" {
		fmt.Fprintln(o.Stdout, "note: cairn is not on your PATH: the slash commands call", io.Exe)
	}
}

func newInstallCmd(o *Options) *cobra.Command {
	var scope string
	var dry, replacePlugin bool
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Add cairn's hooks, MCP server and slash commands to Claude Code",
		Long: `install merges cairn into Claude Code's configuration:
  - hooks (SessionStart, UserPromptSubmit, PreToolUse, Stop, SubagentStop,
    PreCompact, SessionEnd) into settings.json, keeping every other setting
    and hook;
  - the MCP server (user scope: ~/.claude.json; project scope: .mcp.json);
  - the slash commands /summarize, /recall, /synthesize and /remember.
Every file is backed up (in cairn's data dir) before it changes and the diff
is shown. Running it again changes nothing; cairn uninstall gives each file
back byte for byte (or removes what install created).
--scope user (default) installs for every project; --scope project into the
current project's .claude/ folder and .mcp.json, naming cairn-hook and cairn
by name (found on PATH, silently skipped where absent), so the files can be
committed and work for every teammate.
When the cairn plugin is enabled, install refuses (both at once would run
every hook twice); --replace-plugin disables the plugin and installs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			io, err := runInstall(o, scope, dry, func(io install.Options) ([]install.Change, error) {
				io.ReplacePlugin = replacePlugin
				return install.Install(io)
			})
			if err != nil {
				return err
			}
			if dry {
				fmt.Fprintln(o.Stdout, "dry run: nothing was written")
				return nil
			}
			if io.Portable {
				printPortableNotes(o)
			} else {
				printUserNotes(o, io)
			}
			fmt.Fprintln(o.Stdout, "done: restart Claude Code (or run /hooks and /mcp in it) to load cairn; `cairn doctor` checks everything")
			return nil
		},
	}
	cmd.Flags().StringVar(&scope, "scope", install.ScopeUser, "user (every project) or project (this project's .claude/ and .mcp.json)")
	cmd.Flags().BoolVar(&dry, "dry-run", false, "show the changes without writing anything")
	cmd.Flags().BoolVar(&replacePlugin, "replace-plugin", false, "when the cairn plugin is enabled, disable it and install instead (cairn refuses to run twice)")
	flagChoices(cmd, "scope", false, install.ScopeUser, install.ScopeProject)
	return cmd
}

// runInstall runs install.Install or install.Uninstall with the options
// --scope (checked by flagChoices) names and prints the changes.
func runInstall(o *Options, scope string, dry bool, run func(install.Options) ([]install.Change, error)) (install.Options, error) {
	io, err := installOptions(o, scope, dry)
	if err != nil {
		return io, err
	}
	changes, err := run(io)
	printChanges(o, changes, dry)
	return io, err
}

func newUninstallCmd(o *Options) *cobra.Command {
	var scope string
	var dry bool
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove what cairn install added to Claude Code (your data stays)",
		Long: `uninstall removes cairn's hooks, MCP server registration and slash commands
from the scope's Claude Code configuration, keeping everything else (files
are backed up first). Slash command files you changed are left in place.
cairn's data dir (the store, memories) is not touched.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := runInstall(o, scope, dry, install.Uninstall)
			if err == nil && dry {
				fmt.Fprintln(o.Stdout, "dry run: nothing was written")
			}
			return err
		},
	}
	cmd.Flags().StringVar(&scope, "scope", install.ScopeUser, "user or project")
	cmd.Flags().BoolVar(&dry, "dry-run", false, "show the changes without writing anything")
	flagChoices(cmd, "scope", false, install.ScopeUser, install.ScopeProject)
	return cmd
}
