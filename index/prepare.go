package index

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"errors"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/redact"
	"github.com/cairn-dev/cairn/transcripts"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Entry flags (entries.flags).
const (
	flagSidechain      = 1 << iota // isSidechain
	flagMeta                       // isMeta: injected text, hidden in a transcript view
	flagCompactSummary             // isCompactSummary
	flagStringContent              // message.content was a plain string
	flagAgentThread                // belongs to a subagent's thread (entries.agent), not the main thread
	flagResponseStart              // an assistant line that starts an API response (a message id not seen before in the file)
	flagSynthetic                  // an assistant line Claude Code wrote itself (transcripts.IsSyntheticReply); role system
	flagSaid                       // the person's words outside a typed prompt (transcripts.EntrySaid): searched by their words, no vector
	flagCairn                      // Claude's reply to one of cairn's own commands (/recall …): cairn's data again, no text indexed, no vector
	flagHook                       // a hook row (hookrows.go): one hook run of a session, not a line of its conversation
)

// Roles (entries.role). A user entry is "user" only when the person typed
// it, so search can answer "what did I ask" without tool output.
const (
	roleUser      = "user"
	roleAssistant = "assistant"
	roleTool      = "tool"   // tool results written back as user entries
	roleSystem    = "system" // system lines and injected user text (meta, compaction summaries, markers)
)

// preparedFile is one file's read, turned into rows outside any
// transaction so the write lock is held only for the inserts.
type preparedFile struct {
	file      transcripts.File
	cursor    transcripts.Cursor
	stats     transcripts.ReadStats
	err       error
	warning   error // a side file could not be read; the entries were
	entries   []preparedEntry
	summaries []summaryLine
	bytes     int64
}

// preparedEntry is one line that matters to a session: rows to store, or
// only an aggregate to update (titles, progress timestamps).
type preparedEntry struct {
	e     *transcripts.Entry // redacted; what SessionState.Add sees
	sid   string
	row   *entryRow   // nil: aggregated, not stored
	hooks []*entryRow // the hook rows of a line not stored (hookrows.go)
	finds []fieldFinding
}

type summaryLine struct{ leaf, text string }

type fieldFinding struct {
	field string
	f     redact.Finding
}

// entryRow is the entries row of one line.
type entryRow struct {
	uuid, agent, parent, typ, subtype, role, block string
	line                                           int
	ts                                             int64
	flags                                          int
	text                                           string
	data                                           []byte // nil: NULL
	embed                                          bool
	// lc and model are the line's context and model, whether or not data
	// keeps them (withContext).
	lc    lineCtx
	model string
}

// withContext is the row's data keeping its whole context (ctx) and, on
// an assistant line, its model (model), where data left them to the row
// before.
func (r *entryRow) withContext(ctx, model bool) []byte {
	var se storedEntry
	if len(r.data) > 0 && json.Unmarshal(r.data, &se) != nil {
		return r.data
	}
	changed := false
	if ctx && se.Ctx == nil {
		lc := r.lc
		se.Ctx, changed = &lc, true
	}
	if model && r.typ == "assistant" && se.Model == nil {
		m := r.model
		se.Model, changed = &m, true
	}
	if !changed {
		return r.data
	}
	b, err := json.Marshal(se)
	if err != nil {
		return r.data
	}
	return b
}

// storedEntry is the JSON in entries.data: what re-rendering needs beyond
// the text. Keys are short because there is one per entry.
type storedEntry struct {
	Blocks         []storedBlock `json:"b,omitzero"`
	LogicalParent  string        `json:"lp,omitzero"`
	CompactTrigger string        `json:"ct,omitzero"`
	PreTokens      int64         `json:"pt,omitzero"`
	ResultAgent    string        `json:"ra,omitzero"`
	// Ctx is the line's cwd, branch and version, and Model an assistant
	// line's model, each kept only where it differs from the previous
	// stored line of the same session in the same read of the file (the
	// first line of a read always has them): Conversation carries them
	// forward, so `cairn export --sessions` writes every line back with
	// its own (a worktree's cwd, a subagent's model). Rows stored before
	// they were kept have neither.
	Ctx   *lineCtx `json:"lc,omitzero"`
	Model *string  `json:"m,omitzero"`
	// Hook is a hook row's run (hookrows.go).
	Hook *storedHook `json:"hk,omitzero"`
}

