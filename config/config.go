// Package config loads cairn's settings from a TOML file in the data dir
// (config.toml, or the file named by $CAIRN_CONFIG). Every setting has a
// default, so a missing file is the normal case; a file that does not parse
// is an error that names the file, line and key.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// FileName is the config file inside the data dir.
const FileName = "config.toml"

// Config is every setting cairn reads.
type Config struct {
	Embedder Embedder `toml:"embedder" comment:"which embedder makes vectors for hybrid search"`
	Ollama   Ollama   `toml:"ollama" comment:"a local Ollama server (optional; cairn works fully without it)"`
	Index    Index    `toml:"index" comment:"what the store keeps"`
	Search   Search   `toml:"search" comment:"ranking defaults for cairn search"`
	Memories Memories `toml:"memories" comment:"memory extraction, review and CLAUDE.md"`
	Claude   Claude   `toml:"claude" comment:"your own Claude Code, run headless (claude -p) for memories.extractor = \"claude\""`
	Hooks    Hooks    `toml:"hooks" comment:"what the Claude Code hooks inject"`
	Backup   Backup   `toml:"backup" comment:"automatic rolling backups of the store (cairn backup makes one by hand)"`
}

// Embedder chooses the vector space.
type Embedder struct {
	// Kind is "builtin" (an LSA model trained on your own transcripts;
	// needs nothing installed), "ollama", or "none" (text search only).
	Kind string `toml:"kind" comment:"builtin (an LSA model trained on your own transcripts) | ollama | none (text search only)"`
}

// Ollama configures the Ollama client. Host defaults to $OLLAMA_HOST, else
// 127.0.0.1:11434.
type Ollama struct {
	Host       string   `toml:"host" comment:"default: $OLLAMA_HOST, else http://127.0.0.1:11434"`
	EmbedModel string   `toml:"embed_model" comment:"embedding model"`
	Dimensions int      `toml:"dimensions" comment:"embedding size to truncate to; 0: the model's own size"`
	ChatModel  string   `toml:"chat_model" comment:"model for memory extraction and summaries, e.g. qwen3:4b; empty: the built-in extractor"`
	Timeout    Duration `toml:"timeout" comment:"per request"`
	BatchSize  int      `toml:"batch_size" comment:"inputs per /api/embed call"`
}

// Index tunes what is stored.
type Index struct {
	// ToolOutputHead and ToolOutputTail are the characters of each tool
	// result kept for search and display (the middle is dropped).
	ToolOutputHead int `toml:"tool_output_head" comment:"characters kept from the start of each tool output"`
	ToolOutputTail int `toml:"tool_output_tail" comment:"characters kept from the end of each tool output (the middle is dropped)"`
	// Exclude keeps projects out of indexing, extraction and injection.
	Exclude []string `toml:"exclude" comment:"project paths or globs never indexed, e.g. [\"~/work/secret\", \"~/clients/*\"]; a .cairnignore file in a project folder does the same"`
}

// Search tunes ranking.
type Search struct {
	Fusion       string  `toml:"fusion" comment:"weighted | rrf"`
	VectorWeight float64 `toml:"vector_weight" comment:"0: the measured default"`
	Recency      bool    `toml:"recency" comment:"favour recent results after fusion"`
}

// Memories tunes extraction and review.
type Memories struct {
	// AutoApprove lists memory types that skip the review inbox.
	AutoApprove []string `toml:"auto_approve" comment:"memory types approved without review, e.g. [\"preference\"]; empty: review everything"`
	// RememberStatus is the status of memories added with /remember or
	// memory_remember: "pending" (default) or "approved".
	RememberStatus string `toml:"remember_status" comment:"pending | approved: the status of memories added with /remember and memory_remember"`
	// Extractor is "builtin" (default), "ollama" (uses ollama.chat_model)
	// or "claude" (runs the user's Claude Code headless after a session,
	// see Claude).
	Extractor string `toml:"extractor" comment:"builtin | ollama (needs ollama.chat_model) | claude (your Claude Code, after SessionEnd and PreCompact)"`
	// MinRelevance is the ranking threshold for recall and injection.
	MinRelevance float64 `toml:"min_relevance" comment:"ranking threshold for recall and injection"`
	// SyncLines is the line budget of the CLAUDE.md block.
	SyncLines int `toml:"sync_lines" comment:"line budget of the CLAUDE.md block"`
	// RetentionDays is how long retired memories are kept (consolidation).
	RetentionDays int `toml:"retention_days" comment:"days archived, superseded and rejected memories are kept before consolidation prunes them"`
	// MCPGlobal lets the MCP server change global memories (no project).
	// Whatever it says, the server changes only its own project's
	// memories, never another project's.
	MCPGlobal bool `toml:"mcp_global" comment:"true: Claude's MCP tools (memory_correct, memory_forget, memory_remember) may change global memories too; false: only the current project's, and a global memory_remember is a pending proposal"`
}

