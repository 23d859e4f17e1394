package fakeclaude

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// The Claude Code CLI the tests run: npm package and pinned versions. Keep
// .ci/run's CLAUDE_CODE_VERSIONS and the README in step when moving them.
const (
	Package = "@anthropic-ai/claude-code"
	// Version is the default: what Install installs and the tests run
	// unless CAIRN_CLAUDE_CODE names another of Versions.
	Version = "2.1.197"
)

// Versions are the pinned versions the suite passes on: the default and
// the newest release tested (upgraded deliberately, never "latest").
// CAIRN_CLAUDE_CODE may name a binary of any of them.
var Versions = []string{Version, "2.1.332"}

// Environment variables the helper reads.
const (
	// EnvCLI names a claude binary to use instead of the cached install
	// (it must report one of Versions).
	EnvCLI = "CAIRN_CLAUDE_CODE"
	// EnvSkip, set to 1 outside CI, skips the tests that need the CLI when it
	// cannot be found or installed (e.g. offline). In CI (CI or CAIRN_E2E
	// set) they fail instead.
	EnvSkip = "CAIRN_SKIP_CLAUDE_E2E"
)

// CLI is an installed Claude Code CLI.
type CLI struct {
	Path    string // the claude binary
	Version string
}

// ToolsDir is where CI tools are cached, as .ci/run has it:
// $CAIRN_CI_TOOLS, else ${XDG_CACHE_HOME:-~/.cache}/cairn-ci-tools.
func ToolsDir() string {
	if d := os.Getenv("CAIRN_CI_TOOLS"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "cairn-ci-tools")
	}
	if d, err := os.UserHomeDir(); err == nil {
		return filepath.Join(d, ".cache", "cairn-ci-tools")
	}
	return filepath.Join(os.TempDir(), "cairn-ci-tools")
}

// InstallDir is the npm prefix the default CLI is installed into.
func InstallDir() string { return InstallDirOf(Version) }

// InstallDirOf is the npm prefix a pinned version is installed into (as
// .ci/run installs it).
func InstallDirOf(version string) string { return filepath.Join(ToolsDir(), "claude-code@"+version) }

func binIn(prefix string) string {
	name := "claude"
	if runtime.GOOS == "windows" {
		name = "claude.cmd"
	}
	return filepath.Join(prefix, "node_modules", ".bin", name)
}

// version runs `claude --version` and returns the version it reports.
func version(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = baseEnv(os.TempDir())
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", path, err)
	}
	v, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	return v, nil
}

// Find returns the pinned CLI if it is already there: $CAIRN_CLAUDE_CODE
// (one of Versions), else the cached install of Version.
func Find(ctx context.Context) (*CLI, error) {
	path, want := os.Getenv(EnvCLI), []string{Version}
	if path == "" {
		path = binIn(InstallDir())
	} else {
		want = Versions
	}
	v, err := version(ctx, path)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(want, v) {
		return nil, fmt.Errorf("%s is Claude Code %s, the tests pin %s (unset %s or install %s@%s)", path, v, strings.Join(want, " or "), EnvCLI, Package, Version)
	}
	return &CLI{Path: path, Version: v}, nil
}

// Before reports whether the CLI is older than version (dotted numbers).
func (c *CLI) Before(version string) bool {
	a, b := strings.Split(c.Version, "."), strings.Split(version, ".")
	for i := 0; i < len(a) && i < len(b); i++ {
		x, _ := strconv.Atoi(a[i])
		y, _ := strconv.Atoi(b[i])
		if x != y {
			return x < y
		}
	}
	return len(a) < len(b)
}