// lineCtx is what a transcript line says about where it ran.
type lineCtx struct {
	CWD     string `json:"c,omitzero"`
	Branch  string `json:"g,omitzero"`
	Version string `json:"v,omitzero"`
}

// ctxTracker remembers, per session, the context and model last stored
// in one read of a file (nil: every row keeps its own).
type ctxTracker map[string]*trackedCtx

type trackedCtx struct {
	ctx      lineCtx
	model    string
	hasModel bool
}

// note sets se's Ctx and Model where e's differ from the last row of its
// session in this read.
func (t ctxTracker) note(se *storedEntry, sid string, e *transcripts.Entry) {
	lc := lineCtx{CWD: e.CWD, Branch: e.GitBranch, Version: e.Version}
	var last *trackedCtx
	if t != nil {
		if last = t[sid]; last == nil {
			last = &trackedCtx{}
			t[sid] = last
			se.Ctx = &lc
		}
	}
	if last == nil || last.ctx != lc {
		se.Ctx = &lc
	}
	if e.Type == "assistant" && (last == nil || !last.hasModel || last.model != e.Model) {
		m := e.Model
		se.Model = &m
	}
	if last != nil {
		last.ctx = lc
		if e.Type == "assistant" {
			last.model, last.hasModel = e.Model, true
		}
	}
}

type storedBlock struct {
	Type      string         `json:"t"`
	Text      string         `json:"x,omitzero"` // omitted when it is the entry's text
	ToolID    string         `json:"id,omitzero"`
	ToolName  string         `json:"n,omitzero"`
	Input     jsontext.Value `json:"in,omitzero"`
	ToolUseID string         `json:"u,omitzero"`
	IsError   bool           `json:"e,omitzero"`
	MediaType string         `json:"mt,omitzero"`
	Size      int            `json:"sz,omitzero"`
}

// preparer holds the settings of one sync.
type preparer struct {
	head, tail int
}

// prepare turns a file's read into rows.
func (p *preparer) prepare(r *transcripts.Result) *preparedFile {
	pf := &preparedFile{file: r.Job.File, cursor: r.Cursor, stats: r.Stats, err: r.Err, warning: r.Warning, bytes: r.Stats.Bytes}
	f := &pf.file
	pf.entries = make([]preparedEntry, 0, len(r.Entries))
	marks := newRowMarks()
	ctxs := ctxTracker{} // each line's cwd, branch, version and model
	sent := sentLater(f, r.Entries)
	hooks := map[string]bool{} // the hook rows made (hookRows)
	for i := range r.Entries {
		e := &r.Entries[i]
		if sent[i] {
			continue // a queued prompt this read also has as a prompt of its own
		}
		finds := redactEntry(e)
		if e.Type == "summary" {
			if e.Summary != "" && e.LeafUUID != "" {
				pf.summaries = append(pf.summaries, summaryLine{e.LeafUUID, e.Summary})
			}
			continue
		}
		sid := transcripts.EntrySessionID(f, e)
		if sid == "" {
			continue // nothing to attach it to, as in transcriptstest.Builder
		}
		pe := preparedEntry{e: e, sid: sid, finds: finds}
		if stored(e) {
			pe.row = p.row(f, e, sid, ctxs)
			marks.mark(e, pe.row)
			if e.UUID == "" {
				e.UUID = pe.row.uuid // a queued prompt's line: the state names it by its row (TakeEchoed)
			}
			dropToolOutput(e)
		} else if len(e.Hooks) > 0 {
			pe.hooks = p.hookRows(f, e, sid, hooks)
		}
		pf.entries = append(pf.entries, pe)
	}
	return pf
}

// rowMarks is what marking a file's rows needs to know of the lines
// before them.
type rowMarks struct {
	responses map[string]bool        // message ids seen: one response is a line per block
	cairn     transcripts.CairnCalls // cairn's MCP tool calls: their results are cairn's data
	cairnTurn bool                   // since the last prompt, Claude answers one of cairn's commands
}

