package transcripts

import (
	"strings"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Claude Code 2.x records the project's hooks in lines of their own: a
// progress line per hook per tool call (hook_progress: the event, the
// hook's name — the event and what it matched, "PostToolUse:Edit" — and
// the command), an attachment per hook that said something (hook_success
// with its stdout, hook_additional_context, hook_blocking_error, …), and
// after a turn the Stop hooks it ran (system stop_hook_summary). 1.0.x
// wrote a system line of text per run instead ("PostToolUse:Edit [cmd]
// completed successfully").

// HookRun is one hook run such a line records.
type HookRun struct {
	Event   string // PostToolUse, Stop, SessionStart, …
	Matcher string // what the hook matched: the tool (Edit), the source (startup); "" when none
	Command string // the hook's command, when the line names it
	// Said is what Claude Code showed Claude of the run: a hook's
	// additionalContext, the stdout of a SessionStart or UserPromptSubmit
	// hook, a blocking error's message; "" for none.
	Said string
}

// Name is the hook's name as Claude Code writes it: "PostToolUse:Edit".
func (h HookRun) Name() string {
	if h.Matcher == "" {
		return h.Event
	}
	return h.Event + ":" + h.Matcher
}

// hookText is a string, or the strings of an array (an attachment's
// content: hook_additional_context's is a list), joined by newlines;
// any other kind is skipped.
type hookText string

func (t *hookText) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	switch d.PeekKind() {
	case '"':
		tok, err := d.ReadToken()
		if err != nil {
			return err
		}
		*t = hookText(tok.String())
		return nil
	case '[':
		parts, err := arrayStrings(d)
		if err != nil {
			return err
		}
		*t = hookText(strings.Join(parts, "\n"))
		return nil
	}
	return d.SkipValue()
}

// arrayStrings reads the array d is at and returns its strings; its
// other values are skipped.
func arrayStrings(d *jsontext.Decoder) ([]string, error) {
	if _, err := d.ReadToken(); err != nil {
		return nil, err
	}
	var parts []string
	for d.PeekKind() != ']' {
		if d.PeekKind() != '"' {
			if err := d.SkipValue(); err != nil {
				return nil, err
			}
			continue
		}
		tok, err := d.ReadToken()
		if err != nil {
			return nil, err
		}
		parts = append(parts, tok.String())
	}
	_, err := d.ReadToken()
	return parts, err
}

// blockingError is a hook_blocking_error's {"blockingError": text,
// "command": cmd} (or, in some versions, the text alone).
type blockingError struct{ Text, Command string }

func (b *blockingError) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	switch d.PeekKind() {
	case '"':
		tok, err := d.ReadToken()
		if err != nil {
			return err
		}
		b.Text = tok.String()
		return nil
	case '{':
		var v struct {
			Text    textOnly `json:"blockingError"`
			Command textOnly `json:"command"`
		}
		if err := json.UnmarshalDecode(d, &v, decodeOpts); err != nil {
			return err
		}
		b.Text, b.Command = string(v.Text), string(v.Command)
		return nil
	}
	return d.SkipValue()
}

// hookInfo is one hook of a stop_hook_summary.
type hookInfo struct {
	Command string `json:"command"`
}

// hookInfos are a stop_hook_summary's hooks; any other shape is skipped.
type hookInfos []hookInfo

func (h *hookInfos) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	if d.PeekKind() != '[' {
		return d.SkipValue()
	}
	v, err := d.ReadValue()
	if err != nil {
		return err
	}
	var raws []jsontext.Value
	if json.Unmarshal(v, &raws, decodeOpts) != nil {
		return nil
	}
	for _, r := range raws {
		var hi struct {
			Command textOnly `json:"command"`
		}
		if json.Unmarshal(r, &hi, decodeOpts) == nil && hi.Command != "" {
			*h = append(*h, hookInfo{Command: string(hi.Command)})
		}
	}
	return nil
}

// hookRuns are the runs a line records (nil for a line of no hook): typ
// and subtype are the line's, h its progress data or attachment, infos a
// stop_hook_summary's hooks.
func hookRuns(typ, subtype string, h *rawData, infos hookInfos) []HookRun {
	if typ == "system" && subtype == "stop_hook_summary" {
		return infos.stopRuns()
	}
	if !isHookLine(typ, subtype, h) {
		return nil
	}
	run, ok := hookRunOf(h)
	if !ok {
		return nil
	}
	if typ == "attachment" && !run.said(subtype, h) {
		return nil
	}
	run.Said = strings.TrimSpace(run.Said)
	if run.Command == "" && run.Said == "" {
		return nil
	}
	return []HookRun{run}
}

// isHookLine says a line of type typ and subtype, with data h, is one
// hook's: a progress line or an attachment, of a hook_ subtype.
func isHookLine(typ, subtype string, h *rawData) bool {
	return h != nil && strings.HasPrefix(subtype, "hook_") && (typ == "progress" || typ == "attachment")
}

// stopRuns are the Stop hooks a stop_hook_summary names.
func (infos hookInfos) stopRuns() []HookRun {
	var out []HookRun
	for _, hi := range infos {
		out = append(out, HookRun{Event: "Stop", Command: hi.Command})
	}
	return out
}

// hookRunOf is the event, matcher and command of hook line data h (ok:
// it names a plausible event).
func hookRunOf(h *rawData) (run HookRun, ok bool) {
	run = HookRun{Event: h.HookEvent, Command: string(h.Command)}
	name, matcher, _ := strings.Cut(h.HookName, ":")
	if run.Event == "" {
		run.Event = name
	}
	if name == run.Event {
		run.Matcher = matcher
	}
	ok = run.Event != "" && len(run.Event) <= 40 && !strings.ContainsAny(run.Event, " \n")
	return run, ok
}

// said takes from hook attachment h (of subtype) what Claude was shown,
// and reports whether the attachment is a run at all (false for
// hook_system_message, hook_permission_decision, … without a command).
func (run *HookRun) said(subtype string, h *rawData) bool {
	switch subtype {
	case "hook_additional_context":
		run.Said = string(h.Content)
	case "hook_success":
		// Claude sees a successful hook's output only where its stdout is
		// context: SessionStart and UserPromptSubmit.
		if run.Event == "SessionStart" || run.Event == "UserPromptSubmit" {
			if c := strings.TrimSpace(string(h.Content)); c != "Success" {
				run.Said = c
			}
		}
	case "hook_blocking_error":
		run.Said = h.BlockingError.Text
		if run.Command == "" {
			run.Command = h.BlockingError.Command
		}
	case "hook_non_blocking_error", "hook_error_during_execution", "hook_cancelled":
		// shown to the person, not to Claude
	default:
		return run.Command != ""
	}
	return true
}
