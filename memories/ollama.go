package memories

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/ollama"

	json "github.com/go-json-experiment/json"
)

// ErrOllamaUnavailable is wrapped when Ollama cannot be used (unreachable,
// model missing, timeout, an unusable answer); extraction then falls back
// to the built-in extractor and says why.
var ErrOllamaUnavailable error = &unavailable{msg: "ollama is unavailable"}

// Chunking of transcripts sent to the model.
const (
	chunkChars   = 6000
	chunkOverlap = 500
	maxEntryText = 1500 // of one entry within a chunk
)

// ollamaSchema is the JSON schema the model must answer with; the type
// enum is Types.
var ollamaSchema = string(`{"type":"object","properties":{"memories":{"type":"array","items":{"type":"object","properties":{` +
	`"type":{"type":"string","enum":["` + TypeList(`","`) + `"]},` +
	`"content":{"type":"string"},"importance":{"type":"integer","minimum":1,"maximum":5},` +
	`"tags":{"type":"array","items":{"type":"string"}},` +
	`"sources":{"type":"array","items":{"type":"string"}},` +
	`"supersedes":{"type":"array","items":{"type":"string"}}},` +
	`"required":["type","content","sources"]}}},"required":["memories"]}`)

var ollamaSystem = `You extract durable memories from a coding session transcript for a developer's knowledge base.
A memory is a fact worth knowing in a later session. Its type is one of:
` + typeLines() + `Precision over recall: propose nothing rather
than something vague. Each memory is one or two sentences that quote or closely paraphrase the transcript,
and lists in "sources" the entry refs (like "#3") it comes from. Never include secrets, tokens or passwords.
Existing memories are listed with ids: do not repeat them; if the transcript updates or contradicts one,
write the new memory and put the old id in "supersedes". Answer with JSON only.`

// typeLines is "- decision: a choice made, …" for each of Types.
func typeLines() string {
	var b strings.Builder
	for _, t := range Types {
		fmt.Fprintf(&b, "- %s: %s\n", t, typeHints[t])
	}
	return b.String()
}

// ollamaChunk is a slice of transcript text with the entries it holds.
type ollamaChunk struct {
	text string
	refs map[string]string // "#n" -> entry uuid
}

// chunkEntries renders entries as "#n role: text" lines in chunks of about
// chunkChars characters, each starting about chunkOverlap characters before
// the previous one ended (at an entry boundary).
func chunkEntries(entries []index.MemEntry) []ollamaChunk {
	lines := chunkLines(entries)
	var out []ollamaChunk
	for start := 0; start < len(lines); {
		c, end := fillChunk(lines, start)
		out = append(out, c)
		if end >= len(lines) {
			break
		}
		start = overlapStart(lines, start, end)
	}
	return out
}

// chunkLine is an entry rendered for the model: "#n role: text".
type chunkLine struct{ ref, uuid, text string }

// chunkLines renders the entries the model reads, texts shortened.
func chunkLines(entries []index.MemEntry) []chunkLine {
	var lines []chunkLine
	for i, e := range entries {
		role := chunkRole(e)
		t := strings.TrimSpace(e.Text)
		if role == "" || t == "" {
			continue
		}
		if len(t) > maxEntryText {
			t = cut(t, maxEntryText)
		}
		ref := "#" + strconv.Itoa(i+1)
		lines = append(lines, chunkLine{ref, e.UUID, ref + " " + role + ": " + t + "\n"})
	}
	return lines
}

// chunkRole names e's role for the model, "" for entries it does not read.
func chunkRole(e index.MemEntry) string {
	switch {
	case e.Role == "user" && !e.Meta:
		return "user"
	case e.Role == "assistant" && e.Block == "text":
		return "assistant"
	case e.Role == "assistant" && e.Block == "tool_use":
		return "tool call"
	case e.Role == "tool" && e.IsError:
		return "tool error"
	case e.Role == "system" && e.Compact:
		return "earlier summary"
	}
	return ""
}

// fillChunk is the chunk of lines from start: at least one line, then as
// many as fit in chunkChars; end is the line after it.
func fillChunk(lines []chunkLine, start int) (c ollamaChunk, end int) {
	c.refs = map[string]string{}
	var b strings.Builder
	for end = start; end < len(lines) && (b.Len() == 0 || b.Len()+len(lines[end].text) <= chunkChars); end++ {
		b.WriteString(lines[end].text)
		c.refs[lines[end].ref] = lines[end].uuid
	}
	c.text = b.String()
	return c, end
}

// overlapStart is where the chunk after lines[start:end] starts: about
// chunkOverlap characters before end, after start.
func overlapStart(lines []chunkLine, start, end int) int {
	next, back := end, 0
	for next-1 > start && back+len(lines[next-1].text) <= chunkOverlap {
		next--
		back += len(lines[next].text)
	}
	return next
}

type ollamaAnswer struct {
	Memories []ollamaMemory `json:"memories"`
}

