package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/memories"
	"github.com/cairn-dev/cairn/tui"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"
)

// DemoSample is the bundled sample Claude config dir (testdata/claude),
// embedded by package main so `cairn --demo` works from any folder.
var DemoSample fs.FS

// addTUI makes `cairn` with no command open the terminal UI, and adds
// --demo.
func addTUI(root *cobra.Command, o *Options) {
	var demo bool
	root.Flags().BoolVar(&demo, "demo", false, "open the TUI on the bundled sample sessions with a temporary store (removed on exit)")
	root.Args = unknownCommand
	root.RunE = func(cmd *cobra.Command, _ []string) error {
		return runTUI(cmd.Context(), o, demo)
	}
}

// unknownCommand refuses arguments of a command that takes none but has
// subcommands (cairn itself, cairn memories, ...): an unknown command,
// with the ones it is close to (cobra's SuggestionsFor, within
// SuggestionsMinimumDistance, or a prefix).
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		for i := range s {
			s[i] = "`" + cmd.CommandPath() + " " + s[i] + "`"
		}
		msg += "; did you mean " + orList(s) + "?"
	}
	return errors.New(msg)
}

func runTUI(ctx context.Context, o *Options, demo bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop, killed := stopOnSignal(ctx)
	defer stop()
	if !isTerminal(o.Stdout) {
		return usageError{errors.New("the terminal UI needs a terminal: run `cairn` in one, or see `cairn --help` for the commands")}
	}
	if demo {
		tmp, err := demoFolder(o)
		if tmp != "" {
			defer removeTemp(tmp)
		}
		if err != nil {
			return err
		}
	}
	// A long-running process: small SQLite caches keep RSS low.
	a, err := openApp(o, app.Options{SmallCache: true})
	if err != nil {
		return err
	}
	m := tui.New(tuiConfig(o, a, demo))
	defer func() { closeTUI(m, a.Close, demo && killed() != nil) }()
	return runProgram(ctx, m, killed)
}

// closeTUI closes the TUI, then the app. A demo killed while it works
// (indexing, proposing) closes quickly: its store is thrown away, so the
// exit does not wait for the background work to stop; removeTemp retries
// while it winds down.
func closeTUI(m *tui.Model, closeApp func() error, killedDemo bool) {
	if killedDemo {
		closeDemoQuickly(m, closeApp)
		return
	}
	m.Close()
	closeApp()
}

// tuiConfig is the TUI's store, services and settings; the demo's shows
// a banner and fills its inbox once indexed.
func tuiConfig(o *Options, a *app.App, demo bool) tui.Config {
	cfg := tui.Config{
		Store:    a.Store,
		Memories: a.Memories,
		// The TUI indexes in the background through the one pipeline; the
		// built-in extractor (free, cursor-based) proposes memories from
		// new entries after each run, so the inbox fills without a
		// separate `cairn extract` (Ollama extraction stays with `cairn
		// extract` and the hooks).
		Index: func(ctx context.Context, io app.IndexOptions) (app.IndexResult, error) {
			io.Extract = !demo
			return a.Index(ctx, io)
		},
		NoColor: !o.useColor(true),
		// The TUI opens on the current folder's project, by the rule
		// recall and remember use (currentProject).
		Folder: workDir(),
		Here:   currentProject(),
	}
	if demo {
		cfg.Banner, cfg.OnIndexed = "demo", demoInbox(a)
	}
	return cfg
}

// runProgram runs the TUI until it quits; an end by a signal is that
// signal's error (nil when none came).
func runProgram(ctx context.Context, m *tui.Model, killed func() error) error {
	// A soft heap limit keeps the long-running TUI small while indexing in
	// the background (the collector works harder near it).
	debug.SetMemoryLimit(96 << 20)
	p := tea.NewProgram(suspendable{m}, tea.WithContext(ctx), tea.WithoutSignalHandler())
	_, err := p.Run()
	if err == nil || (errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil) {
		return killed()
	}
	return err
}

