package memories

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/transcripts"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The Claude extractor (memories.extractor = "claude"): the user's own
// Claude Code, run headless (`claude -p`) by a detached process after
// SessionEnd or PreCompact, reads a session's new turns, condensed, and
// answers with memories and a summary in a JSON schema it validates. Its
// proposals take the same road as the built-in extractor's (dedup, review,
// rejected facts never again). The run is its own island: no hooks (so
// cairn's hooks cannot recurse), no tools, no MCP servers, no session
// written to disk (so its transcript is never indexed or listed). When
// Claude Code is missing, not logged in, slow, out of its daily budget or
// answers badly, the built-in extractor proposes instead and the notice
// says why.

// ErrClaudeUnavailable is wrapped when Claude Code cannot be used;
// extraction then falls back to the built-in extractor and says why.
var ErrClaudeUnavailable error = &unavailable{msg: "claude code is unavailable"}

// ClaudeChildEnv is set in the environment of the Claude Code run cairn
// starts: cairn's hooks do nothing when they see it (the run's own
// SessionEnd must not extract again).
const ClaudeChildEnv = "CAIRN_CLAUDE_EXTRACTION"

// OriginClaude marks memories the Claude extractor proposed.
const OriginClaude = "claude"

// claudeRunsKey is the store setting counting today's Claude runs.
const claudeRunsKey = "memories.claude_runs"

// claudeSchema is the JSON schema the answer must follow (--json-schema):
// the memories of ollamaSchema and the summary's sections.
var claudeSchema = `{"type":"object","properties":{"memories":` + ollamaMemoriesSchema() + `,` +
	`"summary":{"type":"object","properties":{` +
	`"request":{"type":"array","items":{"type":"string"}},"investigated":{"type":"array","items":{"type":"string"}},` +
	`"learned":{"type":"array","items":{"type":"string"}},"completed":{"type":"array","items":{"type":"string"}},` +
	`"next_steps":{"type":"array","items":{"type":"string"}}},"required":["request","learned","completed","next_steps"]}},` +
	`"required":["memories","summary"]}`

// ollamaMemoriesSchema is the "memories" property of ollamaSchema.
func ollamaMemoriesSchema() string {
	s := strings.TrimPrefix(ollamaSchema, `{"type":"object","properties":{"memories":`)
	return strings.TrimSuffix(s, `},"required":["memories"]}`)
}

var claudeSystem = `You extract durable memories from a Claude Code session for the developer's knowledge base, and summarise the session.
The transcript lists entries as "#n role: text"; tool calls and tool errors are one line each.
A memory is a fact worth knowing in a later session. Its type is one of:
` + typeLines() + `A memory must:
- stand alone: name what it is about (the file, command, library, setting or error); never start with "this", "it", "so" or "the issue";
- state a bug's cause together with its fix, or a rule (a pitfall, a command that works and when), or a decision or preference the USER stated
  (Claude's own suggestions and plans are not decisions);
- be general: write <branch>, <path> or <id> for branch names, paths and ids of this one session; one memory for a lesson, not one per instance.
Never: narration of what was done or tried, a guess, the state of a test in the middle of the work, secrets, tokens or passwords.
Precision over recall: propose nothing rather than something vague; an empty list is a good answer.
Each memory is one or two sentences and lists in "sources" the entry refs ("#3") it comes from.
Existing memories are listed with ids: do not repeat them; if the session updates or contradicts one, write the new memory and put the old id in "supersedes".
The summary's sections are short sentences: what the user asked (request), what was looked into (investigated), what was learned,
what was completed and the open next steps. Quote names and commands exactly.`

// claudeAnswer is the structured answer.
type claudeAnswer struct {
	Memories []ollamaMemory `json:"memories"`
	Summary  struct {
		Request      []string `json:"request"`
		Investigated []string `json:"investigated"`
		Learned      []string `json:"learned"`
		Completed    []string `json:"completed"`
		NextSteps    []string `json:"next_steps"`
	} `json:"summary"`
}

// claudeResult is what `claude -p --output-format json` prints.
type claudeResult struct {
	Type       string         `json:"type"`
	Subtype    string         `json:"subtype"`
	IsError    bool           `json:"is_error"`
	Result     string         `json:"result"`
	Structured jsontext.Value `json:"structured_output"`
}