// ollamaMemory is a memory the model proposed.
type ollamaMemory struct {
	Type       string   `json:"type"`
	Content    string   `json:"content"`
	Importance int      `json:"importance"`
	Tags       []string `json:"tags"`
	Sources    []string `json:"sources"`
	Supersedes []string `json:"supersedes"`
}

// memory is the memory to add for m (without project and session): its
// sources are the chunk's entries it names (refs: "#n" -> uuid), and it
// may supersede only memories it was shown. Unsourced or unusable: none.
func (m ollamaMemory) memory(refs map[string]string, existing []Memory) (NewMemory, bool) {
	t, err := ParseType(m.Type)
	if err != nil || strings.TrimSpace(m.Content) == "" {
		return NewMemory{}, false
	}
	uuids := m.sourceUUIDs(refs)
	if len(uuids) == 0 {
		return NewMemory{}, false // unsourced: precision first
	}
	imp := m.Importance
	if imp < 1 || imp > 5 {
		imp = 3
	}
	var sup []string
	for _, id := range m.Supersedes {
		if slices.ContainsFunc(existing, func(e Memory) bool { return e.ID == id }) {
			sup = append(sup, id)
		}
	}
	return NewMemory{Type: t, Content: m.Content, Tags: m.Tags, Importance: imp,
		SourceUUIDs: uniq(uuids), Origin: OriginOllama, Supersedes: sup}, true
}

// sourceUUIDs are the entries (refs: "#n" -> uuid) m names as its sources,
// with or without the "#".
func (m ollamaMemory) sourceUUIDs(refs map[string]string) []string {
	var uuids []string
	for _, ref := range m.Sources {
		ref = strings.TrimSpace(ref)
		if !strings.HasPrefix(ref, "#") {
			ref = "#" + ref
		}
		if u, ok := refs[ref]; ok {
			uuids = append(uuids, u)
		}
	}
	return uuids
}

// ollamaClient builds the client from the config.
func (s *core) ollamaClient() (*ollama.Client, string, error) {
	base, err := ollama.ResolveHost(s.cfg.Ollama.Host)
	if err != nil {
		return nil, "", fmt.Errorf("ollama.host: %w", err)
	}
	c := ollama.New(base, nil)
	return c, c.Host(), nil
}

// ollamaChat returns the chat model with a client and its host, or an
// ErrOllamaUnavailable error; why ("" or ending in a space) starts the
// message saying the model is not set.
func (s *core) ollamaChat(why string) (client *ollama.Client, base, model string, err error) {
	model = s.cfg.Ollama.ChatModel
	if model == "" {
		return nil, "", "", fmt.Errorf("%w: %sollama.chat_model is empty", ErrOllamaUnavailable, why)
	}
	client, base, err = s.ollamaClient()
	if err != nil {
		return nil, "", "", fmt.Errorf("%w: %w", ErrOllamaUnavailable, err)
	}
	return client, base, model, nil
}

// ollamaExtract asks the configured chat model for memories, chunk by
// chunk, showing it the existing memories closest to each chunk.
func (s *core) ollamaExtract(ctx context.Context, sid, project string, entries []index.MemEntry) ([]NewMemory, error) {
	client, base, model, err := s.ollamaChat("memories.extractor is ollama but ")
	if err != nil {
		return nil, err
	}
	timeout := s.ollamaTimeout()
	var out []NewMemory
	for _, c := range chunkEntries(entries) {
		existing, err := s.similarForPrompt(ctx, c.text, project)
		if err != nil {
			return nil, err
		}
		ans, err := s.chat(ctx, client, base, model, timeout, c.text, existing)
		if err != nil {
			return nil, err
		}
		for _, m := range ans.Memories {
			if n, ok := m.memory(c.refs, existing); ok {
				n.Project, n.SourceSession = project, sid
				out = append(out, n)
			}
		}
	}
	return out, nil
}

// similarForPrompt returns up to 8 memories of the project close to text.
func (s *core) similarForPrompt(ctx context.Context, text, project string) ([]Memory, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	mc, err := s.loadCache(ctx, false, project)
	if err != nil {
		return nil, err
	}
	toks, _ := tokens(text)
	var out []Memory
	now := s.now()
	for _, m := range mc.similar(toks, nil, project, "", "", 30) {
		st := Status(m.c.row.Status)
		if st == Approved || st == Pending {
			out = append(out, fromRow(m.c.row, now))
		}
		if len(out) == 8 {
			break
		}
	}
	return out, nil
}

func (s *core) chat(ctx context.Context, client *ollama.Client, base, model string, timeout time.Duration, chunk string, existing []Memory) (*ollamaAnswer, error) {
	var ans ollamaAnswer
	if err := chatJSON(ctx, client, base, model, timeout, ollamaSchema, ollamaSystem, extractPrompt(existing, chunk), &ans); err != nil {
		return nil, err
	}
	return &ans, nil
}