// stopOnSignal cancels ctx on a closed terminal, a kill or an interrupt
// from outside, so the program ends normally: the demo's temporary store
// is removed and the project list cached. This is the one signal handler:
// Bubble Tea's own (tea.WithoutSignalHandler) would also catch SIGTERM and
// SIGINT and block forever handing its quit message to an event loop that
// our cancelled context had already stopped, leaving the screen frozen in
// the alternate screen. killed is the error for the signal that stopped
// the TUI (exit 128+n), nil when none did.
func stopOnSignal(ctx context.Context) (_ context.Context, stop func(), killed func() error) {
	ctx, cancel := context.WithCancel(ctx)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGTERM, os.Interrupt)
	var got atomic.Value
	go func() {
		select {
		case s := <-sigs:
			got.Store(s)
			cancel()
		case <-ctx.Done():
		}
	}()
	stop = func() { signal.Stop(sigs); cancel() }
	killed = func() error {
		if s, ok := got.Load().(syscall.Signal); ok {
			return signalError{sig: s}
		}
		return nil
	}
	return ctx, stop, killed
}

// demoFolder points o at a temporary copy of the bundled sample, and
// returns the folder to remove afterwards.
func demoFolder(o *Options) (string, error) {
	tmp, err := os.MkdirTemp("", "cairn-demo-")
	if err != nil {
		return "", fmt.Errorf("demo: cannot create a temporary folder: %w (set TMPDIR to a writable folder)", err)
	}
	claude := filepath.Join(tmp, "claude")
	if err := extractSample(claude); err != nil {
		return tmp, fmt.Errorf("demo: %w", err)
	}
	o.ClaudeDir, o.DataDir = claude, filepath.Join(tmp, "data")
	return tmp, nil
}

// demoInbox fills the demo's review inbox from the sample sessions once
// they are indexed, and one /summarize draft to review in 6.
func demoInbox(a *app.App) func(context.Context) (string, error) {
	st, svc := a.Store, a.Memories
	return func(ctx context.Context) (string, error) {
		r, err := svc.Curator.Extract(ctx, memories.ExtractOptions{Summaries: true})
		if err != nil {
			return "", err
		}
		if ss, err := st.Sessions(ctx, index.SessionFilter{Limit: 1}); err == nil && len(ss) > 0 {
			if sum, err := svc.Drafts.Summary(ctx, ss[0].ID); err == nil && sum.Markdown != "" {
				_, _ = svc.Drafts.AddDraft(ctx, ss[0].ID, sum.Markdown)
			}
		}
		n := r.Added()
		return fmt.Sprintf("demo: %d %s proposed from %d %s; review them in 5, drafts in 6", n, plural(n, "memory", "memories"), r.Sessions, plural(r.Sessions, "session", "sessions")), nil
	}
}

// closeDemoQuickly closes a killed demo's TUI and store without waiting
// longer than demoKillWait for its background work.
func closeDemoQuickly(m *tui.Model, closeApp func() error) {
	done := make(chan struct{})
	go func() { m.Close(); closeApp(); close(done) }()
	select {
	case <-done:
	case <-time.After(demoKillWait):
	}
}

// suspendable is the TUI with the shell's job control: ctrl+z suspends
// it (Bubble Tea leaves the terminal as it found it, SIGTSTP stops the
// process, and fg brings the screen back).
type suspendable struct{ *tui.Model }

func (s suspendable) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "ctrl+z" {
		return s, tea.Suspend
	}
	m, cmd := s.Model.Update(msg)
	if tm, ok := m.(*tui.Model); ok {
		s.Model = tm
	}
	return s, cmd
}

// demoKillWait is how long a killed demo waits for its background work
// before it removes its folder and exits.
const demoKillWait = 100 * time.Millisecond

// removeTemp removes the demo's temporary folder. An indexing batch that
// did not stop with the TUI may still be writing into it for a moment, so
// a removal that found new files is tried again, briefly.
func removeTemp(dir string) {
	deadline := time.Now().Add(300 * time.Millisecond)
	for os.RemoveAll(dir) != nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}

// extractSample copies the embedded sample into dir.
func extractSample(dir string) error {
	if DemoSample == nil {
		return errors.New("this build has no bundled sample (build cairn from the repository root: go build .)")
	}
	return fs.WalkDir(DemoSample, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		b, err := fs.ReadFile(DemoSample, path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o600)
	})
}

// workDir is the current folder ("" when it cannot be read).
func workDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return wd
}
