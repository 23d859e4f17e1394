package memories

import (
	"context"
	"errors"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
)

// Model is the language model behind extraction, summaries and answers:
// the built-in rules, Ollama or the user's Claude Code. A service holds one,
// chosen once from the configuration (ModelFor); nothing else reads
// memories.extractor. Each adapter owns its policy: when hooks may run it,
// what happens when it cannot answer, which errors mean "use the rules".
type Model interface {
	// Name is how results and logs name the extractor.
	Name() string
	// Policy says when hooks hand extraction to the model.
	Policy() ModelPolicy

	// extract proposes memories from a session's entries; an error
	// wrapping ErrModelUnavailable means the rules read them instead
	// (its text is the notice the user sees).
	extract(ctx context.Context, sid, project string, entries []index.MemEntry) (modelProposals, error)
	// summarize writes a summary's prose sections, nil when the model
	// writes none outside extraction or cannot now.
	summarize(ctx context.Context, sid string) map[string][]string
	// answer has the model answer prompt in JSON (schema) into out and
	// returns "<backend>:<model>"; ErrNoModel when there is none.
	answer(ctx context.Context, system, schema, prompt string, out any) (string, error)
}

// ModelPolicy is when hooks hand extraction to a model.
type ModelPolicy struct {
	// InHook: the hook's own indexing proposes memories (the built-in
	// rules, in milliseconds); otherwise a detached run does.
	InHook bool
	// EveryTurn: a detached run may follow any indexing event (at most
	// one per few minutes); otherwise only SessionEnd and PreCompact (a
	// run per turn would spend Claude's daily runs; the cursor keeps the
	// turns for then).
	EveryTurn bool
	// WholeSession: a detached run reads every new entry (the model takes
	// what fits, the rules the rest), not a bounded slice at a time.
	WholeSession bool
	// OllamaModel is the Ollama chat model extraction calls ("" none):
	// what `cairn doctor` checks is pulled.
	OllamaModel string
}

// BuiltinName is the built-in rules' name as an extractor.
const BuiltinName = "builtin"

// ErrModelUnavailable is what a model's failure wraps when the built-in
// rules should stand in (not running, not installed, no time left).
var ErrModelUnavailable = errors.New("the model is unavailable")

// modelProposals is what a model proposed from a session's entries.
type modelProposals struct {
	news []NewMemory
	// sections is the summary the model wrote, if it did.
	sections map[string][]string
}

// ModelFor is the model cfg chooses; s may be nil for its name and policy.
func ModelFor(cfg config.Config, s *core) Model {
	switch cfg.Memories.Extractor {
	case "ollama":
		return &ollamaModel{s: s, chat: cfg.Ollama.ChatModel}
	case "claude":
		return &claudeModel{s: s}
	}
	return &builtinModel{s: s}
}

// builtinModel is the rules alone; Ollama answers questions when
// ollama.chat_model is set.
type builtinModel struct{ s *core }

func (m *builtinModel) Name() string        { return BuiltinName }
func (m *builtinModel) Policy() ModelPolicy { return ModelPolicy{InHook: true, EveryTurn: true} }

func (m *builtinModel) extract(_ context.Context, sid, project string, entries []index.MemEntry) (modelProposals, error) {
	return modelProposals{news: builtinProposals(sid, project, entries)}, nil
}

func (m *builtinModel) summarize(context.Context, string) map[string][]string { return nil }

func (m *builtinModel) answer(ctx context.Context, system, schema, prompt string, out any) (string, error) {
	if m.s.cfg.Ollama.ChatModel == "" {
		return "", ErrNoModel
	}
	return m.s.ollamaAnswer(ctx, system, schema, prompt, out)
}

// ollamaModel is a local Ollama chat model.
type ollamaModel struct {
	s    *core
	chat string // ollama.chat_model
}

func (m *ollamaModel) Name() string { return OriginOllama }
func (m *ollamaModel) Policy() ModelPolicy {
	return ModelPolicy{EveryTurn: true, OllamaModel: m.chat}
}

func (m *ollamaModel) extract(ctx context.Context, sid, project string, entries []index.MemEntry) (modelProposals, error) {
	if !roomForModel(ctx) {
		return modelProposals{}, errNoTime("Ollama", "`cairn extract` uses Ollama")
	}
	news, err := m.s.ollamaExtract(ctx, sid, project, entries)
	return modelProposals{news: news}, err
}

func (m *ollamaModel) summarize(ctx context.Context, sid string) map[string][]string {
	if !roomForModel(ctx) {
		return nil
	}
	entries, err := m.s.st.Mem().Entries(ctx, sid, 0, 0)
	if err != nil {
		return nil
	}
	sec, err := m.s.ollamaSummary(ctx, entries)
	if err != nil {
		return nil // unreachable: the heuristic summary stands
	}
	return sec
}

func (m *ollamaModel) answer(ctx context.Context, system, schema, prompt string, out any) (string, error) {
	if m.s.cfg.Ollama.ChatModel == "" {
		return "", ErrNoModel
	}
	return m.s.ollamaAnswer(ctx, system, schema, prompt, out)
}

// claudeModel is the user's Claude Code, run headless.
type claudeModel struct {
	s *core
	// env is added to the run's environment (tests: a fake Messages API
	// and a scratch home).
	env []string
}

func (m *claudeModel) Name() string        { return OriginClaude }
func (m *claudeModel) Policy() ModelPolicy { return ModelPolicy{WholeSession: true} }

func (m *claudeModel) extract(ctx context.Context, sid, project string, entries []index.MemEntry) (modelProposals, error) {
	if !roomForModel(ctx) {
		return modelProposals{}, errNoTime("Claude Code", "the hooks run Claude after SessionEnd and PreCompact")
	}
	news, sections, head, err := m.s.claudeExtract(ctx, sid, project, entries)
	if err != nil {
		return modelProposals{}, err
	}
	// Entries too old to fit claude.max_input: the built-in rules.
	return modelProposals{news: append(builtinProposals(sid, project, head), news...), sections: sections}, nil
}

// summarize: Claude writes the summary with the memories (extract).
func (m *claudeModel) summarize(context.Context, string) map[string][]string { return nil }

func (m *claudeModel) answer(ctx context.Context, system, schema, prompt string, out any) (string, error) {
	return m.s.claudeJSON(ctx, system, schema, prompt, out)
}

// errNoTime is the notice of a model skipped for lack of time.
func errNoTime(who, later string) error {
	return &unavailable{msg: "no time for " + who + " within this call's deadline (" + later + ")"}
}

// unavailable is a model failure the rules stand in for, with its own
// message (the notice says what was used instead).
type unavailable struct{ msg string }

func (e *unavailable) Error() string { return e.msg }
func (e *unavailable) Unwrap() error { return ErrModelUnavailable }

// claudeEnvExtra is what the Claude model adds to its run's environment.
func (s *core) claudeEnvExtra() []string {
	if m, ok := s.model.(*claudeModel); ok {
		return m.env
	}
	return nil
}

// Model is the model the service uses.
func (s *core) Model() Model { return s.model }
