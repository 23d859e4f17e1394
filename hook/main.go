package hook

import (
	"context"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/internal/hookspec"
)

// Watchdog is the longest a hook process lives, whatever happens;
// SessionEndWatchdog for SessionEnd, whose hooks share a 1.5 s budget.
const (
	Watchdog           = 8 * time.Second
	SessionEndWatchdog = 1300 * time.Millisecond
)

// hookMemoryLimit is the heap size at which a hook process collects
// garbage (it never does below).
const hookMemoryLimit = 256 << 20

// Args are a hook process's command line.
type Args struct {
	Event      string
	DataDir    string // --data
	ClaudeDir  string // --claude-dir
	Background string // --background extract|summary|upgrade (internal)
	Session    string // --session (with --background)
	Plugin     bool   // --plugin: run by the cairn plugin's hooks
}

// ParseArgs reads `[EVENT] [--data DIR] [--claude-dir DIR]` in any order.
// Unknown flags are ignored: Claude Code must never see a usage error.
func ParseArgs(args []string) Args {
	var a Args
	for i := 0; i < len(args); i++ {
		s := args[i]
		if !strings.HasPrefix(s, "-") {
			if a.Event == "" {
				a.Event = strings.TrimSpace(s)
			}
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(s, "-"), "=")
		if name == "plugin" {
			a.Plugin = true
			continue
		}
		dst := a.valueFlag(name)
		if dst == nil {
			continue
		}
		if !hasVal && i+1 < len(args) {
			i++
			val = args[i]
		}
		*dst = val
	}
	return a
}

// valueFlag is the field the flag name sets to its value (nil: not one).
func (a *Args) valueFlag(name string) *string {
	return map[string]*string{"data": &a.DataDir, "claude-dir": &a.ClaudeDir, "background": &a.Background, "session": &a.Session}[name]
}

// Main runs a hook process (`cairn hook` and the lean `cairn-hook` binary)
// and returns its exit code: always 0.
func Main(args []string, stdin io.Reader, stdout io.Writer) int {
	if os.Getenv("CAIRN_DISABLE") == "1" {
		return 0
	}
	a := ParseArgs(args)
	dataDir, err := app.DataDir(a.DataDir)
	if err != nil {
		return 0
	}
	claudeDir, err := app.ClaudeDir(a.ClaudeDir)
	if err != nil {
		hookspec.NewLogger(dataDir).Printf("hook: %v", err)
		return 0
	}
	exe, _ := os.Executable()
	env := Env{Stdin: stdin, Stdout: stdout, Event: a.Event, DataDir: dataDir, ClaudeDir: claudeDir,
		ProjectDir: os.Getenv("CLAUDE_PROJECT_DIR"), Executable: exe, Memories: ServiceMemories, ViaPlugin: a.Plugin}
	ctx := context.Background()
	if a.Background != "" {
		_ = Background(ctx, env, a.Background, a.Session)
		return 0
	}
	// A hook lives for milliseconds with a small heap: collecting garbage
	// costs more than it frees (measured: 48 → 29 ms of CPU for a
	// UserPromptSubmit ranking 500 memories). The soft limit still
	// collects when a big first sync grows the heap.
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(hookMemoryLimit)
	// Whatever happens below, this process ends in time and with exit
	// code 0.
	start := time.Now()
	t := time.AfterFunc(Watchdog, func() {
		hookspec.NewLogger(dataDir).Printf("hook: still running after %s: exiting", time.Since(start).Round(time.Millisecond))
		os.Exit(0)
	})
	defer t.Stop()
	env.OnEvent = func(event string) {
		if event == SessionEnd {
			// SessionEnd hooks share a 1.5 s budget.
			t.Reset(SessionEndWatchdog - time.Since(start))
		}
	}
	Run(ctx, env)
	return 0
}
