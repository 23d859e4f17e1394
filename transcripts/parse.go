package transcripts

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// decodeOpts makes the decoder lenient about what real files contain: invalid
// UTF-8 becomes U+FFFD, duplicate keys are tolerated, unknown keys ignored.
var decodeOpts = json.JoinOptions(
	jsontext.AllowInvalidUTF8(true),
	jsontext.AllowDuplicateNames(true),
)

// rawEntry mirrors the JSON envelope. Only fields cairn uses are declared:
// json v2 skips the rest (progress data, toolUseResult bodies, snapshots)
// without allocating them.
type rawEntry struct {
	Type              string          `json:"type"`
	Subtype           string          `json:"subtype"`
	UUID              string          `json:"uuid"`
	ParentUUID        string          `json:"parentUuid"`
	LogicalParentUUID string          `json:"logicalParentUuid"`
	SessionID         string          `json:"sessionId"`
	Timestamp         string          `json:"timestamp"`
	CWD               string          `json:"cwd"`
	GitBranch         string          `json:"gitBranch"`
	Version           string          `json:"version"`
	IsSidechain       bool            `json:"isSidechain"`
	IsMeta            bool            `json:"isMeta"`
	IsCompactSummary  bool            `json:"isCompactSummary"`
	IsAPIErrorMessage bool            `json:"isApiErrorMessage"`
	AgentID           string          `json:"agentId"`
	RequestID         string          `json:"requestId"`
	Message           *rawMessage     `json:"message"`
	ToolUseResult     toolUseResult   `json:"toolUseResult"`
	Content           flexContent     `json:"content"`
	Operation         string          `json:"operation"`
	CompactMetadata   *rawCompactMeta `json:"compactMetadata"`
	DurationMs        float64         `json:"durationMs"`
	Summary           textOnly        `json:"summary"`
	LeafUUID          string          `json:"leafUuid"`
	CustomTitle       string          `json:"customTitle"`
	AITitle           string          `json:"aiTitle"`
	LastPrompt        string          `json:"lastPrompt"`
	Data              *rawData        `json:"data"`
	Attachment        *rawData        `json:"attachment"`
	ToolUseID         string          `json:"toolUseID"`
	ParentToolUseID   string          `json:"parentToolUseID"`
	HookInfos         hookInfos       `json:"hookInfos"`
}

type rawMessage struct {
	ID      string         `json:"id"`
	Role    string         `json:"role"`
	Model   string         `json:"model"`
	Content jsontext.Value `json:"content"`
	Usage   *Usage         `json:"usage"`
}

type rawCompactMeta struct {
	Trigger   string `json:"trigger"`
	PreTokens int64  `json:"preTokens"`
}

// rawData is a progress line's data or an attachment: its type, and
// what a hook's (hooks.go) or a legacy subagent's says.
type rawData struct {
	Type    string `json:"type"`
	AgentID string `json:"agentId"`

	HookEvent     string        `json:"hookEvent"`
	HookName      string        `json:"hookName"`
	Command       textOnly      `json:"command"`
	Content       hookText      `json:"content"`
	BlockingError blockingError `json:"blockingError"`
}

type rawBlock struct {
	Type      string         `json:"type"`
	Text      string         `json:"text"`
	Thinking  string         `json:"thinking"`
	Data      payloadSize    `json:"data"`
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Input     jsontext.Value `json:"input"`
	ToolUseID string         `json:"tool_use_id"`
	Content   jsontext.Value `json:"content"`
	IsError   bool           `json:"is_error"`
	Source    *rawSource     `json:"source"`
}

type rawSource struct {
	Type      string      `json:"type"`
	MediaType string      `json:"media_type"`
	Data      payloadSize `json:"data"`
	URL       string      `json:"url"`
}

// payloadSize records only the length of a (base64) string value, so image
// and document payloads are never copied into memory.
type payloadSize int

func (p *payloadSize) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	v, err := d.ReadValue()
	if err != nil {
		return err
	}
	if v.Kind() == '"' {
		*p = payloadSize(len(v) - 2)
	}
	return nil
}

// textOnly accepts a string and ignores any other JSON kind. Some entry types
// reuse a field name with a different shape (system "content" is a string,
// others carry objects).
type textOnly string

func (t *textOnly) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	if d.PeekKind() != '"' {
		return d.SkipValue()
	}
	tok, err := d.ReadToken()
	if err != nil {
		return err
	}
	*t = textOnly(tok.String())
	return nil
}

// flexContent is a top-level "content": the text of a string (system
// lines, queued prompts), or the raw JSON of an array of blocks (queued
// prompts with IDE context or images); other kinds are skipped.
type flexContent struct {
	text string
	raw  jsontext.Value
}

// blocks are the content as a message's blocks; the bool reports whether
// it was a string.
func (c *flexContent) blocks() ([]Block, bool) {
	switch {
	case c.raw != nil:
		b, _ := ParseContent(c.raw)
		return b, false
	case c.text != "":
		return []Block{{Type: BlockText, Text: c.text}}, true
	}
	return nil, false
}