// Claude configures the Claude extractor: a detached process runs
// `claude -p` with a session's new turns after SessionEnd or PreCompact.
type Claude struct {
	Command   string   `toml:"command" comment:"the Claude Code binary; default: claude on PATH"`
	Model     string   `toml:"model" comment:"model alias or name passed to claude --model"`
	Timeout   Duration `toml:"timeout" comment:"per run; a run that takes longer is stopped and the built-in extractor used"`
	DailyRuns int      `toml:"daily_runs" comment:"Claude runs a day at most (then the built-in extractor); 0: never run Claude"`
	MaxInput  int      `toml:"max_input" comment:"characters of condensed transcript sent per run (the newest turns are kept)"`
}

// Hooks tunes what the Claude Code hooks inject.
type Hooks struct {
	SessionStartTokens int     `toml:"session_start_tokens" comment:"token budget of what is injected at session start"`
	PromptTokens       int     `toml:"prompt_tokens" comment:"token budget of what is injected on a prompt"`
	PromptThreshold    float64 `toml:"prompt_threshold" comment:"minimum relevance for a memory to be injected on a prompt"`
	Summaries          int     `toml:"summaries" comment:"session summaries shown at session start"`
}

// Backup is the automatic rolling backup, made at most once a day by the
// hooks' background work.
type Backup struct {
	Keep int    `toml:"keep" comment:"backups kept (the oldest is deleted); 0: no automatic backups"`
	Dir  string `toml:"dir" comment:"where automatic backups go; default: <data dir>/backups"`
}

// Folder is where the automatic backups of the store in dataDir go: Dir
// (a leading ~/ is the home folder), else dataDir/backups.
func (b Backup) Folder(dataDir string) string {
	switch {
	case b.Dir == "":
		return filepath.Join(dataDir, "backups")
	case strings.HasPrefix(b.Dir, "~/"):
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, b.Dir[2:])
		}
	}
	return b.Dir
}

// Duration is a time.Duration written as "30s" in TOML.
type Duration struct{ time.Duration }

// MarshalText writes the duration as Go does ("1m30s").
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses "30s", "2m" and the like.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(strings.TrimSpace(string(b)))
	if err != nil {
		return fmt.Errorf("%q is not a duration (write e.g. \"30s\" or \"2m\")", string(b))
	}
	d.Duration = v
	return nil
}

// Default returns the settings used when nothing is configured.
func Default() Config {
	return Config{
		Embedder: Embedder{Kind: "builtin"},
		Ollama: Ollama{
			EmbedModel: "nomic-embed-text",
			Timeout:    Duration{30 * time.Second},
			BatchSize:  32,
		},
		Index:    Index{ToolOutputHead: 1200, ToolOutputTail: 400, Exclude: []string{}},
		Search:   Search{Fusion: "weighted"},
		Memories: Memories{RememberStatus: "pending", Extractor: "builtin", MinRelevance: 0.2, SyncLines: 150, RetentionDays: 180},
		Claude:   Claude{Command: "claude", Model: "haiku", Timeout: Duration{3 * time.Minute}, DailyRuns: 20, MaxInput: 60000},
		Hooks: Hooks{
			SessionStartTokens: 1500,
			PromptTokens:       500,
			PromptThreshold:    0.35,
			Summaries:          3,
		},
	}
}

// Path returns the config file cairn reads for dataDir: $CAIRN_CONFIG when
// set, else dataDir/config.toml.
func Path(dataDir string) string {
	if p := os.Getenv("CAIRN_CONFIG"); p != "" {
		return p
	}
	return filepath.Join(dataDir, FileName)
}