// hasConversation reports whether entries hold something the person
// typed or Claude wrote (not only command markers, tool calls and their
// output, or a compaction summary).
func hasConversation(entries []index.MemEntry) bool {
	for _, e := range entries {
		switch {
		case e.Role == "user" && !e.Meta && strings.TrimSpace(promptText(e.Text)) != "":
			return true
		case e.Role == "assistant" && e.Block == "text" && strings.TrimSpace(e.Text) != "":
			return true
		}
	}
	return false
}

// extractPrompt is what Claude is asked to extract from: the existing
// memories like the transcript's, then the condensed transcript text.
func extractPrompt(existing []Memory, text string) string {
	var prompt strings.Builder
	prompt.WriteString("Existing memories:\n")
	if len(existing) == 0 {
		prompt.WriteString("(none)\n")
	}
	for _, m := range existing {
		fmt.Fprintf(&prompt, "%s [%s] %s\n", m.ID, m.Type, oneLine(m.Content))
	}
	prompt.WriteString("\nTranscript:\n")
	prompt.WriteString(text)
	return prompt.String()
}

// claudeExtract asks Claude Code for the memories and summary of entries
// (the newest claude.max_input characters of them; the older ones, if
// any, are left to the built-in rules: head). sections is the summary.
func (s *core) claudeExtract(ctx context.Context, sid, project string, entries []index.MemEntry) (news []NewMemory, sections map[string][]string, head []index.MemEntry, err error) {
	text, refs, start := condense(entries, s.claudeMaxInput())
	if len(refs) == 0 || !hasConversation(entries) {
		// Nothing said since the last run (a lone /compact, tool
		// output only): no daily run spent, the built-in rules read it.
		return nil, nil, entries, nil
	}
	existing, err := s.similarForPrompt(ctx, text, project)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := s.spendClaudeRun(ctx); err != nil {
		return nil, nil, nil, err
	}
	ans, err := s.runClaude(ctx, extractPrompt(existing, text))
	if err != nil {
		return nil, nil, nil, err
	}
	for _, m := range ans.Memories {
		n, ok := m.memory(refs, existing)
		if !ok || !standsAlone(n.Content) {
			continue
		}
		n.Project, n.SourceSession, n.Origin = project, sid, OriginClaude
		news = append(news, n)
	}
	sections = modelSections(map[string][]string{"Request": ans.Summary.Request, "Investigated": ans.Summary.Investigated,
		"Learned": ans.Summary.Learned, "Completed": ans.Summary.Completed, "Next steps": ans.Summary.NextSteps})
	return news, sections, entries[:start], nil
}

// standsAlone applies the built-in extractor's bar for self-contained
// statements to a model's memory: a few words at least, not starting by
// pointing at what came before.
func standsAlone(content string) bool {
	c := strings.TrimSpace(content)
	return len(strings.Fields(c)) >= 5 && !dangling.MatchString(c) && !narration.MatchString(c)
}

// condensed is entry e as condense shows it, "role: text" (a tool call or
// error on one short line, other text cut to maxEntryText), "" for an
// entry it leaves out.
func condensed(e index.MemEntry) string {
	role := chunkRole(e)
	t := strings.TrimSpace(e.Text)
	if e.Role == "user" {
		t = transcripts.WithoutIDENotes(t) // the IDE's note is not what was asked
	}
	if role == "" || t == "" {
		return ""
	}
	switch role {
	case "tool call", "tool error":
		t = cut(oneLine(t), 240)
	default:
		t = cut(t, maxEntryText)
	}
	return role + ": " + t
}

// condense renders entries for Claude, one "#n role: text" block each
// (prompts and replies shortened, tool calls and errors one line), and
// keeps the newest that fit in max characters. start is the first entry
// kept; refs maps "#n" to entry uuids.
func condense(entries []index.MemEntry, max int) (text string, refs map[string]string, start int) {
	type line struct {
		i    int
		ref  string
		text string
	}
	var lines []line
	for i, e := range entries {
		if said := condensed(e); said != "" {
			ref := "#" + strconv.Itoa(i+1)
			lines = append(lines, line{i, ref, ref + " " + said + "\n"})
		}
	}
	refs = map[string]string{}
	first, size := len(lines), 0
	for first > 0 && (size == 0 || size+len(lines[first-1].text) <= max) {
		first--
		size += len(lines[first].text)
	}
	var b strings.Builder
	if first > 0 {
		fmt.Fprintf(&b, "[%d earlier entries omitted]\n", lines[first].i)
	}
	for _, l := range lines[first:] {
		b.WriteString(l.text)
		refs[l.ref] = entries[l.i].UUID
	}
	start = len(entries)
	if first < len(lines) {
		start = lines[first].i
	}
	return b.String(), refs, start
}

