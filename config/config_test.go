package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// mustLoad loads the settings of dataDir, failing the test on an error.
func mustLoad(t *testing.T, dataDir string) Config {
	t.Helper()
	c, err := Load(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestMissingFileGivesDefaults(t *testing.T) {
	t.Setenv("CAIRN_CONFIG", "")
	t.Setenv("OLLAMA_HOST", "")
	c := mustLoad(t, t.TempDir())
	d := Default()
	if c.Hooks.PromptTokens != 500 || c.Hooks.SessionStartTokens != 1500 || c.Embedder.Kind != "builtin" || c.Ollama.EmbedModel != d.Ollama.EmbedModel {
		t.Fatalf("defaults not applied: %+v", c)
	}
}

func TestFileOverridesDefaults(t *testing.T) {
	t.Setenv("CAIRN_CONFIG", "")
	dir := write(t, `
[embedder]
kind = "ollama"
[ollama]
host = "http://127.0.0.1:9999"
timeout = "5s"
[memories]
auto_approve = ["preference", "decision"]
[hooks]
prompt_tokens = 300
`)
	c := mustLoad(t, dir)
	if c.Embedder.Kind != "ollama" || c.Ollama.Host != "http://127.0.0.1:9999" || c.Ollama.Timeout.Duration != 5*time.Second {
		t.Fatalf("ollama settings: %+v", c.Ollama)
	}
	if len(c.Memories.AutoApprove) != 2 || c.Hooks.PromptTokens != 300 || c.Hooks.SessionStartTokens != 1500 {
		t.Fatalf("partial override lost defaults: %+v", c)
	}
}

func TestOllamaHostFromEnv(t *testing.T) {
	t.Setenv("CAIRN_CONFIG", "")
	t.Setenv("OLLAMA_HOST", "127.0.0.1:5555")
	c := mustLoad(t, t.TempDir())
	if c.Ollama.Host != "127.0.0.1:5555" {
		t.Fatalf("host %q", c.Ollama.Host)
	}
}

func TestBadFilesNameTheProblem(t *testing.T) {
	t.Setenv("CAIRN_CONFIG", "")
	for name, tc := range map[string]struct{ text, want string }{
		"syntax":   {"[hooks\nprompt_tokens = 3", "config.toml:"},
		"unknown":  {"[hooks]\nprompt_tokenz = 3", "prompt_tokenz"},
		"kind":     {"[embedder]\nkind = \"magic\"", "embedder.kind"},
		"negative": {"[hooks]\nprompt_tokens = -1", "hooks.prompt_tokens"},
		"duration": {"[ollama]\ntimeout = \"soon\"", "duration"},
		"chat":     {"[memories]\nextractor = \"ollama\"", "chat_model"},
	} {
		_, err := Load(write(t, tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to mention %q", name, err, tc.want)
		}
	}
}

func TestMarshalRoundTrips(t *testing.T) {
	t.Setenv("CAIRN_CONFIG", "")
	t.Setenv("OLLAMA_HOST", "")
	b, err := Marshal(Default())
	if err != nil {
		t.Fatal(err)
	}
	dir := write(t, string(b))
	c, err := Load(dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if c.Ollama.Timeout != Default().Ollama.Timeout || c.Hooks != Default().Hooks {
		t.Fatalf("round trip changed settings: %+v", c)
	}
}
