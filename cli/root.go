// Package cli wires cairn's commands: each command is a thin adapter that
// resolves its inputs, calls the packages that own the work, and prints.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"syscall"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/transcripts"

	"github.com/spf13/cobra"
)

// Options are the flags every command shares.
type Options struct {
	ClaudeDir string
	DataDir   string
	JSON      bool
	// Color is --color: auto, always or never (colorOn).
	Color string
	// Wide is --wide: tables and lists print every cell whole.
	Wide bool
	// NoPager is --no-pager: long output is never paged (page).
	NoPager bool

	Stdout io.Writer
	Stderr io.Writer
	Stdin  io.Reader
}

// ResolveClaudeDir resolves --claude-dir by app.ResolvePaths's rule.
func (o *Options) ResolveClaudeDir() (string, error) { return app.ClaudeDir(o.ClaudeDir) }

// ResolveDataDir resolves --data by app.ResolvePaths's rule.
func (o *Options) ResolveDataDir() (string, error) { return app.DataDir(o.DataDir) }

// NewRoot builds the command tree.
func NewRoot(o *Options) *cobra.Command {
	root := &cobra.Command{
		Use:   "cairn",
		Short: "Memory for Claude Code: index, search and curate every session",
		Long: `cairn indexes every Claude Code transcript under ~/.claude/projects into a
local store that keeps them after Claude Code deletes the files, searches
them, and lets you browse them.

Run cairn with no command to open the terminal UI (projects, timeline,
reader, search, the memory inbox and drafts; ? lists its keys), or
cairn --demo to try it on bundled sample sessions.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	pf := root.PersistentFlags()
	pf.StringVar(&o.ClaudeDir, "claude-dir", "", "Claude Code config dir holding projects/ (default $CLAUDE_CONFIG_DIR or ~/.claude)")
	pf.StringVar(&o.DataDir, "data", "", "cairn's data dir (default $CAIRN_HOME or ~/.local/share/cairn)")
	pf.StringVar(&o.Color, "color", colorAuto, "colour and bold: auto (on a terminal, unless NO_COLOR is set), always (also into a pipe, for less -R) or never")
	pf.BoolVar(&o.NoPager, "no-pager", false, "never page long output (default: $PAGER, or less -R, on a terminal)")
	root.Version = versionLine()
	root.SetVersionTemplate("cairn {{.Version}}\n") // as `cairn version` says it
	root.SetOut(o.Stdout)
	root.SetErr(o.Stderr)
	root.SetIn(o.Stdin)
	// Every command, in one list (help sorts them by name).
	root.AddCommand(
		newProjectsCmd(o),
		newSessionsCmd(o),
		newShowCmd(o),
		newIndexCmd(o),
		newSearchCmd(o),
		newVersionCmd(o),
		newAskCmd(o),
		newBackupCmd(o),
		newRestoreCmd(o),
		newConfigCmd(o),
		newDoctorCmd(o),
		newDraftsCmd(o),
		newExportCmd(o),
		newImportCmd(o),
		newExtractCmd(o),
		newSummaryCmd(o),
		newForgetCmd(o),
		newHookCmd(o),
		newInstallCmd(o),
		newUninstallCmd(o),
		newMCPCmd(o),
		newMemoriesCmd(o),
		newSyncCmd(o),
		newSynthesizeCmd(o),
		newRememberCmd(o),
		newRecallCmd(o),
		newRemoteCmd(o),
		newStatsCmd(o),
	)
	addTUI(root, o) // cairn with no command opens the TUI (cli/tui.go)
	_ = root.PersistentFlags().SetAnnotation("color", annChoices, []string{colorAuto, colorAlways, colorNever})
	completeFlags(root)
	groupCommands(root)
	strictCommands(root)
	return root
}

// groupCommands makes every command that only groups others (memories,
// drafts, memories files, completion) refuse an unknown subcommand as a
// usage error, with suggestions, and print its help when given none.
func groupCommands(c *cobra.Command) {
	c.SuggestionsMinimumDistance = 2
	switch {
	case c.HasSubCommands() && !c.Runnable():
		if c.Args == nil {
			c.Args = unknownCommand
		}
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	case c.HasSubCommands() && c.Args != nil:
		c.Args = orMistyped(c.Args)
	}
	for _, sub := range c.Commands() {
		groupCommands(sub)
	}
}

// orMistyped is the argument check of a command that runs and has
// subcommands (memories files): an argument args refuses that is close to
// a subcommand's name is taken as a mistyped subcommand.
func orMistyped(args cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		err := args(cmd, a)
		if err != nil && len(a) > 0 && len(cmd.SuggestionsFor(a[0])) > 0 {
			return unknownCommand(cmd, a)
		}
		return err
	}
}

// annFailOpen marks a command that exits 0 whatever goes wrong (the hook
// handler: Claude Code takes exit 2 for "block the prompt").
const annFailOpen = "cairn.fail-open"

// Exit codes, the same for every command (README: "Bad input"), except
// the hook handler's (annFailOpen).
const (
	ExitOK      = 0 // it did what was asked
	ExitFailure = 1 // it could not: a file, the store, the network, ...
	ExitUsage   = 2 // it was asked wrongly: an unknown command or flag, a bad value
)

// Execute runs cairn with the process's arguments and returns the exit code.
func Execute() int {
	return Run(&Options{Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin}, os.Args[1:])
}

// Run runs cairn with args and returns the exit code; errors are printed
// to o.Stderr.
func Run(o *Options, args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			// A bug, not the caller's fault: say so instead of a bare trace.
			fmt.Fprintf(o.Stderr, "cairn: internal error (please report it): %v\n%s", r, debug.Stack())
			code = ExitFailure
		}
	}()
	root := NewRoot(o)
	root.SetArgs(args)
	if cmd, err := root.ExecuteC(); err != nil {
		if code, ok := signalExit(err); ok {
			return code // killed: the shell's 128+n, nothing to say
		}
		fmt.Fprintln(o.Stderr, "cairn:", err)
		if cmd != nil && cmd.Annotations[annFailOpen] != "" {
			return ExitOK // a hook: Claude Code reads exit 2 as "block"
		}
		return exitCode(err)
	}
	return ExitOK
}

// usageError marks errors caused by how the command was called.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// exitCode is the one rule from an error to an exit code (README's table):
// 2 for what was asked wrongly — a usageError, a session id too short or
// matching several, a --project matching none or several — else 1 (an id
// that names nothing stored is a failure to find it: exit 1).
func exitCode(err error) int {
	var ue usageError
	switch {
	case errors.As(err, &ue),
		errors.Is(err, transcripts.ErrSessionID),
		errors.Is(err, index.ErrNoProject),
		errors.Is(err, index.ErrAmbiguousProject):
		return ExitUsage
	}
	return ExitFailure
}

// signalError is a command stopped by a signal (SIGTERM, SIGHUP, SIGINT
// from outside): cairn exits 128 + its number, as shells expect of a
// killed program, after cleaning up.
type signalError struct{ sig syscall.Signal }

func (e signalError) Error() string { return "stopped by " + e.sig.String() }

// signalExit is the exit code of an error that is a signal's.
func signalExit(err error) (int, bool) {
	var se signalError
	if errors.As(err, &se) {
		return 128 + int(se.sig), true
	}
	return 0, false
}

func addJSONFlag(cmd *cobra.Command, o *Options) {
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print JSON (stable field names) instead of a table")
}