func (s *core) claudeMaxInput() int {
	if n := s.cfg.Claude.MaxInput; n > 0 {
		return n
	}
	return 60000
}

func (s *core) claudeTimeout() time.Duration {
	if t := s.cfg.Claude.Timeout.Duration; t > 0 {
		return t
	}
	return 3 * time.Minute
}

// spendClaudeRun counts a run against claude.daily_runs (per local day),
// or says the budget is spent.
func (s *core) spendClaudeRun(ctx context.Context) error {
	limit := s.cfg.Claude.DailyRuns
	if limit <= 0 {
		return fmt.Errorf("%w: claude.daily_runs is 0", ErrClaudeUnavailable)
	}
	today := s.now().Format("2006-01-02")
	n := 0
	if v, ok, err := s.st.Setting(ctx, claudeRunsKey); err != nil {
		return err
	} else if ok {
		day, count, _ := strings.Cut(string(v), " ")
		if day == today {
			n, _ = strconv.Atoi(count)
		}
	}
	if n >= limit {
		return fmt.Errorf("%w: the daily budget of %d Claude runs (claude.daily_runs) is spent; the next run is tomorrow", ErrClaudeUnavailable, limit)
	}
	return s.st.SetSetting(ctx, claudeRunsKey, []byte(today+" "+strconv.Itoa(n+1)))
}

// ClaudeArgs are the arguments of a headless run: print mode, the answer
// as JSON validated against schema, the model, system as the system
// prompt, and nothing else: no tools, no MCP servers, no slash commands,
// no hooks and no session kept on disk.
func ClaudeArgs(model, system, schema string) []string {
	return []string{"-p", "--output-format", "json", "--json-schema", schema, "--model", model,
		"--system-prompt", system, "--tools", "", "--strict-mcp-config", "--disable-slash-commands",
		"--no-session-persistence", "--settings", `{"disableAllHooks":true}`}
}

// runClaude runs the extraction's question: prompt (on stdin) under
// claudeSystem, answered in claudeSchema.
func (s *core) runClaude(ctx context.Context, prompt string) (*claudeAnswer, error) {
	var ans claudeAnswer
	if _, err := s.claudeJSON(ctx, claudeSystem, claudeSchema, prompt, &ans); err != nil {
		return nil, err
	}
	return &ans, nil
}

// claudeJSON runs Claude Code headless on prompt (given on stdin) and
// decodes its structured answer, in schema, into out; it returns the
// model's name. Failures wrap ErrClaudeUnavailable and say what to do.
// `cairn ask` uses it too.
func (s *core) claudeJSON(ctx context.Context, system, schema, prompt string, out any) (string, error) {
	bin := s.cfg.Claude.Command
	if bin == "" {
		bin = "claude"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("%w: Claude Code (%q, claude.command) was not found: install it (npm install -g @anthropic-ai/claude-code) or set claude.command to its path", ErrClaudeUnavailable, bin)
	}
	dir, err := os.MkdirTemp("", "cairn-claude-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	timeout := s.claudeTimeout()
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	model := s.cfg.Claude.Model
	if model == "" {
		model = "haiku"
	}
	cmd := exec.CommandContext(rctx, path, ClaudeArgs(model, system, schema)...)
	cmd.Dir = dir // a folder of its own: nothing of a project is read
	cmd.Env = claudeEnv(os.Environ(), s.claudeEnvExtra())
	cmd.Stdin = strings.NewReader(prompt)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// On timeout, SIGTERM first so Claude Code can remove its session
	// files; SIGKILL after WaitDelay if it has not exited.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	if rctx.Err() != nil {
		return "", fmt.Errorf("%w: Claude Code did not answer within %s (claude.timeout)", ErrClaudeUnavailable, timeout)
	}
	if err := decodeClaude(stdout.Bytes(), stderr.String(), runErr, out); err != nil {
		return "", err
	}
	return "claude:" + model, nil
}

// failure is the error a result Claude Code marked as one reports: not
// logged in, or its subtype and what it said.
func (res *claudeResult) failure() error {
	if notLoggedIn(res.Result) {
		return fmt.Errorf("%w: Claude Code is not logged in (%q): run `claude` and log in with /login, or set ANTHROPIC_API_KEY", ErrClaudeUnavailable, cut(oneLine(res.Result), 120))
	}
	msg := fmt.Sprintf("%s: Claude Code answered with an error (%s)", ErrClaudeUnavailable, res.Subtype)
	if r := cut(oneLine(res.Result), 200); r != "" {
		msg += ": " + r
	}
	return fmt.Errorf("%w%s", ErrClaudeUnavailable, strings.TrimPrefix(msg, ErrClaudeUnavailable.Error()))
}