func newRowMarks() *rowMarks {
	return &rowMarks{responses: map[string]bool{}, cairn: transcripts.CairnCalls{}}
}

// mark gives the row of e what its place in the conversation decides:
// cairn's own tool output is a system row (indexed without text, never
// recalled), Claude's answers to a cairn command are cairn's and not
// embedded, and the first line of each response starts it.
func (m *rowMarks) mark(e *transcripts.Entry, row *entryRow) {
	m.cairn.Add(e)
	if m.cairn.Answers(e) && row.role == roleTool {
		row.role = roleSystem
	}
	if transcripts.IsRealPrompt(e) {
		m.cairnTurn = transcripts.IsCairnCommand(e.PromptText())
	}
	if m.cairnTurn && e.Type == "assistant" {
		row.flags |= flagCairn
		row.embed = false
	}
	if e.Type == "assistant" && (e.MessageID == "" || !m.responses[e.MessageID]) {
		row.flags |= flagResponseStart
		m.responses[e.MessageID] = e.MessageID != ""
	}
}

// dropToolOutput empties e's tool results once its row holds them: a
// batch need not keep the full text (the session state's Add never reads
// it).
func dropToolOutput(e *transcripts.Entry) {
	for bi := range e.Blocks {
		if e.Blocks[bi].Type == transcripts.BlockToolResult {
			e.Blocks[bi].Text = ""
		}
	}
}

// sentLater marks the queued prompts (transcripts.QueuedText) of entries
// that a later prompt of the same session among entries repeats: most
// queued prompts are sent as prompts of their own moments later, and such
// a line is then neither stored nor counted (a queued prompt whose prompt
// comes in a later read is dropped then: txWriter.echoQueued).
func sentLater(f *transcripts.File, entries []transcripts.Entry) map[int]bool {
	var out map[int]bool
	used := map[int]bool{} // prompts that repeat a queued one already
	for i := range entries {
		q := &entries[i]
		text := transcripts.QueuedText(q)
		if text == "" {
			continue
		}
		key, sid := transcripts.PromptKey(text), transcripts.EntrySessionID(f, q)
		for j := i + 1; j < len(entries); j++ {
			if used[j] || !sendsPrompt(f, &entries[j], sid, key) {
				continue
			}
			if out == nil {
				out = map[int]bool{}
			}
			out[i], used[j] = true, true
			break
		}
	}
	return out
}

// sendsPrompt reports whether e, a line of f, is a typed prompt of session
// sid whose PromptKey is key.
func sendsPrompt(f *transcripts.File, e *transcripts.Entry, sid, key string) bool {
	return e.Type == "user" && !e.IsSidechain && transcripts.IsRealPrompt(e) && transcripts.EntrySessionID(f, e) == sid &&
		transcripts.PromptKey(e.PromptText()) == key
}

// stored reports whether a line gets an entries row. Everything that
// changes a session's counts must be stored (its uuid is what makes adding
// it idempotent); progress, hook, snapshot and bookkeeping lines are not
// (the hook runs a line records give hook rows instead: hookrows.go).
func stored(e *transcripts.Entry) bool {
	switch e.Type {
	case "user", "assistant":
		return true
	case "queue-operation":
		return transcripts.QueuedText(e) != "" // a prompt typed while Claude worked
	case "system":
		switch e.Subtype {
		case "compact_boundary", "microcompact_boundary", "api_error":
			return true
		case "stop_hook_summary", "turn_duration":
			return false
		}
		return strings.TrimSpace(e.Text) != ""
	}
	return false
}