func (c *flexContent) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	switch d.PeekKind() {
	case '"':
		tok, err := d.ReadToken()
		if err != nil {
			return err
		}
		c.text = tok.String()
		return nil
	case '[':
		v, err := d.ReadValue()
		if err != nil {
			return err
		}
		c.raw = v.Clone()
		return nil
	}
	return d.SkipValue()
}

// toolUseResult keeps only the spawned agent id; the body (file contents,
// stdout, patches) is skipped. It is a string on errors.
type toolUseResult struct{ AgentID string }

func (t *toolUseResult) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	if d.PeekKind() != '{' {
		return d.SkipValue()
	}
	var v struct {
		AgentID textOnly `json:"agentId"`
	}
	if err := json.UnmarshalDecode(d, &v, decodeOpts); err != nil {
		return err
	}
	t.AgentID = string(v.AgentID)
	return nil
}

// ErrNotJSON is wrapped by ParseLine for lines that are not a JSON object.
var ErrNotJSON = errors.New("not a JSON object")

// ParseLine parses one transcript line. Unknown types and fields are ignored;
// a field of an unexpected shape drops that field only. An error means the
// line is not usable JSON at all.
func ParseLine(line []byte) (Entry, error) {
	// A UTF-8 byte order mark (editors and some Windows tools write one at
	// the start of a file) is not part of the JSON.
	line = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimLeft(line, " \t"), []byte("\xef\xbb\xbf")))
	if len(line) == 0 || line[0] != '{' {
		return Entry{}, ErrNotJSON
	}
	var r rawEntry
	err := json.Unmarshal(line, &r, decodeOpts)
	if err != nil {
		var se *json.SemanticError
		if !errors.As(err, &se) {
			return Entry{}, fmt.Errorf("%w: %w", ErrNotJSON, err)
		}
		// A field of an unexpected type: decode field by field, dropping only
		// what does not fit.
		r = rawEntry{}
		if err := decodeFieldwise(line, &r); err != nil {
			return Entry{}, fmt.Errorf("%w: %w", ErrNotJSON, err)
		}
	}
	return r.entry(), nil
}

// decodeFieldwise is the slow path for lines whose fields have unexpected
// shapes: each top-level member is decoded on its own, and members that fail
// are dropped.
func decodeFieldwise(line []byte, r *rawEntry) error {
	var members map[string]jsontext.Value
	if err := json.Unmarshal(line, &members, decodeOpts); err != nil {
		return err
	}
	var buf []byte
	for k, v := range members {
		buf = buf[:0]
		buf = append(buf, '{')
		buf, _ = jsontext.AppendQuote(buf, k)
		buf = append(buf, ':')
		buf = append(buf, v...)
		buf = append(buf, '}')
		if k == "message" {
			// Keep what is usable of the message too.
			var m map[string]jsontext.Value
			if json.Unmarshal(v, &m, decodeOpts) == nil {
				msg := &rawMessage{}
				for mk, mv := range m {
					b := []byte{'{'}
					b, _ = jsontext.AppendQuote(b, mk)
					b = append(b, ':')
					b = append(b, mv...)
					b = append(b, '}')
					_ = json.Unmarshal(b, msg, decodeOpts)
				}
				r.Message = msg
			}
			continue
		}
		_ = json.Unmarshal(buf, r, decodeOpts)
	}
	return nil
}

func (r *rawEntry) entry() Entry {
	e := Entry{
		Type:              r.Type,
		Subtype:           r.Subtype,
		UUID:              r.UUID,
		ParentUUID:        r.ParentUUID,
		LogicalParentUUID: r.LogicalParentUUID,
		SessionID:         r.SessionID,
		AgentID:           r.AgentID,
		Timestamp:         parseTime(r.Timestamp),
		CWD:               r.CWD,
		GitBranch:         r.GitBranch,
		Version:           r.Version,
		IsSidechain:       r.IsSidechain,
		IsMeta:            r.IsMeta,
		IsCompactSummary:  r.IsCompactSummary,
		RequestID:         r.RequestID,
		Summary:           string(r.Summary),
		LeafUUID:          r.LeafUUID,
		CustomTitle:       r.CustomTitle,
		AITitle:           r.AITitle,
		LastPrompt:        r.LastPrompt,
		Text:              r.Content.text,
		DurationMs:        int64(r.DurationMs),
		ResultAgentID:     r.ToolUseResult.AgentID,
		ToolUseID:         r.ToolUseID,
		ParentToolUseID:   r.ParentToolUseID,
	}
	if r.CompactMetadata != nil {
		e.CompactTrigger = r.CompactMetadata.Trigger
		e.PreTokens = r.CompactMetadata.PreTokens
	}
	switch {
	case r.Data != nil && e.Type == "progress":
		e.Subtype = r.Data.Type
		e.AgentID = cmp.Or(e.AgentID, r.Data.AgentID)
		e.Hooks = hookRuns(e.Type, e.Subtype, r.Data, nil)
	case r.Attachment != nil && e.Type == "attachment":
		e.Subtype = r.Attachment.Type
		e.Hooks = hookRuns(e.Type, e.Subtype, r.Attachment, nil)
	case e.Type == "system" && len(r.HookInfos) > 0:
		e.Hooks = hookRuns(e.Type, e.Subtype, nil, r.HookInfos)
	case e.Type == "queue-operation":
		// A prompt typed while Claude works: its content is a string or
		// blocks, as a prompt's (QueuedText).
		e.Subtype = r.Operation
		e.Text = ""
		e.Blocks, e.StringContent = r.Content.blocks()
	}
	if m := r.Message; m != nil {
		e.MessageID = m.ID
		e.Role = m.Role
		e.Model = m.Model
		e.IsAPIError = r.IsAPIErrorMessage
		e.Usage = m.Usage
		e.Blocks, e.StringContent = ParseContent(m.Content)
	}
	return e
}