// decodeClaude reads what `claude -p --output-format json` printed.
func decodeClaude(stdout []byte, stderr string, runErr error, out any) error {
	var res claudeResult
	if err := json.Unmarshal(bytes.TrimSpace(stdout), &res); err != nil || res.Type != "result" {
		if runErr != nil {
			return fmt.Errorf("%w: Claude Code failed (%w): %s", ErrClaudeUnavailable, runErr, firstLine(stderr, string(stdout)))
		}
		return fmt.Errorf("%w: Claude Code printed something that is not its JSON result: %s", ErrClaudeUnavailable, firstLine(string(stdout), stderr))
	}
	if res.IsError {
		return res.failure()
	}
	if len(res.Structured) == 0 || string(res.Structured) == "null" {
		return fmt.Errorf("%w: Claude Code did not answer in the requested JSON (it said: %s)", ErrClaudeUnavailable, cut(oneLine(res.Result), 120))
	}
	if err := json.Unmarshal(res.Structured, out); err != nil {
		return fmt.Errorf("%w: Claude Code's answer does not follow the requested JSON (%w)", ErrClaudeUnavailable, err)
	}
	return nil
}

// notLoggedIn reports Claude Code's answer when it has no credentials.
func notLoggedIn(result string) bool {
	l := strings.ToLower(result)
	return strings.Contains(l, "not logged in") || strings.Contains(l, "/login") || strings.Contains(l, "invalid api key")
}

// firstLine is the first non-empty line of the texts, shortened.
func firstLine(texts ...string) string {
	for _, t := range texts {
		for _, l := range strings.Split(t, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				return cut(oneLine(l), 200)
			}
		}
	}
	return "no output"
}

// claudeEnv is the environment of the run: the caller's (its login, PATH
// and proxy settings), without what marks a Claude Code session (the run
// is not nested in one), with ClaudeChildEnv set and extra last.
func claudeEnv(environ, extra []string) []string {
	var env []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_PROJECT_DIR", "CLAUDE_CODE_SSE_PORT", ClaudeChildEnv:
			continue
		}
		env = append(env, kv)
	}
	env = append(env, ClaudeChildEnv+"=1")
	return append(env, extra...)
}

// storeClaudeSummary stores the summary sections Claude wrote for a
// session's new turns, after those of an earlier Claude run of the same
// session; files and notes come from the heuristic summary. A reviewed
// summary (a draft) is kept.
func (s *core) storeClaudeSummary(ctx context.Context, sid string, sec map[string][]string) error {
	_, stored, err := s.storedSummary(ctx, sid)
	if err != nil {
		return err
	}
	if stored != nil && stored.Source != "heuristic" && stored.Source != "ollama" && stored.Source != OriginClaude {
		return nil
	}
	sm, err := s.buildSummary(ctx, sid)
	if err != nil {
		return err
	}
	merged := mergeClaudeSections(stored, sec)
	for _, k := range []string{"Files read", "Files edited", "Notes"} {
		if v := sm.Sections[k]; len(v) > 0 {
			merged[k] = v
		}
	}
	title := strings.TrimPrefix(strings.SplitN(sm.Markdown, "\n", 2)[0], "# ")
	return s.st.Mem().SaveSummary(ctx, &index.SummaryRow{Session: sm.SessionID, Project: sm.Project, Source: OriginClaude,
		Markdown: renderSummary(title, merged, nil), Sections: merged, Created: sm.Created})
}

// mergeClaudeSections is an earlier Claude run's sections (of stored,
// when Claude wrote it) with the new run's lines after them, each line
// once and at most 12 a section.
func mergeClaudeSections(stored *Summary, sec map[string][]string) map[string][]string {
	merged := map[string][]string{}
	if stored != nil && stored.Source == OriginClaude {
		for k, v := range stored.Sections {
			merged[k] = append(merged[k], v...)
		}
	}
	for k, v := range sec {
		for _, l := range v {
			if len(merged[k]) < 12 && !slices.Contains(merged[k], l) {
				merged[k] = append(merged[k], l)
			}
		}
	}
	return merged
}