// redactEntry removes secrets from every text of e that may be stored or
// aggregated (so session states, titles and commands are clean too), and
// returns where they were.
func redactEntry(e *transcripts.Entry) []fieldFinding {
	var out []fieldFinding
	str := func(field string, s *string) {
		if *s == "" {
			return
		}
		red, fs := redact.Redact(*s)
		if len(fs) == 0 {
			return
		}
		*s = red
		for _, f := range fs {
			out = append(out, fieldFinding{field, f})
		}
	}
	str("text", &e.Text)
	str("cwd", &e.CWD)
	str("branch", &e.GitBranch)
	str("summary", &e.Summary)
	str("custom_title", &e.CustomTitle)
	str("ai_title", &e.AITitle)
	str("last_prompt", &e.LastPrompt)
	for i := range e.Hooks {
		str("hook:"+strconv.Itoa(i)+":command", &e.Hooks[i].Command)
		str("hook:"+strconv.Itoa(i)+":said", &e.Hooks[i].Said)
	}
	for i := range e.Blocks {
		b := &e.Blocks[i]
		str("block:"+strconv.Itoa(i), &b.Text)
		if len(b.ToolInput) > 0 {
			// Redacted spans never start or end inside a JSON escape, so
			// the raw input stays valid JSON.
			in := string(b.ToolInput)
			red, fs := redact.Redact(in)
			if len(fs) > 0 {
				b.ToolInput = []byte(red)
				for _, f := range fs {
					out = append(out, fieldFinding{"block:" + strconv.Itoa(i) + ":input", f})
				}
			}
		}
	}
	return out
}

// row builds the entries row of a stored line of session sid; ctxs is
// the read's context tracker (nil: the row keeps its whole context).
func (p *preparer) row(f *transcripts.File, e *transcripts.Entry, sid string, ctxs ctxTracker) *entryRow {
	r := &entryRow{uuid: e.UUID, parent: e.ParentUUID, typ: e.Type, subtype: e.Subtype, line: e.Line}
	if !e.Timestamp.IsZero() {
		r.ts = e.Timestamp.UnixMilli()
	}
	r.agent = cmp.Or(f.AgentID, e.AgentID)
	r.flags = entryFlags(f, e, r.agent)
	se := storedEntry{LogicalParent: e.LogicalParentUUID, CompactTrigger: e.CompactTrigger,
		PreTokens: e.PreTokens, ResultAgent: e.ResultAgentID}
	ctxs.note(&se, sid, e)
	r.lc, r.model = lineCtx{CWD: e.CWD, Branch: e.GitBranch, Version: e.Version}, e.Model
	switch e.Type {
	case "system":
		r.role = roleSystem
		r.text = transcripts.HeadTail(e.Text, p.head, p.tail)
		if r.text != "" {
			r.block = transcripts.BlockText // for search filters; system rows keep no blocks
		}
	case "queue-operation":
		// Only the queued prompt: a later prompt that repeats it takes its
		// place (echoQueued), so it gets no vector of its own.
		r.role, r.block, r.text = roleUser, transcripts.BlockText, transcripts.QueuedText(e)
		r.flags |= flagSaid
	default:
		p.messageRow(r, &se, e)
	}
	if r.uuid == "" {
		r.uuid = syntheticUUID(e, r.text)
	}
	r.data = se.marshal()
	return r
}

// messageRow fills r (and se's blocks) for a user or assistant line e.
func (p *preparer) messageRow(r *entryRow, se *storedEntry, e *transcripts.Entry) {
	r.role = messageRole(e)
	r.text, r.block, se.Blocks = p.blocks(e.Blocks)
	if words := saidText(e); r.role == roleTool && words != "" {
		// A rejection's reason or the answers to Claude's questions:
		// the person's words, searched as theirs. The tool output
		// stays in the blocks.
		r.role, r.block, r.text = roleUser, transcripts.BlockText, words
		r.flags |= flagSaid
		keepBlockTexts(e.Blocks, se.Blocks, p)
	}
	// Must select exactly what embeddableWhere (derived_sql.go) selects;
	// SQL's trim() strips spaces only.
	r.embed = r.block == transcripts.BlockText && (r.role == roleUser || r.role == roleAssistant) && r.flags&flagSaid == 0 && blankFree(r.text)
}

// saidText is the person's words in a line's tool results
// (transcripts.EntrySaid), one a line; "" when it carries none.
func saidText(e *transcripts.Entry) string {
	said := transcripts.EntrySaid(e)
	if len(said) == 0 {
		return ""
	}
	words := make([]string, len(said))
	for i, s := range said {
		words[i] = s.Text
	}
	return strings.Join(words, "\n")
}

