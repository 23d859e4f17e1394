// Package hook is cairn's headless Claude Code hook handler: one entry for
// every event, reading the hook's JSON from stdin.
//
// It is built to be safe inside Claude Code's turn loop:
//   - it fails open: whatever goes wrong (bad input, a damaged or busy store,
//     a panic) it exits 0 with nothing on stdout and writes one line to a
//     rotating log in the data dir (hooks.log);
//   - it never blocks anything (no decision:"block", never exit 2);
//   - it is frugal: SessionStart injects at most hooks.session_start_tokens
//     (1,500) tokens and UserPromptSubmit at most hooks.prompt_tokens (500),
//     only above a relevance threshold, PreToolUse at most ToolTokens (200)
//     of memories tied to the file or command, never the same memory twice
//     in a context, and the brief once per context (history.go);
//   - it is fast: SQLite only (the bleve index is never opened here), short
//     busy timeouts, and slow work (Ollama) handed to a detached process.
package hook

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/hookspec"
	"github.com/cairn-dev/cairn/memories"
	"github.com/cairn-dev/cairn/plugin"
	"github.com/cairn-dev/cairn/transcripts"
)

// Events cairn handles (hookspec defines them, for the installer too).
const (
	SessionStart     = hookspec.SessionStart
	UserPromptSubmit = hookspec.UserPromptSubmit
	PreToolUse       = hookspec.PreToolUse
	Stop             = hookspec.Stop
	SubagentStop     = hookspec.SubagentStop
	PreCompact       = hookspec.PreCompact
	SessionEnd       = hookspec.SessionEnd
)

// MaxInput is the most stdin a hook reads (hook JSON is small; a prompt
// with a pasted file can be large).
const MaxInput = 8 << 20

// BusyTimeout is how long a hook waits for another process's SQLite write.
const BusyTimeout = 100 * time.Millisecond

// Input is the hook JSON Claude Code writes on stdin. Every field is
// optional.
type Input struct {
	SessionID           string `json:"session_id"`
	TranscriptPath      string `json:"transcript_path"`
	CWD                 string `json:"cwd"`
	Event               string `json:"hook_event_name"`
	Source              string `json:"source"` // SessionStart: startup, resume, clear, compact, fork
	Prompt              string `json:"prompt"` // UserPromptSubmit
	StopHookActive      bool   `json:"stop_hook_active"`
	AgentID             string `json:"agent_id"`
	AgentTranscriptPath string `json:"agent_transcript_path"`
	Trigger             string `json:"trigger"`   // PreCompact
	Reason              string `json:"reason"`    // SessionEnd
	ToolName            string `json:"tool_name"` // PreToolUse
	// ToolInput is the tool call's input (PreToolUse).
	ToolInput json.RawMessage `json:"tool_input"`
	// LastAssistantMessage is the reply that ends the turn (Stop,
	// SubagentStop): Claude Code often runs Stop before the transcript
	// holds it.
	LastAssistantMessage string `json:"last_assistant_message"`
}

// Output is what a context-injecting hook prints.
type Output struct {
	HookSpecificOutput *SpecificOutput `json:"hookSpecificOutput,omitempty"`
}

// SpecificOutput carries the injected context.
type SpecificOutput struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

// Env is everything a hook run needs from its process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	// Event from the command line (`cairn hook Stop`); the JSON's
	// hook_event_name wins when both are given.
	Event     string
	DataDir   string
	ClaudeDir string
	// ProjectDir is $CLAUDE_PROJECT_DIR (the launch root); "" falls back to
	// the input's cwd.
	ProjectDir string
	// Executable is the cairn binary, for detached background work.
	Executable string
	// Memories opens the memory service over a store; nil means memories
	// are not available and only indexing and session context run.
	Memories func(st *index.Store, cfg config.Config) Memories
	// Config overrides loading config.toml from the data dir (tests).
	Config *config.Config
	Now    func() time.Time
	Log    *hookspec.Logger
	// OnEvent, when set, is told the event once the input is read (the
	// process tightens its watchdog for SessionEnd).
	OnEvent func(event string)
	// ViaPlugin says the cairn plugin runs this hook: it stands down when
	// `cairn install` put cairn's hooks in the settings too.
	ViaPlugin bool
}

