package transcripts

import (
	"bytes"
	"fmt"
	"strings"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// ToolSummary is a one-line description of a tool call: the command, file,
// pattern or URL it acted on.
func ToolSummary(b *Block) string {
	in := DecodeToolInput(b.ToolInput)
	if IsAgentTool(b.ToolName) {
		t := in.SubagentType
		if t == "" {
			t = "general-purpose"
		}
		return OneLine(t+": "+in.Description, 160)
	}
	if s, ok := inputSummary(&in); ok {
		return s
	}
	if b.ToolName == "TodoWrite" {
		var v struct {
			Todos []jsontext.Value `json:"todos"`
		}
		if json.Unmarshal(b.ToolInput, &v, decodeOpts) == nil {
			return fmt.Sprintf("%d todos", len(v.Todos))
		}
	}
	return OneLine(compactJSON(b.ToolInput), 160)
}

// inputSummary summarises a tool call by the first of its usual inputs it
// has (command, file, search pattern, URL, query, path); ok is false when
// it has none.
func inputSummary(in *ToolInput) (_ string, ok bool) {
	switch {
	case in.Command != "":
		return OneLine(in.Command, 160), true
	case in.FilePath != "" || in.NotebookPath != "":
		return firstNonEmpty(in.FilePath, in.NotebookPath), true
	case in.Pattern != "":
		s := in.Pattern
		if in.Path != "" {
			s += " in " + in.Path
		}
		return OneLine(s, 160), true
	case in.URL != "":
		return in.URL, true
	case in.Query != "":
		return OneLine(in.Query, 160), true
	case in.Path != "":
		return in.Path, true
	}
	return "", false
}

func compactJSON(raw []byte) string {
	if len(raw) > 2000 {
		raw = raw[:2000]
	}
	return string(bytes.TrimSpace(raw))
}

// ToolSearchText is the part of a tool call worth searching: the tool name
// and its command, paths, patterns and descriptions (not file bodies).
func ToolSearchText(b *Block) string {
	in := DecodeToolInput(b.ToolInput)
	parts := []string{b.ToolName}
	for _, s := range []string{in.Description, in.Command, in.FilePath, in.NotebookPath, in.Path, in.Pattern, in.URL, in.Query, in.SubagentType} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if IsAgentTool(b.ToolName) && in.Prompt != "" {
		parts = append(parts, in.Prompt)
	}
	return strings.Join(parts, " ")
}

// HeadTail shortens long text to its first head and last tail bytes (cut at
// line or rune boundaries), noting what was left out.
func HeadTail(s string, head, tail int) string {
	if len(s) <= head+tail+64 {
		return s
	}
	h := cutRunes(s[:head])
	t := s[len(s)-tail:]
	for len(t) > 0 && (t[0]&0xC0) == 0x80 { // do not start inside a rune
		t = t[1:]
	}
	omitted := len(s) - len(h) - len(t)
	return fmt.Sprintf("%s\n… [%s omitted] …\n%s", h, HumanBytes(int64(omitted)), t)
}

func cutRunes(s string) string {
	for len(s) > 0 && (s[len(s)-1]&0xC0) == 0x80 {
		s = s[:len(s)-1]
	}
	if len(s) > 0 && s[len(s)-1] >= 0xC0 {
		s = s[:len(s)-1]
	}
	return s
}