// keepBlockTexts puts back the text of a lone block that blocks left out
// as the entry's text: the entry's text is now the person's words.
func keepBlockTexts(bs []transcripts.Block, out []storedBlock, p *preparer) {
	for i := range out {
		if out[i].Text == "" && bs[i].Type == transcripts.BlockToolResult {
			out[i].Text = transcripts.HeadTail(bs[i].Text, p.head, p.tail)
		}
	}
}

// entryFlags are the entries.flags of a line of file f; agent is the
// line's agent.
func entryFlags(f *transcripts.File, e *transcripts.Entry, agent string) int {
	flags := 0
	// The same rule as transcriptstest.LoadConversation: subagent files, and
	// 2.1 sidechain lines that name their agent, form the agent's thread;
	// older inline sidechains stay in the main thread.
	if f.Kind != transcripts.MainFile || (e.IsSidechain && agent != "") {
		flags |= flagAgentThread
	}
	return flags | bit(e.IsSidechain, flagSidechain) | bit(e.IsMeta, flagMeta) |
		bit(e.IsCompactSummary, flagCompactSummary) | bit(e.StringContent, flagStringContent) |
		bit(transcripts.IsSyntheticReply(e), flagSynthetic)
}

// bit is flag when set, else 0.
func bit(set bool, flag int) int {
	if set {
		return flag
	}
	return 0
}

// messageRole is the role of a user or assistant line (see roleUser).
// What Claude Code wrote itself in Claude's place ("No response
// requested.", API errors) is a system line, not Claude's reply.
func messageRole(e *transcripts.Entry) string {
	switch {
	case transcripts.IsSyntheticReply(e):
		return roleSystem
	case e.Type == "assistant":
		return roleAssistant
	case transcripts.IsRealPrompt(e) && !transcripts.IsCairnCommand(e.PromptText()):
		return roleUser // cairn's own commands are not the person's work: system
	case e.IsToolResultOnly():
		return roleTool
	default:
		return roleSystem
	}
}

// marshal is the entries.data of a line, nil when it holds nothing. The
// common single text or thinking block needs no JSON at all: the block
// column and the text say everything.
func (se *storedEntry) marshal() []byte {
	if len(se.Blocks) == 1 && se.Blocks[0].bare() &&
		(se.Blocks[0].Type == transcripts.BlockText || se.Blocks[0].Type == transcripts.BlockThinking) {
		se.Blocks = nil
	}
	if se.empty() {
		return nil
	}
	data, _ := json.Marshal(se)
	return data
}

// empty reports whether se holds nothing to store.
func (se *storedEntry) empty() bool {
	return se.Blocks == nil && se.LogicalParent == "" && se.CompactTrigger == "" && se.PreTokens == 0 && se.ResultAgent == "" &&
		se.Ctx == nil && se.Model == nil
}

// blocks returns an entry's searchable text, its dominant block kind (the
// one contributing most text, so search can filter thinking or tool output
// out) and the blocks to store. A single block's text is not repeated in
// the JSON: it is the entry's text.
func (p *preparer) blocks(bs []transcripts.Block) (string, string, []storedBlock) {
	if len(bs) == 0 {
		return "", "", nil
	}
	out := make([]storedBlock, len(bs))
	parts := make([]string, 0, len(bs))
	weight := map[string]int{}
	dominant := ""
	for i := range bs {
		b := &bs[i]
		sb, search := p.block(b)
		if search != "" {
			parts = append(parts, search)
		}
		weight[b.Type] += len(search)
		if dominant == "" || weight[b.Type] > weight[dominant] {
			dominant = b.Type
		}
		out[i] = sb
	}
	text := strings.Join(parts, "\n")
	if len(out) == 1 && textIsSearch(out[0].Type) && out[0].Text == text {
		out[0].Text = ""
	}
	return text, dominant, out
}

