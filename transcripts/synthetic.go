package transcripts

import "strings"

// SyntheticModel is the model Claude Code names on the assistant entries
// it writes itself.
const SyntheticModel = "<synthetic>"

// IsSyntheticReply reports whether an assistant entry is Claude Code's own
// rather than Claude's work: written with model "<synthetic>" ("No
// response requested." after a local command such as /compact or /cost)
// or marked isApiErrorMessage (an API error such as "Prompt is too long
// …"). It is the one rule of what is not Claude's: summaries, the
// SessionStart brief, synthesis and extraction never take such an entry
// as what was done. Entries without a model (older formats, or read back
// from a store that kept no model) are judged by their text
// (IsSyntheticReplyText).
func IsSyntheticReply(e *Entry) bool {
	if e.Type != "assistant" {
		return false
	}
	if e.Model == SyntheticModel || e.IsAPIError {
		return true
	}
	return e.Model == "" && IsSyntheticReplyText(e.JoinedText())
}

// syntheticReplies are the texts of synthetic assistant entries, as
// Claude Code writes them: exact, or (ending in "…") as a prefix.
var syntheticReplies = []string{
	"No response requested.",
	"Prompt is too long…",
	"API Error…",
	"Request timed out…",
	"Credit balance is too low…",
	"Invalid API key…",
	"Claude AI usage limit reached…",
	"OAuth token has expired…",
	"Please run /login…",
}

// IsSyntheticReplyText reports whether the text of an assistant reply is
// one Claude Code writes itself (see IsSyntheticReply). For entries whose
// model and flags are not known.
func IsSyntheticReplyText(text string) bool {
	t := strings.TrimSpace(text)
	if t == "" {
		return false
	}
	for _, s := range syntheticReplies {
		if p, ok := strings.CutSuffix(s, "…"); ok {
			if strings.HasPrefix(t, p) {
				return true
			}
		} else if t == s {
			return true
		}
	}
	return false
}

// HasWork reports whether Claude did anything in the session: a reply or
// a tool call. A session of local commands alone (`/clear`, `/cost`) or of
// API errors has none: it gets no summary and is not offered as a recent
// session.
func (s *Session) HasWork() bool { return s.AssistantTurns > 0 || s.ToolCalls > 0 }