// Result says what a run did (for tests and the log).
type Result struct {
	Event    string
	Ignored  string // why the input was ignored, "" when handled
	Err      error  // the internal error that made it fail open
	Injected []string
	Tokens   int
	Synced   int // entries added by indexing
	Proposed int // memories extracted
	Checked  int // injected memories checked for use
	Used     int
	Spawned  bool
	Doubled  bool // the plugin stood down for cairn install's hooks
}

// Run handles one hook invocation. It never returns an error and never
// panics: problems are logged and the hook prints nothing.
func Run(ctx context.Context, env Env) (res Result) {
	env.setDefaults()
	start := env.Now()
	defer func() {
		if r := recover(); r != nil {
			res.Err = fmt.Errorf("panic: %v", r)
			env.Log.Printf("%s: internal error (ignored): %v %s", human.OrDash(res.Event), r, firstFrames(debug.Stack()))
		}
	}()
	if os.Getenv(memories.ClaudeChildEnv) != "" {
		// The Claude Code run of cairn's own Claude extractor: its hooks
		// do nothing (no recursion, nothing indexed).
		res.Ignored = "a cairn extraction's own Claude Code run (" + memories.ClaudeChildEnv + " is set)"
		env.Log.Printf("-: ignored: %s", res.Ignored)
		return res
	}
	out := run(ctx, &env, &res)
	trace("handled (store closed)")
	if env.logOutcome(&res, env.Now().Sub(start)) {
		return res
	}
	if len(out) > 0 {
		if _, err := env.Stdout.Write(out); err != nil {
			env.Log.Printf("%s: writing the output: %v", res.Event, err)
		}
	}
	return res
}

// setDefaults fills in the clock and the log when env leaves them unset.
func (env *Env) setDefaults() {
	if env.Now == nil {
		env.Now = time.Now
	}
	if env.Log == nil {
		env.Log = hookspec.NewLogger(env.DataDir)
	}
}

// logOutcome logs a hook that failed (it failed open) or was ignored, and
// then reports true: it prints nothing. An upgrade pending was said
// once already, where it was handed to the background run.
func (env *Env) logOutcome(res *Result, took time.Duration) (silent bool) {
	switch {
	case errors.Is(res.Err, index.ErrUpgradePending):
		return true
	case res.Err != nil:
		env.Log.Printf("%s: failed open after %s: %v", human.OrDash(res.Event), took.Round(time.Millisecond), res.Err)
		return true
	case res.Ignored != "":
		env.Log.Printf("%s: ignored: %s", knownEvent(res.Event), res.Ignored)
		return true
	}
	return false
}

func run(ctx context.Context, env *Env, res *Result) []byte {
	trace("main")
	in, ok := readEvent(env, res)
	if !ok {
		return nil
	}
	if env.ViaPlugin && installedBeside(env, in) {
		// cairn install's hooks do the work: running both would inject
		// everything twice. `cairn doctor` reports the doubling.
		res.Doubled = true
		return nil
	}
	h := &handler{env: env, in: in, res: res}
	skip, why := h.admit()
	if skip {
		res.Ignored = why
		return nil
	}
	if !validSessionID(in.SessionID) {
		res.Ignored = "session_id " + plainName(in.SessionID) + " is not a session id"
		return nil
	}
	out, err := h.handle(ctx)
	if err != nil {
		res.Err = err
		return nil
	}
	return out
}

// readEvent reads and parses the hook's input (the event from the
// command line when the input names none), and says why in res when it
// cannot.
func readEvent(env *Env, res *Result) (Input, bool) {
	b, err := readInput(env.Stdin)
	if err != nil {
		res.Ignored = err.Error()
		return Input{}, false
	}
	in, err := ParseInput(b)
	if in.Event == "" {
		in.Event = env.Event
	}
	res.Event = in.Event
	if err != nil {
		res.Ignored = err.Error()
		return in, false
	}
	if env.OnEvent != nil {
		env.OnEvent(in.Event)
	}
	env.Log.Prefix = ""
	if transcripts.IsUUID(in.SessionID) {
		env.Log.Prefix = "session=" + shortID(in.SessionID) + " "
	}
	return in, true
}