// block is the block to store of b and its searchable text.
func (p *preparer) block(b *transcripts.Block) (storedBlock, string) {
	sb := storedBlock{Type: b.Type, ToolID: b.ToolID, ToolName: b.ToolName, ToolUseID: b.ToolUseID,
		IsError: b.IsError, MediaType: b.MediaType, Size: b.Size}
	var search string
	switch b.Type {
	case transcripts.BlockToolUse, transcripts.BlockServerToolUse:
		search = transcripts.ToolSearchText(b)
		if len(b.ToolInput) > 0 {
			sb.Input = p.shrinkInput(b.ToolInput)
		}
	case transcripts.BlockToolResult:
		sb.Text = transcripts.HeadTail(b.Text, p.head, p.tail)
		search = sb.Text
	case transcripts.BlockImage, transcripts.BlockDocument, transcripts.BlockRedactedThinking:
		sb.Text = b.Text // a placeholder: shown, not searched
	default:
		sb.Text = b.Text
		search = transcripts.SearchableText(b.Text)
	}
	return sb, search
}

// blankFree reports whether text is worth indexing (SQL: trim(text) is not empty).
func blankFree(text string) bool { return strings.Trim(text, " ") != "" }

// textIsSearch reports whether a block's text is its searchable text (so a
// lone block's text is the entry's text and is not stored twice).
func textIsSearch(kind string) bool {
	switch kind {
	case transcripts.BlockToolUse, transcripts.BlockServerToolUse, transcripts.BlockImage,
		transcripts.BlockDocument, transcripts.BlockRedactedThinking:
		return false
	}
	return true
}

// bare reports whether a stored block carries nothing but its type (and
// text, which then lives in the entry's text column).
func (b *storedBlock) bare() bool {
	return b.Text == "" && b.ToolID == "" && b.ToolName == "" && len(b.Input) == 0 && b.ToolUseID == "" &&
		!b.IsError && b.MediaType == "" && b.Size == 0
}

// Tool inputs are kept to re-render a call as one line (the command, path,
// pattern, URL or description: what transcripts.ToolSummary reads), not to
// replay it: file bodies and edit strings stay in the transcript. The
// fields ToolSummary and ToolSearchText read keep their first inputHead and
// last inputTail bytes; other strings keep a previewBytes preview.
const (
	inputHead    = 300
	inputTail    = 100
	previewBytes = 100
	// fallbackInputBytes is how much JSON ToolSummary may show of an
	// input without known fields.
	fallbackInputBytes = 2000
)

// summaryFields are the tool input members transcripts.ToolInput decodes.
var summaryFields = map[string]bool{"command": true, "description": true, "file_path": true, "notebook_path": true,
	"path": true, "pattern": true, "url": true, "query": true, "prompt": true, "subagent_type": true}

// shrinkInput keeps a tool input small (see inputHead). Large arrays keep
// their length with placeholder elements (TodoWrite is summarised by its
// number of todos); large objects become a preview of their JSON. Small
// inputs are kept as is.
func (p *preparer) shrinkInput(raw []byte) jsontext.Value {
	const limit = inputHead + inputTail + 64
	raw = bytes.TrimSpace(raw)
	if len(raw) <= limit {
		return jsontext.Value(raw)
	}
	// A tool none of whose fields ToolSummary knows is summarised by the
	// start of its JSON: keep such inputs whole while they are small.
	if len(raw) <= fallbackInputBytes && transcripts.DecodeToolInput(raw) == (transcripts.ToolInput{}) {
		return jsontext.Value(raw)
	}
	if v, err := shrinkObject(raw); err == nil {
		return v
	}
	v, _ := json.Marshal(map[string]string{"_input": transcripts.HeadTail(string(raw), inputHead, inputTail)})
	return v
}

var errNotObject = errors.New("not a JSON object")

// shrinkObject rewrites a JSON object member by member (shrinkMember). It
// fails on anything but a valid object.
func shrinkObject(raw []byte) (jsontext.Value, error) {
	out, err := rewriteObject(raw, shrinkMember)
	return jsontext.Value(out), err
}

// rewriteObject copies the JSON object raw, each member's value written by
// write (given the member's name and value). It fails on anything but a
// valid object.
func rewriteObject(raw []byte, write func(enc *jsontext.Encoder, name string, val jsontext.Value) error) ([]byte, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var buf bytes.Buffer
	enc := jsontext.NewEncoder(&buf, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, errNotObject
	}
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return nil, err
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		name := tok.String() // the token is only valid until the next read
		val, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		if err := enc.WriteToken(jsontext.String(name)); err != nil {
			return nil, err
		}
		if err := write(enc, name, val); err != nil {
			return nil, err
		}
	}
	if err := enc.WriteToken(jsontext.EndObject); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(buf.Bytes()), nil
}