// chatJSON asks model (temperature 0) to answer user in the JSON of
// schema and decodes the answer into out. Failures say what to do.
func chatJSON(ctx context.Context, client *ollama.Client, base, model string, timeout time.Duration, schema, system, user string, out any) error {
	req := &ollama.ChatRequest{Model: model, Format: []byte(schema),
		Options:  map[string]any{"temperature": 0},
		Messages: []ollama.Message{{Role: "system", Content: system}, {Role: "user", Content: user}}}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := client.Chat(rctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return ollamaFailure(err, base, model, timeout)
	}
	if err := json.Unmarshal([]byte(resp.Message.Content), out); err != nil {
		return fmt.Errorf("%w: model %s at %s answered something that is not the requested JSON (%w)", ErrOllamaUnavailable, model, base, err)
	}
	return nil
}

// ollamaFailure turns a client error into one that says what to do.
func ollamaFailure(err error, base, model string, timeout time.Duration) error {
	var se *ollama.StatusError
	var ue *ollama.UnreachableError
	switch {
	case errors.As(err, &se) && se.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%w: model %s is not available at %s (%s): run `ollama pull %s`", ErrOllamaUnavailable, model, base, se.Message, model)
	case errors.As(err, &se):
		return fmt.Errorf("%w: ollama at %s failed with HTTP %d: %s", ErrOllamaUnavailable, base, se.StatusCode, se.Message)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w: ollama at %s did not answer within %v (model %s may be loading; raise ollama.timeout)", ErrOllamaUnavailable, base, timeout, model)
	case errors.As(err, &ue):
		return fmt.Errorf("%w: Ollama is not reachable at %s (%s): start it with `ollama serve` or set memories.extractor = \"builtin\"", ErrOllamaUnavailable, base, ue.Reason)
	}
	return fmt.Errorf("%w: %w", ErrOllamaUnavailable, err)
}

var summarySchema = `{"type":"object","properties":{` +
	`"request":{"type":"array","items":{"type":"string"}},"investigated":{"type":"array","items":{"type":"string"}},` +
	`"learned":{"type":"array","items":{"type":"string"}},"completed":{"type":"array","items":{"type":"string"}},` +
	`"next_steps":{"type":"array","items":{"type":"string"}}},"required":["request","learned","completed","next_steps"]}`

const summarySystem = `You summarise a coding session transcript for the developer's records. Answer with JSON only:
short bullet sentences for what the user asked (request), what was looked into (investigated), what was
learned (facts, causes, decisions), what was completed, and the open next steps. Quote names and commands
exactly. Never include secrets, tokens or passwords.`

// ollamaSummary asks the chat model for a session's summary sections from
// the start and the end of the session (about 18,000 characters).
func (s *core) ollamaSummary(ctx context.Context, entries []index.MemEntry) (map[string][]string, error) {
	client, base, model, err := s.ollamaChat("")
	if err != nil {
		return nil, err
	}
	text, err := summaryExcerpt(chunkEntries(entries))
	if err != nil {
		return nil, err
	}
	var ans struct {
		Request      []string `json:"request"`
		Investigated []string `json:"investigated"`
		Learned      []string `json:"learned"`
		Completed    []string `json:"completed"`
		NextSteps    []string `json:"next_steps"`
	}
	if err := chatJSON(ctx, client, base, model, s.ollamaTimeout(), summarySchema, summarySystem, "Transcript:\n"+text, &ans); err != nil {
		return nil, err
	}
	return modelSections(map[string][]string{"Request": ans.Request, "Investigated": ans.Investigated,
		"Learned": ans.Learned, "Completed": ans.Completed, "Next steps": ans.NextSteps}), nil
}

// ollamaTimeout is how long to wait for the model (ollama.timeout, or a
// minute).
func (s *core) ollamaTimeout() time.Duration {
	if t := s.cfg.Ollama.Timeout.Duration; t > 0 {
		return t
	}
	return 60 * time.Second
}

// summaryExcerpt is the transcript the model summarises: all of it up to
// three chunks, else the first and the last two.
func summaryExcerpt(chunks []ollamaChunk) (string, error) {
	if len(chunks) == 0 {
		return "", fmt.Errorf("%w: the session has no text", ErrOllamaUnavailable)
	}
	if len(chunks) > 3 {
		return chunks[0].text + "\n[…]\n" + chunks[len(chunks)-2].text + chunks[len(chunks)-1].text, nil
	}
	var text string
	for _, c := range chunks {
		text += c.text
	}
	return text, nil
}

// modelSections are the model's summary sections, each line cleaned and
// shortened, at most 12 a section.
func modelSections(answer map[string][]string) map[string][]string {
	sec := map[string][]string{}
	for name, lines := range answer {
		for _, l := range lines {
			if l = cut(oneLine(clean(l)), 300); l != "" && len(sec[name]) < 12 {
				sec[name] = append(sec[name], l)
			}
		}
	}
	return sec
}
