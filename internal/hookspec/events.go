// Package hookspec is what cairn's hooks are, for the handler (package
// hook) and the installer (package install) alike: the Claude Code events
// cairn registers for and their matchers, and the hook log (its name and
// rotation, the writer, the reader doctor uses, and how transcript paths
// are kept out of it).
package hookspec

// Events cairn handles.
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	PreToolUse       = "PreToolUse" // before a tool call
	Stop             = "Stop"
	SubagentStop     = "SubagentStop"
	PreCompact       = "PreCompact"
	SessionEnd       = "SessionEnd"
)

// Events is every event cairn registers for, in install order.
var Events = []string{SessionStart, UserPromptSubmit, PreToolUse, Stop, SubagentStop, PreCompact, SessionEnd}

// ToolMatcher is the tools cairn's PreToolUse hook is registered for.
const ToolMatcher = "Edit|MultiEdit|Write|NotebookEdit|Bash"

// Matchers are the matchers of the events registered for some tools only.
var Matchers = map[string]string{PreToolUse: ToolMatcher}