// shrinkMember writes the value of member name: long strings cut (cutMember),
// arrays as placeholders of the same length, other large values as a cut
// string of their JSON, small values as they are.
func shrinkMember(enc *jsontext.Encoder, name string, val jsontext.Value) error {
	const small = previewBytes + 64
	switch {
	case val.Kind() == '"' && len(val) > small:
		var s string
		if err := json.Unmarshal(val, &s, jsontext.AllowInvalidUTF8(true)); err != nil {
			return err
		}
		return enc.WriteToken(cutMember(name, s))
	case len(val) <= small || val.Kind() == '"':
		return enc.WriteValue(val)
	case val.Kind() == '[':
		var items []jsontext.Value
		if err := json.Unmarshal(val, &items, jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)); err != nil {
			return err
		}
		return enc.WriteValue(jsontext.Value("[" + strings.TrimSuffix(strings.Repeat("0,", len(items)), ",") + "]"))
	default:
		return enc.WriteToken(cutMember(name, string(val)))
	}
}

// cutMember cuts a member's string: the fields ToolSummary reads to their
// head and tail, others to a preview.
func cutMember(name, s string) jsontext.Token {
	if summaryFields[name] {
		return jsontext.String(transcripts.HeadTail(s, inputHead, inputTail))
	}
	return jsontext.String(transcripts.HeadTail(s, previewBytes, 0))
}

// syntheticUUID names a stored line that has no uuid (very old formats):
// a hash of what identifies it, so re-reading the same line finds the same
// row instead of counting it twice.
func syntheticUUID(e *transcripts.Entry, text string) string {
	h := fnv.New128a()
	for _, s := range []string{e.SessionID, e.Type, e.Subtype, e.Timestamp.String(), e.MessageID, e.RequestID, text} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return "nouuid-" + hex.EncodeToString(h.Sum(nil))
}

// rowCtx is the context a row keeps (storedEntry.Ctx, Model), nil where
// it keeps none.
type rowCtx struct {
	ctx   *lineCtx
	model *string
}

// decodeEntryCtx rebuilds a transcripts.Entry from its row, and the
// context the row keeps.
func decodeEntryCtx(sid string, r *entryRow) (transcripts.Entry, rowCtx, error) {
	e := transcripts.Entry{Type: r.typ, Subtype: r.subtype, UUID: r.uuid, ParentUUID: r.parent,
		SessionID: sid, AgentID: r.agent, Line: r.line,
		IsSidechain: r.flags&flagSidechain != 0, IsMeta: r.flags&flagMeta != 0,
		IsCompactSummary: r.flags&flagCompactSummary != 0, StringContent: r.flags&flagStringContent != 0}
	if strings.HasPrefix(e.UUID, "nouuid-") {
		e.UUID = ""
	}
	if r.ts != 0 {
		e.Timestamp = unixMilli(r.ts)
	}
	switch r.typ {
	case "user":
		e.Role = "user"
	case "assistant":
		e.Role = "assistant"
	}
	var se storedEntry
	if len(r.data) > 0 {
		if err := json.Unmarshal(r.data, &se); err != nil {
			return e, rowCtx{}, err
		}
	}
	e.LogicalParentUUID, e.CompactTrigger, e.PreTokens, e.ResultAgentID =
		se.LogicalParent, se.CompactTrigger, se.PreTokens, se.ResultAgent
	rc := rowCtx{se.Ctx, se.Model}
	if r.typ == "system" {
		e.Text = r.text
		return e, rc, nil
	}
	e.Blocks = decodeBlocks(se.Blocks, r)
	return e, rc, nil
}