// admit checks the event's transcript as the event needs it, and says
// whether to skip it (why, when it is worth a log line; a SessionEnd
// without a transcript is skipped quietly).
func (h *handler) admit() (skip bool, why string) {
	in := h.in
	var err error
	switch in.Event {
	case SessionStart, UserPromptSubmit, PreToolUse:
		err = h.checkTranscript(false)
	case Stop, SubagentStop:
		// The transcript may not exist yet: Claude Code often runs Stop
		// before writing it (index says what that means).
		if in.TranscriptPath == "" {
			return true, "no transcript_path in the input"
		}
		err = h.checkTranscript(false)
	case PreCompact, SessionEnd:
		if in.Event == SessionEnd && neverWritten(in.TranscriptPath) {
			// `claude mcp list`, `claude plugin list` and sessions that
			// end before their first prompt end without a transcript:
			// nothing to index, and nothing wrong (doctor stays quiet).
			return true, ""
		}
		err = h.checkTranscript(true)
	default:
		return true, unhandledEvent(in.Event)
	}
	if err != nil {
		return true, err.Error()
	}
	return false, ""
}

// unhandledEvent says why an event cairn does not handle is skipped:
// none was named, or its name is not one of cairn's (the name is input,
// never echoed).
func unhandledEvent(event string) string {
	if event == "" {
		return "no hook_event_name in the input and no event argument"
	}
	return fmt.Sprintf("unknown event (a name of %d bytes; cairn handles %s)", len(event), strings.Join(hookspec.Events, ", "))
}

// installedBeside reports whether cairn install's hooks are in the user's
// or the project's settings (the plugin's hooks then stand down).
func installedBeside(env *Env, in Input) bool {
	project := env.ProjectDir
	if project == "" {
		project = in.CWD
	}
	return len(plugin.InstalledHooks(plugin.SettingsFiles(env.ClaudeDir, project)...)) > 0
}

// InputIdle is how long the hook waits for more of its input once nothing
// arrives: Claude Code writes the whole JSON at once, so a pause this long
// means the rest is not coming (a runner that keeps stdin open, a half
// object), and the hook answers then instead of at the watchdog.
var InputIdle = time.Second

var errInputIdle = errors.New("no input for a while")

// idleReader reads r on its own goroutine so that a Read can give up when
// nothing arrives for idle (stdin pipes support no deadlines). The
// goroutine may stay blocked in r.Read: a hook process exits soon after.
type idleReader struct {
	ch   chan idleChunk
	idle time.Duration
	rest []byte
	err  error
}

type idleChunk struct {
	b   []byte
	err error
}

func newIdleReader(r io.Reader, idle time.Duration) io.Reader {
	ir := &idleReader{ch: make(chan idleChunk, 1), idle: idle}
	go func() {
		for {
			b := make([]byte, 32<<10)
			n, err := r.Read(b)
			ir.ch <- idleChunk{b[:n], err}
			if err != nil {
				return
			}
		}
	}()
	return ir
}

func (ir *idleReader) Read(p []byte) (int, error) {
	for len(ir.rest) == 0 {
		if ir.err != nil {
			return 0, ir.err
		}
		t := time.NewTimer(ir.idle)
		select {
		case c := <-ir.ch:
			t.Stop()
			ir.rest, ir.err = c.b, c.err
		case <-t.C:
			return 0, errInputIdle
		}
	}
	n := copy(p, ir.rest)
	ir.rest = ir.rest[n:]
	return n, nil
}

// readInput reads the hook JSON from stdin: one JSON value, without waiting
// for the end of stdin when it is a well-formed object (a runner that keeps
// stdin open must not stall the hook); anything else is read to the end
// (up to MaxInput) so the error can show it.
func readInput(r io.Reader) ([]byte, error) {
	br := bufio.NewReader(io.LimitReader(newIdleReader(r, InputIdle), MaxInput+1))
	c, err := peekNonSpace(br)
	switch {
	case errors.Is(err, io.EOF):
		return nil, nil // empty: ParseInput says so
	case errors.Is(err, errInputIdle):
		return nil, fmt.Errorf("stdin stayed open with nothing on it for %s (expected the hook JSON)", InputIdle)
	case err != nil:
		return nil, fmt.Errorf("reading stdin: %w", err)
	case c != '{':
		b, _ := io.ReadAll(br)
		return b, nil
	}
	var raw json.RawMessage
	if err := json.NewDecoder(br).Decode(&raw); err != nil {
		return nil, objectError(err)
	}
	return raw, nil
}