// Load reads the config for dataDir over the defaults. A missing file gives
// the defaults; unknown keys and bad values are errors naming the file.
func Load(dataDir string) (Config, error) {
	return LoadFile(Path(dataDir))
}

// LoadFile reads one config file over the defaults.
func LoadFile(path string) (Config, error) {
	c := Default()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c.withEnv(), nil
	}
	if err != nil {
		return c, fmt.Errorf("reading config %s: %w", path, err)
	}
	dec := toml.NewDecoder(bytes.NewReader(b)).DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		var sm *toml.StrictMissingError
		if errors.As(err, &sm) {
			var keys []string
			for _, e := range sm.Errors {
				row, _ := e.Position()
				keys = append(keys, fmt.Sprintf("%s (line %d)", strings.Join(e.Key(), "."), row))
			}
			return Default(), fmt.Errorf("config %s: unknown setting %s (`cairn config` prints every setting)", path, strings.Join(keys, ", "))
		}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return Default(), fmt.Errorf("config %s:%d:%d: %s (fix or delete the file; `cairn config` prints the defaults)", path, row, col, de.Error())
		}
		return Default(), fmt.Errorf("config %s: %w", path, err)
	}
	if err := c.validate(); err != nil {
		return Default(), fmt.Errorf("config %s: %w", path, err)
	}
	return c.withEnv(), nil
}

// withEnv applies environment overrides: $OLLAMA_HOST fills an unset host.
func (c Config) withEnv() Config {
	if c.Ollama.Host == "" {
		c.Ollama.Host = os.Getenv("OLLAMA_HOST")
	}
	return c
}

func (c *Config) validate() error {
	switch c.Embedder.Kind {
	case "builtin", "ollama", "none":
	default:
		return fmt.Errorf("embedder.kind = %q: use builtin, ollama or none", c.Embedder.Kind)
	}
	switch c.Search.Fusion {
	case "weighted", "rrf":
	default:
		return fmt.Errorf("search.fusion = %q: use weighted or rrf", c.Search.Fusion)
	}
	switch c.Memories.RememberStatus {
	case "pending", "approved":
	default:
		return fmt.Errorf("memories.remember_status = %q: use pending or approved", c.Memories.RememberStatus)
	}
	switch c.Memories.Extractor {
	case "builtin", "ollama", "claude":
	default:
		return fmt.Errorf("memories.extractor = %q: use builtin, ollama or claude", c.Memories.Extractor)
	}
	if c.Memories.Extractor == "claude" && strings.TrimSpace(c.Claude.Command) == "" {
		return errors.New("memories.extractor = \"claude\" needs claude.command (default \"claude\")")
	}
	if c.Claude.Timeout.Duration < 0 {
		return fmt.Errorf("claude.timeout = %s: must not be negative", c.Claude.Timeout.Duration)
	}
	if c.Memories.Extractor == "ollama" && c.Ollama.ChatModel == "" {
		return errors.New("memories.extractor = \"ollama\" needs ollama.chat_model")
	}
	for _, n := range []struct {
		name string
		v    int
	}{
		{"hooks.session_start_tokens", c.Hooks.SessionStartTokens},
		{"hooks.prompt_tokens", c.Hooks.PromptTokens},
		{"index.tool_output_head", c.Index.ToolOutputHead},
		{"index.tool_output_tail", c.Index.ToolOutputTail},
		{"memories.sync_lines", c.Memories.SyncLines},
		{"ollama.batch_size", c.Ollama.BatchSize},
		{"backup.keep", c.Backup.Keep},
		{"memories.retention_days", c.Memories.RetentionDays},
		{"claude.daily_runs", c.Claude.DailyRuns},
		{"claude.max_input", c.Claude.MaxInput},
	} {
		if n.v < 0 {
			return fmt.Errorf("%s = %d: must not be negative", n.name, n.v)
		}
	}
	return c.checkBounds()
}

// Marshal writes c as TOML with comments (what `cairn config` prints).
func Marshal(c Config) ([]byte, error) {
	return toml.Marshal(c)
}
