package transcripts

import "strings"

// cairn's own slash commands: what they print is cairn's data (memories,
// summaries, past sessions) and what the person typed with them is a query
// for cairn, not work. Indexed as prompts they would be recalled,
// summarised and mined again: every /recall session would match the next
// /recall of the same words.
var cairnCommands = []string{"recall", "remember", "summarize", "synthesize"}

// cairnExpansionStarts are how the expansions of cairn's commands open:
// today's ("# cairn /recall" …) and what the commands of earlier cairn
// versions printed first.
var cairnExpansionStarts = []string{
	"# cairn /",
	"# cairn: recall ",
	"# cairn: memory of ",
	"The user wants cairn to remember this:",
	"Write a structured summary of this session so far. cairn stores it as a draft",
}

// IsCairnCommand reports whether prompt text is one of cairn's own
// commands: its invocation (the <command-name> wrapper, or the command as
// typed, "/recall …" or "/cairn:recall …"), or the expansion Claude Code
// sends after it.
func IsCairnCommand(text string) bool {
	t := strings.TrimSpace(text)
	if IsCommandWrapper(t) {
		m := cmdNameRe.FindStringSubmatch(t)
		return m != nil && isCairnCommandName(m[1])
	}
	if strings.HasPrefix(t, "/") {
		name, _, _ := strings.Cut(t, " ")
		name, _, _ = strings.Cut(name, "\n")
		return isCairnCommandName(name)
	}
	for _, p := range cairnExpansionStarts {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	// /synthesize printed cairn's output first, then this.
	return strings.Contains(t, "Above is the output of `cairn synthesize` for this project")
}

// isCairnCommandName reports whether a command name (with or without its
// slash, bare or as the plugin's "cairn:NAME") is one of cairn's.
func isCairnCommandName(name string) bool {
	name = strings.TrimPrefix(strings.TrimSpace(name), "/")
	if rest, ok := strings.CutPrefix(name, "cairn:"); ok {
		return rest != ""
	}
	for _, c := range cairnCommands {
		if name == c {
			return true
		}
	}
	return false
}

// IsCairnTool reports whether a tool name is one of cairn's MCP tools, as
// cairn install's server (mcp__cairn__…) or the plugin's
// (mcp__plugin_cairn_cairn__…) offers it: what it returns is cairn's own
// data (memories, summaries, other sessions' excerpts).
func IsCairnTool(name string) bool {
	return strings.HasPrefix(name, "mcp__cairn__") || strings.HasPrefix(name, "mcp__plugin_cairn_cairn__")
}

// CairnCalls follows a file's entries in order and tells the results of
// cairn's MCP tools apart from other tool output.
type CairnCalls map[string]bool

// Add notes the cairn tool calls of an assistant entry.
func (c CairnCalls) Add(e *Entry) {
	for i := range e.Blocks {
		if b := &e.Blocks[i]; b.Type == BlockToolUse && IsCairnTool(b.ToolName) {
			c[b.ToolID] = true
		}
	}
}

// Answers reports whether e holds only results, every one of them of a
// cairn tool call seen by Add.
func (c CairnCalls) Answers(e *Entry) bool {
	if !e.IsToolResultOnly() {
		return false
	}
	for i := range e.Blocks {
		if !c[e.Blocks[i].ToolUseID] {
			return false
		}
	}
	return true
}