// decodeBlocks rebuilds the blocks of row r from the stored ones (a lone
// block gets back the text and tool input the row holds once), or the
// row's one block of text.
func decodeBlocks(stored []storedBlock, r *entryRow) []transcripts.Block {
	if len(stored) == 0 {
		if r.block == "" {
			return nil
		}
		return []transcripts.Block{{Type: r.block, Text: r.text}}
	}
	bs := make([]transcripts.Block, len(stored))
	for i, sb := range stored {
		bs[i] = transcripts.Block{Type: sb.Type, Text: sb.Text, ToolID: sb.ToolID, ToolName: sb.ToolName,
			ToolInput: []byte(sb.Input), ToolUseID: sb.ToolUseID, IsError: sb.IsError, MediaType: sb.MediaType, Size: sb.Size}
	}
	if len(bs) == 1 && bs[0].Text == "" && textIsSearch(bs[0].Type) {
		bs[0].Text = r.text
	}
	if len(bs) == 1 && bs[0].Type == transcripts.BlockToolUse {
		bs[0].ToolInput = wholeInput(bs[0].ToolName, bs[0].ToolInput, r.text)
	}
	return bs
}

// searchFields are the tool input members transcripts.ToolSearchText
// joins, in its order (prompt only for agent tools, last).
var searchFields = []string{"description", "command", "file_path", "notebook_path", "path", "pattern", "url", "query", "subagent_type"}

// wholeInput puts back the one member of a stored tool input that
// shrinkInput cut (a long command or agent prompt) from the row's text,
// which is transcripts.ToolSearchText of the whole input: the store keeps
// such a value once, searchable, and a call reads back (and exports) as
// it was. Anything else, or a text that does not give back exactly the
// cut value, leaves the input as it is.
func wholeInput(name string, input []byte, text string) []byte {
	if !bytes.Contains(input, []byte(" omitted] ")) {
		return input
	}
	parts, cut, member := cutParts(name, transcripts.DecodeToolInput(input))
	if cut < 0 {
		return input
	}
	whole, ok := uncut(text, parts, cut)
	if !ok {
		return input
	}
	out, err := setMember(input, member, whole)
	if err != nil {
		return input
	}
	return out
}

// cutParts is the tool's search text in parts (its name, then the input's
// searched members that are set), with the index of the one part cut and
// its member; cut is -1 when none is, or more than one (the text cannot
// tell where one ends).
func cutParts(name string, in transcripts.ToolInput) (parts []string, cut int, member string) {
	vals := []string{in.Description, in.Command, in.FilePath, in.NotebookPath, in.Path, in.Pattern, in.URL, in.Query, in.SubagentType}
	names := searchFields
	if transcripts.IsAgentTool(name) && in.Prompt != "" {
		vals = append(slices.Clone(vals), in.Prompt)
		names = append(slices.Clone(names), "prompt")
	}
	parts = []string{name}
	cut, member = -1, ""
	for i, v := range vals {
		if v == "" {
			continue
		}
		if strings.Contains(v, " omitted] …\n") {
			if cut >= 0 {
				return nil, -1, ""
			}
			cut, member = len(parts), names[i]
		}
		parts = append(parts, v)
	}
	return parts, cut, member
}

// uncut is the whole value of parts[cut] in text, the parts joined with
// the cut one whole; false when text does not give back exactly the cut
// value.
func uncut(text string, parts []string, cut int) (string, bool) {
	prefix, suffix := strings.Join(parts[:cut], " ")+" ", ""
	if cut+1 < len(parts) {
		suffix = " " + strings.Join(parts[cut+1:], " ")
	}
	if !strings.HasPrefix(text, prefix) || !strings.HasSuffix(text, suffix) || len(text) < len(prefix)+len(suffix) {
		return "", false
	}
	whole := text[len(prefix) : len(text)-len(suffix)]
	if transcripts.HeadTail(whole, inputHead, inputTail) != parts[cut] {
		return "", false
	}
	return whole, true
}

// setMember is the JSON object raw with member name's value replaced by
// the string v.
func setMember(raw []byte, name, v string) ([]byte, error) {
	return rewriteObject(raw, func(enc *jsontext.Encoder, key string, val jsontext.Value) error {
		if key == name {
			return enc.WriteToken(jsontext.String(v))
		}
		return enc.WriteValue(val)
	})
}