// objectError says why the hook JSON object could not be read: stdin
// stayed open without the rest, it was cut short, or it is not JSON.
func objectError(err error) error {
	if errors.Is(err, errInputIdle) {
		return fmt.Errorf("stdin stayed open without a complete JSON object for %s: answered without it", InputIdle)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("stdin is not valid JSON: truncated (or larger than %d bytes)", MaxInput)
	}
	return fmt.Errorf("stdin is not valid JSON: %w", err)
}

// peekNonSpace skips JSON white space and returns the next byte, left
// unread.
func peekNonSpace(br *bufio.Reader) (byte, error) {
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			_ = br.UnreadByte()
			return c, nil
		}
	}
}

// knownEvent is the event's name for the log when it is one cairn knows,
// "-" when there is none, and "unknown-event" otherwise: an unknown name is
// input, never echoed.
func knownEvent(e string) string {
	switch {
	case e == "":
		return "-"
	case slices.Contains(hookspec.Events, e):
		return e
	}
	return "unknown-event"
}

// plainName quotes a name from the hook input when it is a plain name
// (letters, digits, '_', '-', '.', at most 64), and otherwise only says how
// long it is: malformed input is never echoed into the log or doctor.
func plainName(s string) string {
	if s != "" && len(s) <= 64 && strings.Trim(s, idChars+".") == "" {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("(%d bytes, not a plain name)", len(s))
}

// ParseInput reads the hook JSON leniently: a field of an unexpected type
// is dropped, the rest is kept. Empty or non-object input is an error.
func ParseInput(b []byte) (Input, error) {
	var in Input
	s := strings.TrimSpace(string(b))
	if s == "" {
		return in, errors.New("empty stdin (expected the hook JSON)")
	}
	if s[0] != '{' {
		// Never echo what came: it may be anything, secrets included.
		return in, fmt.Errorf("stdin is not a JSON object (%d bytes, not starting with {)", len(s))
	}
	if err := json.Unmarshal([]byte(s), &in); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return in, fmt.Errorf("stdin is not valid JSON: %w", err)
		}
	}
	in.Event = strings.TrimSpace(in.Event)
	return in, nil
}

// validSessionID accepts Claude Code's uuids and other plain ids; it keeps
// path tricks and control characters out of logs, args and queries.
func validSessionID(s string) bool {
	return len(s) >= 8 && len(s) <= 128 && strings.Trim(s, idChars) == ""
}

// idChars are the characters of a plain id.
const idChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"

// handler runs one event.
type handler struct {
	env *Env
	in  Input
	res *Result
	// project folder under projects/ of the transcript ("" when unknown)
	folder string
	cfg    config.Config
}

// checkTranscript validates transcript_path: it must lie inside the Claude
// config dir's projects folder. need makes a missing file an error.
func (h *handler) checkTranscript(need bool) error {
	p := h.in.TranscriptPath
	if p == "" {
		if need {
			return errors.New("no transcript_path in the input")
		}
		return nil
	}
	if !filepath.IsAbs(p) {
		return errors.New("transcript_path not absolute") // never quoted (hookspec.OutsideClaudeDir)
	}
	rel, ok := h.inProjects(p)
	if !ok {
		return fmt.Errorf("%s %s (set CLAUDE_CONFIG_DIR or --claude-dir)", hookspec.OutsideClaudeDir, h.env.ClaudeDir)
	}
	if parts := strings.Split(filepath.ToSlash(rel), "/"); len(parts) >= 2 {
		h.folder = parts[0]
	}
	if !need {
		return nil
	}
	return regularFile(p)
}

// regularFile checks that the transcript p exists and is a file.
func regularFile(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("transcript %s: %w", p, errors.Unwrap(err))
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("transcript %s is not a file", p)
	}
	return nil
}

// inProjects is absolute path p relative to the Claude config dir's
// projects folder, and whether it lies inside it (the Claude dir itself
// may be reached through a symlink).
func (h *handler) inProjects(p string) (string, bool) {
	root := filepath.Join(h.env.ClaudeDir, "projects")
	if rel, ok := within(root, p); ok {
		return rel, true
	}
	rr, err1 := filepath.EvalSymlinks(root)
	rp, err2 := filepath.EvalSymlinks(filepath.Dir(p))
	if err1 != nil || err2 != nil {
		return "", false
	}
	return within(rr, filepath.Join(rp, filepath.Base(p)))
}

