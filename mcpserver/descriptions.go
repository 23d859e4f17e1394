package mcpserver

// toolDescriptions are what Claude reads of each tool, in one place.
// Newer Claude Code defers MCP tools: the model first sees only their
// names and finds them with ToolSearch, which matches words of the names
// and descriptions. So each description opens with what the tool is for
// in the words a model searching for it would use ("memory", "remember",
// "past sessions", "conversation history", "summary", "project"), then
// says when to use another tool instead. TestToolDescriptionsFindable
// checks the searches the README promises.
var toolDescriptions = map[string]string{
	"memory_recall": "Recall past Claude Code sessions (search the conversation history of every earlier session, all projects or one) " +
		"by words and meaning: what was done, discussed or decided before, and how a problem was solved. " +
		"Returns up to 5 past sessions, each with a summary and its best matching excerpt. Pass rephrasings of the query in `alternatives` " +
		"to widen recall: their rankings are fused. For curated memories (decisions, gotchas, preferences) use memory_search; " +
		"to read more of a session, session_read.",
	"memory_timeline": "Recent past sessions: list the Claude Code sessions of the last `days` days (default 7), newest first, " +
		"with their summaries: what was worked on lately, optionally in one project.",
	"memory_projects": "List the projects with past Claude Code sessions (conversation history): path, session count, last use, size.",
	"session_read": "Read one past session's conversation: a bounded excerpt (about 40 entries) from its start, " +
		"or centred on an entry uuid returned by memory_recall. Use `offset` to page on.",
	"memory_search": "Search memory: cairn's curated memories of this user's work (decisions, architecture, patterns, gotchas, preferences, " +
		"facts, bugfixes...), remembered from past sessions and reviewed by the user, by words and meaning, optionally of one type " +
		"and carrying all the given tags. Rejected memories are never returned; check `status` (approved = confirmed by the user). " +
		"To search past sessions' conversations instead, use memory_recall.",
	"memory_related": "Memories related to one memory (by its links, shared words or tags), or all memories carrying the given tags.",
	"memory_remember": "Remember something for future sessions (save a new memory: a decision, a gotcha, a preference, a fact...) " +
		"as one self-contained sentence; keep paths and identifiers verbatim, never secrets. It lands pending until the user approves it " +
		"in cairn (unless configured otherwise). Near-duplicates are merged instead of added. /remember uses this tool.",
	"memory_correct": "Correct a wrong or outdated memory. Pass the whole corrected sentence. " +
		"A pending memory is corrected in place; an approved one (the user reviewed it) gets a pending replacement the user reviews, " +
		"unless configured otherwise. Every change is kept in an audit trail.",
	"memory_forget": "Forget a memory that is wrong or no longer true. A pending memory is rejected; " +
		"an approved one goes back to the user's review (it is no longer injected meanwhile), unless configured otherwise. " +
		"Every change is kept in an audit trail.",
	"memory_ask": "Ask cairn a question about past work in plain words (memory and past sessions). It gathers the best approved memories, " +
		"session summaries and session excerpts and, when the user configured a language model for cairn, answers briefly citing them; " +
		"otherwise it returns the ranked evidence. Use memory_recall to browse sessions, session_read to read one.",
	"memory_brief": "This project's memory at a glance: its approved memories, best first, and its latest session summaries: " +
		"what cairn remembers about the current project (what /recall without a query shows, and what a session starts with). " +
		"Use it to reload the project's context, e.g. after /clear. To search for something specific, use memory_search and memory_recall.",
	"session_save_summary": "Save a summary of this session to cairn's memory: the Markdown summary (## Request, ## Decisions, " +
		"## Discoveries, ## Learned, ## Completed, ## Next steps...) is stored as a draft the user reviews; once approved it becomes the " +
		"session's summary, shown at the start of future sessions, and its learnings become proposed memories. /summarize uses this tool.",
}

// toolSearchHints are each tool's search words for Claude Code's
// ToolSearch (sent as _meta["anthropic/searchHint"], which ToolSearch
// ranks by beside the name): what a model looking for the tool would
// type. Tools that share the "memory_" prefix tie on the name alone.
var toolSearchHints = map[string]string{
	"memory_recall":        "recall past sessions, conversation history, what was done or decided before",
	"memory_timeline":      "recent sessions, what was worked on lately",
	"memory_projects":      "projects with past sessions",
	"session_read":         "read a past session's conversation",
	"memory_search":        "search memory: find memories, decisions, gotchas, preferences, facts",
	"memory_related":       "related memories, tags",
	"memory_remember":      "remember, save a memory for future sessions",
	"memory_correct":       "correct a wrong memory",
	"memory_forget":        "forget a memory",
	"memory_ask":           "ask a question about past work",
	"memory_brief":         "project memory at a glance, project context",
	"session_save_summary": "save or summarize this session: session summary",
}