// Install finds the pinned CLI or installs it with npm into InstallDir
// (`npm install --prefix DIR @anthropic-ai/claude-code@Version`). Concurrent
// callers (test binaries of several packages) wait for one another.
func Install(ctx context.Context) (*CLI, error) {
	if c, err := Find(ctx); err == nil || os.Getenv(EnvCLI) != "" {
		return c, err
	}
	dir := InstallDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("installing Claude Code: %w", err)
	}
	lock := flock.New(filepath.Join(ToolsDir(), "claude-code.lock"))
	if err := lock.Lock(); err != nil {
		return nil, fmt.Errorf("installing Claude Code: locking %s: %w", lock.Path(), err)
	}
	defer func() { _ = lock.Unlock() }()
	if c, err := Find(ctx); err == nil {
		return c, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return nil, fmt.Errorf("installing Claude Code: npm is not on PATH (install Node.js, or set %s to a claude %s binary)", EnvCLI, Version)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error",
		Package+"@"+Version)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("npm install %s@%s into %s: %w\n%s", Package, Version, dir, err, out.String())
	}
	return Find(ctx)
}

// InCI reports whether tests must not skip for a missing CLI.
func InCI() bool { return os.Getenv("CI") != "" || os.Getenv("CAIRN_E2E") != "" }

// RequireCLI returns the pinned CLI, installing it if needed. When that
// fails the test fails, except outside CI with CAIRN_SKIP_CLAUDE_E2E=1, where
// it is skipped.
func RequireCLI(t testing.TB) *CLI {
	t.Helper()
	if os.Getenv(EnvSkip) == "1" && !InCI() {
		t.Skipf("%s=1: skipping a test that runs the real Claude Code CLI", EnvSkip)
	}
	c, err := Install(context.Background())
	if err != nil {
		if !InCI() && errors.Is(err, exec.ErrNotFound) {
			t.Skipf("Claude Code CLI unavailable (%v)", err)
		}
		t.Fatalf("the e2e tests need Claude Code %s: %v (set %s=1 to skip them outside CI)", strings.Join(Versions, " or "), err, EnvSkip)
	}
	return c
}

// baseEnv is a clean environment for the CLI: nothing of the caller's
// Claude Code session (CLAUDECODE, CLAUDE_CODE_*, ANTHROPIC_*) leaks in.
func baseEnv(home string) []string {
	env := []string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"TMPDIR=" + os.TempDir(),
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
		// Offline and quiet: no updates, telemetry, error reports or other
		// traffic besides the (fake) API.
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"DISABLE_BUG_COMMAND=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY=1",
	}
	if runtime.GOOS == "windows" {
		env = append(env, "USERPROFILE="+home, "SystemRoot="+os.Getenv("SystemRoot"))
	}
	return env
}

// Env is the environment to run the CLI offline against api with a
// scratch HOME (its ~/.claude is Claude Code's config dir unless extra sets
// CLAUDE_CONFIG_DIR). extra entries (KEY=VALUE) are added last and win;
// an entry "PATH=..." replaces the PATH.
func Env(home string, api *Server, extra ...string) []string {
	env := baseEnv(home)
	if api != nil {
		env = append(env,
			"ANTHROPIC_BASE_URL="+api.URL,
			"ANTHROPIC_API_KEY=sk-ant-api03-fakeclaude-test-key-000000000000000000000000000000000000000000000000-AAAAAA",
		)
	}
	return mergeEnv(env, extra)
}

func mergeEnv(env, extra []string) []string {
	out := append([]string(nil), env...)
	for _, kv := range extra {
		k, _, _ := strings.Cut(kv, "=")
		for i := 0; i < len(out); i++ {
			if strings.HasPrefix(out[i], k+"=") {
				out = append(out[:i], out[i+1:]...)
				i--
			}
		}
		out = append(out, kv)
	}
	return out
}

// Command is `claude args...` run in dir against api, with HOME=home and
// the offline environment (plus extra), killed after 3 minutes or when
// the test ends.
func (c *CLI) Command(t testing.TB, api *Server, home, dir string, extra []string, args ...string) *exec.Cmd {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, c.Path, args...)
	cmd.Dir = dir
	cmd.Env = Env(home, api, extra...)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}