// neverWritten reports whether a transcript path names a file that does
// not exist.
func neverWritten(p string) bool {
	if p == "" {
		return false
	}
	_, err := os.Stat(p)
	return errors.Is(err, fs.ErrNotExist)
}

// within reports whether p is inside root, and p relative to root.
func within(root, p string) (string, bool) {
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(p))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// project is the project memories are keyed by: the git repository of
// the launch root ($CLAUDE_PROJECT_DIR when known, else the hook's cwd), by
// the store's one rule (index.ProjectOf), so every worktree and subfolder
// of a repository gets its memories.
func (h *handler) project() string {
	return index.ProjectOf(h.launchDir())
}

// launchDir is where Claude Code was started: $CLAUDE_PROJECT_DIR, else
// the ancestor of the hook's cwd its transcript folder is named after,
// else the cwd.
func (h *handler) launchDir() string {
	if h.env.ProjectDir != "" {
		return filepath.Clean(h.env.ProjectDir)
	}
	if h.in.CWD == "" {
		return ""
	}
	cwd := filepath.Clean(h.in.CWD)
	// cwd follows `cd`: the launch root is the ancestor whose encoding
	// names the transcript's project folder.
	if h.folder != "" {
		for p := cwd; ; p = filepath.Dir(p) {
			if transcripts.EncodeProjectPath(p) == h.folder {
				return p
			}
			if filepath.Dir(p) == p {
				break
			}
		}
	}
	return cwd
}

// loadConfig is the run's config: env.Config (tests), else config.toml
// of the data dir. A file that cannot be used is an error (app's one
// policy): the hook then does nothing and logs what to fix.
func loadConfig(env Env) (config.Config, error) {
	if env.Config != nil {
		return *env.Config, nil
	}
	return app.LoadConfig(env.DataDir)
}

func (h *handler) handle(ctx context.Context) ([]byte, error) {
	cfg, err := loadConfig(*h.env)
	if err != nil {
		// app's one policy: nothing runs on a guess of what the file
		// meant. SessionStart says so in the conversation, so the user
		// hears of it; the other events only log it.
		err = fmt.Errorf("%w: cairn does nothing until it is fixed (`cairn doctor` says more)", err)
		if h.in.Event == SessionStart {
			h.env.Log.Printf("%s: %v", h.in.Event, err)
			return output(SessionStart, "cairn (memory for Claude Code) is paused: "+oneLine(err.Error(), 400)+". Tell the user.")
		}
		return nil, err
	}
	h.cfg = cfg
	switch h.in.Event {
	case SessionStart:
		return h.sessionStart(ctx)
	case UserPromptSubmit:
		return h.userPrompt(ctx)
	case PreToolUse:
		return h.preTool(ctx)
	default:
		return nil, h.index(ctx)
	}
}

// openStore opens the store with a hook's short busy timeout, configured
// as app.Open would (embedder, search defaults, opt-outs).
func (h *handler) openStore() (*index.Store, error) {
	st, err := index.OpenWith(h.env.DataDir, app.StoreOptions(h.cfg, index.OpenOptions{BusyTimeout: BusyTimeout, DeferRewrites: true}))
	if err != nil {
		_ = h.upgradeLater(err) // hands an upgrade to a background run; err stays what it was
	}
	return st, err
}

// optedOut reports (and logs) that the session's project is kept out of
// cairn (index.exclude, a .cairnignore, or forgotten): nothing is injected.
func (h *handler) optedOut(ctx context.Context, st *index.Store) bool {
	out, why := st.Excluded(ctx, h.project())
	if out {
		h.env.Log.Printf("%s: project opted out (%s): nothing injected", h.in.Event, why)
	}
	return out
}

func output(event, context string) ([]byte, error) {
	if strings.TrimSpace(context) == "" {
		return nil, nil
	}
	b, err := json.Marshal(Output{HookSpecificOutput: &SpecificOutput{HookEventName: event, AdditionalContext: context}})
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func shortID(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

// firstFrames keeps a panic's stack short enough for one log line.
func firstFrames(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	var keep []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "github.com/cairn-dev/cairn/") {
			keep = append(keep, l)
			if len(keep) == 3 {
				break
			}
		}
	}
	return strings.Join(keep, " < ")
}