// ParseContent decodes a message.content value: a plain string or an array of
// blocks. It never fails: what cannot be decoded is dropped. The bool reports
// whether the content was a plain string.
func ParseContent(v []byte) ([]Block, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return nil, false
	}
	switch v[0] {
	case '"':
		var s string
		if json.Unmarshal(v, &s, decodeOpts) != nil {
			return nil, true
		}
		return []Block{{Type: BlockText, Text: s}}, true
	case '[':
		var raws []rawBlock
		if err := json.Unmarshal(v, &raws, decodeOpts); err != nil {
			raws = decodeBlocksOneByOne(v)
		}
		out := make([]Block, 0, len(raws))
		for i := range raws {
			if b, ok := raws[i].block(); ok {
				out = append(out, b)
			}
		}
		return out, false
	}
	return nil, false
}

// decodeBlocksOneByOne keeps the well-formed blocks of an array in which some
// block has an unexpected shape.
func decodeBlocksOneByOne(v []byte) []rawBlock {
	var items []jsontext.Value
	if json.Unmarshal(v, &items, decodeOpts) != nil {
		return nil
	}
	out := make([]rawBlock, 0, len(items))
	for _, it := range items {
		var rb rawBlock
		if json.Unmarshal(it, &rb, decodeOpts) == nil {
			out = append(out, rb)
		}
	}
	return out
}

func (r *rawBlock) block() (Block, bool) {
	b := Block{Type: r.Type}
	switch r.Type {
	case BlockText:
		b.Text = r.Text
	case BlockThinking:
		b.Text = r.Thinking
	case BlockRedactedThinking:
		b.Text = "[redacted thinking]"
		b.Size = int(r.Data)
	case BlockToolUse, BlockServerToolUse:
		b.ToolID = r.ID
		b.ToolName = r.Name
		if len(r.Input) > 0 {
			b.ToolInput = []byte(r.Input)
		}
	case BlockToolResult:
		b.ToolUseID = r.ToolUseID
		b.IsError = r.IsError
		b.Text = toolResultText(r.Content)
	case BlockImage, BlockDocument:
		b.MediaType, b.Size = r.media()
		b.Text = mediaPlaceholder(r.Type, b.MediaType, b.Size)
	case "":
		return b, false
	default:
		// Unknown block types keep whatever text they carry.
		b.Text = r.Text
	}
	return b, true
}

func (r *rawBlock) media() (string, int) {
	if r.Source == nil {
		return "", 0
	}
	size := int(r.Source.Data)
	if r.Source.Type == "base64" || r.Source.Type == "" {
		size = size * 3 / 4 // decoded bytes, near enough for a placeholder
	}
	return r.Source.MediaType, size
}

func mediaPlaceholder(kind, mediaType string, size int) string {
	if mediaType == "" {
		mediaType = "unknown type"
	}
	return fmt.Sprintf("[%s: %s, %s]", kind, mediaType, HumanBytes(int64(size)))
}

// toolResultText flattens a tool_result's content (a string, or an array of
// text/image/tool_reference blocks) to text, with placeholders for media.
func toolResultText(v []byte) string {
	blocks, isString := ParseContent(v)
	if isString && len(blocks) == 1 {
		return blocks[0].Text
	}
	var sb strings.Builder
	for _, b := range blocks {
		t := b.Text
		if b.Type == BlockToolUse || t == "" {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(t)
	}
	return sb.String()
}

// parseTime parses the ISO-8601 timestamps Claude Code writes; anything else
// is treated as missing.
func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC()
	}
	return time.Time{}
}

// HumanBytes formats a byte count for people: 512 B, 1.5 KB, 3.2 MB.
func HumanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "KMGTPE"[exp])
}

// ValidUTF8 returns s with invalid byte sequences replaced by U+FFFD.
func ValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
