package transcripts

import (
	"regexp"
	"strings"
)

// Where the person's words come from. A typed prompt is the usual one;
// the others reach Claude in other shapes, and each is a user turn too.
const (
	SaidPrompt    = ""          // a prompt typed (or pasted) in the prompt box
	SaidRejection = "rejection" // the reason typed when rejecting a tool call
	SaidAnswer    = "answer"    // an answer to Claude's AskUserQuestion
	SaidQueued    = "queued"    // typed while Claude worked and never sent as a prompt of its own
)

// Said is something the person said besides a typed prompt: carried in a
// tool result (a rejection's reason, the answers to Claude's questions) or
// in a queued prompt.
type Said struct {
	Source string // SaidRejection, SaidAnswer or SaidQueued
	// Text is only the person's words: the reason, the answers (one a
	// line), the queued prompt.
	Text string
	// ToolUseID is the call a rejection or an answer belongs to.
	ToolUseID string
	// Answers are the questions and what was answered (SaidAnswer).
	Answers []Answer
}

// Answer is one question Claude asked with AskUserQuestion and the
// person's answer.
type Answer struct{ Question, Answer string }

// answersRe starts the tool result of an AskUserQuestion call the
// person answered: `User has answered your questions: "Q"="A", "Q2"="A2".
// You can now continue with the user's answers in mind.`
var answersRe = regexp.MustCompile(`^\s*User has answered your questions?:\s*`)

// answerPairRe is one "question"="answer" pair, up to the next pair or the
// end.
var answerPairRe = regexp.MustCompile(`(?s)"(.*?)"="(.*?)"(?:, "|$)`)

const answersTail = `. You can now continue with the user's answers in mind.`

// BlockSaid returns what the person said in a tool result block: the
// reason typed when rejecting the call, or the answers to Claude's
// AskUserQuestion. ok is false for other blocks (a rejection without a
// reason carries no words).
func BlockSaid(b *Block) (Said, bool) {
	if b.Type != BlockToolResult {
		return Said{}, false
	}
	if reason := RejectionReason(b); reason != "" {
		return Said{Source: SaidRejection, Text: reason, ToolUseID: b.ToolUseID}, true
	}
	if b.IsError {
		return Said{}, false
	}
	answers := ParseAnswers(b.Text)
	if len(answers) == 0 {
		return Said{}, false
	}
	words := make([]string, 0, len(answers))
	for _, a := range answers {
		if a.Answer != "" {
			words = append(words, a.Answer)
		}
	}
	if len(words) == 0 {
		return Said{}, false
	}
	return Said{Source: SaidAnswer, Text: strings.Join(words, "\n"), ToolUseID: b.ToolUseID, Answers: answers}, true
}

// ParseAnswers reads the questions and answers of an AskUserQuestion
// result; nil when text is not one.
func ParseAnswers(text string) []Answer {
	m := answersRe.FindStringIndex(text)
	if m == nil {
		return nil
	}
	rest := strings.TrimSpace(text[m[1]:])
	if i := strings.LastIndex(rest, answersTail); i >= 0 {
		rest = rest[:i]
	}
	rest = strings.TrimSuffix(rest, ".")
	var out []Answer
	for len(rest) > 0 {
		loc := answerPairRe.FindStringSubmatchIndex(rest)
		if loc == nil || loc[0] != 0 {
			break
		}
		out = append(out, Answer{Question: strings.TrimSpace(rest[loc[2]:loc[3]]), Answer: strings.TrimSpace(rest[loc[4]:loc[5]])})
		next := loc[1]
		if strings.HasSuffix(rest[:next], `, "`) {
			next-- // the next pair's opening quote
		}
		rest = rest[next:]
	}
	return out
}

// QueuedText is the prompt a queue-operation "enqueue" line holds: what the
// person typed while Claude worked, cleaned as a prompt (CleanPrompt),
// without the IDE context and Claude Code's own notes (a queued
// <task-notification> is not the person's). "" for other lines.
func QueuedText(e *Entry) string {
	if e.Type != "queue-operation" || e.Subtype != "enqueue" {
		return ""
	}
	return strings.TrimSpace(CleanPrompt(blocksPrompt(e.Blocks)))
}

// EntrySaid returns what the person said in e besides a typed prompt: the
// rejections and answers in its tool results, or its queued prompt.
func EntrySaid(e *Entry) []Said {
	if t := QueuedText(e); t != "" {
		return []Said{{Source: SaidQueued, Text: t}}
	}
	if e.Type != "user" {
		return nil
	}
	var out []Said
	for i := range e.Blocks {
		if s, ok := BlockSaid(&e.Blocks[i]); ok {
			out = append(out, s)
		}
	}
	return out
}

// PromptKey is how a prompt is recognised when it is written again: a
// queued prompt that later becomes a prompt of its own has the same key
// (whitespace and command wrappers do not count).
func PromptKey(text string) string {
	return strings.Join(strings.Fields(CleanPrompt(text)), " ")
}

// blocksPrompt joins the text blocks the person wrote (see
// Entry.PromptText).
func blocksPrompt(blocks []Block) string {
	var out []byte
	for _, b := range blocks {
		if b.Type != BlockText {
			continue
		}
		_, text := splitIDE(b.Text)
		if IsSynthetic(text) {
			continue
		}
		if len(out) > 0 {
			out = append(out, '\n')
		}
		out = append(out, text...)
	}
	return string(out)
}

// CallName names a call beside what the person said of it: what it acted
// on (ToolSummary: its command, file, pattern…), or its tool's name when
// its input has none of those (ExitPlanMode's plan is no name).
func CallName(b *Block) string {
	s := ToolSummary(b)
	if s == "" || strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[") {
		return b.ToolName
	}
	return s
}
